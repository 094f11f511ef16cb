"""What the readers share: whole epochs, warmup as an exact ratio, the model named, datasets
found beside the config."""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

from ...trust import inside, special
from .base import DatasetRef, Keys, Setting, number


def epochs(keys: Keys, key: str, plan: dict[str, Setting]) -> None:
    """A trainer's epochs (a float to most trainers) as ftlint's whole epochs; a
    fraction is said, and left to the trainer's default (give --max-steps)."""
    found = keys.count_or_number(key)
    if found is None:
        return
    if isinstance(found.value, int) and found.value >= 1:
        plan["epochs"] = found
        return
    value = float(found.value)  # type: ignore[arg-type]
    if value.is_integer() and value >= 1:
        plan["epochs"] = Setting(int(value), found.source)
    else:
        keys.note(f"{key} {value:g}: ftlint plans whole epochs; give --epochs or --max-steps for this run's length")


def count(keys: Keys, key: str, option: str, table: dict[str, Setting], minimum: int = 1) -> None:
    """A whole number the trainer takes, as an ftlint option; a value below `minimum` (transformers'
    max_steps -1: none) is the trainer's way of saying unset."""
    found = keys.setting(key, "int")
    if found is not None and int(found.value) >= minimum:  # type: ignore[call-overload]
        table[option] = found


def warmup(keys: Keys, plan: dict[str, Setting], ratio_key: str = "warmup_ratio", steps_key: str = "warmup_steps") -> None:
    ratio = keys.get(ratio_key, "number")
    if ratio is not None:
        if not 0 <= float(ratio) <= 1:  # type: ignore[arg-type]
            from .base import RunConfigError

            raise RunConfigError(f"{keys.path}: {ratio_key} = {ratio!r}: expected a share of the steps, 0 to 1")
        plan["warmup_ratio"] = Setting(Fraction(str(ratio)), f"{ratio_key} {ratio:g} from {keys.name}")
    found = keys.count_or_number(steps_key)
    steps = found.value if found is not None else None
    if steps is not None and ratio is None:
        if isinstance(steps, int):
            plan["warmup_steps"] = found  # type: ignore[assignment]
        elif float(steps).is_integer():  # type: ignore[arg-type]
            plan["warmup_steps"] = Setting(int(steps), f"{steps_key} {int(steps)} from {keys.name}")  # type: ignore[call-overload]
        elif 0 < float(steps) < 1:  # type: ignore[arg-type]
            # transformers 5 takes a warmup_steps below 1 as a ratio (TrainingArguments.get_warmup_steps)
            plan["warmup_ratio"] = Setting(Fraction(str(steps)), f"{steps_key} {steps} from {keys.name} (below 1: a ratio)")


def learning_rate(keys: Keys, key: str, plan: dict[str, Setting], where: dict | None = None, shown: str | None = None) -> None:
    raw = (keys.doc if where is None else where).get(key)
    value = number(raw, shown or key, keys)
    if value is not None:
        plan["learning_rate"] = Setting(value, f"{shown or key} {value:g} from {keys.name}")


def model(keys: Keys, key: str, run: dict[str, Setting], prefix: str = "", folders: bool = True) -> None:
    """The model the config names, as the catalog's entry (a provider's models are named with
    the provider's prefix there: PROVIDER/...), or a note that the catalog has none; a
    self-hosted run's name as names.named reads it (a model folder, a name rule, or a model
    ftlint does not know, which the figures say)."""
    from ...models import UnknownModel, get_model

    name = keys.get(key, "str")
    if not isinstance(name, str) or not name:
        return
    source = f"{key} {name} from {keys.name}"
    if not prefix and keys.models is not None:
        found = keys.models(Path(keys.path).parent, key, name, folders)
        for option, value in (("model_name", found.model), ("tokenizer", found.folder), ("chat_template", found.template and found.folder)):
            if value:
                run[option] = Setting(value, source)
        if found.note:
            keys.note(found.note)
        return
    try:  # a provider's job runs the provider's models only
        run["model_name"] = Setting(get_model(f"{prefix}{name}").name, source)
    except UnknownModel:
        # how the counts are made without it is said once, beside them (plan/exactness.py)
        keys.note(f"{key} {name}: not in ftlint's catalog (give --model for one it knows, or --tokenizer and --chat-template "
                  "for this one's own)")


def dataset(keys: Keys, path: str, kind: str = "", mapping: str | None = None, root: Path | None = None) -> DatasetRef:
    """A dataset the config names. A trainer reads a relative name from where it runs (axolotl's
    utils/data/shared.py: Path(dataset_config.path).exists(); TRL's load_dataset; mistral-finetune's
    open; Together's upload), and so does ftlint, inside the working directory; a name found only
    beside the run config is read there, inside the config's folder, and said (the trainer, run from
    here, would not find it); a file outside the folder it is read from is refused; anything else (a
    Hub id) is said, to be given as PATH. `root`: the folder the trainer reads names from when the
    config says (LLaMA-Factory's dataset_dir), which the file must be inside."""
    if not path or "\x00" in path:
        return DatasetRef(path, kind, None, mapping)
    here, beside = Path.cwd(), Path(keys.path).parent
    folder = root or (here if (here / path).exists() else beside)
    candidate = folder / path
    if not candidate.exists():
        return DatasetRef(path, kind, None, mapping)
    from .base import RunConfigError

    if not inside(candidate, folder):
        where = "the folder of the run config" if folder == beside else "the working directory"
        raise RunConfigError(f"{keys.path}: dataset {path!r}: outside {folder.resolve()}, {where}; a run config names "
                             "files inside the working directory or its own folder (give a path outside them as PATH)")
    what = special(candidate)
    if what is not None:  # a FIFO or a device would block the reader, or never end
        raise RunConfigError(f"{keys.path}: dataset {path!r}: {what}, not a regular file or a folder")
    if root is None and folder == beside and beside.resolve() != here.resolve():
        keys.note(f"dataset {path}: read from the run config's folder; the trainer reads it from where it runs, which has "
                  f"no {path}: run it from the config's folder")
    return DatasetRef(path, kind, str(candidate.resolve()), mapping)


# transformers' TrainingArguments defaults, for a config that hands its keys to transformers' Trainer
TRAINING_ARGUMENTS_UNSET = {
    "epochs": "num_train_epochs 3: transformers' default (TrainingArguments.num_train_epochs=3.0)",
    "batch_size": "per_device_train_batch_size 8: transformers' default (TrainingArguments)",
}


def training_arguments(keys: Keys, plan: dict[str, Setting]) -> None:
    """The keys of transformers' TrainingArguments that decide the figures (the configs of the
    trainers that run transformers' Trainer take them: transformers/training_args.py TrainingArguments)."""
    count(keys, "per_device_train_batch_size", "batch_size", plan)
    count(keys, "gradient_accumulation_steps", "grad_accum", plan)
    epochs(keys, "num_train_epochs", plan)
    count(keys, "max_steps", "max_steps", plan)
    warmup(keys, plan)
    learning_rate(keys, "learning_rate", plan)

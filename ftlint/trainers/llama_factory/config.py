"""A LLaMA-Factory training YAML (examples/train_lora/*.yaml) with the dataset_info.json of its
dataset_dir, as hiyouga/LLaMA-Factory@ff6d4d1 reads them: src/llamafactory/hparams/data_args.py
DataArguments (dataset, eval_dataset, dataset_dir="data", template, cutoff_len=2048,
train_on_prompt, mask_history, packing, neat_packing, val_size, max_samples,
preprocessing_batch_size=1000, preprocessing_num_workers, mix_strategy="concat", streaming,
tokenized_path, enable_thinking=True, preserve_thinking, default_system, tool_format, and
__post_init__'s checks), finetuning_args.py (stage="sft"), hparams/parser.py (its checks, and
packing on for stage pt), over transformers' TrainingArguments (num_train_epochs=3.0,
per_device_train_batch_size=8, gradient_accumulation_steps=1, max_steps=-1, warmup_ratio,
warmup_steps, learning_rate, seed=42); data/parser.py get_dataset_list (names in dataset_info.json).

Every key that changes a figure is applied: what the renderer and the rows read goes into the
RunConfig's `keys` (render.py, rows.py); a key whose effect ftlint does not model is an error
naming the key (exit 2), never figures printed as if it were applied.

LLaMA-Factory takes dataset_dir from where it runs (`llamafactory-cli train examples/x.yaml` from
its repository's root reads data/dataset_info.json there); so does ftlint when that folder holds a
dataset_info.json, its files read inside the working directory; else from the config's own folder
(a config kept beside its data), which is said."""

from __future__ import annotations

from pathlib import Path

from ..configs.base import DatasetRef, Keys, RunConfig, RunConfigError, Setting
from ..configs.common import TRAINING_ARGUMENTS_UNSET, dataset, model, training_arguments
from .templates import REGISTERED, TEMPLATES

STAGES = ("pt", "sft", "rm", "ppo", "dpo", "kto")
UNSET = {
    **TRAINING_ARGUMENTS_UNSET,
    "max_seq_len": "cutoff_len 2048: LLaMA-Factory's default (src/llamafactory/hparams/data_args.py DataArguments.cutoff_len)",
}
# what the renderer reads as it is written (render.py Options), and what the rows read (rows.py)
FLAGS = ("train_on_prompt", "mask_history", "enable_thinking", "preserve_thinking")
TEXTS = ("default_system", "tool_format")


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    model(keys, "model_name_or_path", run)
    stage = str(keys.get("stage", "str") or "sft")
    if stage not in STAGES:
        raise RunConfigError(f"{keys.path}: stage = {stage!r}: expected one of {', '.join(STAGES)}")
    _refused(keys, stage)
    own: dict[str, object] = {"stage": stage}
    own.update(_template(keys, stage))
    for key in FLAGS:
        if (value := keys.get(key, "bool")) is not None:
            own[key] = value
    for key in TEXTS:
        if (value := keys.get(key, "str")) is not None:
            own[key] = value
    _cutoff(keys, stage, run, plan, own)
    training_arguments(keys, plan)
    for key, option in (("seed", "seed"), ("preprocessing_batch_size", "batch"), ("preprocessing_num_workers", "workers")):
        if (value := keys.get(key, "int")) is not None:
            own[option] = value
    names, evals = _names(keys, "dataset"), _names(keys, "eval_dataset")
    folder, root = _dataset_dir(keys, bool(names or evals))
    info = _info(keys, folder, root, [*names, *evals])  # read once, for every name
    datasets = tuple(_entry(keys, info, folder, root, name, stage) for name in names)
    validation = [_entry(keys, info, folder, root, name, stage) for name in evals]
    own["columns"] = ",".join(sorted({c for name in names for c in _columns(info.get(name, {}))}))
    split = _split(keys, evals, own)
    if (found := keys.get("max_samples", "int")) is not None:
        run["rows_per_file"] = Setting(found, f"max_samples {found} from {keys.name}: LLaMA-Factory reads the first "
                                              f"{found:,} rows of each dataset (src/llamafactory/data/loader.py _load_single_dataset)")
    if split is not None or own.get("packing"):
        run["keep_order"] = Setting(True, "the rows' order: LLaMA-Factory's split and packing follow it")
    unset = tuple(v for k, v in UNSET.items() if k not in plan or plan[k].source == v)
    return RunConfig("llama-factory", keys.path, "llama-factory", run, plan, datasets, validation[0] if validation else None,
                     split, tuple(keys.notes), unset, own)


def _refused(keys: Keys, stage: str) -> None:
    """What LLaMA-Factory itself refuses (data_args.py __post_init__, hparams/parser.py), and what
    it does that ftlint does not model: an error naming the key."""
    def no(key: str, why: str) -> None:
        raise RunConfigError(f"{keys.path}: {key}: {why}")

    if stage == "ppo":
        no("stage ppo", "PPO generates its answers while it trains; ftlint does not model its rows or steps")
    if stage != "sft":
        for key in ("neat_packing", "train_on_prompt", "mask_history"):
            if keys.get(key, "bool"):
                no(key, f"LLaMA-Factory refuses it for stage {stage} (\"cannot be set as True except SFT\")")
    if keys.get("train_on_prompt", "bool") and keys.get("mask_history", "bool"):
        no("mask_history", "LLaMA-Factory refuses it with train_on_prompt (\"`mask_history` is incompatible with `train_on_prompt`\")")
    if keys.get("streaming", "bool"):
        no("streaming", "LLaMA-Factory shuffles the stream in a buffer; ftlint does not model which rows it takes")
    if keys.get("tokenized_path", "str") is not None:
        no("tokenized_path", "LLaMA-Factory may load rows tokenized earlier and ignore the data; give the data without it")
    if keys.get("mix_strategy", "str") not in (None, "concat"):
        no(f"mix_strategy {keys.get('mix_strategy', 'str')}", "interleaved datasets are sampled; ftlint models concat only")
    if keys.get("eval_on_each_dataset", "bool"):
        keys.note("eval_on_each_dataset: each eval dataset is evaluated on its own (the training figures do not change)")


def _template(keys: Keys, stage: str) -> dict[str, object]:
    name = keys.get("template", "str")
    if name is None:
        if stage != "pt":
            keys.note("template not set: LLaMA-Factory parses the model's chat template into its slots "
                      "(data/template.py parse_template); ftlint renders the model's template as transformers does, an estimate")
        return {}
    if name not in REGISTERED:
        raise RunConfigError(f"{keys.path}: template = {name!r}: LLaMA-Factory has no such template "
                             "(\"Template ... does not exist.\", data/template.py get_template_and_fix_tokenizer)")
    if name not in TEMPLATES:
        keys.note(f"template {name}: LLaMA-Factory's own (data/template.py), not one ftlint renders; "
                  "counted with the model's chat template, an estimate")
    elif TEMPLATES[str(name)].efficient_eos and keys.get("train_on_prompt", "bool"):
        raise RunConfigError(f"{keys.path}: train_on_prompt: LLaMA-Factory refuses it with template {name} "
                             "(\"Current template does not support `train_on_prompt`.\")")
    return {"template": name}


def _cutoff(keys: Keys, stage: str, run: dict[str, Setting], plan: dict[str, Setting], own: dict[str, object]) -> None:
    """cutoff_len, one less when packing or neat_packing is set (DataArguments.__post_init__); packing
    on by default for stage pt (hparams/parser.py)."""
    neat = bool(keys.get("neat_packing", "bool"))
    given = keys.get("packing", "bool")
    cutoff = keys.setting("cutoff_len", "int")
    length = int(cutoff.value) if cutoff is not None else 2048  # type: ignore[call-overload]
    source = cutoff.source if cutoff is not None else UNSET["max_seq_len"]
    if given or neat:
        length -= 1
        source += (f", less one: {'neat_packing' if neat else 'packing'} true lowers it "
                   "(src/llamafactory/hparams/data_args.py __post_init__)")
    if length < 1:
        raise RunConfigError(f"{keys.path}: cutoff_len = {length + (1 if given or neat else 0)}: expected at least 1")
    packing = bool(given or neat) if given is not None or neat else stage == "pt"
    run["max_seq_len"] = plan["max_seq_len"] = Setting(length, source)
    own["packing"] = packing
    if packing:
        own["cutoff"] = length
        why = ("packing true" if given else "neat_packing true" if neat else
               "stage pt: LLaMA-Factory packs pretraining text unless packing is false (hparams/parser.py)")
        plan["packing"] = Setting(True, f"{why} from {keys.name}")


def _split(keys: Keys, evals: list[str], own: dict[str, object]) -> Setting | None:
    """val_size: a share (below 1) or a count of the training rows, held out by datasets'
    train_test_split (data/data_utils.py split_dataset); not with an eval_dataset."""
    split = keys.setting("val_size", "number")
    if split is None or float(split.value) <= 1e-6:  # type: ignore[arg-type]
        return None
    value = float(split.value)  # type: ignore[arg-type]
    if evals:
        raise RunConfigError(f"{keys.path}: val_size: LLaMA-Factory refuses it with eval_dataset "
                             "(\"Cannot specify `val_size` if `eval_dataset` is not None.\")")
    if value == 1 or (value > 1 and not value.is_integer()):
        raise RunConfigError(f"{keys.path}: val_size = {split.value!r}: a share below 1 or a whole number of rows "
                             "(datasets' train_test_split refuses it)")
    own["val_size"] = value
    return split


def _columns(entry: object) -> list[str]:
    """The optional columns a dataset_info.json entry names (data/parser.py DatasetAttr.join)."""
    if not isinstance(entry, dict):
        return []
    named = [k for k, v in (entry.get("columns") or {}).items() if v is not None]
    return [c for c in named if c in ("system", "tools", "history", "kto_tag", "chosen", "rejected")] + \
        (["chosen", "rejected"] if entry.get("ranking") else [])


def _names(keys: Keys, key: str) -> list[str]:
    value = keys.get(key, "str|list")
    if value is None:
        return []
    names: list[object] = list(value.split(",")) if isinstance(value, str) else list(value) if isinstance(value, list) else []
    return keys.bounded(key, [str(n).strip() for n in names if str(n).strip()])


def _dataset_dir(keys: Keys, named: bool) -> tuple[Path, Path]:
    """The folder of dataset_info.json, and the root its files are read inside: the working
    directory, or the config's folder. LLaMA-Factory joins dataset_dir to where it runs (src/llamafactory/data/parser.py
    get_dataset_list: os.path.join(dataset_dir, DATA_CONFIG); data/loader.py the same for each
    file_name)."""
    given = str(keys.get("dataset_dir", "str") or "data")
    if named and (given == "ONLINE" or given.startswith("REMOTE:")):  # parser.py: the Hub's, downloaded by LLaMA-Factory
        raise RunConfigError(f"{keys.path}: dataset_dir = {given!r}: LLaMA-Factory downloads dataset_info.json and the data "
                             "from the Hub, which ftlint does not: download them and set dataset_dir to their folder")
    here = Path.cwd()
    if (here / given / "dataset_info.json").exists():
        return here / given, here
    beside = Path(keys.path).parent / given
    if named and (beside / "dataset_info.json").exists():
        keys.note(f"dataset_dir {given}: read from the run config's folder; LLaMA-Factory reads it from where it runs, "
                  f"which has no {given}/dataset_info.json: run it from the config's folder")
    return beside, Path(keys.path).parent


def _info(keys: Keys, folder: Path, root: Path, names: list[str]) -> dict:
    from ...documents import parse_json
    from ...trust import MAX_FILE_BYTES, Refused, inside, read_text

    file = folder / "dataset_info.json"
    if not names:
        return {}
    if not inside(file, root):
        where = "the run config's folder" if root == Path(keys.path).parent else "the working directory"
        raise RunConfigError(f"{keys.path}: dataset_dir = {keys.get('dataset_dir', 'str')!r}: outside {where}")
    try:
        info = parse_json(read_text(file, "dataset_info.json", MAX_FILE_BYTES), str(file))
    except Refused as exc:
        raise RunConfigError(f"{keys.path}: dataset: {exc}") from None
    if not isinstance(info, dict):
        raise RunConfigError(f"{file}: not a LLaMA-Factory dataset_info.json (an object of dataset entries)")
    return info


def _entry(keys: Keys, info: dict, folder: Path, root: Path, name: str, stage: str) -> DatasetRef:
    entry = info.get(name)
    if not isinstance(entry, dict):
        raise RunConfigError(f"{keys.path}: dataset {name!r} is not in {folder / 'dataset_info.json'} "
                             "(LLaMA-Factory: \"Undefined dataset\")")
    if bool(entry.get("ranking")) != (stage in ("rm", "dpo")):
        raise RunConfigError(f"{keys.path}: dataset {name}: {'a' if entry.get('ranking') else 'not a'} ranking dataset, for "
                             f"stage {stage} (LLaMA-Factory: \"The dataset is not applicable in the current training stage.\")")
    if entry.get("num_samples") is not None:
        raise RunConfigError(f"{keys.path}: dataset {name}: num_samples samples its rows at random (data/loader.py); "
                             "ftlint does not model which")
    file = entry.get("file_name")
    if not isinstance(file, str):
        keys.note(f"dataset {name}: not a local file (a Hub dataset); give it as PATH")
        return DatasetRef(name, str(entry.get("formatting") or "alpaca"))
    shown = str(Path(folder.relative_to(root)) / file) if folder.is_relative_to(root) else file
    plain = not entry.get("columns") and not entry.get("tags")  # the formats' own column names: no mapping needed
    mapping = None if plain and stage != "pt" else f"{folder / 'dataset_info.json'}:{name}"
    return dataset(keys, shown, str(entry.get("formatting") or "alpaca"), mapping, root)

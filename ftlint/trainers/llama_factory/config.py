"""A LLaMA-Factory training YAML (examples/train_lora/*.yaml) with the dataset_info.json of its
dataset_dir, as hiyouga/LLaMA-Factory@ff6d4d1 reads them: src/llamafactory/hparams/data_args.py
(dataset, eval_dataset, dataset_dir="data", template, cutoff_len=2048, train_on_prompt,
mask_history, packing, neat_packing, val_size, max_samples), finetuning_args.py (stage="sft"),
over transformers' TrainingArguments (num_train_epochs=3.0, per_device_train_batch_size=8,
gradient_accumulation_steps=1, max_steps=-1, warmup_ratio, warmup_steps, learning_rate);
data/parser.py get_dataset_list (names in dataset_info.json).

LLaMA-Factory takes dataset_dir from where it runs; ftlint takes it from the config's folder,
so that a run config names files inside its own folder only."""

from __future__ import annotations

from pathlib import Path

from ..configs.base import DatasetRef, Keys, RunConfig, RunConfigError, Setting
from ..configs.common import TRAINING_ARGUMENTS_UNSET, dataset, model, training_arguments

STAGES = ("pt", "sft", "rm", "ppo", "dpo", "kto")
UNSET = {
    **TRAINING_ARGUMENTS_UNSET,
    "max_seq_len": "cutoff_len 2048: LLaMA-Factory's default (src/llamafactory/hparams/data_args.py DataArguments.cutoff_len)",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    model(keys, "model_name_or_path", run)
    stage = keys.get("stage", "str") or "sft"
    if stage not in STAGES:
        raise RunConfigError(f"{keys.path}: stage = {stage!r}: expected one of {', '.join(STAGES)}")
    if stage not in ("sft", "pt"):
        keys.note(f"stage {stage}: ftlint models the sft and pt stages' figures; a {stage} run's are not modelled")
    template = keys.get("template", "str")
    if template is not None:
        keys.note(f"template {template}: LLaMA-Factory's own (src/llamafactory/data/template.py); ftlint renders with "
                  "the model's chat template")
    cutoff = keys.setting("cutoff_len", "int")
    run["max_seq_len"] = plan["max_seq_len"] = cutoff if cutoff is not None else Setting(2048, UNSET["max_seq_len"])
    packing = keys.get("packing", "bool")
    if keys.get("neat_packing", "bool") or packing or (packing is None and stage == "pt"):
        keys.note("packing: LLaMA-Factory packs " + ("texts end to end into cutoff_len blocks (data/processor/pretrain.py)"
                  if stage == "pt" else "rows greedily per 1,000 (processor_utils.py greedy_knapsack)")
                  + "; ftlint counts rows unpacked")
    for key, what in (("train_on_prompt", "prompts train too"), ("mask_history", "only each conversation's last answer trains")):
        if keys.get(key, "bool"):
            keys.note(f"{key} true: {what} (data/processor/supervised.py); ftlint counts every answer")
    training_arguments(keys, plan)
    if keys.get("max_samples", "int") is not None:
        keys.note(f"max_samples {keys.get('max_samples', 'int')}: LLaMA-Factory reads at most that many rows of each "
                  "dataset (data/loader.py); ftlint reads them all")
    folder = Path(keys.path).parent / str(keys.get("dataset_dir", "str") or "data")
    names, eval_names = _names(keys, "dataset"), _names(keys, "eval_dataset")
    info = _info(keys, folder, names)  # read once, for every name
    datasets = tuple(_entry(keys, info, folder, name, stage) for name in names)
    evals = [_entry(keys, info, folder, name, stage) for name in eval_names]
    split = keys.setting("val_size", "number")
    if split is not None and float(split.value):  # type: ignore[arg-type]
        keys.note(f"{split.source}: LLaMA-Factory holds out that share of the rows (data/data_utils.py split_dataset); "
                  "ftlint counts them all as training")
    unset = tuple(v for k, v in UNSET.items() if k not in plan or plan[k].source == v)
    return RunConfig("llama-factory", keys.path, "llama-factory", run, plan, datasets, evals[0] if evals else None,
                     split if split is not None and float(split.value) else None, tuple(keys.notes), unset)  # type: ignore[arg-type]


def _names(keys: Keys, key: str) -> list[str]:
    value = keys.get(key, "str|list")
    if value is None:
        return []
    names: list[object] = list(value.split(",")) if isinstance(value, str) else list(value) if isinstance(value, list) else []
    return keys.bounded(key, [str(n).strip() for n in names if str(n).strip()])


def _info(keys: Keys, folder: Path, names: list[str]) -> dict:
    from ...documents import parse_json
    from ...trust import MAX_FILE_BYTES, Refused, inside, read_text

    file = folder / "dataset_info.json"
    if not names:
        return {}
    if not inside(file, Path(keys.path).parent):
        raise RunConfigError(f"{keys.path}: dataset_dir = {keys.get('dataset_dir', 'str')!r}: outside the run config's folder")
    try:
        info = parse_json(read_text(file, "dataset_info.json", MAX_FILE_BYTES), str(file))
    except Refused as exc:
        raise RunConfigError(f"{keys.path}: dataset: {exc}") from None
    if not isinstance(info, dict):
        raise RunConfigError(f"{file}: not a LLaMA-Factory dataset_info.json (an object of dataset entries)")
    return info


def _entry(keys: Keys, info: dict, folder: Path, name: str, stage: str) -> DatasetRef:
    entry = info.get(name)
    if not isinstance(entry, dict):
        raise RunConfigError(f"{keys.path}: dataset {name!r} is not in {folder / 'dataset_info.json'} "
                             "(LLaMA-Factory: \"Undefined dataset\")")
    file = entry.get("file_name")
    if not isinstance(file, str):
        keys.note(f"dataset {name}: not a local file (a Hub dataset); give it as PATH")
        return DatasetRef(name, str(entry.get("formatting") or "alpaca"))
    shown = str(Path(folder.relative_to(Path(keys.path).parent)) / file) if folder.is_relative_to(Path(keys.path).parent) else file
    plain = not entry.get("columns") and not entry.get("tags")  # the formats' own column names: no mapping needed
    mapping = None if plain and stage != "pt" else f"{folder / 'dataset_info.json'}:{name}"
    return dataset(keys, shown, str(entry.get("formatting") or "alpaca"), mapping)

"""A TRL SFTConfig YAML, as `trl sft --config FILE` takes it (huggingface/trl@f2cd577
trl/scripts/utils.py TrlParser.parse_args_and_config: a flat mapping whose keys are the fields of
ScriptArguments, SFTConfig, ModelConfig and DatasetMixtureConfig): model_name_or_path,
dataset_name or datasets, max_length (trl/trainer/sft_config.py SFTConfig.max_length=1024),
packing, assistant_only_loss, completion_only_loss, dataset_text_field, eval_strategy, and
transformers' per_device_train_batch_size, gradient_accumulation_steps, num_train_epochs,
max_steps, warmup_ratio, warmup_steps, learning_rate (SFTConfig's default 2e-5)."""

from __future__ import annotations

from ..configs.base import DatasetRef, Keys, RunConfig, Setting
from ..configs.common import TRAINING_ARGUMENTS_UNSET, dataset, model, training_arguments

UNSET = {
    **TRAINING_ARGUMENTS_UNSET,
    "max_seq_len": "max_length 1024: TRL's default (trl/trainer/sft_config.py SFTConfig.max_length=1024)",
    "learning_rate": "learning_rate 2e-05: TRL's default (trl/trainer/sft_config.py SFTConfig.learning_rate)",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    model(keys, "model_name_or_path", run)
    if "max_length" in keys.doc and keys.doc["max_length"] is None:
        keys.note("max_length null: TRL cuts nothing")
    else:
        cut = keys.setting("max_length", "int")
        run["max_seq_len"] = plan["max_seq_len"] = cut if cut is not None else Setting(1024, UNSET["max_seq_len"])
    if "max_seq_length" in keys.doc:
        keys.note("max_seq_length: not an SFTConfig field since TRL 0.20 (max_length is); `trl sft` passes it to "
                  "accelerate, which refuses it")
    packing = keys.setting("packing", "bool")
    if packing is not None:
        run["keep_order"] = plan["packing"] = packing
    for key in ("assistant_only_loss", "completion_only_loss"):
        found = keys.setting(key, "bool")
        if found is not None:
            run[key] = found
    training_arguments(keys, plan)
    if "learning_rate" not in plan:
        plan["learning_rate"] = Setting(2e-5, UNSET["learning_rate"])
    text = keys.get("dataset_text_field", "str")
    if text not in (None, "text"):
        keys.note(f"dataset_text_field {text}: TRL reads that column as the text; ftlint reads `text`")
    datasets: list[DatasetRef] = []
    name = keys.get("dataset_name", "str")
    if name is not None:
        datasets.append(dataset(keys, str(name)))
    for i, entry in enumerate(keys.items("datasets")):
        if isinstance(entry, dict):
            datasets.append(dataset(keys, str(keys.get("path", "str", entry, f"datasets[{i}].path") or "")))
    if keys.get("eval_strategy", "str") not in (None, "no"):
        keys.note(f"eval_strategy {keys.get('eval_strategy', 'str')}: TRL evaluates on the dataset's "
                  f"{keys.get('dataset_test_split', 'str') or 'test'} split (give it as --validation FILE)")
    unset = tuple(v for k, v in UNSET.items() if (k in plan and plan[k].source == v) or (k == "epochs" and k not in plan)
                  or (k == "batch_size" and k not in plan))
    return RunConfig("trl", keys.path, "trl", run, plan, tuple(datasets), None, None, tuple(keys.notes), unset)

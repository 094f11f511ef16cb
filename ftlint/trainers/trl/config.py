"""A TRL SFTConfig YAML, as `trl sft --config FILE` takes it (huggingface/trl@f2cd577
trl/scripts/utils.py TrlParser.parse_args_and_config: a flat mapping whose keys are the fields of
ScriptArguments, SFTConfig, ModelConfig and DatasetMixtureConfig): model_name_or_path,
dataset_name or datasets, max_length (trl/trainer/sft_config.py SFTConfig.max_length=1024),
packing and packing_strategy, assistant_only_loss, completion_only_loss, eos_token,
dataset_text_field, truncation_mode, eval_strategy, and transformers' per_device_train_batch_size,
gradient_accumulation_steps, num_train_epochs, max_steps, warmup_ratio (as the run's transformers
takes it), warmup_steps, learning_rate (SFTConfig's default 2e-5).

A key no dataclass of that list has is dropped by trl/scripts/sft.py (`parse_args_and_config(
fail_with_unknown_args=False)`) and handed to `accelerate launch` by `trl sft`
(trl/cli/commands/training.py TrainingCommand.run), which refuses it."""

from __future__ import annotations

from ..configs.base import DatasetRef, Keys, RunConfig, Setting
from ..configs.common import TRAINING_ARGUMENTS_UNSET, dataset, model, training_arguments
from ..versions import Versions

UNSET = {
    **TRAINING_ARGUMENTS_UNSET,
    "max_seq_len": "max_length 1024: TRL's default (trl/trainer/sft_config.py SFTConfig.max_length=1024)",
    "learning_rate": "learning_rate 2e-05: TRL's default (trl/trainer/sft_config.py SFTConfig.learning_rate)",
}
NO_WARMUP_RATIO = "5.15.0"  # the first transformers without TrainingArguments.warmup_ratio (5.0 to 5.14 deprecate it)
STRATEGIES = ("bfd", "bfd_split", "wrapped")  # trl/data_utils.py pack_dataset


def read(keys: Keys, versions: Versions) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    own: dict[str, object] = {}
    model(keys, "model_name_or_path", run)
    keys.note(f"versions: {versions.words('trl')}")
    if "max_length" in keys.doc and keys.doc["max_length"] is None:
        keys.note("max_length null: TRL cuts nothing")
    else:
        cut = keys.setting("max_length", "int")
        run["max_seq_len"] = plan["max_seq_len"] = cut if cut is not None else Setting(1024, UNSET["max_seq_len"])
    if "max_seq_length" in keys.doc:
        keys.ignored(f"max_seq_length {keys.doc['max_seq_length']!r}: not an SFTConfig field since TRL 0.20 (max_length is): "
                     f"trl/scripts/sft.py drops it and cuts at max_length; `trl sft` hands it to accelerate, which refuses it; "
                     "write max_length")
    _packing(keys, run, plan, own)
    for key in ("assistant_only_loss", "completion_only_loss"):
        found = keys.setting(key, "bool")
        if found is not None:
            run[key] = found
    eos = keys.get("eos_token", "str")
    if eos is not None:
        own["eos_token"] = eos  # appended to plain rows in place of the tokenizer's (SFTTrainer.__init__)
    _warmup_ratio(keys, versions, plan)
    training_arguments(keys, plan)
    if "learning_rate" not in plan:
        plan["learning_rate"] = Setting(2e-5, UNSET["learning_rate"])
    text = keys.get("dataset_text_field", "str")
    if text not in (None, "text"):
        keys.unapplied(f"dataset_text_field {text}: TRL trains that column of a plain-text dataset; ftlint reads `text`, "
                       "so its figures are not this run's (rename the column to text)")
    mode = keys.get("truncation_mode", "str")
    if mode not in (None, "keep_start"):
        keys.unapplied(f"truncation_mode {mode}: TRL keeps each row's end past max_length; ftlint cuts keeping the start, "
                       "so the trained tokens of cut rows are not this run's")
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
    return RunConfig("trl", keys.path, "trl", run, plan, tuple(datasets), None, None, tuple(keys.notes), unset, own,
                     tuple(keys.findings))


def _packing(keys: Keys, run: dict[str, Setting], plan: dict[str, Setting], own: dict[str, object]) -> None:
    packing = keys.setting("packing", "bool")
    if packing is not None:
        run["keep_order"] = plan["packing"] = packing
    strategy = keys.get("packing_strategy", "str")
    if strategy is not None and strategy not in STRATEGIES:
        from ..configs.base import RunConfigError

        raise RunConfigError(f"{keys.path}: packing_strategy = {strategy!r}: expected one of {', '.join(STRATEGIES)}")
    if strategy is not None:
        own["packing_strategy"] = strategy


def _warmup_ratio(keys: Keys, versions: Versions, plan: dict[str, Setting]) -> None:
    """warmup_ratio as the run's transformers takes it: from 5.15.0 TrainingArguments has no such
    field (transformers 5.15.0 training_args.py), so sft.py drops it (no warmup) and `trl sft`
    refuses it; 5.0 to 5.14 copy it to warmup_steps (TrainingArguments.__post_init__)."""
    ratio = keys.get("warmup_ratio", "number")
    if ratio is None or not versions.transformers_at_least(NO_WARMUP_RATIO):
        return
    del keys.doc["warmup_ratio"]  # (the parsed config, not the file) the run has no such key: warmup_steps' or none
    steps = keys.get("warmup_steps", "number")
    after = f"the run's warmup is warmup_steps {steps:g}" if steps is not None else "the run has no warmup (0 steps)"
    if steps is None:
        plan["warmup_steps"] = Setting(0, f"warmup_ratio {ratio:g} dropped: transformers {versions.transformers} has none")
    keys.ignored(f"warmup_ratio {ratio:g}: transformers {versions.transformers} has no warmup_ratio (removed in "
                 f"{NO_WARMUP_RATIO}): trl/scripts/sft.py drops it and {after}; `trl sft` hands it to accelerate, which "
                 f"refuses it. Write warmup_steps: {ratio:g} (transformers 5 takes a warmup_steps below 1 as a ratio)")

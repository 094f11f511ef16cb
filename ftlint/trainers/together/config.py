"""A Together fine-tuning job's parameters as JSON: the keywords of the SDK's
FineTuning.create, which are the REST body's (togethercomputer/together-python@eba5e5f
src/together/resources/finetune.py FineTuning.create: model, training_file, validation_file,
n_epochs=1, n_evals=0, batch_size="max", learning_rate=1e-5, warmup_ratio=0.0,
train_on_inputs="auto", lora=True, training_method="sft"; SDK 2.20+ adds max_seq_length, packing)."""

from __future__ import annotations

from fractions import Fraction

from ..configs.base import Keys, RunConfig, RunConfigError, Setting
from ..configs.common import dataset, learning_rate, model

CREATE = "together/resources/finetune.py FineTuning.create"
UNSET = {
    "epochs": f"n_epochs 1: Together's default ({CREATE}(n_epochs=1))",
    "batch_size": f"batch_size max: Together's default ({CREATE}(batch_size='max'))",
    "learning_rate": f"learning_rate 1e-05: Together's default ({CREATE}(learning_rate=0.00001))",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    model(keys, "model", run, prefix="together/")
    epochs = keys.setting("n_epochs", "int")
    if epochs is not None:
        plan["epochs"] = epochs
    batch = keys.get("batch_size", "int|str")
    if isinstance(batch, str) and batch != "max":
        raise RunConfigError(f"{keys.path}: batch_size = {batch!r}: expected a whole number or \"max\"")
    if isinstance(batch, int):
        plan["batch_size"] = Setting(batch, f"batch_size {batch} from {keys.name}")
    ratio = keys.get("warmup_ratio", "number")
    if ratio is not None:
        plan["warmup_ratio"] = Setting(Fraction(str(ratio)), f"warmup_ratio {ratio:g} from {keys.name}")
    learning_rate(keys, "learning_rate", plan)
    if "learning_rate" not in plan:
        plan["learning_rate"] = Setting(1e-5, UNSET["learning_rate"])
    limit = keys.setting("max_seq_length", "int")
    if limit is not None:
        run["context"] = limit
    evals = keys.get("n_evals", "int")
    if evals:
        keys.note(f"n_evals {evals}: Together bills the validation tokens once per evaluation (docs.together.ai fine-tuning pricing)")
    if keys.get("packing", "bool") is False:
        keys.note("packing false: each example is a row of max_seq_length, and is billed as one (docs.together.ai pricing)")
    inputs = keys.get("train_on_inputs", "bool") if not isinstance(keys.doc.get("train_on_inputs"), str) else None
    if inputs:
        keys.note("train_on_inputs true: every message trains; ftlint counts the assistant messages")
    method = keys.get("training_method", "str") or "sft"
    if method not in ("sft", "dpo"):
        raise RunConfigError(f"{keys.path}: training_method = {method!r}: expected sft or dpo")
    train = keys.get("training_file", "str")
    datasets = (dataset(keys, str(train)),) if train else ()
    validation = keys.get("validation_file", "str")
    unset = tuple(v for k, v in UNSET.items() if k not in plan or plan[k].source == v)
    return RunConfig("together", keys.path, "together", run, plan, datasets,
                     dataset(keys, str(validation)) if validation else None, None, tuple(keys.notes), unset)

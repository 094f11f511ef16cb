"""An axolotl YAML, as axolotl-ai-cloud/axolotl@067b021 reads it: src/axolotl/utils/schemas/
(training.py: num_epochs=1.0, micro_batch_size, gradient_accumulation_steps, learning_rate;
config.py: sequence_len=512, excess_length_strategy, sample_packing, max_steps, warmup_steps,
warmup_ratio, val_set_size, chat_template; datasets.py SFTDataset: path, type, field_messages,
message_property_mappings, roles_to_train, train_on_eos, split), over its pydantic defaults."""

from __future__ import annotations

from ..configs.base import DatasetRef, Keys, RunConfig, Setting
from ..configs.common import count, dataset, epochs, learning_rate, model, warmup

SOURCE = "src/axolotl/utils/schemas"
UNSET = {
    "epochs": "num_epochs 1: axolotl's default (src/axolotl/utils/schemas/training.py num_epochs=1.0)",
    "batch_size": "micro_batch_size 1: axolotl's default (src/axolotl/utils/schemas/training.py micro_batch_size=1)",
    "grad_accum": "gradient_accumulation_steps 1: axolotl's default (src/axolotl/utils/schemas/training.py)",
    "max_seq_len": "sequence_len 512: axolotl's default (src/axolotl/utils/schemas/config.py sequence_len=512)",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    model(keys, "base_model", run)
    _template(keys)
    seq = keys.setting("sequence_len", "int")
    if seq is not None and int(seq.value) >= 1:  # type: ignore[call-overload]
        run["max_seq_len"] = plan["max_seq_len"] = seq
    else:  # axolotl cuts or drops at its default of 512 all the same
        run["max_seq_len"] = plan["max_seq_len"] = Setting(512, UNSET["max_seq_len"])
    strategy = keys.get("excess_length_strategy", "str")
    if strategy not in (None, "drop", "truncate", "raise"):
        from ..configs.base import RunConfigError

        raise RunConfigError(f"{keys.path}: excess_length_strategy = {strategy!r}: expected drop, truncate or raise")
    if strategy in ("truncate", "raise"):
        keys.note(f"excess_length_strategy {strategy}: axolotl {'keeps the start of' if strategy == 'truncate' else 'stops at'} "
                  "a sample past sequence_len (src/axolotl/utils/data/utils.py handle_long_seq_in_dataset)")
    if keys.get("sample_packing", "bool"):
        keys.note("sample_packing true: axolotl's multipack bins are not modelled; steps are counted unpacked, an upper bound")
    count(keys, "micro_batch_size", "batch_size", plan)
    count(keys, "gradient_accumulation_steps", "grad_accum", plan)
    epochs(keys, "num_epochs", plan)
    count(keys, "max_steps", "max_steps", plan)
    warmup(keys, plan)
    learning_rate(keys, "learning_rate", plan)
    if keys.get("train_on_inputs", "bool"):
        keys.note("train_on_inputs true: every turn's content trains (src/axolotl/prompt_strategies/chat_template.py); "
                  "ftlint counts the assistant turns")
    datasets = tuple(_datasets(keys, "datasets"))
    tests = tuple(_datasets(keys, "test_datasets"))
    split = keys.setting("val_set_size", "number")
    if split is not None and not float(split.value):  # type: ignore[arg-type]
        split = None
    if split is not None:
        keys.note(f"{split.source}: axolotl holds out that share of the training rows after shuffling (seed 42); "
                  "ftlint counts them all as training (give --validation FILE for a file of its own)")
    unset = tuple(UNSET[k] for k in ("epochs", "batch_size", "grad_accum", "max_seq_len") if k not in plan or
                  plan[k].source == UNSET[k])
    return RunConfig("axolotl", keys.path, "axolotl", run, plan, datasets, tests[0] if tests else None, split,
                     tuple(keys.notes), unset)


def _template(keys: Keys) -> None:
    name = keys.get("chat_template", "str")
    if keys.get("chat_template_jinja", "str") is not None:
        keys.note("chat_template_jinja: axolotl renders with that template; ftlint renders with the model's (give "
                  "--chat-template FILE for that one)")
    elif name not in (None, "tokenizer_default"):
        same = str(name).replace("qwen_25", "qwen2.5")
        known = f"ftlint's {same} template is the model's when --model names one of its family" if same in keys.templates else \
            "not one of ftlint's templates: the model's own is used (give --chat-template FILE for axolotl's)"
        keys.note(f"chat_template {name}: axolotl's own template (src/axolotl/utils/chat_templates/templates/); {known}")


def _datasets(keys: Keys, key: str) -> list[DatasetRef]:
    out = []
    for i, entry in enumerate(keys.items(key)):
        if not isinstance(entry, dict):
            from ..configs.base import RunConfigError

            raise RunConfigError(f"{keys.path}: {key}[{i}] = {entry!r}: expected a mapping (path, type, ...)")
        path = keys.get("path", "str", entry, f"{key}[{i}].path")
        kind = entry.get("type") if isinstance(entry.get("type"), str) else "chat_template"
        trained = entry.get("roles_to_train")
        if trained not in (None, ["assistant"], ["gpt"]):
            keys.note(f"{key}[{i}].roles_to_train {trained}: ftlint counts the assistant turns only")
        if entry.get("train_on_eos") not in (None, "turn"):
            keys.note(f"{key}[{i}].train_on_eos {entry.get('train_on_eos')}: ftlint counts the end of each trained turn")
        mapping = f"{keys.path}:{i}" if key == "datasets" else None
        out.append(dataset(keys, str(path or ""), str(kind), mapping))
    return out

"""An axolotl YAML, as axolotl-ai-cloud/axolotl@067b021 reads it: src/axolotl/utils/schemas/
(training.py: num_epochs=1.0, micro_batch_size, gradient_accumulation_steps, batch_size,
learning_rate; config.py: sequence_len=512, excess_length_strategy, min_sample_len, sample_packing
and its keys, attn_implementation (and the legacy flags), max_steps, warmup_steps, warmup_ratio,
val_set_size, seed, chat_template; datasets.py SFTDataset: path, type, split, chat_template and the
keys mapping.py reads), over its pydantic defaults.

What decides the records a run trains and how it batches them (a held-out share, packing) travels
to the estimate as the run config's keys (RunConfig.keys: prepare.py reads them, and Axolotl.cut_for
its excess_length_strategy); what decides which tokens train
travels with the mapping (mapping.py `loss_keys`, mask.py)."""

from __future__ import annotations

from pathlib import Path

from ..configs.base import DatasetRef, Keys, RunConfig, RunConfigError, Setting
from ..configs.common import count, dataset, epochs, learning_rate, model, warmup

SOURCE = "src/axolotl/utils/schemas"
UNSET = {
    "epochs": "num_epochs 1: axolotl's default (src/axolotl/utils/schemas/training.py num_epochs=1.0)",
    "batch_size": "micro_batch_size 1: axolotl's default (src/axolotl/utils/schemas/training.py micro_batch_size=1)",
    "grad_accum": "gradient_accumulation_steps 1: axolotl's default (src/axolotl/utils/schemas/training.py)",
    "max_seq_len": "sequence_len 512: axolotl's default (src/axolotl/utils/schemas/config.py sequence_len=512)",
}
TEMPLATES = Path(__file__).with_name("templates")  # axolotl's named chat templates ftlint ships (templates/SOURCES.md)
# src/axolotl/utils/schemas/enums.py: LEGACY_ATTN_FLAG_TO_IMPL (in its order of priority) and ATTN_IMPLS_SUPPORTING_PACKING
LEGACY_ATTENTION = {"xformers_attention": "xformers", "sage_attention": "sage", "flex_attention": "flex_attention",
                    "flash_attention": "flash_attention_2", "sdp_attention": "sdpa", "eager_attention": "eager"}
PACKING_ATTENTION = frozenset({"flash_attention_2", "flash_attention_3", "flex_attention", "xformers", "sage",
                               "kernels-community/flash-attn2", "kernels-community/flash-attn3",
                               "kernels-community/sage-attention"})
# loaders/utils.py get_linear_embedding_layers: the embedding layers an adapter run that adds tokens must save
# (lora_modules_to_save), by the model's model_type; every other model_type's are the last
EMBEDDING_LAYERS = {"gpt_neox": ("embed_in", "embed_out"), "falcon": ("word_embeddings", "lm_head"),
                    "nemotron_h": ("embeddings", "lm_head"), "": ("embed_tokens", "lm_head")}
# keys that change the records or the steps and that ftlint does not model: refused, not counted as if applied
NOT_MODELLED = {
    "pretraining_dataset": "streamed pretraining data",
    "streaming": "a streamed dataset",
    "dataset_exact_deduplication": "deduplicating the tokenized rows",
    "dataset_shard_num": "a shard of the data",
    "rl": "a preference (RLHF) run",
    "reward_model": "a reward model's run",
    "process_reward_model": "a process reward model's run",
    "use_pose": "PoSE position ids",
    "group_by_length": "length-grouped sampling",
    "added_tokens_overrides": "the model's reserved added tokens renamed",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    for key, what in NOT_MODELLED.items():
        if keys.doc.get(key):
            raise RunConfigError(f"{keys.path}: {key}: {what} is not modelled by ftlint, and it changes the records or the "
                                 "steps: its figures would not be the run's")
    model(keys, "base_model", run)
    _saves_new_tokens(keys)
    seq = keys.setting("sequence_len", "int")
    if seq is not None and int(seq.value) >= 1:  # type: ignore[call-overload]
        run["max_seq_len"] = plan["max_seq_len"] = seq
    else:  # axolotl cuts or drops at its default of 512 all the same
        run["max_seq_len"] = plan["max_seq_len"] = Setting(512, UNSET["max_seq_len"])
    strategy = str(keys.get("excess_length_strategy", "str") or "drop").lower()
    if strategy not in ("drop", "truncate", "raise"):
        raise RunConfigError(f"{keys.path}: excess_length_strategy = {strategy!r}: expected drop, truncate or raise")
    _batch(keys, plan)
    epochs(keys, "num_epochs", plan)
    _whole_epochs(keys)
    count(keys, "max_steps", "max_steps", plan)
    warmup(keys, plan)
    learning_rate(keys, "learning_rate", plan)
    entries = [e for e in keys.items("datasets") if isinstance(e, dict)]
    unshipped = _template(keys, run, entries)
    datasets = tuple(_datasets(keys, "datasets"))
    tests = tuple(_datasets(keys, "test_datasets"))
    split = keys.setting("val_set_size", "number")
    if split is not None and not float(split.value):  # type: ignore[arg-type]
        split = None
    if split is not None and tests:
        raise RunConfigError(f"{keys.path}: val_set_size and test_datasets: axolotl takes one or the other")
    found = dict(_trainer_keys(keys, strategy, entries))
    if unshipped:
        found["unshipped_template"] = unshipped
    if found.get("sample_packing") or split is not None or any(e.get("split") for e in entries):
        run["keep_order"] = Setting(True, "axolotl's split and packing follow the records' order")
    unset = tuple(UNSET[k] for k in ("epochs", "batch_size", "grad_accum", "max_seq_len") if k not in plan or
                  plan[k].source == UNSET[k])
    return RunConfig("axolotl", keys.path, "axolotl", run, plan, datasets, tests[0] if tests else None, split,
                     tuple(keys.notes), unset, found)


def saves_embeddings(doc: dict) -> bool:
    """Whether an adapter run keeps the embedding layers trainable (lora_modules_to_save lists both of a
    model type's: ftlint does not read the model's model_type, so any model type's pair will do), or
    trains no adapter; what axolotl asks of a run that adds tokens."""
    if not doc.get("adapter"):
        return True
    saved = doc.get("lora_modules_to_save")
    return isinstance(saved, list) and any(all(layer in saved for layer in pair) for pair in EMBEDDING_LAYERS.values())


def _saves_new_tokens(keys: Keys) -> None:
    """An adapter run that adds `tokens` without saving the embedding layers: axolotl stops as it loads the
    model's config, before the tokenizer (loaders/utils.py check_model_config, from load_model_config)."""
    if keys.doc.get("tokens") and not saves_embeddings(keys.doc):
        raise RunConfigError(f"{keys.path}: tokens with adapter {keys.doc.get('adapter')}: axolotl stops unless "
                             "lora_modules_to_save lists the embedding layers (embed_tokens and lm_head) "
                             "(src/axolotl/loaders/utils.py check_model_config)")


def _batch(keys: Keys, plan: dict[str, Setting]) -> None:
    """micro_batch_size and gradient_accumulation_steps (schemas/training.py: both default to 1)."""
    count(keys, "micro_batch_size", "batch_size", plan)
    count(keys, "gradient_accumulation_steps", "grad_accum", plan)
    if keys.get("batch_size", "int") is not None:  # normalize_config keeps it as the divisor of calculate_total_num_steps
        raise RunConfigError(f"{keys.path}: batch_size: axolotl divides its step count by it while its Trainer steps on "
                             "micro_batch_size x gradient_accumulation_steps; ftlint does not model the two apart (give "
                             "gradient_accumulation_steps instead, as axolotl recommends)")


def _whole_epochs(keys: Keys) -> None:
    """A fraction of an epoch: axolotl counts ceil(records x num_epochs / batch) steps (utils/trainer.py
    calculate_total_num_steps), which ftlint's whole epochs do not say."""
    given = keys.count_or_number("num_epochs")
    if given is not None and not isinstance(given.value, int) and not float(given.value).is_integer():  # type: ignore[arg-type]
        raise RunConfigError(f"{keys.path}: num_epochs {given.value}: axolotl counts ceil(records x {given.value} / batch) steps, "
                             "ftlint plans whole epochs: its steps would not be the run's (give --max-steps)")


def _template(keys: Keys, run: dict[str, Setting], entries: list[dict]) -> str:
    """The chat template axolotl renders with (utils/chat_templates/base.py get_chat_template_from_config,
    loaders/tokenizer.py load_tokenizer): the dataset entry's, else the config's; tokenizer_default
    (and unset) is the model's own, as is tokenizer_default_fallback_* for a model that has one;
    jinja is chat_template_jinja's file; a name is axolotl's own template of that name. Returned:
    a name ftlint does not ship, as the config gives it ("": none; Axolotl.counts_note says it)."""
    name = keys.get("chat_template", "str")
    jinja = keys.get("chat_template_jinja", "str")
    own = [e for e in entries if e.get("chat_template") not in (None, "tokenizer_default")]
    if own:
        name, jinja = own[0].get("chat_template"), own[0].get("chat_template_jinja")
        shown = f"datasets[{entries.index(own[0])}].chat_template {name}"
    else:
        shown = f"chat_template {name}"
    if jinja is not None and name in (None, "jinja"):
        _jinja(keys, run, str(jinja))
        return ""
    if name is None or name == "tokenizer_default" or str(name).startswith("tokenizer_default_fallback_"):
        return ""
    if name == "jinja":
        raise RunConfigError(f"{keys.path}: chat_template jinja needs chat_template_jinja (axolotl refuses it too)")
    shipped = TEMPLATES / f"{name}.jinja"
    if shipped.is_file() and "/" not in str(name):
        run["chat_template"] = Setting(str(shipped), f"{shown} from {keys.name}: axolotl's own template "
                                       f"(src/axolotl/utils/chat_templates/templates/{name}.jinja)")
        return ""
    return shown


def _jinja(keys: Keys, run: dict[str, Setting], jinja: str) -> None:
    """chat_template_jinja: a template file beside the config (its text inline is not read: give it as a file)."""
    folder = Path(keys.path).parent
    candidate = folder / jinja
    if "\n" in jinja or "{" in jinja or not candidate.is_file():
        raise RunConfigError(f"{keys.path}: chat_template_jinja: ftlint reads a template file in the config's folder, not "
                             "a template written inline; save it as a .jinja file and name it (or give --chat-template FILE)")
    from ...trust import inside

    if not inside(candidate, folder):
        raise RunConfigError(f"{keys.path}: chat_template_jinja {jinja!r}: outside {folder.resolve()}, the folder of the run config")
    run["chat_template"] = Setting(str(candidate.resolve()), f"chat_template_jinja {jinja} from {keys.name}")


def _attention(keys: Keys) -> str | None:
    """attn_implementation, or the legacy flag that sets it (schemas/config.py normalize_attn_implementation)."""
    given = keys.get("attn_implementation", "str")
    flags = [f for f in LEGACY_ATTENTION if keys.doc.get(f)]
    if given is not None and flags:
        raise RunConfigError(f"{keys.path}: attn_implementation {given} cannot be combined with {', '.join(sorted(flags))} "
                             "(axolotl refuses it)")
    return str(given) if given is not None else (LEGACY_ATTENTION[flags[0]] if flags else None)


def _trainer_keys(keys: Keys, strategy: str, entries: list[dict]) -> tuple[tuple[str, object], ...]:
    """The keys prepare.py reads: what axolotl does to the records after tokenizing them."""
    attention = _attention(keys)
    real = keys.get("multipack_real_batches", "bool")
    out: list[tuple[str, object]] = [
        ("config", keys.name),
        ("excess_length_strategy", strategy),
        ("attn_implementation", attention),
        # core/builders/causal.py: multipack_real_batches, unset, is `not attn_supports_packing`
        ("multipack_real_batches", bool(real) if real is not None else attention not in PACKING_ATTENTION),
        ("splits", tuple(e.get("split") if isinstance(e.get("split"), str) else None for e in entries)),
    ]
    for key, kind in (("val_set_size", "number"), ("seed", "int"), ("sample_packing", "bool"), ("eval_sample_packing", "bool"),
                      ("sample_packing_sequentially", "bool"), ("curriculum_sampling", "bool"),
                      ("sample_packing_group_size", "int"), ("sample_packing_bin_size", "int"),
                      ("sample_packing_eff_est", "number"), ("dataloader_drop_last", "bool"), ("min_sample_len", "int"),
                      ("shuffle_merged_datasets", "bool"), ("shuffle_before_merging_datasets", "bool"),
                      ("sequence_len", "int")):
        value = keys.get(key, kind)
        if value is not None:
            out.append((key, value))
    return tuple(out)


def _datasets(keys: Keys, key: str) -> list[DatasetRef]:
    out = []
    for i, entry in enumerate(keys.items(key)):
        if not isinstance(entry, dict):
            raise RunConfigError(f"{keys.path}: {key}[{i}] = {entry!r}: expected a mapping (path, type, ...)")
        path = keys.get("path", "str", entry, f"{key}[{i}].path")
        kind = entry.get("type") if isinstance(entry.get("type"), str) else "chat_template"
        mapping = f"{keys.path}:{i}" if key == "datasets" else None
        out.append(dataset(keys, str(path or ""), str(kind), mapping))
    return out

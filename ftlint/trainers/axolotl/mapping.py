"""An axolotl config's `datasets:` entry as a column mapping (`--mapping config.yml[:INDEX]`), with
the config's `sequence_len` (the same file sets where axolotl cuts or drops what the mapping reads)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...documents import parse_yaml
from ...mapping import SHAREGPT_TAGS, Mapping, MappingError, document, validate
from .config import saves_embeddings


def mapping_of(file: str, index: str, paths: tuple[str, ...], limit: int) -> Mapping:
    """The entry INDEX of the config (else the one whose path is an input's name, else the only
    one), with the config's max length."""
    return with_length(axolotl_mapping(file, index, paths, limit), file, limit)


def with_length(mapping: Mapping, file: str, limit: int) -> Mapping:
    """An axolotl config's mapping with its `sequence_len`: the same file sets where axolotl cuts
    (or drops) what the mapping reads (src/axolotl/utils/schemas/config.py sequence_len)."""
    config = document(file, limit, parse_yaml)
    length = config.get("sequence_len") if isinstance(config, dict) else None
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        return mapping
    return dataclasses.replace(mapping, max_length=(length, f"sequence_len {length} from {Path(file).name}"))


# axolotl's default `roles` for chat_template data (src/axolotl/prompt_strategies/chat_template.py)
AXOLOTL_DEFAULT_ROLES = {"user": ["user", "human"], "assistant": ["assistant", "gpt"], "system": ["system"], "tool": ["tool"]}


def axolotl_mapping(file: str, index: str, paths: tuple[str, ...], limit: int) -> Mapping:
    """An axolotl config's `datasets:` entry (docs.axolotl.ai/docs/dataset-formats, read
    2026-12-01): `type: alpaca` reads instruction, input, output; `type: chat_template` (and the
    deprecated sharegpt) reads `field_messages` (default messages) whose messages have their role
    and content under `message_property_mappings` (or the older message_field_role /
    message_field_content), the role names under `roles`. The messages, their keys and roles
    renamed, go to the model's chat template as they are (tool calls, thinking, tools with them),
    so they are checked as OpenAI-style messages (trl-messages); what trains is axolotl's own mask
    (roles_to_train, train_on_eos and the config's train_on_inputs: `loss_keys`, applied by
    mask.py). `type: sharegpt` is refused, as axolotl refuses it. The entries' types are axolotl's
    (src/axolotl/utils/schemas/datasets.py, SFTDataset), in schemas/axolotl-datasets.schema.json;
    a key set to null is its default, as there."""
    config = document(file, limit, parse_yaml)
    if not isinstance(config, dict) or "datasets" not in config:
        raise MappingError(f"--mapping {file}: no `datasets:` list of entries (an axolotl config has one)")
    _json_typed(file, config["datasets"])
    validate(file, {"datasets": config["datasets"]}, "axolotl-datasets")  # only that part is read
    entries: list[dict] = config["datasets"]
    if index:
        if not index.isdigit() or int(index) >= len(entries):
            raise MappingError(f"--mapping {file}:{index}: give the entry's index, 0 to {len(entries) - 1}")
        entry = entries[int(index)]
    else:
        names = {Path(p).name for p in paths}
        chosen = [e for e in entries if Path(e.get("path") or "").name in names]
        if len(chosen) != 1 and len(entries) != 1:
            raise MappingError(f"--mapping {file}: say which dataset with {file}:INDEX ({len(entries)} entries)")
        entry = chosen[0] if len(chosen) == 1 else entries[0]
    kind = _given(entry, "type", "chat_template")
    label = f"{Path(file).name}:{entry.get('path') or '?'}"
    if not isinstance(kind, str):
        raise MappingError(f"--mapping {file}: a user-defined prompt type (an object as `type`) is not read yet "
                           "(alpaca and chat_template are)")
    loss = loss_keys(file, config, entry)
    where = f"{Path(file).name} datasets entry {entry.get('path') or '?'}"
    if kind == "alpaca":
        return Mapping(label, "alpaca", {"instruction": "instruction", "input": "input", "output": "output"}, ("instruction", "output"),
                       loss=loss, reason=f"{where}: type alpaca")
    if kind.startswith("sharegpt"):
        raise MappingError(f"--mapping {file}: type {kind!r}: axolotl refuses it (\"`type: sharegpt.*` is deprecated. Please use "
                           "`type: chat_template`\": src/axolotl/utils/schemas/validation.py deprecate_sharegpt_datasets)")
    if kind != "chat_template":
        raise MappingError(f"--mapping {file}: dataset type {kind!r} is not read yet (alpaca and chat_template are)")
    props = entry.get("message_property_mappings") or {}
    # the legacy keys fill in what the mappings leave out (utils.py, handle_legacy_message_fields_logic)
    role_key = props.get("role") or entry.get("message_field_role") or "role"
    content_key = props.get("content") or entry.get("message_field_content") or "content"
    roles = _given(entry, "roles", AXOLOTL_DEFAULT_ROLES)
    # the messages reach the model's chat template as they are, their roles renamed (tool calls,
    # thinking and tools with them): OpenAI-style messages, ftlint's trl-messages
    speakers = {name: role for role, names in roles.items() for name in names}
    messages = _given(entry, "field_messages", "messages")
    return Mapping(label, "trl-messages", {"messages": messages}, ("messages",),
                   {**SHAREGPT_TAGS, "role_tag": role_key, "content_tag": content_key}, speakers, ("role", "content"), loss=loss,
                   reason=f"{where}: type chat_template, its messages read as OpenAI-style messages (trl-messages)", turns_key="messages")


# the dataset entry's keys that change what trains, and ftlint does not model: refused rather than counted as if applied
NOT_MODELLED = {
    "message_field_training_detail": "per-token training details",
    "split_thinking": "reasoning split out of the content",
    "shards": "a shard of the dataset",
}


def loss_keys(file: str, config: dict, entry: dict) -> tuple[tuple[str, object], ...]:
    """The keys of the config that decide what its chat_template and alpaca strategies train
    (prompt_strategies/chat_template.py StrategyLoader: the entry's roles_to_train, train_on_eos,
    train_on_eot, message_field_training, drop_system_message; the config's train_on_inputs,
    eot_tokens, chat_template_kwargs, sequence_len; the tokens the tokenizer gains), as pairs for Loss.keys."""
    for key, what in NOT_MODELLED.items():
        if entry.get(key):
            raise MappingError(f"--mapping {file}: {key} {entry[key]!r}: {what} is not modelled by ftlint, and it changes "
                               "what trains: its figures would not be the run's")
    out: list[tuple[str, object]] = []
    for key in ("roles_to_train", "train_on_eos", "train_on_eot", "message_field_training", "drop_system_message"):
        value = entry.get(key)
        if value is not None:
            out.append((key, tuple(value) if isinstance(value, list) else value))
    inputs = config.get("train_on_inputs")
    if inputs is not None:
        if not isinstance(inputs, bool):
            raise MappingError(f"--mapping {file}: train_on_inputs = {inputs!r}: expected true or false")
        out.append(("train_on_inputs", inputs))
    eot = config.get("eot_tokens")
    if eot is not None:
        if not isinstance(eot, list) or not all(isinstance(t, str) for t in eot):
            raise MappingError(f"--mapping {file}: eot_tokens = {eot!r}: expected a list of tokens")
        out.append(("eot_tokens", tuple(eot)))
    kwargs = config.get("chat_template_kwargs")
    if kwargs is not None:
        if not isinstance(kwargs, dict) or not all((isinstance(k, str) and isinstance(v, (str, int, float, bool))) or v is None
                                                   for k, v in kwargs.items()):
            raise MappingError(f"--mapping {file}: chat_template_kwargs = {kwargs!r}: expected a mapping of names to values")
        out.append(("chat_template_kwargs", tuple(sorted(kwargs.items()))))
    out.extend(_added_tokens(file, config))
    length = config.get("sequence_len")
    if isinstance(length, int) and not isinstance(length, bool) and length >= 1:
        out.append(("sequence_len", length))
    return tuple(out)


# loaders/tokenizer.py load_tokenizer: special_tokens (utils/schemas/model.py SpecialTokensConfig), each set on the
# tokenizer with add_special_tokens, and the config's tokens, added with add_tokens
SPECIAL_TOKENS = ("bos_token", "eos_token", "pad_token", "unk_token")


def _added_tokens(file: str, config: dict) -> list[tuple[str, object]]:
    """The tokenizer's eos and bos that special_tokens sets, and every token load_tokenizer adds."""
    special = config.get("special_tokens")
    if special is None:
        special = {}
    if not isinstance(special, dict):
        raise MappingError(f"--mapping {file}: special_tokens = {special!r}: expected a mapping of token names to tokens")
    out: list[tuple[str, object]] = []
    added: list[str] = []  # the control tokens: a text spelling one is that token (FT302)
    for name in SPECIAL_TOKENS:
        value = special.get(name)
        if value is None:
            continue
        if not isinstance(value, str) or not value:
            raise MappingError(f"--mapping {file}: special_tokens.{name} = {value!r}: expected a token")
        added.append(value)
        if name in ("eos_token", "bos_token"):
            out.append((name, value))
    more = _token_list(file, "special_tokens.additional_special_tokens", special.get("additional_special_tokens"))
    if added or more:
        out.append(("special_tokens", (*added, *more)))
    unsaved = tuple((name, special[name]) for name in SPECIAL_TOKENS if name != "pad_token" and special.get(name))
    if unsaved and not saves_embeddings(config):  # load_tokenizer's check of each one, with the tokenizer (mask.py)
        out.append(("unsaved_special_tokens", unsaved))
    words = _token_list(file, "tokens", config.get("tokens"))  # plain added tokens: words of the vocabulary
    if words:
        out.append(("tokens", words))
    return out


def _token_list(file: str, key: str, value: object) -> tuple[str, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not all(isinstance(t, str) and t for t in value):
        raise MappingError(f"--mapping {file}: {key} = {value!r}: expected a list of tokens")
    return tuple(value)


def _json_typed(file: str, datasets: object) -> None:
    """YAML has more than JSON: a key that is not a string, a timestamp, !!binary, !!set, pairs.
    None of them is a value axolotl reads in a dataset entry (nor can a JSON Schema judge it)."""
    from ...diagnostics import json_path

    stack: list[tuple[object, tuple[object, ...]]] = [(datasets, ("datasets",))]
    while stack:  # the document's expanded size is bounded (ftlint/documents.py), so is this walk
        value, where = stack.pop()
        if isinstance(value, dict):
            for key, item in value.items():
                if not isinstance(key, str):
                    raise MappingError(f"--mapping {file}: {json_path(where)}: the key {key!r} is not a string")
                stack.append((item, (*where, key)))
        elif isinstance(value, list):
            stack.extend((item, (*where, i)) for i, item in enumerate(value))
        elif not isinstance(value, (str, int, float, bool)) and value is not None:
            raise MappingError(f"--mapping {file}: {json_path(where)}: a YAML {type(value).__name__}; "
                               "expected a string, number, boolean, null, list or mapping")


def _given(entry: dict, key: str, default: object) -> Any:
    """An entry's value for `key`; absent or null, the default (axolotl's fields default to None)."""
    value = entry.get(key)
    return default if value is None else value

"""An axolotl config's `datasets:` entry as a column mapping (`--mapping config.yml[:INDEX]`), with
the config's `sequence_len` (the same file sets where axolotl cuts or drops what the mapping reads)."""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ...documents import parse_yaml
from ...mapping import SHAREGPT_TAGS, Mapping, MappingError, document, validate


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
    so they are checked as OpenAI-style messages (trl-messages), whose targets are the assistant's
    turns: axolotl's default roles_to_train. `type: sharegpt` is refused, as axolotl refuses it. The entries' types are axolotl's
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
    where = f"{Path(file).name} datasets entry {entry.get('path') or '?'}"
    if kind == "alpaca":
        return Mapping(label, "alpaca", {"instruction": "instruction", "input": "input", "output": "output"}, ("instruction", "output"),
                       reason=f"{where}: type alpaca")
    if kind.startswith("sharegpt"):
        raise MappingError(f"--mapping {file}: type {kind!r}: axolotl refuses it (\"`type: sharegpt.*` is deprecated. Please use "
                           "`type: chat_template`\": src/axolotl/utils/schemas/validation.py deprecate_sharegpt_datasets)")
    if kind != "chat_template":
        raise MappingError(f"--mapping {file}: dataset type {kind!r} is not read yet (alpaca and chat_template are)")
    trained = _given(entry, "roles_to_train", ["assistant"])
    if trained not in (["assistant"], ["gpt"]):
        raise MappingError(f"--mapping {file}: roles_to_train {trained} is not modelled yet (only the assistant's turns)")
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
                   {**SHAREGPT_TAGS, "role_tag": role_key, "content_tag": content_key}, speakers, ("role", "content"),
                   reason=f"{where}: type chat_template, its messages read as OpenAI-style messages (trl-messages)")


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

"""`--mapping dataset_info.json[:NAME]`: check data as LLaMA-Factory reads it.

LLaMA-Factory's dataset_info.json (data/README.md of hiyouga/LLaMA-Factory, read 2026-12-01)
names, per dataset, its `formatting` (alpaca, the default, or sharegpt), the `columns` that hold
each part (prompt, query, response, system, history; messages, system, tools) and, for ShareGPT,
the `tags`: which key holds a turn's speaker and content, and which speaker values mean user,
assistant, tool result, function call and system. Each record is read through the mapping into
ftlint's `alpaca` or `sharegpt` shape and checked as that format; a column the mapping names that
a record lacks is FT109. The rules judge the mapped view; the JSON paths of their findings are
translated back to the record's own keys (`own_pointer`: the column, and in a turn the keys its
speaker and text are read from), so a finding points where the file holds the value.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .documents import parse_json, parse_yaml
from .trust import MAX_FILE_BYTES, Refused, read_text

if TYPE_CHECKING:
    from .diagnostics import Hit

ALPACA_COLUMNS = {"prompt": ("instruction", "instruction"), "query": ("input", "input"), "response": ("output", "output"),
                  "system": ("system", None), "history": ("history", None)}
SHAREGPT_COLUMNS = {"messages": ("conversations", "conversations"), "system": ("system", None), "tools": ("tools", None)}
SHAREGPT_TAGS = {"role_tag": "from", "content_tag": "value", "user_tag": "human", "assistant_tag": "gpt",
                 "observation_tag": "observation", "function_tag": "function_call", "system_tag": "system"}
CANONICAL_SPEAKER = {"user_tag": "human", "assistant_tag": "gpt", "observation_tag": "observation",
                     "function_tag": "function_call", "system_tag": "system"}


class MappingError(Exception):
    """The mapping cannot be used: a one-line usage error."""


@dataclass(frozen=True)
class Mapping:
    name: str
    formatting: str  # "alpaca" or "sharegpt": the ftlint format the data is checked as
    columns: dict[str, str] = field(default_factory=dict)  # canonical key -> the data's column
    required: tuple[str, ...] = ()  # canonical keys whose column a record must have
    tags: dict[str, str] = field(default_factory=dict)
    speakers: dict[str, str] = field(default_factory=dict)  # a speaker value -> ShareGPT's (axolotl's `roles` lists)
    turn_keys: tuple[str, str] = ("from", "value")  # a mapped turn's speaker and content keys: ShareGPT's, or role/content
    max_length: tuple[int, str] | None = None  # the trainer's max length the file sets (axolotl's sequence_len), and where
    reason: str = ""  # why the data is read as `formatting`: the entry that says so, in the file that holds it

    def apply(self, record: dict) -> dict:
        """The record in the canonical shape (a column it lacks is left out: `missing` says which)."""
        out = {k: v for k, v in record.items() if k not in self.columns.values()}
        for canonical, column in self.columns.items():
            if column in record:
                out[canonical] = record[column]
        turns = "messages" if self.formatting == "trl-messages" else "conversations"
        if self.formatting in ("sharegpt", "trl-messages") and isinstance(out.get(turns), list):
            out[turns] = [self._turn(t) for t in out[turns]]
        return out

    def own_hits(self, said: list[tuple[str, Hit]], mapped: list[tuple[str, Hit]]) -> list[tuple[str, Hit]]:
        """The hits of the checks on the mapped view, their JSON paths in the record's own keys; one
        at a place the mapping's own checks reported (`said`: a column the record lacks) is left out."""
        import dataclasses

        places = {hit.pointer for _, hit in said}
        out = []
        for code, hit in mapped:
            own = self.own_pointer(hit.pointer)
            if own not in places or own is None:
                out.append((code, hit if own == hit.pointer else dataclasses.replace(hit, pointer=own)))
        return out

    def own_pointer(self, pointer: str | None) -> str | None:
        """A JSON path into the mapped view (`$.messages[1].content`) as the path into the record as
        read (`$.conversations[1].value`): the column a canonical key is read from, and in a turn the
        keys its speaker and text are read from."""
        parts = _parts(pointer) if pointer else None
        if not parts or not isinstance(parts[0], str) or parts[0] not in self.columns:
            return pointer
        own: list[object] = [self.columns[parts[0]], *parts[1:]]
        turns = "messages" if self.formatting == "trl-messages" else "conversations"
        if parts[0] == turns and self.tags and len(parts) > 2 and isinstance(parts[1], int) and isinstance(parts[2], str):
            speaker_key, text_key = self.turn_keys
            own[2] = {speaker_key: self.tags["role_tag"], text_key: self.tags["content_tag"]}.get(parts[2], parts[2])
        from .diagnostics import json_path

        return json_path(own)

    def missing(self, record: dict) -> list[tuple[str, str]]:
        """(canonical key, the data's column) of each required column (the prompt and response, or
        the messages) the record lacks; an optional column may be absent (LLaMA-Factory reads None)."""
        return [(canonical, column) for canonical, column in self.columns.items() if column not in record and canonical in self.required]

    def _turn(self, turn: object) -> object:
        if not isinstance(turn, dict):
            return turn
        role_key, content_key = self.tags["role_tag"], self.tags["content_tag"]
        speakers = self.speakers or {self.tags[tag]: canonical for tag, canonical in CANONICAL_SPEAKER.items()}
        mapped = {k: v for k, v in turn.items() if k not in (role_key, content_key)}
        speaker_key, text_key = self.turn_keys
        if role_key in turn:
            speaker = turn[role_key]
            mapped[speaker_key] = speakers.get(speaker, speaker) if isinstance(speaker, str) else speaker
        if content_key in turn:
            mapped[text_key] = turn[content_key]
        return mapped


def given_format(mapping: Mapping | None) -> str:
    """Why the data is read as a format it was not detected as: the mapping's entry that says so
    (given as --mapping, or by a run config), or --format."""
    return mapping.reason if mapping is not None and mapping.reason else "--format"


_PART = re.compile(r"\.([^.\[]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]")


def _parts(pointer: str) -> list[object] | None:
    """A JSON path as diagnostics.json_path writes it, back to its keys and indexes (None: not one)."""
    if not pointer.startswith("$"):
        return None
    parts: list[object] = []
    position = 1
    while position < len(pointer):
        m = _PART.match(pointer, position)
        if m is None:
            return None
        key, index, quoted = m.groups()
        parts.append(key if key is not None else int(index) if index is not None else re.sub(r"\\(.)", r"\1", quoted))
        position = m.end()
    return parts


def split_spec(spec: str, folder: Path | None = None) -> tuple[str, str]:
    """`FILE[:NAME]` as (FILE, NAME): a value that is a file (relative to `folder`, if given) is
    all FILE; else NAME follows the last colon (a folder's path may hold one, a name does not)."""
    whole = Path(spec) if folder is None else folder / spec
    if whole.is_file() or ":" not in spec:
        return spec, ""
    file, _, name = spec.rpartition(":")
    return file, name


def load_mapping(spec: str, paths: tuple[str, ...], limit: int = MAX_FILE_BYTES) -> Mapping:
    """`FILE[:NAME]`: the entry NAME, else the one whose file_name is an input's name, else the
    only entry. A .yml or .yaml FILE is an axolotl config (see `axolotl_mapping`). The file is
    one regular file of at most `limit` bytes (--max-file-bytes), bounded in depth and size
    (ftlint/documents.py) and valid against schemas/llamafactory-dataset-info.schema.json."""
    file, name = split_spec(spec)
    if file.endswith((".yml", ".yaml")):
        return _with_length(axolotl_mapping(file, name, paths, limit), file, limit)
    info = _document(file, limit, parse_json)
    if not isinstance(info, dict):
        raise MappingError(f"--mapping {file}: not a LLaMA-Factory dataset_info.json (an object of dataset entries)")
    _validate(file, info, "llamafactory-dataset-info")
    if name:
        if name not in info:
            raise MappingError(f"--mapping {file}: no dataset {name!r} (it has {', '.join(sorted(info)[:8])})")
    else:
        names = {Path(p).name for p in paths}
        chosen = [k for k, v in info.items() if Path(str(v.get("file_name", ""))).name in names]
        if len(chosen) == 1 or len(info) == 1:
            name = chosen[0] if chosen else next(iter(info))
        else:
            raise MappingError(f"--mapping {file}: say which dataset with {file}:NAME ({len(info)} entries, "
                               f"{len(chosen)} naming an input)")
    entry = info[name]
    if entry.get("ranking"):
        raise MappingError(f"--mapping {file}:{name}: preference (ranking) datasets are not read through a mapping yet")
    formatting = entry.get("formatting") or "alpaca"
    if formatting not in ("alpaca", "sharegpt"):  # the schema allows LLaMA-Factory's third, openai
        raise MappingError(f"--mapping {file}:{name}: formatting {formatting!r} is not read through a mapping yet "
                           "(alpaca and sharegpt are)")
    given = {k: v for k, v in (entry.get("columns") or {}).items() if v is not None}  # null: no such column
    if formatting == "alpaca" and set(given) == {"prompt"} and isinstance(given["prompt"], str):
        # data/README.md, Pre-training Dataset: `"columns": {"prompt": "text"}`, and "only the text column
        # will be used" (data/processor/pretrain.py reads the prompt alone): no output to miss
        return Mapping(name, "text", {"text": given["prompt"]}, ("text",),
                       reason=f"{Path(file).name} entry {name}: its one column, prompt, is pre-training text")
    table = ALPACA_COLUMNS if formatting == "alpaca" else SHAREGPT_COLUMNS
    unknown = sorted(set(given) - set(table) - {"images", "videos", "audios", "chosen", "rejected", "kto_tag"})
    if unknown:
        raise MappingError(f"--mapping {file}:{name}: unknown columns {unknown} for {formatting}")
    columns: dict[str, str] = {}
    for key, (canonical, default) in table.items():
        column = given.get(key, default)
        if isinstance(column, str):
            columns[canonical] = column
    required = ("instruction", "output") if formatting == "alpaca" else ("conversations",)
    tags = {**SHAREGPT_TAGS, **{k: v for k, v in (entry.get("tags") or {}).items() if isinstance(v, str)}}
    return Mapping(name, formatting, columns, required, tags,
                   reason=f"{Path(file).name} entry {name}: formatting {formatting}{'' if entry.get('formatting') else ' (the default)'}")


def _document(file: str, limit: int, parse: Callable[[str, str], object]) -> object:
    try:
        return parse(read_text(file, "--mapping", limit), f"--mapping {file}")
    except Refused as exc:
        raise MappingError(str(exc)) from None


def _validate(file: str, document: object, schema: str) -> None:
    """The first way `document` breaks the schema, as one line: the JSON path and what was expected."""
    from .schemas import schema_findings

    for _, message, pointer in schema_findings(schema, document):
        raise MappingError(f"--mapping {file}: {pointer}: {message} ({schema}.schema.json)")


def _with_length(mapping: Mapping, file: str, limit: int) -> Mapping:
    """An axolotl config's mapping with its `sequence_len`: the same file sets where axolotl cuts
    (or drops) what the mapping reads (src/axolotl/utils/schemas/config.py sequence_len)."""
    import dataclasses

    config = _document(file, limit, parse_yaml)
    length = config.get("sequence_len") if isinstance(config, dict) else None
    if not isinstance(length, int) or isinstance(length, bool) or length < 1:
        return mapping
    return dataclasses.replace(mapping, max_length=(length, f"sequence_len {length} from {Path(file).name}"))


# axolotl's default `roles` for chat_template data (src/axolotl/prompt_strategies/chat_template.py)
AXOLOTL_DEFAULT_ROLES = {"user": ["user", "human"], "assistant": ["assistant", "gpt"], "system": ["system"], "tool": ["tool"]}


def axolotl_mapping(file: str, index: str, paths: tuple[str, ...], limit: int = MAX_FILE_BYTES) -> Mapping:
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
    config = _document(file, limit, parse_yaml)
    if not isinstance(config, dict) or "datasets" not in config:
        raise MappingError(f"--mapping {file}: no `datasets:` list of entries (an axolotl config has one)")
    _json_typed(file, config["datasets"])
    _validate(file, {"datasets": config["datasets"]}, "axolotl-datasets")  # only that part is read
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
    from .diagnostics import json_path

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

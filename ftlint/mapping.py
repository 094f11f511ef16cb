"""`--mapping dataset_info.json[:NAME]`: check data as LLaMA-Factory reads it.

LLaMA-Factory's dataset_info.json (data/README.md of hiyouga/LLaMA-Factory, read 2026-12-01)
names, per dataset, its `formatting` (alpaca, the default, or sharegpt), the `columns` that hold
each part (prompt, query, response, system, history; messages, system, tools) and, for ShareGPT,
the `tags`: which key holds a turn's speaker and content, and which speaker values mean user,
assistant, tool result, function call and system. Each record is read through the mapping into
ftlint's `alpaca` or `sharegpt` shape and checked as that format; a column the mapping names that
a record lacks is FT109. JSON paths in findings name the canonical columns (instruction, output,
conversations[i].from, ...), and each FT109 names the record's own column.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path

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

    def apply(self, record: dict) -> tuple[dict, list[tuple[str, str]]]:
        """The record in the canonical shape, and (canonical key, the data's column) of each
        required column (the prompt and response, or the messages) the record lacks."""
        out = {k: v for k, v in record.items() if k not in self.columns.values()}
        missing = []
        for canonical, column in self.columns.items():
            if column in record:
                out[canonical] = record[column]
            elif canonical in self.required:  # an optional column may be absent (LLaMA-Factory reads None)
                missing.append((canonical, column))
        if self.formatting == "sharegpt" and isinstance(out.get("conversations"), list):
            out["conversations"] = [self._turn(t) for t in out["conversations"]]
        return out, missing

    def _turn(self, turn: object) -> object:
        if not isinstance(turn, dict):
            return turn
        role_key, content_key = self.tags["role_tag"], self.tags["content_tag"]
        speakers = {self.tags[tag]: canonical for tag, canonical in CANONICAL_SPEAKER.items()}
        mapped = {k: v for k, v in turn.items() if k not in (role_key, content_key)}
        if role_key in turn:
            speaker = turn[role_key]
            mapped["from"] = speakers.get(speaker, speaker) if isinstance(speaker, str) else speaker
        if content_key in turn:
            mapped["value"] = turn[content_key]
        return mapped


def load_mapping(spec: str, paths: tuple[str, ...]) -> Mapping:
    """`FILE[:NAME]`: the entry NAME, else the one whose file_name is an input's name, else the
    only entry."""
    file, _, name = spec.partition(":") if not Path(spec).is_file() else (spec, "", "")
    try:
        info = json.loads(Path(file).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError) as exc:
        raise MappingError(f"--mapping {file}: cannot read it ({exc})") from None
    except ValueError as exc:
        raise MappingError(f"--mapping {file}: not JSON ({exc})") from None
    if not isinstance(info, dict) or not all(isinstance(v, dict) for v in info.values()):
        raise MappingError(f"--mapping {file}: not a LLaMA-Factory dataset_info.json (an object of dataset entries)")
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
    formatting = entry.get("formatting", "alpaca")
    if formatting not in ("alpaca", "sharegpt"):
        raise MappingError(f"--mapping {file}:{name}: formatting {formatting!r}; LLaMA-Factory has alpaca and sharegpt")
    given = entry.get("columns") or {}
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
    return Mapping(name, formatting, columns, required, tags)

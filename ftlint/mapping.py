"""`--mapping FILE[:NAME]`: check data as a trainer reads it through its column mapping.

A mapping says which column of the data holds each part of a record (the prompt, the response,
the messages; a turn's speaker and content, and which speaker values mean which role). Each
record is read through it into one of ftlint's shapes (alpaca, sharegpt, trl-messages, text) and
checked as that format; a column the mapping names that a record lacks is FT109. The rules judge
the mapped view; the JSON paths of their findings are translated back to the record's own keys
(`own_pointer`: the column, and in a turn the keys its speaker and text are read from), so a
finding points where the file holds the value. Which file is whose mapping, and how it is read, is the
trainer's (ftlint/trainers/<name>/mapping.py, `Trainer.mapping`); this module holds what they share.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from .trust import Refused, read_text

if TYPE_CHECKING:
    from .diagnostics import Hit

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
    speakers: dict[str, str] = field(default_factory=dict)  # a speaker value -> ShareGPT's (a mapping's role lists)
    turn_keys: tuple[str, str] = ("from", "value")  # a mapped turn's speaker and content keys: ShareGPT's, or role/content
    max_length: tuple[int, str] | None = None  # the trainer's max length the same file sets, and where
    loss: tuple[tuple[str, object], ...] = ()  # the same file's keys that decide what the trainer trains (Loss.keys)
    media_dir: str = ""  # where the records' media names are read from (LLaMA-Factory: dataset_info.json's folder)
    reason: str = ""  # why the data is read as `formatting`: the entry that says so, in the file that holds it
    turns_key: str = ""  # where the turns it renames are in the mapped view ("": ShareGPT's conversations, when that is the formatting)

    @property
    def turns(self) -> str:
        """The key of the turns whose speaker and text it renames ("": none, the record has no turns)."""
        return self.turns_key or ("conversations" if self.formatting == "sharegpt" else "")

    def apply(self, record: dict) -> dict:
        """The record in the canonical shape (a column it lacks is left out: `missing` says which)."""
        out = {k: v for k, v in record.items() if k not in self.columns.values()}
        for canonical, column in self.columns.items():
            if column in record:
                out[canonical] = record[column]
        turns = self.turns
        if turns and isinstance(out.get(turns), list):
            out[turns] = [self._turn(t) for t in out[turns]]
        if self.formatting == "sharegpt":  # a preference row's answers are turns too
            for key in ("chosen", "rejected"):
                if isinstance(out.get(key), dict) and key in self.columns:
                    out[key] = self._turn(out[key])
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
        if parts[0] == self.turns and self.tags and len(parts) > 2 and isinstance(parts[1], int) and isinstance(parts[2], str):
            speaker_key, text_key = self.turn_keys
            own[2] = {speaker_key: self.tags["role_tag"], text_key: self.tags["content_tag"]}.get(parts[2], parts[2])
        from .diagnostics import json_path

        return json_path(own)

    def missing(self, record: dict) -> list[tuple[str, str]]:
        """(canonical key, the data's column) of each required column (the prompt and response, or
        the messages) the record lacks; an optional column may be absent (the trainer reads None)."""
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


def document(file: str, limit: int, parse: Callable[[str, str], object]) -> object:
    """A mapping file read bounded (one regular file of at most `limit` bytes) and parsed by `parse`."""
    try:
        return parse(read_text(file, "--mapping", limit), f"--mapping {file}")
    except Refused as exc:
        raise MappingError(str(exc)) from None


def validate(file: str, document: object, schema: str) -> None:
    """The first way `document` breaks the schema, as one line: the JSON path and what was expected."""
    from .schemas import schema_findings

    for _, message, pointer in schema_findings(schema, document):
        raise MappingError(f"--mapping {file}: {pointer}: {message} ({schema}.schema.json)")

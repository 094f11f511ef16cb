"""Diagnostics, severities and exit codes: the contract every reporter and test builds on."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any, Literal, overload

# Exit codes (documented in the README; never change their meaning).
EXIT_OK = 0  # nothing failing
EXIT_FINDINGS = 1  # at least one finding at or above --fail-on (an invalid JSON line is one)
EXIT_USAGE = 2  # usage, configuration or I/O error (missing file, directory, unreadable)

ERROR = "error"
WARNING = "warning"
OFF = "off"  # a format's provider does not mind: the finding is not made
SEVERITIES = (ERROR, WARNING, OFF)


def fails(severities: Iterable[str], fail_on: str = ERROR) -> bool:
    """--fail-on's rule, the one every exit code follows (the commands', the Action's, the API's
    `failing()`): an error fails, and a warning under --fail-on warning."""
    return any(s == ERROR or (fail_on == WARNING and s == WARNING) for s in severities)


@dataclass(frozen=True, slots=True, order=True)
class Diagnostic:
    """One finding. Field order is sort order, so output is stable: by file, then line."""

    path: str
    line: int  # 1-based physical line; 0 = the file as a whole
    col: int  # 1-based column (characters); 1 where the finding is about the whole record
    code: str  # "FT201": letters + 3 digits; the hundreds digit is the family
    message: str  # lower case: what is wrong and what is expected
    severity: str = ERROR
    pointer: str | None = None  # JSON path into the record, e.g. "$.messages[2].content"
    # the record's identity (16 hex digits of its content's hash; "" for the file as a whole):
    # baselines and diffs match findings by it, so a known finding that moved stays known and a
    # new record with the same problem is new
    fingerprint: str = ""
    # a JSON array file's element the finding is on (1-based; 0: not an array's): `line` is then the
    # element's first line in the file, where an editor or a GitHub annotation should land
    element: int = 0

    def at(self, line: int, col: int | None = None, element: int = 0) -> Diagnostic:
        """The same finding on another line (each line of a run, an element's first line, the file)."""
        return Diagnostic(self.path, line, self.col if col is None else col, self.code, self.message, self.severity,
                          self.pointer, self.fingerprint, element)

    @classmethod
    def of(cls, fields: tuple) -> Diagnostic:
        """A finding from the fields a worker sent it as (engine/merge.py fields_of)."""
        return cls(*fields)

    def to_dict(self) -> dict[str, object]:
        found: dict[str, object] = {"path": self.path, "line": self.line, "col": self.col, "code": self.code,
                                    "message": self.message, "severity": self.severity, "pointer": self.pointer,
                                    "fingerprint": self.fingerprint}
        if self.element:
            found["element"] = self.element
        return found


@dataclass(frozen=True, slots=True)
class Hit:
    """What a check yields: the engine adds file, line and severity. `code` is needed only
    from a check that emits several codes."""

    message: str
    pointer: str | None = None
    col: int = 1
    code: str | None = None


@dataclass(frozen=True, slots=True)
class Located:
    """A dataset check's hit, on a record of one of the files checked together."""

    file_index: int
    line: int
    hit: Hit
    fingerprint: str = ""
    # the other record the finding names (a duplicate's first occurrence, a leak's training record), with the
    # finding as said on it: where it is shown when only that record's file changed (ftlint/change.py)
    partner: Located | None = None

    def shown_on(self, changed: Callable[[int], bool]) -> Located | None:
        """Where the finding is shown when only changed files' are (--dataset, by file index): on its
        record; on its other record when only that one's file changed; nowhere when neither did."""
        if changed(self.file_index):
            return self
        return self.partner if self.partner is not None and changed(self.partner.file_index) else None


def as_list(value: object) -> list:
    """A list, or nothing: rules and figures skip a value of the wrong type (the schema reports it)."""
    return value if isinstance(value, list) else []


@overload
def strings(value: object) -> Iterator[tuple[list, str]]: ...
@overload
def strings(value: object, keys: Literal[True]) -> Iterator[tuple[list, str, bool]]: ...


def strings(value: object, keys: bool = False) -> Iterator[Any]:
    """Every string value inside a parsed JSON value, with its path, in document order
    (without recursion: nesting depth cannot overflow the stack). With `keys`, object keys too,
    as (path to the key's value, key, True), values as (path, value, False)."""
    stack: list[tuple[list, object]] = [([], value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield (path, node, False) if keys else (path, node)
        elif isinstance(node, dict):
            items = list(node.items())
            stack.extend(([*path, k], v) for k, v in reversed(items))
            if keys:
                yield from (([*path, k], k, True) for k, _ in items)
        elif isinstance(node, list):
            stack.extend(([*path, i], v) for i, v in reversed(list(enumerate(node))))


def json_path(parts: tuple[object, ...] | list[object]) -> str:
    """Render a path of keys and indexes as a JSON path: ("messages", 2, "content") ->
    "$.messages[2].content". Keys that are not plain identifiers are quoted."""
    out = ["$"]
    for part in parts:
        if isinstance(part, int):
            out.append(f"[{part}]")
        elif isinstance(part, str) and part.isidentifier():
            out.append(f".{part}")
        else:
            out.append("[" + _quote(str(part)) + "]")
    return "".join(out)


def _quote(key: str) -> str:
    escaped = key.replace("\\", "\\\\").replace("'", "\\'")
    return f"'{escaped}'"


def short_json(value: object, limit: int = 40) -> str:
    """A value as JSON, cut to `limit` characters for a message; a secret in it is masked first
    (cut, it would no longer be recognisable as one)."""
    from .redact import redact

    text = redact(json.dumps(value, ensure_ascii=False))
    return text if len(text) <= limit else text[: limit - 1] + "…"

"""The record `ftlint show FILE:LINE` names: the file read as `check` reads it (JSONL, compressed,
a table's rows, a JSON array's elements), streamed to the line and no further than detection
needs (its first readable records), one line held at a time. A JSON array's LINE is any line of
an element: the element that starts on it, or the one it falls inside. What is no record is a
usage error, one line (exit 2): no such line, a blank line, a line outside every element."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field

from ..errors import UsageError
from ..options import ReadLimits
from ..parse import Line, parse_line
from ..read import READ_BLOCK, InputError, display_name, each_line, read_runs


@dataclass
class Target:
    path: str
    shown: str  # the path as findings name it
    line: int  # as asked
    number: int  # what the engine counts it by: its line, a JSON array's element
    item: bytes | Line  # the line as read
    value: dict | None  # parsed, when it is an object
    element: int = 0  # a JSON array's element (1-based), 0 for a line
    start: int = 0  # the line it starts on (a JSON array's element may span lines)
    head: list[dict] = field(default_factory=list)  # the file's first readable records: what detection reads


def parse_target(spec: str) -> tuple[str, int]:
    """FILE:LINE, the way findings name a record; the last colon is the line's (a path may hold one)."""
    path, _, line = spec.rpartition(":")
    if not path or not line.isdigit() or int(line) < 1:
        raise UsageError(f"{spec}: give FILE:LINE, a line number from 1 (as findings name a record: data.jsonl:42)")
    return path, int(line)


def find(path: str, line: int, limits: ReadLimits, head_records: int) -> Target:
    """The item on `line` and the records detection reads, reading no further than both need."""
    shown = display_name(path)
    starts = array("q")  # a JSON array's elements' first lines, as the reader finds them
    head: list[dict] = []
    found: Target | None = None
    total = 0
    try:
        for number, item in each_line(read_runs(path, limits.max_line_bytes, READ_BLOCK, starts)):
            total = number
            value = item.value if isinstance(item, Line) else parse_line(number, item, limits.max_depth).value
            if isinstance(value, dict) and len(head) < head_records:
                head.append(value)
            if found is None and _holds(line, number, item, starts):
                found = Target(path, shown, line, number, item, value if isinstance(value, dict) else None,
                               number if starts else 0, starts[number - 1] if starts else line)
            if found is not None and (len(head) >= head_records or number > found.number + head_records):
                break
    except InputError as exc:
        raise UsageError(str(exc)) from None
    if found is None:
        where = f"its elements start on lines {starts[0]:,} to {starts[-1]:,}" if starts else f"it has {total:,} line(s)"
        raise UsageError(f"{shown}:{line}: no record there ({where})")
    if isinstance(found.item, bytes) and not found.item.strip():
        raise UsageError(f"{shown}:{line}: a blank line, no record")
    found.head = head
    return found


def _holds(line: int, number: int, item: bytes | Line, starts: array) -> bool:
    """Whether the item numbered `number` is the one on `line`: its line, or (a JSON array's
    element) the lines from its first to its last."""
    if not starts:
        return number == line
    first = starts[number - 1]
    last = first + (item.count(b"\n") if isinstance(item, bytes) else 0)
    return first <= line <= last

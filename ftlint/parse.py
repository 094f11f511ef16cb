"""One line's bytes parsed: its JSON object and compact JSON, or what is wrong with it, as facts.

A fact is data (a kind and its particulars: the parser's message and position, a key and its
value, a size and its limit), never a code or a message: the rule module that documents the codes
(rules/file.py) words them, so every code is said in one place. The readers (read/) report what
they find the same way, with the facts below that need no parsing (a line too long, a UTF-16
file, a broken stream, a JSON array's own faults).

Speed: a valid line costs one orjson parse, one compact serialisation, one pass that keeps its
brackets and colons, and a colon count of the serialisation; its facts are an empty list, and a
fact costs something only where there is one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Literal

import orjson

BOM = b"\xef\xbb\xbf"
_NOT_STRUCTURE = bytes(b for b in range(256) if b not in b"{[:")  # deleted, the line's "{", "[" and ":" are left
DEFAULT_MAX_DEPTH = 128


@dataclass(frozen=True, slots=True)
class Bom:
    """The line starts with a UTF-8 byte-order mark (read past: the rest is parsed)."""


@dataclass(frozen=True, slots=True)
class Blank:
    """The line is empty or white space."""


@dataclass(frozen=True, slots=True)
class Nul:
    offset: int  # of the first NUL byte, in the line's bytes


@dataclass(frozen=True, slots=True)
class NotJson:
    """orjson refused the line: what it said and where; the line, to tell why (rules/file.py)."""

    raw: bytes  # the line, past a byte-order mark
    message: str
    pos: int  # the character offset orjson stopped at
    max_depth: int  # --max-depth: orjson's own depth limit is said as this one


@dataclass(frozen=True, slots=True)
class NotObject:
    value: object  # the JSON value the line holds


@dataclass(frozen=True, slots=True)
class TooDeep:
    """Parsed, but nested deeper than --max-depth: not checked further."""

    limit: int


@dataclass(frozen=True, slots=True)
class DuplicateKey:
    key: str  # the first key seen twice in one object
    value: object  # its later value: the one parsers keep


@dataclass(frozen=True, slots=True)
class TooLong:
    """A line (or a JSON array's element) over --max-line-bytes: read past, not parsed."""

    size: int
    limit: int
    what: str = "line"


@dataclass(frozen=True, slots=True)
class Utf16:
    """The file is UTF-16: none of it is read."""


@dataclass(frozen=True, slots=True)
class Broken:
    """The stream broke before its end: corrupt or cut compressed data, or an I/O error."""

    reason: str
    compressed: bool


ArrayFault = Literal["not-an-array", "text-after", "empty-element", "trailing-comma", "open-element", "open-array"]


@dataclass(frozen=True, slots=True)
class BadArray:
    """A JSON array file's own syntax, outside its elements (read/json_array.py)."""

    fault: ArrayFault


Fact = Bom | Blank | Nul | NotJson | NotObject | TooDeep | DuplicateKey | TooLong | Utf16 | Broken | BadArray
BLANK = Blank()


@dataclass(slots=True)
class Line:
    """One physical line. `value` is the parsed JSON object, or None when the line is blank,
    unparseable or not an object; `facts` say why (a BOM is a fact of a line that still parses)."""

    number: int
    value: dict | None
    facts: list[Fact]
    nbytes: int
    blank: bool = False
    compact: bytes | None = None  # the value as compact JSON, keys sorted (orjson): scans search it, fingerprints hash it


def compact_json(value: object, sort_keys: bool = True) -> bytes:
    """A value as compact JSON (orjson; keys sorted unless asked not to). Deeper than orjson
    serialises (254 levels, reachable with --max-depth above it), the standard library writes it."""
    try:
        return orjson.dumps(value, option=orjson.OPT_SORT_KEYS if sort_keys else 0)
    except orjson.JSONEncodeError:
        return json.dumps(value, sort_keys=sort_keys, separators=(",", ":"), ensure_ascii=False).encode("utf-8", "surrogatepass")


def is_blank(raw: bytes) -> bool:
    """Empty, or JSON's white space only (space, tab, CR, LF): a vertical tab or a form feed is
    white space to Python (bytes.isspace) but not to JSON, so a line of them is not blank but
    invalid JSON, and is counted as such, in check's counts and in convert's tally."""
    return not raw.strip(b" \t\r\n")


def parse_line(number: int, raw: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Line:
    facts: list[Fact] = []
    nbytes = len(raw)
    if raw.startswith(BOM):
        facts.append(Bom())
        raw = raw[len(BOM) :]
    if is_blank(raw):
        facts.append(BLANK)
        return Line(number, None, facts, nbytes, blank=True)
    nul = raw.find(b"\x00")
    if nul >= 0:
        facts.append(Nul(nul))
        return Line(number, None, facts, nbytes)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        facts.append(NotJson(raw, exc.msg, exc.pos, max_depth))
        return Line(number, None, facts, nbytes)
    if not isinstance(value, dict):
        facts.append(NotObject(value))
        return Line(number, None, facts, nbytes)
    structure = raw.translate(None, _NOT_STRUCTURE)  # one pass for both tests below: a bytes.count each cost 3x
    colons = structure.count(b":")
    if len(structure) - colons > max_depth and nesting_depth(value, max_depth) > max_depth:  # the brackets opened
        facts.append(TooDeep(max_depth))
        return Line(number, None, facts, nbytes)
    compact = compact_json(value)
    duplicate = duplicate_key(raw, value, compact, colons)
    if duplicate is not None:
        facts.append(duplicate)
    return Line(number, value, facts, nbytes, compact=compact)


def nesting_depth(value: object, stop_above: int) -> int:
    """Depth of nested objects and arrays (a flat object is 1), without recursion; stops
    counting once past `stop_above`."""
    deepest = 0
    stack: list[tuple[object, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > deepest:
            deepest = depth
            if deepest > stop_above:
                return deepest
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        for child in children:
            if isinstance(child, (dict, list)):
                stack.append((child, depth + 1))
    return deepest


def duplicate_key(raw: bytes, value: dict, compact: bytes, colons: int | None = None) -> DuplicateKey | None:
    """The first key that appears twice in one object (JSON parsers silently keep the last).

    Cheap test first: every key is followed by a colon, and re-serialising the parsed value
    drops duplicates, so a line with more colons than its re-serialisation may have one (colons
    inside strings are in both; parse_line counts them in the pass that finds the brackets). Only then is the line
    parsed again, slowly, to find it. (A writer that escapes colons as \\u003a could hide a
    duplicate from the cheap test, so those escapes count as colons.) `colons`: the raw line's,
    when the caller has counted them."""
    if colons is None:
        colons = raw.count(b":")
    if b"\\" in raw and b"\\u00" in raw:  # a colon in a string may be written \u003a: the parsed value holds it as ":"
        colons += raw.count(b"\\u003a") + raw.count(b"\\u003A")
    if colons <= compact.count(b":"):
        return None
    found: list[DuplicateKey] = []

    def pairs_hook(pairs: list[tuple[str, object]]) -> dict:
        seen: dict[str, object] = {}
        for key, item in pairs:
            if key in seen and not found:
                found.append(DuplicateKey(key, item))
            seen[key] = item
        return seen

    try:
        json.loads(raw, object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return None
    return found[0] if found else None

"""File and JSON codes (FT0xx): what the readers (ftlint/read/) and the parser (ftlint/parse.py)
find wrong with a line, as facts, worded here by one line check; FT006 is checked at the end of
each file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, assert_never

from ..diagnostics import ERROR, WARNING, Hit, short_json
from ..parse import BadArray, Blank, Bom, Broken, DuplicateKey, NotJson, NotObject, Nul, TooDeep, TooLong, Utf16
from . import check, register

if TYPE_CHECKING:
    from ..parse import ArrayFault, Fact, Line
    from .context import FileContext, FileSummary

register("FT001", "invalid-json", ERROR, """
    The line is not valid JSON.

    Checks each line with a strict JSON parser: trailing commas, single quotes, NaN and Infinity,
    comments, a lone UTF-16 surrogate escape or a line cut off mid-value are all rejected.
    Why: providers parse every line as JSON and reject the whole file on the first that fails,
    after the upload. The column points at the first character the parser could not accept.
    Example: {"messages": [{"role": "user", "content": "hi"},]}  -> trailing comma
""", kind="line")

register("FT002", "not-an-object", ERROR, """
    The line holds a JSON value that is not an object.

    Why: a training example is one JSON object per line; a top-level array, string or number is
    rejected. A file that is one big JSON array (not JSONL) shows this on its first line.
    Example: [{"messages": [...]}]
""", kind="line")

register("FT003", "invalid-utf8", ERROR, """
    The line is not valid UTF-8.

    The message gives the byte offset of the first bad byte within the line.
    Why: providers read training files as UTF-8; Latin-1 or Windows-1252 exports (from
    spreadsheets, old scripts) are rejected or silently corrupted.
    Example: a line containing the single byte 0xE9 for "é".
""", kind="line")

register("FT004", "byte-order-mark", WARNING, """
    The line starts with a UTF-8 byte-order mark (BOM).

    ftlint reads past the BOM and checks the rest of the line, so it is a warning, not an error.
    Why: most JSONL readers (Python's json, many providers') see the BOM as an invalid character
    on line 1; Azure OpenAI's documentation alone asks for a BOM. Keep one only if your provider
    wants it. A BOM on a later line usually means files were concatenated.
    Example: the bytes EF BB BF before the first "{".
""", kind="line")

register("FT005", "blank-line", ERROR, """
    The line is blank or holds only white space.

    Why: a blank line is not a JSON object; strict JSONL readers (OpenAI's upload validation,
    Together's checker) reject the file because of it. Remove blank lines, including one at
    the end of the file (a single final newline is fine).
    Example: two newlines in a row.
""", kind="line")

register("FT006", "empty-file", ERROR, """
    The file holds no records at all.

    Why: an empty training file is always a mistake (a failed export or a wrong path).
""", kind="file")

register("FT007", "line-too-long", ERROR, """
    The line is longer than the line-size limit (--max-line-bytes, default 128 MiB); it is not parsed.

    Why: a line that size is almost always a broken file (a missing newline joins records) and
    reading it whole would exhaust memory. Raise the limit if you really have such records
    (e.g. many inline images).
""", kind="line")

register("FT008", "utf16-file", ERROR, """
    The file is UTF-16 encoded.

    Why: Windows tools (PowerShell's redirection, Notepad's "Unicode") write UTF-16; providers
    expect UTF-8. Re-save the file as UTF-8.
""", kind="line")

register("FT009", "read-failed", ERROR, """
    The file could not be read to its end (a corrupt or truncated .gz, or an I/O error).

    Why: lines after the break were not checked and would not reach the provider either.
""", kind="line")

register("FT010", "nul-byte", ERROR, """
    The line contains a NUL byte.

    Why: NUL never occurs in UTF-8 text; it means binary data or a UTF-16 file that has no
    byte-order mark. The message gives the byte offset.
""", kind="line")

register("FT011", "cr-line-ends", ERROR, """
    Carriage returns (CR) separate records inside one line: the file uses CR-only line ends.

    ftlint, like every JSONL reader, splits lines at LF ("\\n"); CRLF is fine, CR alone is not.
    Why: the provider sees the whole file as one broken line. Convert line ends to LF.
""", kind="line")

register("FT012", "pretty-printed-json", ERROR, """
    The line is part of a pretty-printed JSON value spread over many lines.

    Why: JSONL needs each record on exactly one line. Re-serialise each record compactly
    (e.g. `jq -c . data.json`).
    Example: a line holding only "{".
""", kind="line")

register("FT013", "duplicate-key", ERROR, """
    An object has the same key twice.

    Why: JSON leaves the meaning undefined; most parsers (the provider's included) keep the last
    value silently, so the data trained on is not what a reader of the file sees.
    Example: {"role": "user", "content": "a", "content": "b"}
""", kind="line")

register("FT014", "too-deep", ERROR, """
    The value is nested deeper than the nesting limit (--max-depth, default 128).

    Why: no training format nests that deep; such a line is generated garbage or an attack on
    the parser, and checking it would cost unbounded time. Raise the limit if it is real.
""", kind="line")


@check("file", "FT006")
def empty_file(summary: FileSummary, ctx: FileContext) -> Iterator[Hit]:
    if summary.lines == summary.blank:
        yield Hit(f"{'file is empty' if summary.lines == 0 else 'file holds only blank lines'}: no training records")


LINE_CODES = ("FT001", "FT002", "FT003", "FT004", "FT005", "FT007", "FT008", "FT009", "FT010", "FT011", "FT012", "FT013", "FT014")
ARRAY_FAULTS: dict[ArrayFault, str] = {
    "not-an-array": "a .json file read as records holds one array; expected '['",
    "text-after": "text after the array's closing bracket; a .json file holds one array",
    "empty-element": "an empty element (a comma with no value before it)",
    "trailing-comma": "a comma before the array's closing bracket (JSON allows no trailing comma)",
    "open-element": "the file ends inside this element (a string or a bracket is not closed)",
    "open-array": "the file ends before the array's closing bracket ']'",
}


@check("line", *LINE_CODES)
def line_facts(line: Line) -> Iterator[Hit]:
    """Each fact of a line, in order, as its code and its words."""
    for fact in line.facts:
        yield worded(fact, line.number)


def line_hits(line: Line) -> list[tuple[str, Hit]]:
    """(code, hit) of each fact of a line: for a caller that reads lines itself (convert)."""
    return [(hit.code or "", hit) for hit in line_facts(line)]


def worded(fact: Fact, number: int) -> Hit:
    """A fact of line `number` as the hit its code makes."""
    match fact:
        case Bom():
            return Hit("line starts with a UTF-8 byte-order mark; ftlint reads past it, "
                       "but most JSONL parsers do not (Azure OpenAI alone asks for one)", code="FT004")
        case Blank():
            return Hit("blank line: every line must hold one JSON object", code="FT005")
        case Nul(offset):
            return Hit(f"NUL byte at byte offset {offset} of the line: binary data, or a UTF-16 file without a byte-order mark",
                       col=offset + 1, code="FT010")
        case NotJson():
            return _not_json(fact, number)
        case NotObject(value):
            return _not_object(value)
        case TooDeep(limit):
            return Hit(f"value nested more than {limit} levels deep (--max-depth); not checked further", code="FT014")
        case DuplicateKey(key, value):
            return Hit(f"duplicate key '{key}' in one object: parsers keep only the last value ({short_json(value, 30)})", code="FT013")
        case TooLong(size, limit, what):
            return Hit(f"{what} is {size:,} bytes, over the {limit:,}-byte limit; not parsed", code="FT007")
        case Utf16():
            return Hit("file is UTF-16 encoded; save it as UTF-8", code="FT008")
        case Broken(reason, compressed):
            return Hit(f"compressed stream is corrupt or truncated: {reason}" if compressed else f"read failed: {reason}", code="FT009")
        case BadArray(fault):
            return Hit(f"invalid JSON: {ARRAY_FAULTS[fault]}", code="FT001")
        case _:
            assert_never(fact)


def _not_object(value: object) -> Hit:
    msg = f"line holds a JSON {_json_kind(value)}, expected an object"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        msg += f" (an array of {len(value)} objects: JSONL wants each on its own line)"
    return Hit(msg, code="FT002")


def _not_json(fact: NotJson, number: int) -> Hit:
    """Why orjson refused the line, said as what the user can fix: its bytes are not UTF-8 (FT003),
    its line ends are CR (FT011), it is a piece of pretty-printed JSON (FT012), it is too deep
    (FT014), or what is not JSON about it (FT001)."""
    raw = fact.raw
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        col = len(raw[: bad.start].decode("utf-8", errors="replace")) + 1
        return Hit(f"invalid UTF-8: byte 0x{raw[bad.start]:02x} at byte offset {bad.start} of the line", col=col, code="FT003")
    # the character offset, 1-based: a line's column, and in a JSON array's element (which may span
    # lines) its offset from the element's start
    col = fact.pos + 1
    msg = fact.message
    rest = text[col - 1 : col + 8]
    if rest.startswith(("NaN", "Infinity", "-Infinity")):
        return _invalid(f"{rest.split(',')[0].split('}')[0]} is not a JSON number (NaN and Infinity are not JSON)", col)
    if rest.startswith("'"):
        msg = f"{msg} (JSON strings and keys take double quotes)"
    if "depth limit" in msg:
        return Hit(f"value nested more than {fact.max_depth} levels deep (--max-depth); not parsed", col=col, code="FT014")
    if "infinity when parsed" in msg:
        return _invalid("a number too large for a 64-bit float", col)
    if b"\r" in raw and b"\n" not in raw and ("after document" in msg or "trailing" in msg or "control character" in msg):
        return Hit("line holds carriage returns (CR) inside: the file uses CR-only (old Mac) line ends; ftlint splits lines at LF",
                   col=col, code="FT011")
    if _pretty_printed_piece(text.strip(), number):
        return Hit(f"invalid JSON: {msg}: this looks like pretty-printed JSON (one value over many lines); JSONL needs each object "
                   "on one line", col=col, code="FT012")
    if "after document" in msg:
        msg = f"{msg} (two JSON values on one line: a missing newline?)"
    if "surrogate" in msg:
        return _invalid(f"{msg} (a lone UTF-16 surrogate escape)", col)
    if (col > len(text) and text.rstrip().endswith(("{", "[", ",", ":", '"'))) or "unexpected end" in msg:
        msg = f"{msg} (the line ends before the JSON value does)"
    return _invalid(msg, col)


def _invalid(what: str, col: int) -> Hit:
    return Hit(f"invalid JSON: {what}", col=col, code="FT001")


def _pretty_printed_piece(stripped: str, number: int) -> bool:
    """A line that only makes sense as part of a JSON value spread over many lines: a lone
    bracket, a closing bracket with its comma, or a `"key": value` line."""
    if stripped and set(stripped) <= set("{}[],"):
        return len(stripped) <= 2
    return number > 1 and stripped.startswith('"') and '":' in stripped


def _json_kind(value: object) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if isinstance(value, bool):
        return "boolean"
    if value is None:
        return "null"
    return "number"

"""File and JSON codes (FT0xx): the reader (ftlint/read.py) emits them while it parses, so
they have no check object here, only their documentation and severity; FT006 is checked at the
end of each file."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit
from . import check, register

if TYPE_CHECKING:
    from ..engine.judge import FileContext
    from ..engine.result import FileSummary

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

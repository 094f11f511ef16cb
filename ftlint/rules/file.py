"""File and JSON codes (FT0xx), emitted by the reader (ftlint/read.py)."""

from ..diagnostics import ERROR, WARNING
from . import register

register("FT001", "invalid-json", ERROR, """
    The line is not valid JSON.

    Checks each line with a strict JSON parser: trailing commas, single quotes, NaN and Infinity,
    comments, a lone UTF-16 surrogate escape or a line cut off mid-value are all rejected.
    Why: providers parse every line as JSON and reject the whole file on the first that fails,
    after the upload. The column points at the first character the parser could not accept.
    Example: {"messages": [{"role": "user", "content": "hi"},]}  -> trailing comma
""")

register("FT002", "not-an-object", ERROR, """
    The line holds a JSON value that is not an object.

    Why: a training example is one JSON object per line; a top-level array, string or number is
    rejected. A file that is one big JSON array (not JSONL) shows this on its first line.
    Example: [{"messages": [...]}]
""")

register("FT003", "invalid-utf8", ERROR, """
    The line is not valid UTF-8.

    The message gives the byte offset of the first bad byte within the line.
    Why: providers read training files as UTF-8; Latin-1 or Windows-1252 exports (from
    spreadsheets, old scripts) are rejected or silently corrupted.
    Example: a line containing the single byte 0xE9 for "é".
""")

register("FT004", "byte-order-mark", WARNING, """
    The line starts with a UTF-8 byte-order mark (BOM).

    ftlint reads past the BOM and checks the rest of the line, so it is a warning, not an error.
    Why: most JSONL readers (Python's json, many providers') see the BOM as an invalid character
    on line 1; Azure OpenAI's documentation alone asks for a BOM. Keep one only if your provider
    wants it. A BOM on a later line usually means files were concatenated.
    Example: the bytes EF BB BF before the first "{".
""")

register("FT005", "blank-line", ERROR, """
    The line is blank or holds only white space.

    Why: a blank line is not a JSON object; strict JSONL readers (OpenAI's upload validation,
    Together's checker) reject the file because of it. Remove blank lines, including one at
    the end of the file (a single final newline is fine).
    Example: two newlines in a row.
""")

register("FT006", "empty-file", ERROR, """
    The file holds no records at all.

    Why: an empty training file is always a mistake (a failed export or a wrong path).
""")

register("FT007", "line-too-long", ERROR, """
    The line is longer than the line-size limit (--max-line-bytes, default 128 MiB); it is not parsed.

    Why: a line that size is almost always a broken file (a missing newline joins records) and
    reading it whole would exhaust memory. Raise the limit if you really have such records
    (e.g. many inline images).
""")

register("FT008", "utf16-file", ERROR, """
    The file is UTF-16 encoded.

    Why: Windows tools (PowerShell's redirection, Notepad's "Unicode") write UTF-16; providers
    expect UTF-8. Re-save the file as UTF-8.
""")

register("FT009", "read-failed", ERROR, """
    The file could not be read to its end (a corrupt or truncated .gz, or an I/O error).

    Why: lines after the break were not checked and would not reach the provider either.
""")

"""Streaming JSONL reader.

One value per physical line, exact 1-based line numbers, nothing held but the current line.
Bad data never raises: a bad line becomes a `Line` carrying its problem, so one bad line never
stops the run. Only a path that cannot be opened at all raises `InputError` (exit 2).

Line ends: a line ends at LF; a CR before the LF is dropped (CRLF files are fine). A CR alone
does not end a line (the file is then one long line, reported as such by the JSON parser).
"""

from __future__ import annotations

import gzip
import io
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import BinaryIO

import orjson

BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
GZIP_MAGIC = b"\x1f\x8b"
DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
READ_BLOCK = 1024 * 1024


class InputError(Exception):
    """A path that cannot be read at all: a one-line error and exit 2."""


@dataclass(slots=True)
class Problem:
    code: str
    message: str
    col: int = 1
    severity: str = "error"


@dataclass(slots=True)
class Line:
    """One physical line. `value` is the parsed JSON object, or None when the line is blank,
    unparseable or not an object; `problems` says why (a BOM is a problem on a line that
    still parses)."""

    number: int
    value: dict | None
    problems: list[Problem]
    nbytes: int
    blank: bool = False


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def open_binary(path: str) -> BinaryIO:
    """Open a path ('-' is stdin) for binary reading, transparently gunzipping gzip data
    (recognised by its magic bytes, whatever the file is called)."""
    if path == "-":
        raw: BinaryIO = sys.stdin.buffer
    else:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if stat.S_ISDIR(st.st_mode):
            raise InputError(f"{path}: is a directory, not a JSONL file")
        try:
            raw = open(path, "rb")  # noqa: SIM115 - closed by the caller
        except PermissionError:
            raise InputError(f"{path}: permission denied") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[arg-type]
    try:
        head = buffered.peek(2)[:2]
    except OSError as exc:
        raise InputError(f"{display_name(path)}: cannot read: {exc.strerror or exc}") from None
    if head == GZIP_MAGIC:
        return gzip.GzipFile(fileobj=buffered, mode="rb")  # type: ignore[return-value]
    return buffered


def read_lines(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[Line]:
    """Yield every physical line of `path` as a parsed `Line`."""
    stream = open_binary(path)
    try:
        yield from _parse_stream(stream, max_line_bytes)
    finally:
        if path != "-":
            stream.close()


def _parse_stream(stream: BinaryIO, max_line_bytes: int) -> Iterator[Line]:
    number = 0
    for raw, too_long_by in _raw_lines(stream, max_line_bytes):
        number += 1
        if isinstance(raw, Problem):  # the stream itself broke (corrupt gzip, I/O error)
            yield Line(number, None, [raw], 0)
            return
        if number == 1 and raw[:2] in UTF16_BOMS:
            yield Line(1, None, [Problem("FT008", "file is UTF-16 encoded; save it as UTF-8")], len(raw))
            return
        if too_long_by:
            size = len(raw) + too_long_by
            msg = f"line is {size:,} bytes, over the {max_line_bytes:,}-byte limit; not parsed"
            yield Line(number, None, [Problem("FT007", msg)], size)
            continue
        yield parse_line(number, raw)


def _raw_lines(stream: BinaryIO, limit: int) -> Iterator[tuple[bytes | Problem, int]]:
    """Yield (line bytes without its end, bytes skipped past the limit). A line longer than
    `limit` is cut; the rest is read and thrown away in blocks, so memory stays bounded."""
    try:
        while True:
            raw = stream.readline(limit + 1)
            if not raw:
                return
            skipped = 0
            if len(raw) > limit and not raw.endswith(b"\n"):
                while True:
                    block = stream.readline(READ_BLOCK)
                    if not block:
                        break
                    skipped += len(block)
                    if block.endswith(b"\n"):
                        break
                raw = raw[:limit]
            yield _strip_end(raw), skipped
    except (EOFError, zlib.error, gzip.BadGzipFile) as exc:
        yield Problem("FT009", f"compressed stream is corrupt or truncated: {exc}"), 0
    except OSError as exc:
        yield Problem("FT009", f"read failed: {exc.strerror or exc}"), 0


def _strip_end(raw: bytes) -> bytes:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


def parse_line(number: int, raw: bytes) -> Line:
    problems: list[Problem] = []
    nbytes = len(raw)
    if raw.startswith(BOM):
        problems.append(
            Problem(
                "FT004",
                "line starts with a UTF-8 byte-order mark; ftlint reads past it, "
                "but most JSONL parsers do not (Azure OpenAI alone asks for one)",
                severity="warning",
            )
        )
        raw = raw[len(BOM) :]
    if not raw.strip():
        problems.append(Problem("FT005", "blank line: every line must hold one JSON object"))
        return Line(number, None, problems, nbytes, blank=True)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        problems.append(_json_problem(raw, exc))
        return Line(number, None, problems, nbytes)
    if not isinstance(value, dict):
        kind = _json_kind(value)
        problems.append(Problem("FT002", f"line holds a JSON {kind}, expected an object"))
        return Line(number, None, problems, nbytes)
    return Line(number, value, problems, nbytes)


def _json_problem(raw: bytes, exc: orjson.JSONDecodeError) -> Problem:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        col = len(raw[: bad.start].decode("utf-8", errors="replace")) + 1
        byte = raw[bad.start]
        return Problem("FT003", f"invalid UTF-8: byte 0x{byte:02x} at byte offset {bad.start} of the line", col)
    col = int(getattr(exc, "colno", 0) or (exc.pos + 1))
    msg = exc.msg
    rest = text[col - 1 : col + 8]
    if rest.startswith(("NaN", "Infinity", "-Infinity")):
        return Problem("FT001", f"invalid JSON: {rest.split(',')[0].split('}')[0]} is not a JSON number (NaN and Infinity are not JSON)", col)
    if rest.startswith("'"):
        msg = f"{msg} (JSON strings and keys take double quotes)"
    if "after document" in msg:
        msg = f"{msg} (two JSON values on one line: a missing newline?)"
    if "surrogate" in msg:
        return Problem("FT001", f"invalid JSON: {msg} (a lone UTF-16 surrogate escape)", col)
    if col > len(text) and text.rstrip().endswith(("{", "[", ",", ":", '"')) or "unexpected end" in msg:
        msg = f"{msg} (the line ends before the JSON value does)"
    return Problem("FT001", f"invalid JSON: {msg}", col)


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

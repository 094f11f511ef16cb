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
import json
import os
import stat
import sys
import zlib
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, BinaryIO, NamedTuple

import orjson

from .compressed import compression, decompressed
from .diagnostics import compact_json, short_json

if TYPE_CHECKING:
    from .json_array import JsonArray

BOM = b"\xef\xbb\xbf"
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
DEFAULT_MAX_DEPTH = 128
READ_BLOCK = 1024 * 1024


class InputError(Exception):
    """A path that cannot be read at all: a one-line error and exit 2."""


@dataclass(slots=True)
class Problem:
    """A finding the reader makes; its severity comes from the rule registry, as every code's."""

    code: str
    message: str
    col: int = 1


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
    compact: bytes | None = None  # the value as compact JSON, keys sorted (orjson): scans search it, fingerprints hash it


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def open_binary(path: str) -> BinaryIO | JsonArray:
    """Open a path ('-' is stdin) for binary reading, transparently decompressing gzip and zstd
    data (recognised by their magic bytes, whatever the file is called). A Parquet or Arrow file
    or a save_to_disk folder comes as a stream of JSON lines, a JSON array as a `JsonArray`."""
    if path == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise InputError("<stdin>: standard input is closed")
        raw: BinaryIO = sys.stdin.buffer
    else:
        try:
            st = os.stat(path)
        except FileNotFoundError:
            raise InputError(f"{path}: no such file") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
        if stat.S_ISDIR(st.st_mode):
            from .save_to_disk import open_folder

            folder = open_folder(path)
            if folder is None:
                raise InputError(f"{path}: is a directory, not a JSONL file (nor a datasets.save_to_disk folder)")
            return folder
        try:
            # a 1 MiB buffer: readline on the default 8 KiB one cost 3x the CPU on long lines
            raw = open(path, "rb", buffering=READ_BLOCK)  # noqa: SIM115 - closed by the caller
        except PermissionError:
            raise InputError(f"{path}: permission denied") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
    try:
        head = buffered.peek(8)[:8]
    except OSError as exc:
        raise InputError(f"{display_name(path)}: cannot read: {exc.strerror or exc}") from None
    packed = compression(head)
    if packed is not None:
        return decompressed(buffered, packed)
    if path == "-":
        return buffered
    from .containers import kind_of, open_container

    kind = kind_of(path, head)
    if kind == "json-array":
        from .json_array import JsonArray

        return JsonArray(buffered)
    if kind is not None:
        try:
            return open_container(path, kind, buffered)
        except Exception as exc:  # polars: not a readable Parquet or Arrow file
            raise InputError(f"{path}: cannot read it as {kind}: {str(exc).splitlines()[0][:200]}") from None
    return buffered


def read_lines(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
               max_depth: int = DEFAULT_MAX_DEPTH) -> Iterator[Line]:
    """Yield every physical line of `path` as a parsed `Line`."""
    for number, item in read_raw(path, max_line_bytes):
        yield item if isinstance(item, Line) else parse_line(number, item, max_depth)


def read_raw(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES) -> Iterator[tuple[int, bytes | Line]]:
    """Yield (line number, line bytes) for every physical line, or (line number, Line) where
    the line needs no parsing to be judged (over the size limit, a UTF-16 file, a broken
    stream). Parsing is separate so it can run in worker processes. A JSON array's lines are
    its elements."""
    yield from _items(path, max_line_bytes, None)  # type: ignore[misc]  # no LineBlock without a block size


def _items(path: str, max_line_bytes: int, block_bytes: int | None) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """read_raw's items (`block_bytes` None) or read_runs'."""
    from .json_array import JsonArray

    stream = open_binary(path)
    try:
        if isinstance(stream, JsonArray):
            yield from stream.items(max_line_bytes)
        elif block_bytes is None:
            yield from _raw(stream, max_line_bytes)
        else:
            yield from _runs(stream, max_line_bytes, block_bytes)
    finally:
        if path != "-":
            stream.close()


def _raw(stream: BinaryIO, max_line_bytes: int, number: int = 0, first: bool = True) -> Iterator[tuple[int, bytes | Line]]:
    """read_raw's lines of a stream whose first line is line `number + 1` (`first`: the file's
    start, where a UTF-16 file is told)."""
    for raw, too_long_by in _raw_lines(stream, max_line_bytes):
        number += 1
        if isinstance(raw, Problem):  # the stream itself broke (corrupt gzip, I/O error)
            yield number, Line(number, None, [raw], 0)
            return
        if first and number == 1 and isinstance(utf16 := _utf16_first_line(raw, final=True), Line):
            yield 1, utf16
            return
        if too_long_by:
            yield number, too_long(number, len(raw) + too_long_by, max_line_bytes)
            continue
        yield number, raw


def splittable(path: str) -> bool:
    """A regular, uncompressed, non-UTF-16 JSONL file: its byte ranges can be read apart
    (read_window) and judge as the whole file does."""
    if path == "-" or not os.path.isfile(path):
        return False
    try:
        with open(path, "rb") as f:
            head = f.read(64)
    except OSError:
        return False
    from .containers import kind_of

    if compression(head) is not None or kind_of(path, head[:8]) is not None:
        return False
    return not isinstance(_utf16_first_line(head, final=True), Line) and not head.startswith(UTF16_BOMS)


def line_start(f: BinaryIO, offset: int) -> int:
    """The offset of the first line that starts at or after `offset` (0 stays 0; the file's
    size when no line starts there)."""
    if offset <= 0:
        return 0
    f.seek(offset - 1)
    position = offset - 1
    while True:
        block = f.read(READ_BLOCK)
        if not block:
            return position
        found = block.find(b"\n")
        if found >= 0:
            return position + found + 1
        position += len(block)


def window_lines(f: BinaryIO, start: int, end: int) -> int:
    """How many lines start in bytes [start, end) of a file (both offsets are line starts)."""
    f.seek(start)
    left, count, last = end - start, 0, b""
    while left > 0:
        block = f.read(min(READ_BLOCK, left))
        if not block:
            break
        count += block.count(b"\n")
        left -= len(block)
        last = block[-1:]
    return count + (1 if last and last != b"\n" else 0)


class _Window(io.RawIOBase):
    """Bytes [start, end) of a file, as a stream."""

    def __init__(self, raw: BinaryIO, start: int, end: int) -> None:
        self.raw, self.left = raw, end - start
        raw.seek(start)

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        if self.left <= 0:
            return 0
        view = memoryview(buffer)[: self.left]
        n = self.raw.readinto(view)  # type: ignore[attr-defined]
        self.left -= n or 0
        return n or 0

    def close(self) -> None:
        self.raw.close()
        super().close()


def read_window(path: str, start: int, end: int, first_line: int, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
                block_bytes: int = READ_BLOCK) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """read_runs' items for the lines of a splittable file that start in bytes [start, end)
    (line starts), numbered from `first_line`: the same lines, numbered and judged the same as
    when the whole file is read."""
    try:
        raw = open(path, "rb", buffering=0)  # noqa: SIM115 - closed with the stream
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    stream = io.BufferedReader(_Window(raw, start, end), buffer_size=READ_BLOCK)
    try:
        if max_line_bytes < block_bytes:
            yield from _raw(stream, max_line_bytes, first_line - 1, first=start == 0)
        else:
            yield from _runs(stream, max_line_bytes, block_bytes, first_line - 1, first=start == 0)
    finally:
        stream.close()


class LineBlock(NamedTuple):
    """Whole lines read in one go, so the reading process does no work per line: `data` is
    `n_lines` lines joined by b"\\n" as they were in the file (a CRLF file's lines still end in
    b"\\r"). `lines()` splits them where they are judged."""

    data: bytes
    n_lines: int

    def split(self, k: int) -> tuple[LineBlock, LineBlock]:
        """The first `k` lines (0 < k < n_lines) and the rest."""
        end = -1
        find = self.data.find
        for _ in range(k):
            end = find(b"\n", end + 1)
        return LineBlock(self.data[:end], k), LineBlock(self.data[end + 1 :], self.n_lines - k)

    def lines(self) -> list[bytes]:
        lines = self.data.split(b"\n")
        if b"\r" in self.data:
            lines = [line[:-1] if line.endswith(b"\r") else line for line in lines]
        return lines


def read_runs(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES,
              block_bytes: int = READ_BLOCK) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """What `read_raw` yields, with runs of ordinary lines as one `LineBlock` (numbered by its
    first line). Lines are the same, numbered the same, and judged the same: a line over the
    limit, a UTF-16 file and a broken stream come as a `Line`; the last line, if it has no line
    end, as bytes. Memory: one block plus at most one unfinished line of up to the limit."""
    # under one block, a whole line inside a block could be over the limit: lines come one by one
    yield from _items(path, max_line_bytes, block_bytes if max_line_bytes >= block_bytes else None)


def _runs(stream: BinaryIO, limit: int, block_bytes: int, number: int = 0,
          first: bool = True) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    # number: lines yielded so far (a window of a file: the lines before it); first: the file's
    # start, where a UTF-16 file is told
    parts: list[bytes] = []  # an unfinished line (joined once it ends: no quadratic copying)
    held = 0  # its bytes so far
    skipped = -1  # >= 0: bytes of an over-long line read and thrown away so far
    read1 = stream.read1  # type: ignore[attr-defined]  # BufferedReader and GzipFile have it
    undecided = first  # UTF-16 or not: decided on the first line's first 64 bytes, as read_raw does
    while True:
        try:
            data = read1(block_bytes)  # what one read gives: lines before a broken stream still count
        except (EOFError, zlib.error, OSError) as exc:
            yield number + 1, Line(number + 1, None, [broken_stream(exc)], 0)
            return
        if undecided and (found := _utf16_first_line(b"".join(parts) + data, final=not data)) is not None:
            undecided = False
            if isinstance(found, Line):
                yield 1, found
                return
        if not data:
            break
        end = data.find(b"\n")
        if end < 0:  # no line ends here: the line goes on
            if skipped >= 0:
                skipped += len(data)
            else:
                parts.append(data)
                held += len(data)
                if held > limit:
                    skipped, parts, held = held, [], 0
            continue
        start = 0
        if skipped >= 0 or parts:  # the unfinished line ends in this block
            size = (skipped if skipped >= 0 else held) + end
            number += 1
            if size > limit:
                yield number, too_long(number, size, limit)
            else:
                yield number, _strip_end(b"".join(parts) + data[: end + 1])
            parts, held, skipped, start = [], 0, -1, end + 1
        last = data.rfind(b"\n")
        if last >= start:
            block = data[start:last]
            count = block.count(b"\n") + 1
            yield number + 1, LineBlock(block, count)
            number += count
        rest = data[last + 1 :]
        if rest:
            parts, held = [rest], len(rest)
    if skipped >= 0:
        yield number + 1, too_long(number + 1, skipped, limit)
    elif parts:
        yield number + 1, b"".join(parts)


def _utf16_first_line(start: bytes, final: bool) -> Line | bool | None:
    """The FT008 line if the file starts like UTF-16, False if it does not, None while the first
    line's first 64 bytes are not read yet."""
    end = start.find(b"\n")
    if end < 0 and len(start) < 64 and not final:
        return None
    head = _strip_end(start[: end + 1]) if end >= 0 else start
    if head[:2] in UTF16_BOMS or looks_utf16(head):
        return utf16_file(len(head))
    return False


def utf16_file(nbytes: int) -> Line:
    """FT008, on line 1: the whole file is UTF-16, and none of it is read."""
    return Line(1, None, [Problem("FT008", "file is UTF-16 encoded; save it as UTF-8")], nbytes)


def too_long(number: int, size: int, limit: int, what: str = "line") -> Line:
    msg = f"{what} is {size:,} bytes, over the {limit:,}-byte limit; not parsed"
    return Line(number, None, [Problem("FT007", msg)], size)


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
                skipped = 1  # the byte cut below; a line end, if one comes, is not counted
                while True:
                    block = stream.readline(READ_BLOCK)
                    if not block:
                        break
                    skipped += len(block)
                    if block.endswith(b"\n"):
                        skipped -= 1
                        break
                raw = raw[:limit]
            yield _strip_end(raw), skipped
    except (EOFError, zlib.error, OSError) as exc:
        yield broken_stream(exc), 0


def broken_stream(exc: Exception) -> Problem:
    """FT009: the stream itself broke (corrupt or cut gzip, an I/O error)."""
    if isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
        return Problem("FT009", f"compressed stream is corrupt or truncated: {exc}")
    return Problem("FT009", f"read failed: {getattr(exc, 'strerror', None) or exc}")


def looks_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte-order mark: ASCII text with a NUL beside every character (and no
    NUL between them: a line of NUL bytes is binary data, FT010, and the lines after it count)."""
    head = raw[:64]
    if len(head) < 8:
        return False
    even, odd = head[0::2], head[1::2]
    return (odd.count(0) == len(odd) and 0 not in even) or (even.count(0) == len(even) and 0 not in odd)


def _strip_end(raw: bytes) -> bytes:
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


BLANK = Problem("FT005", "blank line: every line must hold one JSON object")


def parse_line(number: int, raw: bytes, max_depth: int = DEFAULT_MAX_DEPTH) -> Line:
    problems: list[Problem] = []
    nbytes = len(raw)
    if raw.startswith(BOM):
        problems.append(Problem("FT004", "line starts with a UTF-8 byte-order mark; ftlint reads past it, "
                                         "but most JSONL parsers do not (Azure OpenAI alone asks for one)"))
        raw = raw[len(BOM) :]
    if not raw or raw.isspace():
        problems.append(BLANK)
        return Line(number, None, problems, nbytes, blank=True)
    nul = raw.find(b"\x00")
    if nul >= 0:
        msg = f"NUL byte at byte offset {nul} of the line: binary data, or a UTF-16 file without a byte-order mark"
        problems.append(Problem("FT010", msg, nul + 1))
        return Line(number, None, problems, nbytes)
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        problems.append(_json_problem(raw, exc, number, max_depth))
        return Line(number, None, problems, nbytes)
    if not isinstance(value, dict):
        problems.append(_not_object(value))
        return Line(number, None, problems, nbytes)
    if raw.count(b"{") + raw.count(b"[") > max_depth:
        depth = nesting_depth(value, max_depth)
        if depth > max_depth:
            msg = f"value nested more than {max_depth} levels deep (--max-depth); not checked further"
            problems.append(Problem("FT014", msg))
            return Line(number, None, problems, nbytes)
    compact = compact_json(value)
    duplicate = duplicate_key(raw, value, compact)
    if duplicate:
        problems.append(Problem("FT013", duplicate))
    return Line(number, value, problems, nbytes, compact=compact)


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


def duplicate_key(raw: bytes, value: dict, compact: bytes) -> str | None:
    """Name a key that appears twice in one object (JSON parsers silently keep the last).

    Cheap test first: every key is followed by a colon, and re-serialising the parsed value
    drops duplicates, so a line with more colons than its re-serialisation may have one (colons
    inside strings are in both; counting one byte runs at memory speed). Only then is the line
    parsed again, slowly, to find it. (A writer that escapes colons as \\u003a could hide a
    duplicate from the cheap test, so those escapes count as colons.)"""
    colons = raw.count(b":")
    if b"\\u00" in raw:  # a colon in a string may be written \u003a: the parsed value holds it as ":"
        colons += raw.count(b"\\u003a") + raw.count(b"\\u003A")
    if colons <= compact.count(b":"):
        return None
    found: list[tuple[str, str]] = []

    def pairs_hook(pairs: list[tuple[str, object]]) -> dict:
        seen: dict[str, object] = {}
        for key, item in pairs:
            if key in seen and not found:
                found.append((key, short_json(item, 30)))
            seen[key] = item
        return seen

    try:
        json.loads(raw, object_pairs_hook=pairs_hook)
    except (ValueError, RecursionError):
        return None
    if not found:
        return None
    key, last = found[0]
    return f"duplicate key '{key}' in one object: parsers keep only the last value ({last})"



def _not_object(value: object) -> Problem:
    kind = _json_kind(value)
    msg = f"line holds a JSON {kind}, expected an object"
    if isinstance(value, list) and value and all(isinstance(v, dict) for v in value):
        msg += f" (an array of {len(value)} objects: JSONL wants each on its own line)"
    return Problem("FT002", msg)


def _json_problem(raw: bytes, exc: orjson.JSONDecodeError, number: int, max_depth: int) -> Problem:
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as bad:
        col = len(raw[: bad.start].decode("utf-8", errors="replace")) + 1
        byte = raw[bad.start]
        return Problem("FT003", f"invalid UTF-8: byte 0x{byte:02x} at byte offset {bad.start} of the line", col)
    # the character offset, 1-based: a line's column, and in a JSON array's element (which may span
    # lines) its offset from the element's start
    col = exc.pos + 1
    msg = exc.msg
    rest = text[col - 1 : col + 8]
    if rest.startswith(("NaN", "Infinity", "-Infinity")):
        return Problem("FT001", f"invalid JSON: {rest.split(',')[0].split('}')[0]} is not a JSON number (NaN and Infinity are not JSON)", col)
    if rest.startswith("'"):
        msg = f"{msg} (JSON strings and keys take double quotes)"
    if "depth limit" in msg:
        return Problem("FT014", f"value nested more than {max_depth} levels deep (--max-depth); not parsed", col)
    if "infinity when parsed" in msg:
        return Problem("FT001", "invalid JSON: a number too large for a 64-bit float", col)
    stripped = text.strip()
    if b"\r" in raw and b"\n" not in raw and ("after document" in msg or "trailing" in msg or "control character" in msg):
        return Problem("FT011", "line holds carriage returns (CR) inside: the file uses CR-only (old Mac) line ends; ftlint splits lines at LF", col)
    if _pretty_printed_piece(stripped, number):
        return Problem("FT012", f"invalid JSON: {msg}: this looks like pretty-printed JSON (one value over many lines); JSONL needs each object on one line", col)
    if "after document" in msg:
        msg = f"{msg} (two JSON values on one line: a missing newline?)"
    if "surrogate" in msg:
        return Problem("FT001", f"invalid JSON: {msg} (a lone UTF-16 surrogate escape)", col)
    if (col > len(text) and text.rstrip().endswith(("{", "[", ",", ":", '"'))) or "unexpected end" in msg:
        msg = f"{msg} (the line ends before the JSON value does)"
    return Problem("FT001", f"invalid JSON: {msg}", col)


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

"""What every reader shares: its block size and line limit, the error of a path that cannot be
read at all, and the lines a reader judges without parsing them (a line over the limit, a UTF-16
file, a stream that broke), each a `Line` carrying its fact."""

from __future__ import annotations

import gzip
import zlib

from ..parse import Broken, Line, TooLong, Utf16

DEFAULT_MAX_LINE_BYTES = 128 * 1024 * 1024
READ_BLOCK = 1024 * 1024
UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")
# what a stream raises when its data is damaged or it cannot be read: the lines before still count
STREAM_ERRORS = (EOFError, zlib.error, OSError)


class InputError(Exception):
    """A path that cannot be read at all: a one-line error and exit 2."""


def too_long(number: int, size: int, limit: int, what: str = "line") -> Line:
    return Line(number, None, [TooLong(size, limit, what)], size)


def utf16_file(nbytes: int) -> Line:
    """Line 1 of a UTF-16 file, which stands for the whole file: none of it is read."""
    return Line(1, None, [Utf16()], nbytes)


def broken(exc: Exception) -> Broken:
    """The fact of a stream that broke (corrupt or cut gzip or zstd, an I/O error)."""
    if isinstance(exc, (EOFError, zlib.error, gzip.BadGzipFile)):
        return Broken(str(exc), compressed=True)
    return Broken(str(getattr(exc, "strerror", None) or exc), compressed=False)


def looks_utf16(raw: bytes) -> bool:
    """UTF-16 without a byte-order mark: ASCII text with a NUL beside every character (and no
    NUL between them: a line of NUL bytes is binary data, a fact of its own line, and the lines
    after it count)."""
    head = raw[:64]
    if len(head) < 8:
        return False
    even, odd = head[0::2], head[1::2]
    return (odd.count(0) == len(odd) and 0 not in even) or (even.count(0) == len(even) and 0 not in odd)


def strip_end(raw: bytes) -> bytes:
    """A line without its LF or CRLF."""
    if raw.endswith(b"\n"):
        raw = raw[:-1]
        if raw.endswith(b"\r"):
            raw = raw[:-1]
    return raw


def utf16_start(start: bytes, final: bool) -> Line | bool | None:
    """The UTF-16 file's line if the file starts like UTF-16, False if it does not, None while
    the first line's first 64 bytes are not read yet."""
    end = start.find(b"\n")
    if end < 0 and len(start) < 64 and not final:
        return None
    head = strip_end(start[: end + 1]) if end >= 0 else start
    if head[:2] in UTF16_BOMS or looks_utf16(head):
        return utf16_file(len(head))
    return False

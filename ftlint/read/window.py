"""Windows of a file for the Ray engine: a regular JSONL file cut into byte ranges at line starts,
each read apart and numbered from its first line, so that its lines are judged as when the whole
file is read."""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from typing import Any, BinaryIO

from ..parse import Line
from .base import DEFAULT_MAX_LINE_BYTES, READ_BLOCK, UTF16_BOMS, InputError, utf16_start
from .compressed import compression
from .lines import LineBlock, block_items, line_items


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
    from .tables import kind_of

    if compression(head) is not None or kind_of(path, head[:8]) is not None:
        return False
    return not isinstance(utf16_start(head, final=True), Line) and not head.startswith(UTF16_BOMS)


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
            yield from line_items(stream, max_line_bytes, first_line - 1, first=start == 0)
        else:
            yield from block_items(stream, max_line_bytes, block_bytes, first_line - 1, first=start == 0)
    finally:
        stream.close()

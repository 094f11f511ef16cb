"""The JSONL stream: one item per physical line, exact 1-based line numbers, nothing held but
the current line (or one block of whole lines).

Bad data never raises: a line over the limit, a UTF-16 file and a broken stream come as a `Line`
carrying its fact, and every other line as its bytes, parsed where it is judged (parse.py), so one
bad line never stops the run. Only a path that cannot be opened at all raises `InputError` (exit 2).

Line ends: a line ends at LF; a CR before the LF is dropped (CRLF files are fine). A CR alone
does not end a line (the file is then one long line, which its parsing tells).
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Iterator
from typing import BinaryIO, NamedTuple

from ..parse import DEFAULT_MAX_DEPTH, Line, is_blank, parse_line
from .base import DEFAULT_MAX_LINE_BYTES, READ_BLOCK, STREAM_ERRORS, broken, strip_end, too_long, utf16_start
from .source import open_binary


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


def _items(path: str, max_line_bytes: int, block_bytes: int | None,
           starts: array | None = None) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """read_raw's items (`block_bytes` None) or read_runs'; a JSON array's elements' first lines go to `starts`."""
    from .json_array import JsonArray

    stream = open_binary(path)
    try:
        if isinstance(stream, JsonArray):
            yield from stream.items(max_line_bytes, starts=starts)
        elif block_bytes is None:
            yield from line_items(stream, max_line_bytes)
        else:
            yield from block_items(stream, max_line_bytes, block_bytes)
    finally:
        if path != "-":
            stream.close()


def line_items(stream: BinaryIO, max_line_bytes: int, number: int = 0, first: bool = True) -> Iterator[tuple[int, bytes | Line]]:
    """read_raw's lines of a stream whose first line is line `number + 1` (`first`: the file's
    start, where a UTF-16 file is told)."""
    for raw, too_long_by in _raw_lines(stream, max_line_bytes):
        number += 1
        if isinstance(raw, Exception):  # the stream itself broke (corrupt gzip, I/O error)
            yield number, Line(number, None, [broken(raw)], 0)
            return
        if first and number == 1 and isinstance(utf16 := utf16_start(raw, final=True), Line):
            yield 1, utf16
            return
        if too_long_by:
            yield number, too_long(number, len(raw) + too_long_by, max_line_bytes)
            continue
        yield number, raw


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


def read_runs(path: str, max_line_bytes: int = DEFAULT_MAX_LINE_BYTES, block_bytes: int = READ_BLOCK,
              starts: array | None = None) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """What `read_raw` yields, with runs of ordinary lines as one `LineBlock` (numbered by its
    first line). Lines are the same, numbered the same, and judged the same: a line over the
    limit, a UTF-16 file and a broken stream come as a `Line`; the last line, if it has no line
    end, as bytes. Memory: one block plus at most one unfinished line of up to the limit. A JSON
    array's elements are numbered 1, 2, ...; `starts` gets the line each begins on in the file."""
    # under one block, a whole line inside a block could be over the limit: lines come one by one
    yield from _items(path, max_line_bytes, block_bytes if max_line_bytes >= block_bytes else None, starts)


def each_line(items: Iterable[tuple[int, bytes | Line | LineBlock]]) -> Iterator[tuple[int, bytes | Line]]:
    """read_runs' items one line at a time, numbered: a `LineBlock`'s lines from its first line's number."""
    for number, item in items:
        if isinstance(item, LineBlock):
            yield from enumerate(item.lines(), number)
        else:
            yield number, item


def first_rows(items: Iterator[tuple[int, bytes | Line | LineBlock]], rows: int) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """read_runs' items up to the `rows`-th line that is not blank (a trainer that reads the first
    rows of a file: LLaMA-Factory's max_samples selects range(max_samples) of a dataset's rows);
    nothing after it is read."""
    seen = 0
    for number, item in items:
        if isinstance(item, LineBlock):
            lines = item.lines()
            full = sum(1 for line in lines if not is_blank(line))
            if seen + full <= rows:
                seen += full
                yield number, item
            else:
                for k, line in enumerate(lines):
                    if seen >= rows:
                        return
                    seen += not is_blank(line)
                    yield number + k, line
        else:
            if seen >= rows:
                return
            seen += not isinstance(item, bytes) or not is_blank(item)
            yield number, item
        if seen >= rows:
            return


def block_items(stream: BinaryIO, limit: int, block_bytes: int, number: int = 0,
                first: bool = True) -> Iterator[tuple[int, bytes | Line | LineBlock]]:
    """read_runs' items of a stream whose first line is line `number + 1` (`first`: the file's
    start, where a UTF-16 file is told)."""
    parts: list[bytes] = []  # an unfinished line (joined once it ends: no quadratic copying)
    held = 0  # its bytes so far
    skipped = -1  # >= 0: bytes of an over-long line read and thrown away so far
    read1 = stream.read1  # type: ignore[attr-defined]  # BufferedReader and GzipFile have it
    undecided = first  # UTF-16 or not: decided on the first line's first 64 bytes, as read_raw does
    while True:
        try:
            data = read1(block_bytes)  # what one read gives: lines before a broken stream still count
        except STREAM_ERRORS as exc:
            yield number + 1, Line(number + 1, None, [broken(exc)], 0)
            return
        if undecided and (found := utf16_start(b"".join(parts) + data, final=not data)) is not None:
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
                yield number, strip_end(b"".join(parts) + data[: end + 1])
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


def _raw_lines(stream: BinaryIO, limit: int) -> Iterator[tuple[bytes | Exception, int]]:
    """Yield (line bytes without its end, bytes skipped past the limit), or at the end the error
    that broke the stream. A line longer than `limit` is cut; the rest is read and thrown away in
    blocks, so memory stays bounded."""
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
            yield strip_end(raw), skipped
    except STREAM_ERRORS as exc:
        yield exc, 0



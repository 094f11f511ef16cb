"""A `.json` file that holds one top-level array (LLaMA-Factory's data/*.json, written by
`json.dump(records, f, indent=2)`), read element by element as the JSONL reader reads lines.

Each element's bytes go to the same `parse_line` a JSONL line goes through, in the workers, so
every JSONL rule applies to it (NaN, lone surrogates, numbers too large, UTF-8, duplicate keys,
depth) and an element over --max-line-bytes is a line too long, counted and not held.
An element's number is its 1-based index (what the engine counts by); the line it starts on in the
file goes to `starts`, for its findings (engine/places.py); a broken element is a finding there
and the next element is read. Line breaks between an element's tokens are whitespace; one inside a string is
invalid JSON, as the parser says.

Each element's extent is found by a scanner whose state (inside a string or not, an escape
pending, the bracket depth) carries over from one block to the next, so a block is scanned once
and never again for the blocks after it (the old reader parsed an unfinished element anew on
every block: quadratic). One regular-expression match takes a whole element of up to
GROUP_LEVELS levels of brackets within a block (strings skipped whole, possessively); an element
that is deeper or runs into the next block is scanned a stretch at a time, its brackets counted
(`_inside`), so deep nesting costs no Python step per bracket. Memory: one block, plus the element
being read up to the limit.

A problem of the array itself (a comma before its closing bracket, text after it, a file that
ends before it) is a fact on a line of its own after the last element.
"""

from __future__ import annotations

import re
from array import array
from collections.abc import Generator, Iterator
from typing import BinaryIO

from ..parse import ArrayFault, BadArray, Line
from .base import READ_BLOCK, broken, looks_utf16, too_long, utf16_file

_STRING = rb'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"'  # unrolled: 10% faster than an alternation
GROUP_LEVELS = 8
# Opening brackets before a closing one: fewer than this, the groups are passed over with one
# match; more (a deep climb, `[1,[1,[1,...`), they are counted, since a match would try a group
# at each of them and no group of GROUP_LEVELS holds them all.
CLIMB = GROUP_LEVELS + 1


def _group(levels: int) -> bytes:
    """A bracketed value holding at most `levels` levels of brackets. Bracket kinds are not paired
    here: `[1}` has an extent like any other value, and the parser reports it."""
    inner = rb'[^"\[\]{}]++|' + _STRING + (b"|" + _group(levels - 1) if levels > 1 else b"")
    return rb"[\[{](?:" + inner + rb")*+[\]}]"


_GROUP = _group(GROUP_LEVELS)
# A whole element (its leading whitespace left out) and the comma or bracket that ends it. At an
# element's top level a '}' closes nothing: it is part of the element, for the parser to report.
_ELEMENT = re.compile(rb"[ \t\r\n]*+((?:[^\"\[\]{,]++|" + _STRING + b"|" + _GROUP + rb")++)([,\]])")
# What the scanning of an element passes over in one step. At its top level: up to the comma or
# bracket that ends it, a bracket too deep for one match, or a string that runs into the next
# block. Inside its brackets: up to a closing bracket (opening ones counted; after a short climb,
# balanced groups passed over whole), then up to an opening one (closing ones counted).
_TOP = re.compile(rb'(?:[^"\[\]{,]++|' + _STRING + b"|" + _GROUP + rb")*+")
_ASCENT = re.compile(rb'(?:[^"\]}]++|' + _STRING + rb")*+")
_OPENING = re.compile(rb'(?:[^"\[\]{}]++|' + _GROUP + b"|" + _STRING + rb"|[\[{])*+")
_CLOSING = re.compile(rb'(?:[^"\[{]++|' + _STRING + rb")*+")
_STRINGS = re.compile(_STRING)
_IN_STRING = re.compile(rb'[^"\\]*+(?:\\[\s\S][^"\\]*+)*+')
_SPACE = re.compile(rb"[ \t\r\n]*+")
_LEAD = re.compile(rb"[ \t\r\n\xef\xbb\xbf]*+")  # what tables.kind_of lets come before the '['
QUOTE, COMMA, OPEN, CLOSE = ord('"'), ord(","), ord("["), ord("]")
BEFORE, ELEMENTS, AFTER, DONE = range(4)

Item = tuple[int, bytes | Line]


def _past(pattern: re.Pattern[bytes], data: bytes, pos: int, endpos: int = -1) -> int:
    """Where a match of `pattern` (a `*+` pattern: it always matches) from `pos` ends."""
    return pattern.match(data, pos, len(data) if endpos < 0 else endpos).end()  # type: ignore[union-attr]


def _net(data: bytes, start: int, end: int) -> int:
    """Opening brackets less closing ones in `data[start:end]`, outside its strings (all whole)."""
    span = data[start:end]
    if b'"' in span:
        span = _STRINGS.sub(b"", span)
    return span.count(b"[") + span.count(b"{") - span.count(b"]") - span.count(b"}")


def _fault(number: int, fault: ArrayFault) -> Line:
    return Line(number, None, [BadArray(fault)], 0)


class JsonArray:
    """A JSON array file: `items` yields what read_raw yields for JSONL, an element a line."""

    def __init__(self, stream: BinaryIO) -> None:
        self.stream = stream

    def items(self, limit: int, block_bytes: int = READ_BLOCK, starts: array | None = None) -> Iterator[Item]:
        """The elements as lines; `starts`, when given, gets each item's first physical line in the
        file, in order (the element's first line; an array fault's line), for findings to name."""
        scan = ArrayScan(limit, starts)
        read = getattr(self.stream, "read1", self.stream.read)  # a FIFO: what has arrived, not a full block
        first = True
        while scan.state != DONE:
            try:
                data = read(block_bytes)
            except OSError as exc:
                scan.start_at(0, b"")
                yield scan.number + 1, Line(scan.number + 1, None, [broken(exc)], 0)
                return
            if first and looks_utf16(data[:64]):
                scan.start_at(0, data)
                yield 1, utf16_file(len(data))
                return
            first = False
            if not data:
                yield from scan.end()
                return
            yield from scan.feed(data)
            scan.block_done(data)

    def close(self) -> None:
        self.stream.close()


class ArrayScan:
    """The scanner's state between blocks."""

    def __init__(self, limit: int, starts: array | None = None) -> None:
        self.limit = limit
        self.state = BEFORE
        self.number = 0  # elements (and array-level findings) so far
        # each item's first physical line (`starts`): the line at `counted` in the current block
        self.starts, self.line, self.counted = starts, 1, 0
        self.comma = False  # the last separator was a comma: an element must follow
        # the element being read across blocks
        self.open = False
        self.depth = 0
        self.in_string = self.escape = False
        self.parts: list[bytes] = []
        self.size = 0
        self.closed = -1  # where the array's closing bracket ends, in the block that holds it

    def start_at(self, pos: int, data: bytes) -> None:
        """The next item starts at `pos` of this block: its physical line, counted from the last one."""
        if self.starts is None:
            return
        self.line += data.count(b"\n", self.counted, pos)
        self.counted = pos
        self.starts.append(self.line)

    def block_done(self, data: bytes) -> None:
        """The block is read: its remaining line ends counted, the next block's positions from 0."""
        if self.starts is not None:
            self.line += data.count(b"\n", self.counted)
            self.counted = 0

    def feed(self, data: bytes) -> Iterator[Item]:
        pos, n = 0, len(data)
        while pos < n and self.state != DONE:
            if self.state == BEFORE:
                pos = _past(_LEAD, data, pos)
                if pos < n and data[pos] == OPEN:  # as tables.kind_of has seen
                    self.state = ELEMENTS
                    pos += 1
                elif pos < n:
                    self.number, self.state = 1, DONE
                    self.start_at(pos, data)
                    yield 1, _fault(1, "not-an-array")
            elif self.state == AFTER:
                pos = _past(_SPACE, data, pos)
                if pos < n:
                    self.number += 1
                    self.start_at(pos, data)
                    yield self.number, _fault(self.number, "text-after")
                    self.state = DONE
            elif self.open:
                end = self._scan(data, pos)
                if end < 0:
                    self._hold(data[pos:])
                    return
                yield self._close(data[pos:end])
                pos = self._separator(data, end)
            else:
                pos = yield from self._whole(data, pos)

    def _whole(self, data: bytes, pos: int) -> Generator[Item, None, int]:
        """The elements that lie whole in this block, then the start of the next one."""
        match, limit = _ELEMENT.match, self.limit
        while (m := match(data, pos)) is not None:
            self.number += 1
            start, end = m.span(1)
            self.start_at(start, data)
            yield self.number, (too_long(self.number, end - start, limit, "element") if end - start > limit else m[1])
            pos = self._separator(data, end)
            if self.state != ELEMENTS:
                return pos
        pos = _past(_SPACE, data, pos)
        if pos == len(data):
            return pos
        byte = data[pos]
        if byte == COMMA:  # `[,` or `,,`: no element where one must be
            self.number += 1
            self.start_at(pos, data)
            yield self.number, _fault(self.number, "empty-element")
            return pos + 1
        if byte == CLOSE:
            if self.comma:
                self.number += 1
                self.start_at(pos, data)
                yield self.number, _fault(self.number, "trailing-comma")
            self.state, self.closed = AFTER, pos + 1
            return pos + 1
        self.open, self.depth, self.in_string, self.escape, self.parts, self.size = True, 0, False, False, [], 0
        self.start_at(pos, data)  # an element that runs into the next block starts here
        return pos

    def _separator(self, data: bytes, at: int) -> int:
        """After the comma or bracket at `at` that ends an element."""
        self.comma = data[at] == COMMA
        if not self.comma:
            self.state, self.closed = AFTER, at + 1
        return at + 1

    def _scan(self, data: bytes, pos: int) -> int:
        """Where the open element ends in `data` (its comma or closing bracket), or -1: not in it."""
        n = len(data)
        while pos < n:
            if self.in_string:
                if self.escape:
                    self.escape = False
                    pos += 1
                    continue
                pos = _past(_IN_STRING, data, pos)
                if pos < n:
                    self.in_string = data[pos] != QUOTE
                    self.escape = self.in_string  # a backslash that ends the block
                    pos += 1
            elif self.depth:
                pos = self._inside(data, pos)
            else:
                pos = _past(_TOP, data, pos)
                if pos == n:
                    break
                byte = data[pos]
                if byte in (COMMA, CLOSE):
                    return pos
                self.in_string = byte == QUOTE  # a string that runs into the next block
                self.depth = 0 if self.in_string else 1  # or a bracket too deep for one match
                pos += 1
        return -1

    def _inside(self, data: bytes, pos: int) -> int:
        """Past the brackets from `pos` (depth > 0) to where the depth is 0 again, a string runs
        into the next block, or the block ends. Brackets are counted a stretch at a time, so a
        bracket costs no Python step of its own however deep the nesting."""
        end = _past(_ASCENT, data, pos)
        opened = _net(data, pos, end)
        if opened < CLIMB and end < len(data) and data[end] != QUOTE:
            # a closing bracket soon: groups may close and open again (`[[]][[]]`), which one
            # match passes over, where counting them would take a step for each
            end = _past(_OPENING, data, pos)
            opened = _net(data, pos, end)
        self.depth += opened
        if end == len(data) or data[end] == QUOTE:
            self.in_string = end < len(data)
            return end + self.in_string
        pos, end = end, _past(_CLOSING, data, end)
        closers = -_net(data, pos, end)
        if closers < self.depth:
            self.depth -= closers
            return end
        return self._to_top(data, pos, end)

    def _to_top(self, data: bytes, start: int, end: int) -> int:
        """`data[start:end]` holds no opening bracket and at least `depth` closing ones: the
        position after the one that brings the depth to 0, found by halving (few steps)."""
        depth = self.depth
        while end - start > 64:
            middle = _past(_CLOSING, data, start, (start + end) // 2)
            if middle == start:  # a string from `start` reaches past the middle
                middle = _past(_STRINGS, data, start)
            if middle >= end:
                break
            closers = -_net(data, start, middle)
            if closers < depth:
                depth, start = depth - closers, middle
            else:
                end = middle
        while True:
            start = _past(_ASCENT, data, start) + 1
            depth -= 1
            if not depth:
                self.depth = 0
                return start

    def _hold(self, piece: bytes) -> None:
        """The open element's bytes in this block: kept while it is within the limit, else counted."""
        self.size += len(piece)
        if self.size <= self.limit:
            self.parts.append(piece)
        else:
            self.parts = []

    def _close(self, last: bytes) -> Item:
        self.open = False
        self._hold(last)
        self.number += 1
        if self.size > self.limit:
            return self.number, too_long(self.number, self.size, self.limit, "element")
        data, self.parts = b"".join(self.parts), []
        return self.number, data

    def end(self) -> Iterator[Item]:
        """The file has ended."""
        if self.state != ELEMENTS:
            return
        if self.open and (self.in_string or self.depth):
            self.number += 1  # the open element's line was taken when it began
            if self.size > self.limit:
                yield self.number, too_long(self.number, self.size, self.limit, "element")
            else:
                yield self.number, _fault(self.number, "open-element")
            return
        if self.open:
            yield self._close(b"")
        self.number += 1
        self.start_at(0, b"")  # at the end of the file
        yield self.number, _fault(self.number, "open-array")

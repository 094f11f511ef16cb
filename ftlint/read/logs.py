"""The rows of a training log, for `ftlint review`, streamed with bounded memory per row: a
Hugging Face trainer_state.json (the entries of its log_history, found without parsing the file
whole), a JSONL log (a row a line) or a CSV log (a header, then a row a record).

A row (a JSONL line, a CSV record, a log_history entry) over MAX_LOG_ROW_BYTES is passed over
without being held, and counted (Skipped: the review's notes say how many and where the first
was); a CSV header over it, or a trainer_state.json holding more than it besides its log_history,
is refused with one line (LogError). The file itself is opened as ftlint/trust.py opens a
repository's files: a regular file, without blocking (a FIFO or /dev/zero is refused at once).
"""

from __future__ import annotations

import csv
import json
import re
from collections.abc import Generator, Iterator
from dataclasses import dataclass, field
from typing import BinaryIO, NoReturn

import orjson

from ..maxima import MAX_LOG_ROW_BYTES
from ..parse import BadArray, Line
from .json_array import ArrayScan

BLOCK = 1 << 16
BOM = b"\xef\xbb\xbf"
OVER = f"over the {MAX_LOG_ROW_BYTES >> 20} MiB limit for a row"
TOO_LARGE = "with a number too large for a float"
Row = tuple[str, dict]  # where the row is ("line 7", "log_history[3]"), and the row
_TOO_LONG_NUMBER = object()  # a row holding an integer of more digits than Python converts


class LogError(Exception):
    """A log that cannot be reviewed: one line, exit 2."""


@dataclass
class Skipped:
    """Rows left out of the review, by why: how many, and where the first was."""

    counts: dict[str, int] = field(default_factory=dict)
    first: dict[str, str] = field(default_factory=dict)
    values: list[str] = field(default_factory=list)  # other values passed over

    def add(self, why: str, where: str) -> None:
        self.counts[why] = self.counts.get(why, 0) + 1
        self.first.setdefault(why, where)

    def notes(self) -> list[str]:
        return [*(f"{n:,} row{'s' if n != 1 else ''} {why}, not counted (the first at {self.first[why]})"
                  for why, n in self.counts.items()), *self.values]


def lines(fh: BinaryIO, limit: int = MAX_LOG_ROW_BYTES) -> Iterator[tuple[int, bytes | None]]:
    """Each line with its number; None for a line over `limit` bytes, read past in blocks and
    never held whole."""
    number = 0
    while raw := fh.readline(limit + 1):
        number += 1
        if len(raw) > limit and not (len(raw) == limit + 1 and raw.endswith(b"\n")):
            while raw and not raw.endswith(b"\n"):
                raw = fh.readline(BLOCK)
            yield number, None
        else:
            yield number, raw


def jsonl_rows(fh: BinaryIO, path: str, skipped: Skipped) -> Iterator[Row]:
    for number, raw in lines(fh):
        if raw is None:
            skipped.add(OVER, f"line {number}")
            continue
        if number == 1:
            raw = raw.removeprefix(BOM)
        if not raw.strip():
            continue
        row = _loaded(raw, path, f"{path}:{number}")
        if row is _TOO_LONG_NUMBER:
            skipped.add(TOO_LARGE, f"line {number}")
        elif isinstance(row, dict):
            yield f"line {number}", row


class _CsvLines:
    """The lines csv.reader takes, each bounded; a record (a quoted field may span lines) over
    the limit is refused, a physical line over it passed over as an empty line."""

    def __init__(self, fh: BinaryIO, path: str, skipped: Skipped) -> None:
        self.lines, self.path, self.skipped = lines(fh), path, skipped
        self.pending = 0  # bytes of the record being read
        self.header = True

    def __iter__(self) -> _CsvLines:
        return self

    def __next__(self) -> str:
        number, raw = next(self.lines)
        if raw is None:
            if self.header:
                raise LogError(f"{self.path}: the header (line {number}) is {OVER}")
            self.skipped.add(OVER, f"line {number}")
            return "\n"
        self.pending += len(raw)
        if self.pending > MAX_LOG_ROW_BYTES:
            raise LogError(f"{self.path}: the {'header' if self.header else 'row'} ending at line {number} is {OVER}")
        return (raw.removeprefix(BOM) if number == 1 else raw).decode("utf-8")

    def done(self) -> None:
        """A record ended."""
        self.pending, self.header = 0, False


def csv_rows(fh: BinaryIO, path: str, skipped: Skipped) -> tuple[list[str], Iterator[tuple[str, list[str]]]]:
    """The header, and the rows after it."""
    feed = _CsvLines(fh, path, skipped)
    reader = csv.reader(feed)
    header = next(reader, [])
    feed.done()

    def rows() -> Iterator[tuple[str, list[str]]]:
        for row in reader:
            feed.done()
            yield f"line {reader.line_num}", row

    return header, rows()


# a token of the top-level object: a string, a bracket, a colon or comma, or a bare value
_STRING = rb'"[^"\\]*+(?:\\[\s\S][^"\\]*+)*+"'
_TOKEN = re.compile(rb"[ \t\r\n]*+(?:(" + _STRING + rb")|([\[{])|([\]}])|([:,])|([^ \t\r\n\"\[\]{}:,]++))")


class TrainerState:
    """A trainer_state.json: its log_history's entries streamed (`rows`), and its max_steps
    (known once the rows are read: transformers writes the keys sorted, max_steps after
    log_history). The keys besides log_history are held, up to the row limit."""

    def __init__(self, fh: BinaryIO, path: str, skipped: Skipped) -> None:
        self.fh, self.path, self.skipped = fh, path, skipped
        self.others: dict = {}  # the other keys' values

    @property
    def max_steps(self) -> object:
        return self.others.get("max_steps")

    def rows(self) -> Iterator[Row]:
        head, start = self._to_log_history()
        tail = yield from self._entries(head[start:])
        self._after(tail)

    def _read(self) -> bytes:
        return self.fh.read(BLOCK)

    def _to_log_history(self) -> tuple[bytes, int]:
        """The bytes read, and where log_history's `[` is in them."""
        buf, pos, depth, key, key_at, at_key, wanted, eof = b"", 0, 0, None, 0, False, False, False
        while True:
            m = _TOKEN.match(buf, pos)
            if m is None or (m.end() == len(buf) and not eof):
                if eof:
                    break
                if len(buf) > MAX_LOG_ROW_BYTES + BLOCK:
                    raise LogError(f"{self.path}: no log_history in its first {MAX_LOG_ROW_BYTES >> 20} MiB: expected a "
                                   "Hugging Face trainer_state.json")
                block = self._read()
                eof = not block
                buf += block.removeprefix(BOM) if not buf else block
                continue
            string, opening, closing, mark = m.group(1), m.group(2), m.group(3), m.group(4)
            if wanted:
                if opening != b"[":
                    raise LogError(f"{self.path}: no log_history: expected a Hugging Face trainer_state.json")
                self.others = _members(buf[:key_at].rstrip(b" \t\r\n,") + b"}")
                return buf, m.start(2)
            if string is not None and depth == 1 and at_key:
                key, key_at = string, m.start(1)
            elif mark == b":" and depth == 1 and key is not None:
                wanted = _decoded(key) == "log_history"
            elif opening or closing or mark == b",":
                key = None
            depth += 1 if opening else -1 if closing else 0
            at_key = depth == 1 and (opening == b"{" or mark == b",")
            pos = m.end()
        self._small(buf)

    def _small(self, text: bytes) -> NoReturn:
        """A whole file the tokens found no log_history list in: parsed, it says why (it is small)."""
        try:
            json.loads(text.decode("utf-8"))
        except UnicodeDecodeError as exc:
            raise LogError(f"{self.path}: cannot read: {exc}") from None
        except (ValueError, RecursionError) as exc:
            raise LogError(f"{self.path}: not valid JSON: {exc}") from None
        raise LogError(f"{self.path}: no log_history: expected a Hugging Face trainer_state.json")

    def _entries(self, first: bytes) -> Generator[Row, None, bytes]:
        """log_history's entries, from its `[` on; returns the bytes after its `]` in the block that holds it."""
        scan = ArrayScan(MAX_LOG_ROW_BYTES)
        data = first
        while True:
            items = scan.feed(data) if data else scan.end()
            for number, item in items:
                if scan.closed >= 0 and isinstance(item, Line) and any(isinstance(f, BadArray) for f in item.facts):
                    continue  # the rest of the object, after the list
                yield from self._entry(number, item)
            if scan.closed >= 0:
                return data[scan.closed:]
            if not data:
                raise LogError(f"{self.path}: log_history: not valid JSON (the file ends inside it)")
            data = self._read()

    def _entry(self, number: int, item: bytes | Line) -> Iterator[Row]:
        where = f"log_history[{number - 1}]"
        if isinstance(item, Line):
            if any(isinstance(f, BadArray) for f in item.facts):
                raise LogError(f"{self.path}: {where}: not valid JSON (a list's comma or bracket out of place)")
            self.skipped.add(OVER, where)
            return
        row = _loaded(item, self.path, f"{self.path}: {where}")
        if row is _TOO_LONG_NUMBER:
            self.skipped.add(TOO_LARGE, where)
        elif isinstance(row, dict):
            yield where, row

    def _after(self, tail: bytes) -> None:
        """The keys after log_history (max_steps among them), up to the row limit."""
        parts, held = [tail], len(tail)
        while held <= MAX_LOG_ROW_BYTES and (block := self._read()):
            parts.append(block)
            held += len(block)
        if held > MAX_LOG_ROW_BYTES:
            raise LogError(f"{self.path}: more than {MAX_LOG_ROW_BYTES >> 20} MiB after log_history: expected a Hugging "
                           "Face trainer_state.json")
        rest = b"".join(parts).lstrip(b" \t\r\n,")
        self.others.update(_members(b"{" + rest) if rest.startswith((b'"', b"}")) else {})


def _loaded(raw: bytes, path: str, where: str) -> object:
    """A row's JSON: orjson's parse (several times faster), else the standard library's, which
    takes what a Trainer writes and orjson does not (NaN, Infinity, integers past 64 bits)."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        pass
    try:
        return json.loads(raw.decode("utf-8"))
    except UnicodeDecodeError as exc:
        raise LogError(f"{path}: cannot read: {exc}") from None
    except ValueError as exc:
        if str(exc).startswith("Exceeds the limit"):  # an integer past Python's 4,300 digits
            return _TOO_LONG_NUMBER
        raise LogError(f"{where}: not valid JSON: {exc}") from None
    except RecursionError as exc:
        raise LogError(f"{where}: not valid JSON: {exc}") from None


def _decoded(string: bytes) -> str | None:
    try:
        value = json.loads(string)
    except ValueError:
        return None
    return value if isinstance(value, str) else None


def _members(text: bytes) -> dict:
    """The object `text` holds (empty if it holds none)."""
    try:
        value = json.loads(text)
    except (ValueError, RecursionError):
        return {}
    return value if isinstance(value, dict) else {}


def head_of(fh: BinaryIO) -> str:
    """The file's first 4 KiB as text (a byte-order mark dropped), to tell the kinds apart; the
    stream is put back at its start."""
    head = fh.read(4096)
    fh.seek(0)
    return head.removeprefix(BOM).decode("utf-8", "replace")

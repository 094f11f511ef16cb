"""Where the chunks' results meet: each chunk's findings as they travel back from a worker (runs of
the same finding as one item), and their merge, in file and line order, into one Analysis.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from dataclasses import dataclass, field

from ..diagnostics import Diagnostic
from ..formats import get_format
from .judge import Recounter, Settings, file_findings
from .places import RUN_FIELDS, on_elements, summary_on_lines  # a run travels as a finding's 8 fields and its last line
from .result import CHUNK_ROWS, Analysis, Columns, FileSummary

Emit = Callable[[Diagnostic], None]


@dataclass(slots=True)
class ChunkResult:
    file_index: int
    last: bool
    # Diagnostic fields (tuples pickle many times faster than dataclasses), or a run's: the first
    # finding's fields and its last line, the same finding on each line between (Runs)
    diagnostics: list[tuple]
    columns: dict[str, array]  # the fingerprint rows (empty when none are kept)
    summary: FileSummary  # this chunk's counts; the file's are their sum
    lengths: dict[int, int]  # records per token count
    ordered: array | None  # each record's figures (result.py ROW), when the order is kept
    # (line, the record's compact JSON, its fingerprint) of records whose byte bound reached the
    # limit: the main process counts them exactly (Recounter) and adds their findings
    deferred: list[tuple[int, bytes, str]] = field(default_factory=list)
    lines: array | None = None  # a JSON array's: the line each of the chunk's elements starts on (engine/places.py)


class Runs:
    """A chunk's findings as they travel back: each one's fields, and a run of lines with the same
    one finding each (a flood of blank lines, of `{}`) as one item, the first finding's fields and
    the run's last line. The writers expand it (report/check.py `Reporter.run`): the output is the
    same, finding by finding."""

    __slots__ = ("first", "items", "last", "same")

    def __init__(self, items: list) -> None:
        self.items: list[tuple] = items
        self.first: Diagnostic | None = None  # the open run's first finding
        self.last = 0  # ... and its last line
        self.same: Diagnostic | None = None  # the finding (with line 0) each line of the open run has, from add_same

    def add_same(self, number: int, found: Diagnostic) -> None:
        """Line `number`'s one finding, `found` with line 0, the same object for every line with the
        same finding (a blank line's): a line that continues the open run costs one comparison."""
        if found is self.same and number == self.last + 1:
            self.last = number
            return
        self._flush()
        self.first = found.at(number)
        self.same, self.last = found, number

    def add(self, found: list[Diagnostic]) -> None:
        first = self.first
        if len(found) == 1:
            d = found[0]
            if (first is not None and d.line == self.last + 1 and d.message == first.message and d.code == first.code
                    and d.fingerprint == first.fingerprint and d.col == first.col and d.pointer == first.pointer
                    and d.severity == first.severity):
                self.last = d.line
                return
            self._flush()
            self.first, self.last, self.same = d, d.line, None
            return
        self._flush()
        self.first = self.same = None
        self.items.extend(map(fields_of, found))

    def _flush(self) -> None:
        first = self.first
        if first is not None:
            self.items.append(fields_of(first) if self.last == first.line else (*fields_of(first), self.last))

    def close(self) -> list[tuple]:
        self._flush()
        self.first = self.same = None
        return self.items


def _split_runs(found: list[tuple], lines: set[int]) -> list[tuple]:
    """`found` with each run that holds one of `lines` as its findings one by one."""
    out: list[tuple] = []
    for item in found:
        if len(item) == RUN_FIELDS and any(item[1] <= line <= item[-1] for line in lines):
            out.extend((item[0], line, *item[2:-1]) for line in range(item[1], item[-1] + 1))
        else:
            out.append(item)
    return out


def fields_of(d: Diagnostic) -> tuple:
    return (d.path, d.line, d.col, d.code, d.message, d.severity, d.pointer, d.fingerprint)


class Merger:
    """Chunk results, in file and line order, into an Analysis: findings to `emit` as they come,
    each file's summed counts, and its file-level findings after its last chunk. The pool, one
    process and the Ray engine all end here, so they cannot differ in what they report."""

    def __init__(self, result: Analysis, settings: Settings, emit: Emit) -> None:
        self.result, self.settings, self.emit = result, settings, emit
        self.recounter: Recounter | None = None
        self.columns = Columns()
        self.summaries: dict[int, FileSummary] = {}
        if settings.keep_order and result.ordered is None:
            result.ordered = array("q")

    def report(self, d: Diagnostic) -> None:
        self.result.count(d.severity)
        self.emit(d)

    def report_run(self, d: Diagnostic, last: int) -> None:
        """`d` and the same finding on each line after it up to `last`: as one call where `emit`
        takes runs (a reporter's `run`), else one finding at a time."""
        self.result.count(d.severity, last - d.line + 1)
        run = getattr(self.emit, "run", None)
        if run is not None:
            run(d, last)
            return
        for line in range(d.line, last + 1):
            self.emit(d.at(line))

    def add(self, part: ChunkResult) -> None:
        result, summaries, columns = self.result, self.summaries, self.columns
        summary = summaries.get(part.file_index)
        if summary is None:
            summary = summaries[part.file_index] = part.summary
            result.files.append(summary)
        else:
            summary.add(part.summary)
        found = part.diagnostics
        if part.deferred:
            self.recounter = self.recounter or Recounter(self.settings)
            more = [fields_of(d) for d in self.recounter.findings(summary, part.deferred)]
            if more:  # in line order, as the worker would have put them; a run with a recounted line is split
                found = sorted([*_split_runs(found, {d[1] for d in more}), *more], key=lambda d: (d[1], d[2], d[3], d[4]))
        if part.lines is not None:  # a JSON array: each finding on its element's first line
            starts = result.element_lines.setdefault(part.file_index, array("q"))
            starts.extend(part.lines)
            for d in (placed for fields in found for placed in on_elements(fields, starts)):
                self.report(d)
            found = []
        for fields in found:
            if len(fields) == RUN_FIELDS:
                self.report_run(Diagnostic.of(fields[:-1]), fields[-1])
            else:
                self.report(Diagnostic.of(fields))
        result.lengths.merge(part.lengths)
        if part.ordered is not None and result.ordered is not None:
            result.ordered.extend(part.ordered)
        if part.columns["line"]:
            columns.extend(part.columns)
            if len(columns) >= CHUNK_ROWS:
                columns.flush(result.chunks)
        if part.last:
            shown = summary_on_lines(summary, result.element_lines.get(part.file_index))
            for d in file_findings(shown, get_format(summary.format), self.settings):
                self.report(d)

    def close(self) -> None:
        if self.result.chunks or self.result.rows is not None:
            self.columns.flush(self.result.chunks)
        elif len(self.columns):  # few rows: kept as columns, and polars is not even imported
            self.result.rows = self.columns.columns()

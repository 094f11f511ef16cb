"""What an analysis produces, as a summary that merges: per-file counts and sums, the exact
distribution of per-record token counts, and the fingerprints dataset-wide checks read.
Findings themselves stream out as they are made.

Every part merges without loss, so the analysis of N shards merged (Analysis.merge) equals one
analysis of the concatenated files figure by figure:
  FileSummary  counts and sums: they add (a file's chunks, or a file's byte ranges)
  Lengths      how many records have each token count: counts add, and quantiles, clipped sums
               and the over-limit count for any limit are exact. Its size is bounded by the
               distinct lengths, at most sqrt(2T) for T tokens (k distinct positive lengths sum
               to at least k(k+1)/2): 4,500 for a 10M-token file, 450,000 for 100 billion tokens,
               however many records there are
  fingerprints one row per valid line (file, line, records, exact, near, prompt): duplicates and
               leakage across shards are found exactly, as in one run; 32-40 bytes a line, and
               only when dataset rules, a validation file or `diff` need them
  ordered      each record's figures in order (ROW: 64 bytes a record), only where a trainer's
               preparation follows the records' order (--packing, a held-out share)
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..dataset import PRINT_COLUMNS, DatasetView, frame_of
from ..diagnostics import ERROR, WARNING
from ..lengths import Lengths
from ..rules.context import FileSummary
from ..trainers.base import RecordRow

if TYPE_CHECKING:
    import polars as pl

    from ..plan.figures import DatasetFigures

CHUNK_ROWS = 65536
ROW = 8  # a record in `ordered`: tokens, cut, trainable, cut trainable, messages, targets, dropped, file (trainers/base.py RecordRow)


class Columns:
    """Per-line fingerprint rows: tuples while a chunk is judged, machine-integer columns when it
    is sent back, polars frames when enough have been merged."""

    def __init__(self) -> None:
        self.cols = {c: array("q") for c in PRINT_COLUMNS}
        self.rows: list[tuple[int, ...]] = []

    def add(self, row: tuple[int, ...]) -> None:
        self.rows.append(row)

    def columns(self) -> dict[str, array]:
        """Pending rows moved into the columns; the columns."""
        if self.rows:
            for col, values in zip(self.cols.values(), zip(*self.rows, strict=True), strict=True):
                col.extend(values)
            self.rows = []
        return self.cols

    def extend(self, other: dict[str, array]) -> None:
        for name, col in self.cols.items():
            col.extend(other[name])

    def __len__(self) -> int:
        return len(self.cols["line"]) + len(self.rows)

    def flush(self, into: list) -> None:
        if len(self):
            into.append(frame_of(self.columns()))
            self.cols = {c: array("q") for c in PRINT_COLUMNS}


@dataclass
class Analysis:
    files: list[FileSummary] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {ERROR: 0, WARNING: 0})  # findings made, by severity
    lengths: Lengths = field(default_factory=Lengths)
    chunks: list[pl.DataFrame] = field(default_factory=list)  # the fingerprint rows, as frames
    rows: dict[str, array] | None = None  # ... or, while fewer than CHUNK_ROWS, as machine-integer columns (no polars)
    ordered: array | None = None  # each record's figures in order (ROW), when kept
    io_errors: list[str] = field(default_factory=list)  # paths that could not be read at all
    # a JSON array file's (by file index): the line each element starts on, element 1 first (engine/places.py)
    element_lines: dict[int, array] = field(default_factory=dict)

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    def count(self, severity: str, n: int = 1) -> None:
        """`n` findings made at `severity`: the one place a run's findings are counted (the merge's
        and every later phase's: engine/merge.py, engine/phases.py)."""
        self.counts[severity] = self.counts.get(severity, 0) + n

    def _sum(self, name: str) -> int:
        return sum(getattr(f, name) for f in self.files)

    @property
    def lines(self) -> int:
        return self._sum("lines")

    @property
    def invalid(self) -> int:
        return self._sum("invalid")

    @property
    def messages(self) -> int:
        return self._sum("messages")

    @property
    def records(self) -> int:
        return self._sum("records")

    def fingerprints(self) -> pl.DataFrame:
        """One row per valid line: file (index), line, records, exact, near, prompt."""
        import polars as pl

        if self.rows is not None:
            self.chunks.insert(0, frame_of(self.rows))
            self.rows = None
        if not self.chunks:
            return pl.DataFrame({c: [] for c in PRINT_COLUMNS}, schema={c: pl.Int64 for c in PRINT_COLUMNS})
        if len(self.chunks) > 1:
            self.chunks = [pl.concat(self.chunks, rechunk=True)]
        return self.chunks[0]

    def few_fingerprints(self) -> dict[str, array] | None:
        """The fingerprint rows as columns when there are few (no polars frame was made), else None."""
        if self.chunks:
            return None
        return self.rows if self.rows is not None else {c: array("q") for c in PRINT_COLUMNS}

    def record_rows(self) -> list[RecordRow]:
        """Each record as judged, in file and line order, those the trainer drops too (kept only
        with Settings(keep_order=True))."""
        if self.ordered is None:
            raise ValueError("record order was not kept: analyse with Settings(keep_order=True)")
        v = self.ordered.tolist()
        return [RecordRow(v[i], v[i + 1], v[i + 2], v[i + 3], v[i + 4], v[i + 5], bool(v[i + 6]), v[i + 7])
                for i in range(0, len(v), ROW)]

    def record_tokens(self) -> list[int]:
        """Each kept record's tokens in file and line order (kept only for --packing)."""
        return [r.tokens for r in self.record_rows() if not r.dropped]

    def figures(self, *, context_limit: int | None) -> DatasetFigures:
        """The figures a plan is made from. Every figure is exact: the distribution keeps each distinct
        token count (Lengths), so a clipped sum or a quantile is the same for one run and for merged
        shards; quantiles use the nearest record (no interpolation): every figure is a real record's.
        The records as trained are those the judge cut at the trainer's max length (or the limit),
        as the trainer cuts them, and without those it drops (FileSummary)."""
        from ..plan.figures import DatasetFigures  # only an estimate needs it: a check never loads plan/

        lengths = self.lengths
        files = self.files
        cut = self._sum("tokens_cut")
        dropped_trainable = self._sum("dropped_trainable")
        trainable = self._sum("trainable")
        trainable_cut = self._sum("trainable_cut")
        return DatasetFigures(
            lines=self.lines,
            invalid_lines=self.invalid,
            messages=self.messages,
            records=lengths.records,
            targets=sum(f.targets for f in files),
            tokens_in_file=lengths.total() + self._sum("dropped_tokens"),
            tokens_capped=lengths.total() - cut,
            trainable_tokens=trainable,
            records_over_limit=lengths.over(context_limit) if context_limit is not None else 0,
            token_stats=lengths.stats(),
            truncated_records=self._sum("cut"),
            truncated_tokens=cut,
            trainable_tokens_in_file=trainable + trainable_cut + dropped_trainable,
            trainable_cut=trainable_cut,
            records_emptied=self._sum("emptied"),
            records_dropped=self._sum("dropped"),
            tokens_dropped=self._sum("dropped_tokens"),
            trainable_dropped=dropped_trainable,
        )

    def merge(self, other: Analysis) -> None:
        """`other`'s files after these: the result is the analysis of both sets of files, as one
        run over all of them would make it (dataset-wide findings are made after, from it)."""
        import polars as pl

        offset = len(self.files)
        self.files.extend(other.files)
        for level, n in other.counts.items():
            self.counts[level] = self.counts.get(level, 0) + n
        self.lengths.merge(other.lengths)
        mine, theirs = self.few_fingerprints(), other.few_fingerprints()
        if mine is not None and theirs is not None and len(mine["line"]) + len(theirs["line"]) < CHUNK_ROWS:
            merged = {c: array("q", v) for c, v in mine.items()}
            for c, v in theirs.items():
                merged[c].extend(array("q", (x + offset for x in v)) if c == "file" else v)
            self.rows = merged
        elif other.chunks or other.rows is not None:
            self.fingerprints()
            self.chunks.append(other.fingerprints().with_columns(pl.col("file") + offset))
        if self.ordered is not None or other.ordered is not None:
            if self.ordered is None or other.ordered is None:
                raise ValueError("cannot merge an analysis that kept record order with one that did not")
            moved = array("q", other.ordered)
            moved[ROW - 1::ROW] = array("q", (f + offset for f in other.ordered[ROW - 1::ROW]))
            self.ordered.extend(moved)
        self.io_errors.extend(other.io_errors)
        self.element_lines.update({offset + k: v for k, v in other.element_lines.items()})

    @classmethod
    def merged(cls, parts: Iterable[Analysis]) -> Analysis:
        out: Analysis | None = None
        for part in parts:
            if out is None:
                out = Analysis(ordered=array("q") if part.ordered is not None else None)
            out.merge(part)
        return out if out is not None else cls()


def view_of(analysis: Analysis) -> DatasetView:
    """The fingerprints of an analysis, as the dataset checks read them."""
    few = analysis.few_fingerprints()
    starts = tuple(analysis.element_lines.get(k) for k in range(len(analysis.files)))
    if few is not None:
        return DatasetView(None, analysis.paths, few, starts)
    return DatasetView(analysis.fingerprints(), analysis.paths, starts=starts)

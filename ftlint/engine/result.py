"""What an analysis produces: per-file counts, the frame of per-record figures, and the views
dataset-wide checks read. Findings themselves stream out as they are made."""

from __future__ import annotations

from array import array
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING

if TYPE_CHECKING:
    import polars as pl

# One row per accepted training record (a line with an error is rejected: it appears in no
# figure); exact/near/prompt are 64-bit fingerprints (0 when not computed).
FRAME_COLUMNS = ("file", "line", "messages", "targets", "tokens", "trainable", "exact", "near", "prompt")
CHUNK_RECORDS = 65536


@dataclass(slots=True)
class FileSummary:
    path: str
    lines: int = 0
    valid: int = 0  # lines that parsed to an object with no error-severity finding
    invalid: int = 0  # lines with at least one error: their records are in no figure
    blank: int = 0
    records: int = 0  # training records of the valid lines
    messages: int = 0  # messages of the valid lines
    format: str = ""
    format_reason: str = ""
    rendered: int = 0  # lines rendered through a chat template with the trainer's loss mask
    untrained: int = 0  # ... of which no token trains
    truncated: int = 0  # ... of which trained tokens fall past --max-seq-len

    def add(self, other: FileSummary) -> None:
        for name in ("lines", "valid", "invalid", "blank", "records", "messages", "rendered", "untrained", "truncated"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


@dataclass
class Analysis:
    files: list[FileSummary] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {ERROR: 0, WARNING: 0})  # findings made, by severity
    chunks: list[pl.DataFrame] = field(default_factory=list)
    io_errors: list[str] = field(default_factory=list)  # paths that could not be read at all

    @property
    def paths(self) -> list[str]:
        return [f.path for f in self.files]

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    @property
    def invalid(self) -> int:
        return sum(f.invalid for f in self.files)

    @property
    def messages(self) -> int:
        return sum(f.messages for f in self.files)

    def frame(self) -> pl.DataFrame:
        import polars as pl

        if not self.chunks:
            return pl.DataFrame({c: [] for c in FRAME_COLUMNS}, schema={c: pl.Int64 for c in FRAME_COLUMNS})
        if len(self.chunks) > 1:
            self.chunks = [pl.concat(self.chunks, rechunk=True)]
        return self.chunks[0]


@dataclass(frozen=True)
class DatasetView:
    """The records of the files checked together, for dataset-wide checks."""

    frame: pl.DataFrame
    paths: list[str]


class Columns:
    """Per-record figures: rows while a chunk is judged, machine-integer columns when it is
    sent back, polars frames when enough have been merged."""

    def __init__(self) -> None:
        self.cols = {c: array("q") for c in FRAME_COLUMNS}
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
        import polars as pl

        if len(self):
            cols = self.columns()
            into.append(pl.DataFrame({c: pl.Series(c, v, dtype=pl.Int64) for c, v in cols.items()}))
            self.cols = {c: array("q") for c in FRAME_COLUMNS}

"""The pipeline: read -> parse -> format findings + record figures -> diagnostics and a frame.

Streaming: diagnostics go to a callback as they are found (in file and line order) and
per-record figures are kept as compact polars chunks, so memory does not grow with the size
of the lines, only (slightly) with the number of records.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .diagnostics import ERROR, WARNING, Diagnostic
from .formats import Format, get_format
from .models import Model
from .read import DEFAULT_MAX_DEPTH, DEFAULT_MAX_LINE_BYTES, InputError, Line, display_name, read_lines
from .rules import load_all, secrets, severity_of
from .tokens import TokenCounter

if TYPE_CHECKING:
    import polars as pl

FRAME_COLUMNS = ("file", "line", "messages", "targets", "tokens", "trainable")
CHUNK_RECORDS = 65536


@dataclass(slots=True)
class Settings:
    model: Model
    context_limit: int | None
    format_name: str = "openai-chat"
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    min_examples: int | None = None
    ignore: tuple[str, ...] = ()  # code prefixes not reported ("FT6" turns off a family)

    def ignored(self, code: str) -> bool:
        return code.startswith(self.ignore) if self.ignore else False


@dataclass(slots=True)
class FileSummary:
    path: str
    lines: int = 0
    valid: int = 0  # lines that parsed to an object with no error-severity finding
    invalid: int = 0  # lines with at least one error
    blank: int = 0
    records: int = 0
    messages: int = 0


@dataclass
class Analysis:
    files: list[FileSummary] = field(default_factory=list)
    counts: dict[str, int] = field(default_factory=lambda: {ERROR: 0, WARNING: 0})
    chunks: list[pl.DataFrame] = field(default_factory=list)
    io_errors: list[str] = field(default_factory=list)  # paths that could not be read at all

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
        return pl.concat(self.chunks, rechunk=True)


class _Columns:
    """Per-record figures accumulated as machine integers, flushed to polars in chunks."""

    def __init__(self) -> None:
        self.cols = {c: array("q") for c in FRAME_COLUMNS}

    def add(self, *values: int) -> None:
        for col, value in zip(self.cols.values(), values, strict=True):
            col.append(value)

    def __len__(self) -> int:
        return len(self.cols["line"])

    def flush(self, into: list) -> None:
        import polars as pl

        if len(self):
            into.append(pl.DataFrame({c: pl.Series(c, v, dtype=pl.Int64) for c, v in self.cols.items()}))
            self.cols = {c: array("q") for c in FRAME_COLUMNS}


def analyse(
    paths: Iterable[str],
    settings: Settings,
    emit: Callable[[Diagnostic], None],
) -> Analysis:
    """Check every line of every path. A path that cannot be opened at all is noted in
    `io_errors` and the run goes on with the next one."""
    load_all()
    fmt = get_format(settings.format_name)
    counter = TokenCounter(str(settings.model.encoding.value))
    result = Analysis()
    columns = _Columns()

    secret_codes = frozenset(c for c in load_all() if c.startswith("FT6") and not settings.ignored(c))

    def report(d: Diagnostic) -> None:
        if settings.ignored(d.code):
            return
        result.counts[d.severity] = result.counts.get(d.severity, 0) + 1
        emit(d)

    for file_index, path in enumerate(paths):
        summary = FileSummary(display_name(path))
        try:
            for line in read_lines(path, settings.max_line_bytes, settings.max_depth):
                found = _analyse_line(line, fmt, counter, settings, summary, columns, file_index, secret_codes)
                for d in sorted(found):
                    report(d)
                if len(columns) >= CHUNK_RECORDS:
                    columns.flush(result.chunks)
        except InputError as exc:
            result.io_errors.append(str(exc))
            continue
        result.files.append(summary)
        for d in _file_findings(summary, settings):
            report(d)
    columns.flush(result.chunks)
    return result


def _analyse_line(
    line: Line,
    fmt: Format,
    counter: TokenCounter,
    settings: Settings,
    summary: FileSummary,
    columns: _Columns,
    file_index: int,
    secret_codes: frozenset[str],
) -> list[Diagnostic]:
    summary.lines += 1
    path = summary.path
    found = [
        Diagnostic(path, line.number, p.col, p.code, p.message, p.severity)
        for p in line.problems
    ]
    if line.blank:
        summary.blank += 1
    if line.value is not None:
        for code, message, pointer in fmt.findings(line.value):
            found.append(Diagnostic(path, line.number, 1, code, message, severity_of(code), pointer))
        if secret_codes:
            for code, message, pointer in secrets.scan(line.value, secret_codes):
                found.append(Diagnostic(path, line.number, 1, code, message, severity_of(code), pointer))
        figures = fmt.figures(line.value, counter)
        summary.messages += figures.messages
        for record in figures.records:
            summary.records += 1
            columns.add(file_index, line.number, record.messages, record.targets, record.tokens, record.trainable)
            limit = settings.context_limit
            if limit is not None and record.tokens > limit:
                msg = f"example has {record.tokens:,} tokens, over the {limit:,}-token limit of {settings.model.name}; the end is truncated in training"
                found.append(Diagnostic(path, line.number, 1, "FT301", msg, WARNING))
        for pointer in figures.special_token_pointers:
            msg = "text spelled like a special token (<|...|>); it is counted and trained as plain text"
            found.append(Diagnostic(path, line.number, 1, "FT302", msg, WARNING, pointer))
    if any(d.severity == ERROR for d in found):
        summary.invalid += 1
    elif line.value is not None:
        summary.valid += 1
    return found


def _file_findings(summary: FileSummary, settings: Settings) -> list[Diagnostic]:
    if summary.lines == summary.blank:
        what = "file is empty" if summary.lines == 0 else "file holds only blank lines"
        return [Diagnostic(summary.path, 0, 0, "FT006", f"{what}: no training records", ERROR)]
    minimum = settings.min_examples
    if minimum and 0 < summary.records < minimum:
        msg = f"{_plural(summary.records, 'training record')}; {settings.model.provider} needs at least {minimum}"
        return [Diagnostic(summary.path, 0, 0, "FT401", msg, severity_of("FT401"))]
    return []


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"

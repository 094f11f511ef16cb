"""The pipeline: read -> parse -> format findings + record figures -> diagnostics and a frame.

Streaming: diagnostics go to a callback as they are found (in file and line order) and
per-record figures are kept as compact polars chunks, so memory does not grow with the size
of the lines, only (slightly) with the number of records.
"""

from __future__ import annotations

import contextlib
import os
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import orjson

from .dataset import duplicate_findings, fingerprint, fingerprints
from .diagnostics import ERROR, WARNING, Diagnostic
from .formats import Format, get_format
from .formats.generic import shape, special_token_pointers
from .literals import present as literals_in
from .models import Model
from .read import (
    DEFAULT_MAX_DEPTH,
    DEFAULT_MAX_LINE_BYTES,
    READ_BLOCK,
    InputError,
    Line,
    LineBlock,
    display_name,
    parse_line,
    read_runs,
)
from .rules import load_all, secrets, severity_of
from .tokens import TokenCounter, get_encoding

if TYPE_CHECKING:
    import polars as pl

FRAME_COLUMNS = ("file", "line", "messages", "targets", "tokens", "trainable", "exact", "near", "prompt")
CHUNK_RECORDS = 65536


@dataclass(slots=True)
class Settings:
    model: Model
    context_limit: int | None  # the model's per-example limit, or --context
    format_name: str = "auto"  # or a name from `ftlint formats`
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES
    max_depth: int = DEFAULT_MAX_DEPTH
    min_examples: int | None = None  # the model's provider minimum (estimate advice)
    minimum_check: bool = True  # FT401 against the format's minimum (off for a validation file)
    ignore: tuple[str, ...] = ()  # code prefixes not reported ("FT6" turns off a family)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, code prefixes)
    config_dir: str | None = None  # per-file globs are relative to it
    context_explicit: bool = False  # --context was given: it wins over a format's own limit
    prompt_fingerprints: bool = False  # only `ftlint diff` pairs changed records by prompt
    content_fingerprints: bool = True  # exact and near per record: duplicates, leakage, diff (estimate alone skips them)
    dataset_rules: bool = True  # duplicates across the whole input (off for estimate: not shown)

    select: tuple[str, ...] = ()  # when given, only these code prefixes are reported

    def limit_for(self, fmt: Format) -> int | None:
        """Tokens per example: --context, else the format's provider limit, else the model's."""
        if self.context_explicit:
            return self.context_limit
        return fmt.token_limit or self.context_limit

    def ignored(self, code: str, path: str | None = None) -> bool:
        if self.ignore and code.startswith(self.ignore):
            return True
        if self.select and not code.startswith(self.select):
            return True
        if path is None or not self.per_file_ignores:
            return False
        from .config import ignores_for

        extra = ignores_for(self.per_file_ignores, self.config_dir, path)
        return bool(extra) and code.startswith(extra)


@dataclass(slots=True)
class FileSummary:
    path: str
    lines: int = 0
    valid: int = 0  # lines that parsed to an object with no error-severity finding
    invalid: int = 0  # lines with at least one error
    blank: int = 0
    records: int = 0
    messages: int = 0
    format: str = ""
    format_reason: str = ""

    def add(self, other: FileSummary) -> None:
        for name in ("lines", "valid", "invalid", "blank", "records", "messages"):
            setattr(self, name, getattr(self, name) + getattr(other, name))


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

    def absorb(self, other: Analysis) -> None:
        """Count another analysis's files and findings with this one's (a validation file)."""
        self.files.extend(other.files)
        self.io_errors.extend(other.io_errors)
        for severity, n in other.counts.items():
            self.counts[severity] = self.counts.get(severity, 0) + n

    def frame(self) -> pl.DataFrame:
        import polars as pl

        if not self.chunks:
            return pl.DataFrame({c: [] for c in FRAME_COLUMNS}, schema={c: pl.Int64 for c in FRAME_COLUMNS})
        return pl.concat(self.chunks, rechunk=True)


class _Columns:
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


# A chunk of lines travels to a worker as one task: big enough that task overhead vanishes,
# small enough that only a few megabytes are in flight per worker. Lines mostly come in blocks
# of up to 1 MB (read_runs), so a chunk is about two blocks; CHUNK_LINES bounds the items of a
# chunk when lines come one by one (a --max-line-bytes under 1 MB).
CHUNK_LINES = 512
CHUNK_BYTES = 2 * 1024 * 1024
INFLIGHT_PER_WORKER = 3
# Below this many bytes of regular files a process pool costs more than it saves.
POOL_MIN_BYTES = 4 * 1024 * 1024


@dataclass(slots=True)
class Chunk:
    file_index: int
    path: str  # as displayed
    items: list[tuple[int, bytes | Line | LineBlock]]  # (line number, a line; or the first line's number, lines)
    format: str
    format_reason: str
    last: bool = False  # the file's last chunk: file-level findings follow it


@dataclass(slots=True)
class ChunkResult:
    file_index: int
    last: bool
    diagnostics: list[Diagnostic]
    columns: dict[str, array]
    summary: FileSummary  # this chunk's counts; the file's are their sum


class _Worker:
    """Everything a process needs to judge lines; built once per process."""

    def __init__(self, settings: Settings) -> None:
        load_all()
        self.settings = settings
        self.counter = TokenCounter(str(settings.model.encoding.value))
        self.secret_codes = frozenset(c for c in load_all() if c.startswith("FT6") and not settings.ignored(c))

    def run(self, chunk: Chunk) -> ChunkResult:
        summary = FileSummary(chunk.path, format=chunk.format, format_reason=chunk.format_reason)
        columns = _Columns()
        found: list[Diagnostic] = []
        judge = _LineJudge(get_format(chunk.format), self.counter, self.settings, summary, columns,
                           chunk.file_index, self.secret_codes)
        max_depth = self.settings.max_depth
        for number, raw in _lines(chunk.items):
            line_found = judge(raw if isinstance(raw, Line) else parse_line(number, raw, max_depth))
            if line_found:
                found.extend(sorted(line_found) if len(line_found) > 1 else line_found)
        return ChunkResult(chunk.file_index, chunk.last, found, columns.columns(), summary)


_PROCESS_WORKER: _Worker | None = None


def _init_process(settings: Settings) -> None:
    global _PROCESS_WORKER
    _PROCESS_WORKER = _Worker(settings)


def _run_in_process(chunk: Chunk) -> ChunkResult:
    assert _PROCESS_WORKER is not None
    return _PROCESS_WORKER.run(chunk)


Progress = Callable[[str, int], None]  # (path shown, bytes of it read so far)


def _lines(items: Iterable[tuple[int, bytes | Line | LineBlock]]) -> Iterator[tuple[int, bytes | Line]]:
    """Every line of a chunk's items, numbered."""
    for number, item in items:
        if isinstance(item, LineBlock):
            yield from enumerate(item.lines(), number)
        else:
            yield number, item


def _chunks(paths: Iterable[str], settings: Settings, io_errors: list[str],
            progress: Progress | None = None) -> Iterator[Chunk]:
    for file_index, path in enumerate(paths):
        shown = display_name(path)
        items: list[tuple[int, bytes | Line | LineBlock]] = []
        size = done = 0
        chosen: tuple[str, str] | None = None
        try:
            for number, item in read_runs(path, settings.max_line_bytes, READ_BLOCK):
                items.append((number, item))
                if isinstance(item, LineBlock):
                    size += len(item.data) + 1
                else:
                    size += len(item) + 1 if isinstance(item, bytes) else item.nbytes + 1
                if len(items) >= CHUNK_LINES or size >= CHUNK_BYTES:
                    chosen = chosen or _choose_format(items, settings)
                    yield Chunk(file_index, shown, items, *chosen)
                    done += size
                    if progress:
                        progress(shown, done)
                    items, size = [], 0
        except InputError as exc:
            io_errors.append(str(exc))
            continue
        yield Chunk(file_index, shown, items, *(chosen or _choose_format(items, settings)), last=True)


def _choose_format(items: list[tuple[int, bytes | Line | LineBlock]], settings: Settings) -> tuple[str, str]:
    """The file's format: as given, or detected from its first readable records."""
    if settings.format_name != "auto":
        return settings.format_name, "--format"
    from .formats.registry import DETECT_RECORDS, detect

    records = []
    for number, item in _lines(items):
        if isinstance(item, bytes):
            value = parse_line(number, item, settings.max_depth).value
            if value is not None:
                records.append(value)
                if len(records) >= DETECT_RECORDS:
                    break
    found = detect(records)
    return found.name, found.reason


def default_jobs(paths: Iterable[str]) -> int:
    """All cores, unless the input is small enough that one process is faster."""
    total = 0
    for path in paths:
        if path == "-":
            return os.cpu_count() or 1
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return (os.cpu_count() or 1) if total >= POOL_MIN_BYTES else 1


def analyse(
    paths: Iterable[str],
    settings: Settings,
    emit: Callable[[Diagnostic], None],
    jobs: int = 1,
    progress: Progress | None = None,
) -> Analysis:
    """Check every line of every path, in `jobs` processes. Findings reach `emit` in file and
    line order whatever `jobs` is. A path that cannot be opened at all is noted in `io_errors`
    and the run goes on with the next one."""
    paths = list(paths)
    result = Analysis()
    chunks = _chunks(paths, settings, result.io_errors, progress)
    if jobs <= 1:
        worker = _Worker(settings)
        results: Iterable[ChunkResult] = map(worker.run, chunks)
        _merge(results, result, settings, emit)
        return result
    import concurrent.futures
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    get_encoding(str(settings.model.encoding.value))  # loaded once here; forked workers share it
    with concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_process,
                                                initargs=(settings,)) as pool:
        _merge(_bounded_map(pool, chunks, jobs * INFLIGHT_PER_WORKER), result, settings, emit)
    return result


def _bounded_map(pool, chunks: Iterator[Chunk], window: int) -> Iterator[ChunkResult]:  # type: ignore[no-untyped-def]
    """Results in submission order, with at most `window` chunks in flight (flat memory)."""
    pending: deque = deque()
    for chunk in chunks:
        pending.append(pool.submit(_run_in_process, chunk))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def report_extra(result: Analysis, settings: Settings, emit: Callable[[Diagnostic], None],
                 diagnostics: Iterable[Diagnostic]) -> None:
    """Emit findings made after the run (validation leakage), counted and filtered like any."""
    for d in diagnostics:
        if not settings.ignored(d.code, d.path):
            result.counts[d.severity] = result.counts.get(d.severity, 0) + 1
            emit(d)


def _merge(results: Iterable[ChunkResult], result: Analysis, settings: Settings,
           emit: Callable[[Diagnostic], None]) -> None:
    def report(d: Diagnostic) -> None:
        if settings.ignored(d.code, d.path):
            return
        result.counts[d.severity] = result.counts.get(d.severity, 0) + 1
        emit(d)

    columns = _Columns()
    summaries: dict[int, FileSummary] = {}
    for part in results:
        if not summaries:
            import polars  # noqa: F401  (the frames need it; loaded here, while workers judge the next chunks)

        summary = summaries.get(part.file_index)
        if summary is None:
            summary = summaries[part.file_index] = part.summary
            result.files.append(summary)
        else:
            summary.add(part.summary)
        for d in part.diagnostics:
            report(d)
        columns.extend(part.columns)
        if len(columns) >= CHUNK_RECORDS:
            columns.flush(result.chunks)
        if part.last:
            for d in _file_findings(summary, settings, get_format(summary.format).min_examples):
                report(d)
    columns.flush(result.chunks)
    if settings.dataset_rules:
        for d in duplicate_findings(result.frame(), [f.path for f in result.files]):
            report(d)
class _LineJudge:
    """Judges the lines of one chunk (one file, one format): findings, figures, fingerprints."""

    def __init__(self, fmt: Format, counter: TokenCounter, settings: Settings, summary: FileSummary,
                 columns: _Columns, file_index: int, secret_codes: frozenset[str]) -> None:
        self.fmt, self.counter, self.settings, self.summary, self.columns = fmt, counter, settings, summary, columns
        self.file_index, self.secret_codes = file_index, secret_codes
        self.shapes = frozenset((fmt.shape, *fmt.also_shapes, "unknown"))
        self.limit = settings.limit_for(fmt)

    def __call__(self, line: Line) -> list[Diagnostic]:
        fmt, summary, path = self.fmt, self.summary, self.summary.path
        summary.lines += 1
        found = [
            Diagnostic(path, line.number, p.col, p.code, p.message, p.severity)
            for p in line.problems
            if not (p.code == "FT004" and fmt.bom_ok)
        ] if line.problems else []
        if line.blank:
            summary.blank += 1
        value = line.value
        if value is None:
            if found and any(d.severity == ERROR for d in found):
                summary.invalid += 1
            return found
        if (other := shape(value)) not in self.shapes:
            found.append(Diagnostic(path, line.number, 1, "FT106", _other_shape(other, fmt), severity_of("FT106")))
        else:
            self._judge(line, value, found)
        if found and any(d.severity == ERROR for d in found):
            summary.invalid += 1
        else:
            summary.valid += 1
        return found

    def _judge(self, line: Line, value: dict, found: list[Diagnostic]) -> None:
        fmt, summary, path, number = self.fmt, self.summary, self.summary.path, line.number
        compact = line.compact if line.compact is not None else orjson.dumps(value, option=orjson.OPT_SORT_KEYS)
        present = literals_in(compact)
        for code, message, pointer in fmt.findings(value, present):
            found.append(Diagnostic(path, number, 1, code, message, severity_of(code), pointer))
        if self.secret_codes:
            for code, message, pointer in secrets.scan(value, self.secret_codes, present):
                found.append(Diagnostic(path, number, 1, code, message, severity_of(code), pointer))
        figures = fmt.figures(value, self.counter)
        exact, near = fingerprints(compact) if self.settings.content_fingerprints else (0, 0)
        prompt = fingerprint(orjson.dumps(fmt.prompt(value))) if self.settings.prompt_fingerprints else 0
        summary.messages += figures.messages
        limit = self.limit
        for record in figures.records:
            summary.records += 1
            self.columns.add((self.file_index, number, record.messages, record.targets, record.tokens, record.trainable,
                              exact, near, prompt))
            if limit is not None and record.tokens > limit:
                whose = self.settings.model.name if limit == self.settings.context_limit else fmt.name
                msg = f"example has {record.tokens:,} tokens, over the {limit:,}-token limit of {whose}; the end is truncated in training"
                found.append(Diagnostic(path, number, 1, "FT301", msg, WARNING))
        for pointer in special_token_pointers(value, present):
            msg = "text spelled like a special token (<|...|>); it is counted and trained as plain text"
            found.append(Diagnostic(path, number, 1, "FT302", msg, WARNING, pointer))


def _other_shape(other: str, fmt: Format) -> str:
    from .formats.registry import BY_SHAPE, FORMATS

    like = BY_SHAPE[other]
    return f"line has the shape of {like} ({FORMATS[like].title}); the file is {fmt.name}"


def _file_findings(summary: FileSummary, settings: Settings, minimum: int | None) -> list[Diagnostic]:
    if summary.lines == summary.blank:
        what = "file is empty" if summary.lines == 0 else "file holds only blank lines"
        return [Diagnostic(summary.path, 0, 0, "FT006", f"{what}: no training records", ERROR)]
    if settings.minimum_check and minimum and 0 < summary.records < minimum:
        msg = f"{_plural(summary.records, 'training record')}; {summary.format} needs at least {minimum}"
        return [Diagnostic(summary.path, 0, 0, "FT401", msg, severity_of("FT401"))]
    return []


def _plural(n: int, noun: str) -> str:
    return f"{n:,} {noun}{'' if n == 1 else 's'}"

"""The pipeline: read -> chunks -> judge (in worker processes) -> ordered merge.

Streaming: findings reach a callback in file and line order as they are made, whatever the
number of workers, and the figures are kept as a mergeable summary (result.py): sums, the exact
distribution of token counts, and (only where dataset rules need them) compact fingerprint rows,
so memory does not grow with the size of the lines. This module makes no finding of its own and
knows no code: judge.py applies the rules.

Workers: at most as many as the machine has cores and the input has chunks, started only once
a second chunk exists; each dies with the main process (Linux: the parent-death signal).
"""

from __future__ import annotations

import contextlib
import os
from array import array
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import interrupt
from ..diagnostics import ERROR, Diagnostic
from ..formats import get_format
from ..lengths import Lengths
from ..parse import Line, is_blank, parse_line
from ..read import READ_BLOCK, InputError, LineBlock, display_name, each_line, first_rows, read_runs
from ..tokens import ByteBound, TokenCounter, load
from .bounds import needs_exact
from .judge import LineJudge, Settings
from .merge import ChunkResult, Emit, Merger, Runs
from .result import Analysis, Columns, FileSummary

# A chunk of lines travels to a worker as one task: big enough that task overhead vanishes,
# small enough that only a few megabytes are in flight per worker. Lines mostly come in blocks
# of up to 1 MB (read_runs), so a chunk is about two blocks; CHUNK_LINES bounds the items of a
# chunk when lines come one by one (a --max-line-bytes under 1 MB).
CHUNK_LINES = 512
CHUNK_BYTES = 2 * 1024 * 1024
# and at most this many lines: a megabyte of blank lines, or of `{}`, is a million findings, and
# a chunk's findings travel back as one result
CHUNK_MAX_LINES = 20_000
INFLIGHT_PER_WORKER = 3
# Below this many bytes of regular files a process pool costs more than it saves.
POOL_MIN_BYTES = 4 * 1024 * 1024

Progress = Callable[[str, int], None]  # (path shown, bytes of it read so far)


@dataclass(slots=True)
class Chunk:
    file_index: int
    path: str  # as displayed
    items: list[tuple[int, bytes | Line | LineBlock]]  # (line number, a line; or the first line's number, lines)
    format: str
    format_reason: str
    last: bool = False  # the file's last chunk: file-level findings follow it
    lines: array | None = None  # a JSON array's: the line each item (an element) starts on in the file


class Worker:
    """Everything a process needs to judge lines; built once per process. `counts`: a record whose
    byte bound reaches its limit is settled here (the tokenizer was loaded before this process
    was forked), not sent to the main process."""

    def __init__(self, settings: Settings, counts: bool = False) -> None:
        self.settings = settings
        self.counts = counts
        self._exact: TokenCounter | None = None
        self.counter: TokenCounter | ByteBound
        if settings.uses_bound:
            self.counter = ByteBound(settings.encoding)  # the tokenizer is loaded only if a record needs it
        else:
            self.counter = self._exact = TokenCounter(settings.encoding, settings.limits.max_file_bytes)
        self.tally = None
        if settings.template != "openai":
            import datetime as dt

            from ..chat.tally import Tally
            from ..trainers import masker, named

            assert self._exact is not None
            renderer = named(settings.trainer).renderer(dict(settings.trainer_keys)) if settings.trainer and settings.trainer_keys \
                else None
            self.tally = Tally(settings.template, self._exact, dt.date.fromisoformat(settings.today), settings.loss, settings.template_budget,
                               settings.template_file, renderer, masker(settings.loss.mask, settings.loss.keys))

    def exact(self) -> TokenCounter:
        """The tokenizer itself, loaded the first time a record's bound reaches its limit."""
        if self._exact is None:
            self._exact = TokenCounter(self.settings.encoding, self.settings.limits.max_file_bytes)
        return self._exact

    def run(self, chunk: Chunk) -> ChunkResult:
        summary = FileSummary(chunk.path, format=chunk.format, format_reason=chunk.format_reason)
        columns, lengths = Columns(), Lengths()
        ordered = array("q") if self.settings.keep_order else None
        found: list[tuple] = []
        deferred: list[tuple[int, bytes, str]] = []
        judge = LineJudge(get_format(chunk.format), self.counter, self.settings, summary, columns, chunk.file_index, self.tally,
                          self.exact if isinstance(self.counter, ByteBound) else None, lengths, ordered,
                          None if self.counts else deferred)
        max_depth = self.settings.limits.max_depth
        runs = Runs(found)
        previous: bytes | None = None  # the line before, and (once it repeats) its rejection, replayed (_rejection)
        again: Diagnostic | bool | None = None  # None: not tried yet; False: not a bare rejection
        for number, raw in each_line(chunk.items):
            if isinstance(raw, Line):
                line_found = judge(raw)
            elif len(raw) < 64 and is_blank(raw):
                blank = judge.blank(number, raw)
                if blank is not None:
                    runs.add_same(number, blank)
                continue
            elif raw == previous and isinstance(again, Diagnostic):
                summary.lines += 1
                summary.invalid += 1
                runs.add_same(number, again)
                continue
            elif raw == previous and again is None:
                before = _counts(summary)
                line_found = judge(parse_line(number, raw, max_depth), raw)
                again = _rejection(before, summary, line_found)
            else:
                previous, again = raw, None
                line_found = judge(parse_line(number, raw, max_depth), raw)
            if line_found:
                runs.add(line_found)
        return ChunkResult(chunk.file_index, chunk.last, runs.close(), columns.columns(), summary,
                           lengths.counts, ordered, deferred, chunk.lines)


def _counts(summary: FileSummary) -> tuple:
    """Every field of a summary, its lists copied (the judge appends to them)."""
    return tuple(tuple(v) if isinstance(v := getattr(summary, name), list) else v for name in FileSummary.__slots__)


def _rejection(before: tuple, summary: FileSummary, found: list[Diagnostic]) -> Diagnostic | bool:
    """A line the same as the one before it made one error finding and changed no figure but the
    counts of lines and of lines with errors (`{}`, a line of broken JSON): each further copy of it
    is judged the same, so a flood of them costs a comparison a line. The finding, with line 0;
    False for any other line, which is judged again each time."""
    if len(found) != 1 or found[0].severity != ERROR:
        return False
    changed = {name: (a, b) for name, a, b in zip(FileSummary.__slots__, before, _counts(summary), strict=True) if a != b}
    if changed.keys() != {"lines", "invalid"} or any(b != a + 1 for a, b in changed.values()):
        return False
    d = found[0]
    return d.at(0)


_PROCESS_WORKER: Worker | None = None


def _init_process(settings: Settings, counts: bool) -> None:
    global _PROCESS_WORKER
    _die_with_parent()
    _PROCESS_WORKER = Worker(settings, counts)


def _die_with_parent() -> None:
    """Linux: this process gets SIGTERM when the main process dies, however it dies (SIGKILL
    included), so no worker outlives a run."""
    import signal
    import sys

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the main process's to handle
    signal.signal(signal.SIGTERM, signal.SIG_DFL)  # not the main process's handler: a worker just ends
    if sys.platform.startswith("linux"):
        with contextlib.suppress(Exception):
            import ctypes

            libc = ctypes.CDLL(None, use_errno=True)
            libc.prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            if os.getppid() == 1:  # the parent died before prctl took effect
                os._exit(1)


def _run_in_process(chunk: Chunk) -> ChunkResult:
    assert _PROCESS_WORKER is not None
    return _PROCESS_WORKER.run(chunk)


def chunks(paths: Iterable[str], settings: Settings, io_errors: list[str],
           progress: Progress | None = None) -> Iterator[Chunk]:
    labels = dict(settings.labels)
    for file_index, path in enumerate(paths):
        shown = labels.get(path) or display_name(path)
        starts = array("q")  # a JSON array's elements' first lines, as the reader finds them
        try:
            items = read_runs(path, settings.limits.max_line_bytes, READ_BLOCK, starts)
            if settings.rows_per_file is not None:
                items = first_rows(items, settings.rows_per_file)
            yield from file_chunks(file_index, shown, items, settings, progress=progress, starts=starts)
        except InputError as exc:
            io_errors.append(str(exc))


def file_chunks(file_index: int, shown: str, items_in: Iterable[tuple[int, bytes | Line | LineBlock]], settings: Settings,
                chosen: tuple[str, str] | None = None, last: bool = True,
                progress: Progress | None = None, starts: array | None = None) -> Iterator[Chunk]:
    """The chunks of a file's lines (all of them, or a byte range's: then `chosen` is the
    file's format and `last` says whether the range ends the file). `starts`: a JSON array's
    elements' first lines, filled as its items are read; each chunk carries its items'."""
    items: list[tuple[int, bytes | Line | LineBlock]] = []
    size = done = lines = 0
    for number, item in items_in:
        rest: bytes | Line | LineBlock | None = item
        while rest is not None:  # a block of more lines than a chunk has room for is split
            piece, rest = rest, None
            if isinstance(piece, LineBlock) and lines + piece.n_lines > CHUNK_MAX_LINES:
                piece, rest = piece.split(CHUNK_MAX_LINES - lines)
            items.append((number, piece))
            if isinstance(piece, LineBlock):
                size += len(piece.data) + 1
                lines += piece.n_lines
                number += piece.n_lines
            else:
                size += len(piece) + 1 if isinstance(piece, bytes) else piece.nbytes + 1
                lines += 1
            if len(items) >= CHUNK_LINES or size >= CHUNK_BYTES or lines >= CHUNK_MAX_LINES:
                chosen = chosen or _choose_format(items, settings, shown)
                yield Chunk(file_index, shown, items, *chosen, lines=_starts_of(items, starts))
                done += size
                if progress:
                    progress(shown, done)
                items, size, lines = [], 0, 0
    yield Chunk(file_index, shown, items, *(chosen or _choose_format(items, settings, shown)), last=last,
                lines=_starts_of(items, starts))


def _starts_of(items: list[tuple[int, bytes | Line | LineBlock]], starts: array | None) -> array | None:
    """The first lines of a chunk's items (a JSON array's elements, one number each), or None (lines are lines)."""
    if not starts or not items:
        return None
    first = items[0][0] - 1
    return starts[first: first + len(items)]


def _choose_format(items: list[tuple[int, bytes | Line | LineBlock]], settings: Settings, name: str) -> tuple[str, str]:
    """The file's format: as given, or detected from its first readable records (and its `name`, among formats of their shape)."""
    if settings.format_name != "auto":
        from ..mapping import given_format

        return settings.format_name, given_format(settings.mapping)
    from ..formats.shape import DETECT_RECORDS, detect

    records = []
    for number, item in each_line(items):
        if isinstance(item, bytes):
            value = parse_line(number, item, settings.limits.max_depth).value
            if value is not None:
                records.append(value)
                if len(records) >= DETECT_RECORDS:
                    break
    found = detect(records, settings.trainer, settings.trainer_formats, name)
    return found.name, found.reason


def cores() -> int:
    with contextlib.suppress(AttributeError, OSError):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def default_jobs(paths: Iterable[str]) -> int:
    """All cores, unless the input is small enough that one process is faster."""
    total = 0
    for path in paths:
        if path == "-":
            return cores()
        with contextlib.suppress(OSError):
            total += os.stat(path).st_size
    return cores() if total >= POOL_MIN_BYTES else 1


def analyse(paths: Iterable[str], settings: Settings, emit: Emit, jobs: int | None = None,
            progress: Progress | None = None) -> Analysis:
    """Check every line of every path. Findings reach `emit` in file and line order whatever
    `jobs` is. A path that cannot be opened at all is noted in `io_errors` and the run goes on
    with the next one. `jobs` is capped at the cores; None: default_jobs."""
    paths = list(paths)
    result = Analysis()
    jobs = min(jobs if jobs is not None else default_jobs(paths), cores())
    stream = chunks(paths, settings, result.io_errors, progress)
    ahead: list[Chunk] = []
    early = jobs > 1 and reads_tables(paths)
    pool = _pool(jobs, settings) if early else None  # forked before polars reads a table: the workers never copy its heap
    if jobs > 1 and not early:  # a pool only for an input of more than one chunk, and no more workers than chunks
        for chunk in stream:
            ahead.append(chunk)
            if len(ahead) >= jobs:
                break
        jobs = min(jobs, len(ahead))
    queued = _chain(ahead, stream)
    if jobs <= 1:
        return drive(map(Worker(settings).run, queued), settings, emit, result)
    counts = settings.uses_bound and settings.mapping is None and needs_exact(
        [(c.format, each_line(c.items)) for c in ahead], settings.encoding, lambda fmt: settings.limit_for(fmt)[0],
        settings.limits.max_depth)
    pool = pool or _pool(jobs, settings, [c.format for c in ahead], counts)
    try:
        drive(_bounded_map(pool, queued, jobs * INFLIGHT_PER_WORKER), settings, emit, result)
    except BaseException:
        _stop(pool)
        raise
    pool.shutdown(wait=True)
    return result


def _pool(jobs: int, settings: Settings, formats: Iterable[str] = (), counts: bool = False) -> Any:
    """The worker processes; with `counts` (check's first chunks need exact counts: bounds.needs_exact)
    they count near-limit records themselves, the tokenizer loaded here once before they fork."""
    import concurrent.futures
    import gc
    import multiprocessing

    context = multiprocessing.get_context("fork" if "fork" in multiprocessing.get_all_start_methods() else "spawn")
    fork = context.get_start_method() == "fork"
    if fork:
        _warm(formats)
    counts = counts and fork
    if not settings.uses_bound or counts:  # loaded once here, its pages shared by the workers (measured: 202 against 278 MiB);
        load(settings.encoding, settings.limits.max_file_bytes)  # else check's exact counts are the main process's (Recounter)
    gc.freeze()  # what exists now is never traversed by a worker's collector: fewer shared pages copied
    return concurrent.futures.ProcessPoolExecutor(jobs, mp_context=context, initializer=_init_process, initargs=(settings, counts))


def _warm(formats: Iterable[str]) -> None:
    """What every worker would otherwise import and build for its first chunk, done once here before
    the pool forks (the workers share its pages): the rule modules, the literal scanner's automaton,
    jsonschema-rs and the formats' compiled schemas, ctypes (_die_with_parent). The main process
    needs the rules anyway (file-level findings). Measured: a worker's start-up and first one-line
    chunk 0.063 -> 0.022 CPU s (43 modules it imported, none now), the main process 0.04 s more once."""
    import ctypes  # noqa: F401

    from .. import models, names  # noqa: F401  (each judge asks for the named model)
    from ..formats import shape  # noqa: F401
    from ..literals import present
    from ..rules import registry
    from ..schemas import fast_validator

    registry()
    present(b"")  # builds the automaton of every literal the rules declared
    for name in set(formats):
        fast_validator(get_format(name).schema)


def reads_tables(paths: list[str]) -> bool:
    """Whether a path is read through polars (Parquet, Arrow, a folder; not a JSON array)."""
    from ..read.tables import kind_of

    for path in paths:
        if path == "-":
            continue
        if os.path.isdir(path):
            return True
        if not os.path.isfile(path):  # a FIFO or a device: peeking would take bytes the reading then misses
            continue
        with contextlib.suppress(OSError), open(path, "rb") as f:
            if kind_of(path, f.read(8)) not in (None, "json-array"):
                return True
    return False


def _chain(first: list[Chunk], rest: Iterator[Chunk]) -> Iterator[Chunk]:
    yield from first
    first.clear()
    yield from rest


def _stop(pool: Any) -> None:
    """Interrupted (a signal, a closed output): the workers go at once, nothing waits on them."""
    for process in list(getattr(pool, "_processes", {}).values()):
        with contextlib.suppress(Exception):
            process.terminate()
    with contextlib.suppress(Exception):
        pool.shutdown(wait=False, cancel_futures=True)


def _bounded_map(pool: Any, stream: Iterator[Chunk], window: int) -> Iterator[ChunkResult]:
    """Results in submission order, with at most `window` chunks in flight (flat memory)."""
    pending: deque = deque()
    for chunk in stream:
        with interrupt.deferred():  # a submit may fork a worker: no signal lands in the fork's handlers
            pending.append(pool.submit(_run_in_process, chunk))
        if len(pending) >= window:
            yield pending.popleft().result()
    while pending:
        yield pending.popleft().result()


def drive(results: Iterable[ChunkResult], settings: Settings, emit: Emit, result: Analysis | None = None) -> Analysis:
    """The one end of every way of running the judge (one process, the pool, check_records, both
    Ray paths): chunk results, in file and line order, merged into `result` (a new Analysis if
    none), their findings to `emit` as they come. So no way of running can differ in what it
    reports."""
    result = result if result is not None else Analysis()
    merger = Merger(result, settings, emit)
    for part in results:
        interrupt.check()  # a Ctrl-C that Python swallowed still stops the run
        merger.add(part)
    merger.close()
    return result


def analyse_lines(name: str, lines: Iterable[tuple[int, bytes]], settings: Settings, emit: Emit) -> Analysis:
    """Numbered lines already in memory (the Python API's records), judged in this process as the
    lines of a file called `name`."""
    return drive(map(Worker(settings).run, file_chunks(0, name, lines, settings)), settings, emit)

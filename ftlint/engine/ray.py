"""The Ray engine: the same judging, spread over a Ray cluster (`pip install 'ftlint[ray]'`).

A file is cut into byte ranges at line starts (RANGE_BYTES each; a compressed file, a Parquet or
Arrow file, a folder: one range), and two rounds of Ray work run over the ranges:
  1. a task per range counts its lines (and detects each file's format from its start, as one
     process does), so that every range knows the number of its first line;
  2. a pool of judge actors (one Worker each: the tokenizer is loaded once per actor) judges the
     ranges, the chunk results a local run makes, taken back in range order.
The driver then merges the results in file and range order with the merger the local engine
uses (engine/merge.py: Merger), so the findings are the same, in the same order, and the
figures are the same, as `ftlint check PATHS` on one machine. Only the results travel back:
findings, per-file sums, the token-length distribution and the fingerprint rows.

The cluster: RAY_ADDRESS (or `address`) names an existing one; otherwise a local one is
started for the run. Each Ray worker must be able to import ftlint and read the paths (a shared
file system, or the same machine).

What a run leaves behind: nothing. Its tasks and actors are owned by the driver (no detached
actor, and no Ray Data, whose executor leaves detached actors in a cluster: ray/data/_internal/
stats.py `get_or_create_stats_actor`), so Ray ends them when the driver ends, even when it is
killed; the actors are killed as the run ends. A local cluster's processes end with the driver
(Ray's kernel fate-sharing: ray/_private/utils.py `set_kill_on_parent_death_linux`); the CLI
shuts it down when interrupted, so that its node agents end at once too (killed with the driver,
they wait up to 60 s to report it: ray/_private/process_watcher.py `report_raylet_error_logs`).
ray.init's signal handling is undone once it has started (`_signals_kept`).
"""

from __future__ import annotations

import contextlib
import itertools
import os
import sys
from array import array
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from .. import interrupt
from ..read import READ_BLOCK, InputError, display_name, line_start, read_runs, read_window, splittable, window_lines
from .judge import Settings
from .pipeline import ChunkResult, Emit, Progress, Worker, drive, file_chunks
from .result import Analysis

RANGE_BYTES = 16 * 1024 * 1024  # a task: big enough that Ray's per-task cost (a few ms) vanishes


class RayUnavailable(Exception):
    """Ray is not installed (the `ray` extra), or the cluster cannot be reached."""


@dataclass(frozen=True, slots=True)
class Piece:
    file_index: int
    path: str
    shown: str
    start: int  # byte offsets of line starts; start -1: the whole file, read as one stream
    end: int
    last: bool  # the file's last piece


def pieces(paths: Iterable[str], settings: Settings, range_bytes: int = RANGE_BYTES) -> list[Piece]:
    """Each path's byte ranges, cut at line starts."""
    labels = dict(settings.labels)
    out = []
    for file_index, path in enumerate(paths):
        shown = labels.get(path) or display_name(path)
        if not splittable(path):
            out.append(Piece(file_index, path, shown, -1, -1, True))
            continue
        size = os.path.getsize(path)
        cuts = [0]
        with open(path, "rb") as f:
            for offset in range(range_bytes, size, range_bytes):
                cut = line_start(f, offset)
                if cuts[-1] < cut < size:
                    cuts.append(cut)
        cuts.append(size)
        for k, (start, end) in enumerate(itertools.pairwise(cuts)):
            out.append(Piece(file_index, path, shown, start, end, k == len(cuts) - 2))
    return out


def count_lines(piece: Piece, settings: Settings) -> tuple[int, tuple[str, str] | None]:
    """Lines of a range, and (its file's first range) the file's format as one process detects it."""
    if piece.start < 0:
        return 0, None
    chosen = None
    if piece.start == 0:
        items = read_runs(piece.path, settings.limits.max_line_bytes, READ_BLOCK)
        first = next(file_chunks(piece.file_index, piece.shown, items, settings))
        items.close()  # type: ignore[attr-defined]  # a generator: its file closes now
        chosen = (first.format, first.format_reason)
    with open(piece.path, "rb") as f:
        return window_lines(f, piece.start, piece.end), chosen


def judge_piece(worker: Worker, piece: Piece, first_line: int, chosen: tuple[str, str] | None) -> tuple[list[ChunkResult], str]:
    """The chunk results of one range (and the error that stopped its reading, if one did)."""
    settings = worker.settings
    limit = settings.limits.max_line_bytes
    starts = array("q") if piece.start < 0 else None  # a JSON array (read whole): its elements' first lines
    if piece.start < 0:
        items: Iterator[Any] = read_runs(piece.path, limit, READ_BLOCK, starts)
    else:
        items = read_window(piece.path, piece.start, piece.end, first_line, limit, READ_BLOCK)
    results: list[ChunkResult] = []
    try:
        for chunk in file_chunks(piece.file_index, piece.shown, items, settings, chosen, piece.last, starts=starts):
            results.append(worker.run(chunk))
    except InputError as exc:
        return results, str(exc)
    return results, ""


def _ray() -> Any:
    try:
        import ray
    except ImportError:
        raise RayUnavailable("--engine ray needs Ray: pip install 'ftlint[ray]'") from None
    return ray


def connect(address: str | None = None, num_cpus: int | None = None) -> Any:
    """Ray, connected: to `address` or RAY_ADDRESS if set, else to a local cluster started now."""
    import logging

    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # its C++ notes on stderr (actor restarts) are not findings
    ray = _ray()
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        try:
            with _quiet_stderr(), _signals_kept():  # Ray's start-up notes (its C++ log level, its session folder)
                ray.init(address=address, num_cpus=None if address else num_cpus, include_dashboard=False,
                         log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
        except Exception as exc:  # a cluster that is not there: one line
            raise RayUnavailable(f"Ray: cannot start or reach the cluster{f' at {address}' if address else ''}: "
                                 f"{str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}") from None
    logging.getLogger("ray").setLevel(logging.ERROR)  # a report's own output stays clean: Ray's notes are not findings
    return ray


def stop() -> None:
    """Disconnect from Ray, ending the local cluster this process started: for a driver that exits
    at once when interrupted (the CLI), without Ray's own shutdown at exit."""
    if "ray" in sys.modules:  # never imported: nothing to stop
        ray = _ray()
        if ray.is_initialized():
            ray.shutdown()


def data_context(ray: Any) -> None:
    """Ray Data, for a Dataset given to analyse_dataset: no progress bars, no notes."""
    import logging

    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    import ray.data

    logging.getLogger("ray.data").setLevel(logging.ERROR)
    context = ray.data.DataContext.get_current()
    context.enable_progress_bars = False
    context.print_on_execution_start = False


@contextlib.contextmanager
def _signals_kept() -> Iterator[None]:
    """The caller's SIGINT and SIGTERM handlers (the CLI's: ftlint/interrupt.py; a program's own),
    and its faulthandler state, as they were before ray.init, which replaces them: a Python
    SIGTERM handler that exits 15 (ray/_private/worker.py `init`: sigterm_handler), the core
    worker's C++ failure-signal handler that prints a stack dump first, and faulthandler
    (worker.py `connect`). A SIGTERM that Ray's handler took while the cluster started is given
    to the caller's, once it is back."""
    import faulthandler
    import signal
    import threading

    if threading.current_thread() is not threading.main_thread():  # only the main thread has Python handlers
        yield
        return
    saved = {number: signal.getsignal(number) for number in (signal.SIGINT, signal.SIGTERM)}
    faults = faulthandler.is_enabled()

    def restore() -> None:  # signal.signal puts Python's C handler back in place of the core worker's too
        for number, handler in saved.items():
            if handler is not None:  # None: a handler not set from Python, which cannot be put back
                signal.signal(number, handler)
        if not faults:
            faulthandler.disable()

    try:
        yield
    except SystemExit as exc:
        if exc.code != signal.SIGTERM:
            raise
        restore()
        os.kill(os.getpid(), signal.SIGTERM)  # the caller's handler takes it now (the CLI's raises Terminated)
        raise RayUnavailable("Ray: terminated while the cluster started") from None
    finally:
        restore()


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for the block (Ray's C++ core writes there directly)."""
    sys.stderr.flush()
    saved = os.dup(2)
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        os.dup2(null, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)
        os.close(null)


class _Judge:
    """A Ray actor: the Worker (rules, tokenizer, template) is built once, and judges range after range."""

    def __init__(self, settings: Settings) -> None:
        self.worker = Worker(settings)

    def judge(self, piece: Piece, first_line: int, chosen: tuple[str, str] | None) -> tuple[list[ChunkResult], str]:
        return judge_piece(self.worker, piece, first_line, chosen)


def analyse(paths: Iterable[str], settings: Settings, emit: Emit, jobs: int | None = None,
            progress: Progress | None = None, *, range_bytes: int = RANGE_BYTES, address: str | None = None) -> Analysis:
    """engine.analyse on Ray: the same Analysis, the same findings to `emit` in the same order.
    `jobs`: the judge actors (None: one per CPU of the cluster)."""
    paths = list(paths)
    if "-" in paths:
        raise RayUnavailable("--engine ray reads files, not standard input")
    ray = connect(address)
    plan = pieces(paths, settings, range_bytes)
    result = Analysis()
    if not plan:
        return result
    with interrupt.deferred():
        shared = ray.put(settings)
        count = ray.remote(num_cpus=1)(count_lines)
        refs = [count.remote(piece, shared) for piece in plan]
    first_lines, formats = [], []
    number, chosen_of = 1, {}
    for piece, (lines, found) in zip(plan, _in_order(ray, refs), strict=True):
        if piece.start <= 0:
            number = 1
        if found is not None:
            chosen_of[piece.file_index] = found
        first_lines.append(number)
        formats.append(chosen_of.get(piece.file_index) if piece.start >= 0 else None)
        number += lines
    with interrupt.deferred():
        judge_class = ray.remote(num_cpus=1)(_Judge)
        judges = [judge_class.remote(shared) for _ in range(min(jobs or _cpus(ray), len(plan)))]
    try:
        drive(_parts(plan, _judged(judges, zip(plan, first_lines, formats, strict=True)), result, progress), settings, emit, result)
    finally:
        with interrupt.deferred():
            for judge in judges:  # ended now, not when the driver ends or the handles are collected
                ray.kill(judge)
    return result


# How long the driver waits on Ray at a time. A signal is held while Ray's code runs and taken
# between waits (interrupt.deferred): raised inside Ray's Cython, the handler's exception becomes
# a SystemError (ray/_raylet.pyx CoreWorker.get_objects), and the run would end as an internal error.
WAIT_S = 0.25


def _in_order(ray: Any, refs: list[Any]) -> Iterator[Any]:
    """The values of some tasks, in order."""
    for ref in refs:
        while True:
            with interrupt.deferred():
                done, _ = ray.wait([ref], timeout=WAIT_S)
                value = ray.get(done[0]) if done else None
            if done:
                break
        yield value


def _judged(judges: list[Any], work: Iterable[tuple[Piece, int, tuple[str, str] | None]]) -> Iterator[tuple[list[ChunkResult], str]]:
    """Each range judged by the next free judge actor (Ray's ActorPool), the results in range order."""
    from ray.util import ActorPool

    pool = ActorPool(judges)
    with interrupt.deferred():
        for args in work:
            pool.submit(lambda judge, a: judge.judge.remote(*a), args)
    while pool.has_next():
        with interrupt.deferred():
            try:
                value = pool.get_next(timeout=WAIT_S)
            except TimeoutError:
                continue
        yield value


def _parts(plan: list[Piece], judged: Iterator[tuple[list[ChunkResult], str]], result: Analysis,
           progress: Progress | None) -> Iterator[ChunkResult]:
    """The ranges' chunk results in file and range order; a range whose reading failed ends its
    file there, as in one process (no file-level findings), and its error is the run's."""
    failed: set[int] = set()
    for piece, (parts, error) in zip(plan, judged, strict=True):
        if piece.file_index in failed:
            continue
        yield from parts
        if error:
            failed.add(piece.file_index)
            result.io_errors.append(error)
        if progress and piece.end > 0:
            progress(piece.shown, piece.end)


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))

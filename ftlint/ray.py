"""ftlint on Ray Data: the same judging, spread over a Ray cluster (`pip install 'ftlint[ray]'`).

A file is cut into byte ranges at line starts (RANGE_BYTES each; a compressed file, a Parquet or
Arrow file, a folder: one range), and two Ray Data passes run over the ranges:
  1. count the lines of each range (and detect each file's format from its start, as one
     process does), so that every range knows the number of its first line;
  2. judge each range (map_batches over blocks, one Worker per Ray worker: the tokenizer is
     loaded once per worker): the chunk results a local run makes.
The driver then merges the results in file and range order with the merger the local engine
uses (engine/pipeline.py: Merger), so the findings are the same, in the same order, and the
figures are the same, as `ftlint check PATHS` on one machine. Only the results travel back:
findings, per-file sums, the token-length distribution and the fingerprint rows.

The cluster: RAY_ADDRESS (or `address`) names an existing one; otherwise a local one is
started for the run. Each Ray worker must be able to import ftlint and read the paths (a shared
file system, or the same machine).
"""

from __future__ import annotations

import contextlib
import dataclasses
import itertools
import os
import pickle
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from .engine.judge import Settings

if TYPE_CHECKING:
    from .api import CheckResult, Estimate, Summary
from .engine.pipeline import ChunkResult, Emit, Merger, Progress, Worker, file_chunks
from .engine.result import Analysis
from .read import READ_BLOCK, InputError, display_name, line_start, read_runs, read_window, splittable, window_lines

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


def _count(piece: Piece, settings: Settings) -> tuple[int, tuple[str, str] | None]:
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


def _judge(worker: Worker, piece: Piece, first_line: int, chosen: tuple[str, str] | None) -> tuple[list[ChunkResult], str]:
    """The chunk results of one range (and the error that stopped its reading, if one did)."""
    settings = worker.settings
    limit = settings.limits.max_line_bytes
    if piece.start < 0:
        items: Iterator[Any] = read_runs(piece.path, limit, READ_BLOCK)
    else:
        items = read_window(piece.path, piece.start, piece.end, first_line, limit, READ_BLOCK)
    results: list[ChunkResult] = []
    try:
        for chunk in file_chunks(piece.file_index, piece.shown, items, settings, chosen, piece.last):
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

    os.environ.setdefault("RAY_DATA_DISABLE_PROGRESS_BARS", "1")
    os.environ.setdefault("RAY_BACKEND_LOG_LEVEL", "fatal")  # its C++ notes on stderr (actor restarts) are not findings
    ray = _ray()
    if not ray.is_initialized():
        address = address or os.environ.get("RAY_ADDRESS") or None
        try:
            with _quiet_stderr():  # Ray's start-up notes (its C++ log level, its session folder)
                ray.init(address=address, num_cpus=None if address else num_cpus, include_dashboard=False,
                         log_to_driver=False, logging_level=logging.ERROR, configure_logging=True)
        except Exception as exc:  # a cluster that is not there: one line
            raise RayUnavailable(f"Ray: cannot start or reach the cluster{f' at {address}' if address else ''}: "
                                 f"{str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__}") from None
    import ray.data

    for name in ("ray", "ray.data"):  # a report's own output stays clean: Ray's progress notes are not findings
        logging.getLogger(name).setLevel(logging.ERROR)
    context = ray.data.DataContext.get_current()
    context.execution_options.preserve_order = True  # results come back in range order
    context.enable_progress_bars = False
    context.print_on_execution_start = False
    return ray


def _counter(settings: Settings) -> Any:
    def count(batch: dict[str, Any]) -> dict[str, Any]:
        counts, formats = [], []
        for blob in batch["piece"]:
            lines, chosen = _count(pickle.loads(blob), settings)
            counts.append(lines)
            formats.append(pickle.dumps(chosen))
        return {"lines": counts, "format": formats}

    return count


@contextlib.contextmanager
def _quiet_stderr() -> Iterator[None]:
    """File descriptor 2 to /dev/null for the block (Ray's C++ core writes there directly)."""
    import sys

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
    """One per Ray worker: the Worker (rules, tokenizer, template) is built once. The settings
    travel as a class attribute of a subclass made per run (constructor arguments would sit in
    Ray's object store, and Ray warns about restarting such actors)."""

    settings: Settings

    def __init__(self) -> None:
        self.worker = Worker(self.settings)

    def __call__(self, batch: dict[str, Any]) -> dict[str, Any]:
        out = []
        for blob, first_line, chosen in zip(batch["piece"], batch["first_line"], batch["format"], strict=True):
            out.append(pickle.dumps(_judge(self.worker, pickle.loads(blob), int(first_line), pickle.loads(chosen)),
                                    protocol=pickle.HIGHEST_PROTOCOL))
        return {"result": out}


def analyse(paths: Iterable[str], settings: Settings, emit: Emit, jobs: int | None = None,
            progress: Progress | None = None, *, range_bytes: int = RANGE_BYTES, address: str | None = None) -> Analysis:
    """engine.analyse on Ray: the same Analysis, the same findings to `emit` in the same order.
    `jobs`: the Ray workers judging at once (None: the cluster's CPUs)."""
    paths = list(paths)
    if "-" in paths:
        raise RayUnavailable("--engine ray reads files, not standard input")
    ray = connect(address)
    plan = pieces(paths, settings, range_bytes)
    result = Analysis()
    if not plan:
        return result
    blobs = [pickle.dumps(p) for p in plan]
    counted = (ray.data.from_items([{"piece": b} for b in blobs], override_num_blocks=len(blobs))
               .map_batches(_counter(settings), batch_size=1)
               .take_all())
    first_lines, formats = [], []
    number, chosen_of = 1, {}
    for piece, row in zip(plan, counted, strict=True):
        if piece.start <= 0:
            number = 1
        found = pickle.loads(row["format"])
        if found is not None:
            chosen_of[piece.file_index] = found
        first_lines.append(number)
        formats.append(pickle.dumps(chosen_of.get(piece.file_index) if piece.start >= 0 else None))
        number += int(row["lines"])
    judged = (ray.data.from_items([{"piece": b, "first_line": n, "format": f} for b, n, f in zip(blobs, first_lines, formats, strict=True)],
                                  override_num_blocks=len(blobs))
              .map_batches(type("Judge", (_Judge,), {"settings": settings}), batch_size=1,
                           compute=ray.data.ActorPoolStrategy(size=min(jobs or _cpus(ray), len(blobs)))))
    merger = Merger(result, settings, emit)
    failed: set[int] = set()
    for piece, row in zip(plan, judged.iter_rows(), strict=True):
        parts, error = pickle.loads(row["result"])
        if piece.file_index in failed:
            continue
        for part in parts:
            merger.add(part)
        if error:  # as one process: the file's reading stops here, no file-level findings
            failed.add(piece.file_index)
            result.io_errors.append(error)
        if progress and piece.end > 0:
            progress(piece.shown, piece.end)
    merger.close()
    return result


def _cpus(ray: Any) -> int:
    return max(1, int(ray.cluster_resources().get("CPU", 1)))


# ---- a ray.data.Dataset of records -------------------------------------------------------------

PATH_COLUMN = "path"  # what ray.data.read_json / read_parquet(include_paths=True) call the source file


def _row_lines(batch: Any, path_column: str) -> list[tuple[str, list[bytes]]]:
    """A block's rows as JSON lines, in runs of rows of the same source file."""
    import orjson

    from .containers import _default, _plain

    rows = batch.to_pylist() if hasattr(batch, "to_pylist") else batch
    runs: list[tuple[str, list[bytes]]] = []
    for row in rows:
        source = str(row.pop(path_column, "") or "<dataset>")
        line = orjson.dumps(_plain(row), default=_default)
        if runs and runs[-1][0] == source:
            runs[-1][1].append(line)
        else:
            runs.append((source, [line]))
    return runs


_WORKERS: dict[bytes, Worker] = {}  # per Ray worker process: Ray reuses a process for many tasks


def _judge_rows(settings: Settings, chosen: tuple[str, str], path_column: str) -> Any:
    """map_batches over a Dataset's blocks, as tasks (an actor pool would hold every CPU and
    starve the Dataset's own read tasks on a small cluster): each run of rows of one source
    file judged as lines numbered from 1 (the driver shifts them to the rows' place in their
    file). The Worker (rules, tokenizer) is built once per Ray worker process."""
    key = pickle.dumps(settings)

    def judge(batch: Any) -> dict[str, Any]:
        worker = _WORKERS.get(key)
        if worker is None:
            worker = _WORKERS[key] = Worker(settings)
        out = []
        for source, lines in _row_lines(batch, path_column):
            items = list(enumerate(lines, 1))
            results = [worker.run(chunk) for chunk in file_chunks(0, source, items, settings, chosen, False)]
            out.append(pickle.dumps((source, len(lines), results), protocol=pickle.HIGHEST_PROTOCOL))
        return {"result": out}

    return judge


def _shifted(part: ChunkResult, file_index: int, rows_before: int) -> ChunkResult:
    """A chunk result of rows numbered from 1, as the rows after `rows_before` of file `file_index`."""
    from array import array

    diagnostics = [(d[0], d[1] + rows_before if d[1] else d[1], *d[2:]) for d in part.diagnostics]
    columns = dict(part.columns)
    if columns["line"]:
        columns["file"] = array("q", [file_index]) * len(columns["line"])
        columns["line"] = array("q", (n + rows_before for n in columns["line"]))
    deferred = [(number + rows_before, record, fp) for number, record, fp in part.deferred]
    return dataclasses.replace(part, file_index=file_index, diagnostics=diagnostics, columns=columns, deferred=deferred)


def analyse_dataset(ds: Any, settings: Settings, emit: Emit, *, path_column: str = PATH_COLUMN,
                    jobs: int | None = None) -> Analysis:
    """engine.analyse for a ray.data.Dataset whose rows are records: read by Ray from JSONL or
    Parquet shards, local or in object storage (`include_paths=True` names each row's file;
    without it every row is of one file, "<dataset>"). A finding's line is its row's 1-based
    place in its file. The format is --format, or detected from the Dataset's first rows, for
    all its files. Ray has parsed the rows: what only the raw lines show (broken JSON, a blank
    line, a byte-order mark, duplicate keys) is not seen here: check the files themselves
    (`analyse(paths)`, `--engine ray PATHS`) for that."""
    connect()
    from .formats.shape import DETECT_RECORDS, detect

    chosen: tuple[str, str] = (settings.format_name, "--format")
    if settings.format_name == "auto":
        sample = [row for run in _row_lines(ds.take(DETECT_RECORDS), path_column) for row in run[1]]
        import orjson

        found = detect([orjson.loads(line) for line in sample])
        chosen = (found.name, found.reason)
    judged = ds.map_batches(_judge_rows(settings, chosen, path_column), batch_format="pyarrow",
                            **({"concurrency": jobs} if jobs else {}))
    result = Analysis()
    merger = Merger(result, settings, emit)
    index: dict[str, int] = {}
    rows: dict[str, int] = {}
    held: ChunkResult | None = None  # a file's latest chunk: the last one, once another file starts or the data ends
    for row in judged.iter_rows():
        source, n, parts = pickle.loads(row["result"])
        if source not in index:
            index[source] = len(index)
            rows[source] = 0
        for part in parts:
            shifted = _shifted(part, index[source], rows[source])
            if held is not None:
                if held.file_index != shifted.file_index:
                    held.last = True
                merger.add(held)
            held = shifted
        rows[source] += n
    if held is not None:
        held.last = True
        merger.add(held)
    merger.close()
    return result


def summarise(ds: Any, *, path_column: str = PATH_COLUMN, keep_order: bool = False, **options: Any) -> Summary:
    """A mergeable Summary (ftlint.api) of a Dataset of records: the API's options by name."""
    from .api import Summary, _model, options_of
    from .app import settings_for

    run = dataclasses.replace(options_of(("<dataset>",), options, ("path_column", "keep_order")), keep_order=keep_order)
    settings = settings_for(run, _model(run))
    found: list = []
    analysis = analyse_dataset(ds, settings, found.append, path_column=path_column, jobs=run.jobs)
    return Summary(dataclasses.replace(run, paths=tuple(analysis.paths)), analysis, found)


def check(ds: Any, *, path_column: str = PATH_COLUMN, **options: Any) -> CheckResult:
    """ftlint.check for a Dataset of records (findings at each row's file and row)."""
    from . import api

    return api.check(summarise(ds, path_column=path_column, **options))


def estimate(ds: Any, *, path_column: str = PATH_COLUMN, **options: Any) -> Estimate:
    """ftlint.estimate for a Dataset of records (plan keywords as ftlint.estimate's)."""
    from . import api

    plan = {k: options.pop(k) for k in list(options) if k in api.PLAN_KEYS or k in ("thresholds", "gates")}
    if plan.get("max_seq_len") is not None:
        options["max_seq_len"] = plan["max_seq_len"]  # the loss mask's cut too, as the CLI's --max-seq-len
    summary = summarise(ds, path_column=path_column, keep_order=bool(plan.get("packing")), dataset_rules=False, **options)
    return api.estimate(summary, **plan)

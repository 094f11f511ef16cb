"""The Ray engine for a ray.data.Dataset of records (rows Ray has read from JSONL or Parquet
shards): map_batches over its blocks, each run of rows of one source file judged as numbered
lines, the results shifted to the rows' places in their files and merged by the one driver."""

from __future__ import annotations

import contextlib
import dataclasses
import pickle
from collections.abc import Iterator
from typing import Any

from .judge import Settings
from .pipeline import ChunkResult, Emit, Worker, drive, file_chunks
from .ray import connect, data_context
from .result import Analysis

PATH_COLUMN = "path"  # what ray.data.read_json / read_parquet(include_paths=True) call the source file


def _row_lines(batch: Any, path_column: str) -> list[tuple[str, list[bytes]]]:
    """A block's rows as JSON lines, in runs of rows of the same source file."""
    from ..read.tables import row_line

    rows = batch.to_pylist() if hasattr(batch, "to_pylist") else batch
    runs: list[tuple[str, list[bytes]]] = []
    for row in rows:
        source = str(row.pop(path_column, "") or "<dataset>")
        line = row_line(row)
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

    diagnostics = [(d[0], d[1] + rows_before if d[1] else d[1], *d[2:8], *(n + rows_before for n in d[8:]))  # d[8]: a run's
                   for d in part.diagnostics]  # last line
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
    data_context(connect())
    with _rows_in_order(ds):
        return _analyse_rows(ds, settings, emit, path_column, jobs)


@contextlib.contextmanager
def _rows_in_order(ds: Any) -> Iterator[None]:
    """The Dataset's rows in their files' order while ftlint reads them (a finding's line is its
    row's place), and no progress bars, whatever the context the Dataset was made with says (a
    Dataset keeps the DataContext of its making: ray/data/dataset.py `Dataset.context`); the
    caller's settings come back after."""
    context = ds.context
    kept = (context.execution_options.preserve_order, context.enable_progress_bars, context.print_on_execution_start)
    context.execution_options.preserve_order, context.enable_progress_bars, context.print_on_execution_start = True, False, False
    try:
        yield
    finally:
        context.execution_options.preserve_order, context.enable_progress_bars, context.print_on_execution_start = kept


def _analyse_rows(ds: Any, settings: Settings, emit: Emit, path_column: str, jobs: int | None) -> Analysis:
    from ..formats.shape import DETECT_RECORDS, detect
    from ..mapping import given_format

    chosen: tuple[str, str] = (settings.format_name, given_format(settings.mapping))
    if settings.format_name == "auto":
        sample = [row for run in _row_lines(ds.take(DETECT_RECORDS), path_column) for row in run[1]]
        import orjson

        found = detect([orjson.loads(line) for line in sample], settings.trainer, settings.trainer_formats)
        chosen = (found.name, found.reason)
    judged = ds.map_batches(_judge_rows(settings, chosen, path_column), batch_format="pyarrow",
                            **({"concurrency": jobs} if jobs else {}))
    return drive(_row_parts(judged.iter_rows()), settings, emit)


def _row_parts(judged: Iterator[dict[str, Any]]) -> Iterator[ChunkResult]:
    """The blocks' chunk results as the rows' files' chunks, in order: each shifted to its rows'
    place in its file, and a file's last chunk marked last once another file starts or the data ends."""
    index: dict[str, int] = {}
    rows: dict[str, int] = {}
    held: ChunkResult | None = None  # a file's latest chunk: the last one, once another file starts or the data ends
    for row in judged:
        source, n, parts = pickle.loads(row["result"])
        if source not in index:
            index[source] = len(index)
            rows[source] = 0
        for part in parts:
            shifted = _shifted(part, index[source], rows[source])
            if held is not None:
                held.last = held.file_index != shifted.file_index
                yield held
            held = shifted
        rows[source] += n
    if held is not None:
        held.last = True
        yield held

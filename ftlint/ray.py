"""ftlint on a Ray Dataset of records: `check`, `estimate` and `summarise` take a ray.data.Dataset
whose rows are records (read by Ray from JSONL or Parquet shards, local or in object storage),
with the Python API's options by name, and give what ftlint.check, ftlint.estimate and
ftlint.summarise give for files. Built on the API (ftlint/api.py) and the Ray engine
(ftlint/engine/ray.py), which `--engine ray` uses for files.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from . import api
from .api import CheckResult, Estimate, Summary
from .engine.ray_rows import PATH_COLUMN, analyse_dataset
from .resolve import resolve_run

__all__ = ["PATH_COLUMN", "check", "estimate", "summarise"]


def summarise(ds: Any, *, path_column: str = PATH_COLUMN, keep_order: bool = False, **options: Any) -> Summary:
    """A mergeable Summary (ftlint.api) of a Dataset of records: the API's options by name."""
    run = dataclasses.replace(api.options_of(("<dataset>",), options, ("path_column", "keep_order")), keep_order=keep_order)
    settings = resolve_run(run).settings
    found: list = []
    analysis = analyse_dataset(ds, settings, found.append, path_column=path_column, jobs=run.jobs)
    return Summary(dataclasses.replace(run, paths=tuple(analysis.paths)), analysis, found)


def check(ds: Any, *, path_column: str = PATH_COLUMN, **options: Any) -> CheckResult:
    """ftlint.check for a Dataset of records (findings at each row's file and row)."""
    return api.check(summarise(ds, path_column=path_column, **options))


def estimate(ds: Any, *, path_column: str = PATH_COLUMN, **options: Any) -> Estimate:
    """ftlint.estimate for a Dataset of records (plan keywords as ftlint.estimate's)."""
    plan = {k: options.pop(k) for k in list(options) if k in api.PLAN_KEYS or k in ("thresholds", "gates")}
    if plan.get("max_seq_len") is not None:
        options["max_seq_len"] = plan["max_seq_len"]  # the loss mask's cut too, as the CLI's --max-seq-len
    summary = summarise(ds, path_column=path_column, keep_order=bool(plan.get("packing")), dataset_rules=False, **options)
    return api.estimate(summary, **plan)

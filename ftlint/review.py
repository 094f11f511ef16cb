"""`ftlint review LOG`: where did the best evaluation of a finished run fall?

Reads a Hugging Face `trainer_state.json` (`log_history` entries with `step` and `eval_loss`,
and `max_steps`), or a CSV / JSONL log with a `step` column and metric columns. Pure parsing and
arithmetic; the CLI prints.

Verdicts (fraction = best step / max steps):
  too-long      best in the first tenth: max_steps is far too high; the rest over-fits
  train-longer  best in the last quarter: the metric was still improving when training stopped
  ok            in between
Checkpoints are too sparse to choose from with fewer than 5 evaluations, or a gap between two
evaluations of more than a quarter of the run.
"""

from __future__ import annotations

import csv
import json
import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass
from pathlib import Path

EARLY, LATE = 0.1, 0.75
MIN_EVALUATIONS, MAX_GAP_SHARE = 5, 0.25


class ReviewError(Exception):
    pass


@dataclass
class Review:
    log: str
    metric: str
    mode: str
    best_step: int
    best_value: float
    max_steps: int
    best_fraction: float
    verdict: str
    advice: str
    evaluations: int
    largest_gap: int
    sparse: bool

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


MAX_STATE_BYTES = 256 * 1024 * 1024  # a trainer_state.json is parsed whole: larger is not one


class Evaluations:
    """One metric's evaluations, kept small: the best value each way (with the earliest step
    that reached it), the count, and the steps as 8-byte integers for the largest gap, so a
    log of millions of rows stays a few bytes a row."""

    def __init__(self) -> None:
        self.count = 0
        self.steps = array("q")
        self.ordered = True
        self.low: tuple[float, int] | None = None  # (value, step)
        self.high: tuple[float, int] | None = None

    def add(self, step: int, value: float) -> None:
        if self.steps and step < self.steps[-1]:
            self.ordered = False
        self.steps.append(step)
        self.count += 1
        if self.low is None or value < self.low[0] or (value == self.low[0] and step < self.low[1]):
            self.low = (value, step)
        if self.high is None or value > self.high[0] or (value == self.high[0] and step < self.high[1]):
            self.high = (value, step)

    def best(self, mode: str) -> tuple[float, int]:
        best = self.low if mode == "min" else self.high
        assert best is not None
        return best

    def last_step_and_gap(self) -> tuple[int, int]:
        """The last step, and the largest gap between evaluations counting from step 0."""
        steps: Sequence[int] = self.steps
        if not self.ordered:
            import polars as pl

            steps = pl.Series("step", self.steps, dtype=pl.Int64).sort().to_list()
        gap, previous = 0, 0
        for step in steps:
            gap = max(gap, step - previous)
            previous = step
        return previous, gap


def load_points(path: str, metric: str | None) -> tuple[Evaluations, str, int | None]:
    """The metric's evaluations, the metric's name, and max_steps if the log says. CSV and
    JSONL logs are read row by row (only the evaluations are kept, at a few bytes each); a
    UTF-8 byte-order mark (an Excel export) is read past."""
    p = Path(path)
    try:
        if not p.is_file():
            raise ReviewError(f"{path}: no such file" if not p.exists() else f"{path}: not a regular file")
        with open(p, encoding="utf-8-sig", newline="") as fh:
            head = fh.read(4096)
            fh.seek(0)
            stripped = head.lstrip()
            if stripped.startswith("{") and p.suffix != ".jsonl" and not _one_object_per_line(head):
                if p.stat().st_size > MAX_STATE_BYTES:
                    raise ReviewError(f"{path}: larger than {MAX_STATE_BYTES // 2**20} MiB; not a trainer_state.json")
                return _state_points(path, fh.read(), metric)
            if p.suffix == ".jsonl" or stripped.startswith("{"):
                return _points(path, _jsonl_rows(path, fh), metric, None)
            return _csv_points(path, csv.reader(fh), metric)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ReviewError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _one_object_per_line(head: str) -> bool:
    first = head.split("\n", 1)[0].strip()
    return first.startswith("{") and first.endswith("}") and "\n" in head


def _state_points(path: str, text: str, metric: str | None) -> tuple[Evaluations, str, int | None]:
    try:
        state = json.loads(text)
    except (ValueError, RecursionError) as exc:
        raise ReviewError(f"{path}: not valid JSON: {exc}") from None
    if not isinstance(state, dict) or not isinstance(state.get("log_history"), list):
        raise ReviewError(f"{path}: no log_history: expected a Hugging Face trainer_state.json")
    max_steps = state.get("max_steps")
    logged = max_steps if isinstance(max_steps, int) and not isinstance(max_steps, bool) and max_steps > 0 else None
    return _points(path, (r for r in state["log_history"] if isinstance(r, dict)), metric, logged)


def _jsonl_rows(path: str, fh: Iterable[str]) -> Iterator[dict]:
    for n, line in enumerate(fh, 1):
        if line.strip():
            try:
                row = json.loads(line)
            except (ValueError, RecursionError) as exc:
                raise ReviewError(f"{path}:{n}: not valid JSON: {exc}") from None
            if isinstance(row, dict):
                yield row


def _points(path: str, rows: Iterable[dict], metric: str | None,
            max_steps: int | None) -> tuple[Evaluations, str, int | None]:
    points: dict[str, Evaluations] = {}  # by metric, while the metric is not chosen
    seen: set[str] = set()  # metric columns met, with or without a usable value
    wanted = metric
    for row in rows:
        seen.update(k for k in row if isinstance(k, str) and (k == wanted or (not wanted and _is_eval(k))))
        step = _step(row.get("step"))
        if step is None:
            continue
        names = [wanted] if wanted else [k for k in row if isinstance(k, str) and _is_eval(k)]
        for name in names:
            value = _number(row.get(name))
            if value is not None and math.isfinite(value):
                found = points.get(name)
                if found is None:
                    found = points[name] = Evaluations()
                found.add(step, value)
    chosen = wanted or ("eval_loss" if "eval_loss" in seen else min(points, default=None) or min(seen, default=None))
    if chosen is None:
        raise ReviewError(f"{path}: no eval_loss column; name the metric with --metric")
    if chosen not in points:
        raise ReviewError(f"{path}: no rows with both step and {chosen}")
    return points[chosen], chosen, max_steps


def _csv_points(path: str, rows: Iterator[list[str]], metric: str | None) -> tuple[Evaluations, str, int | None]:
    """A CSV log: the columns are the header's, so they are looked up once, not row by row."""
    header = next(rows, [])
    names = [metric] if metric else [k for k in header if _is_eval(k)]
    columns = [(header.index(n), Evaluations()) for n in dict.fromkeys(names) if n in header]
    if not columns:
        return _points(path, iter(()), metric, None)  # the error for a log without the metric
    if "step" not in header:
        raise ReviewError(f"{path}: no rows with both step and {metric or ('eval_loss' if 'eval_loss' in header else min(names))}")
    at = header.index("step")
    for row in rows:
        if len(row) <= at:
            continue
        step = _step(row[at])
        if step is None:
            continue
        for i, found in columns:
            value = _number(row[i]) if i < len(row) else None
            if value is not None and math.isfinite(value):
                found.add(step, value)
    by_name = {header[i]: found for i, found in columns if found.count}
    chosen = metric or ("eval_loss" if "eval_loss" in header else min(by_name, default=None) or min(names))
    if chosen not in by_name:
        raise ReviewError(f"{path}: no rows with both step and {chosen}")
    return by_name[chosen], chosen, None


def _is_eval(key: str) -> bool:
    return key.startswith("eval_") and "runtime" not in key and "per_second" not in key


def _step(value: object) -> int | None:
    """A usable step: a whole, non-negative number that fits the 8-byte store."""
    step = _number(value)
    if step is None or not math.isfinite(step) or step < 0 or step != int(step) or step >= 2**63:
        return None
    return int(step)


def _number(value: object) -> float | None:
    if isinstance(value, bool) or value is None or value == "":
        return None
    try:
        return float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return None


def review(path: str, metric: str | None = None, mode: str | None = None, max_steps: int | None = None) -> Review:
    points, metric, logged_max = load_points(path, metric)
    mode = mode or ("min" if "loss" in metric or "perplexity" in metric else "max")
    best_value, best_step = points.best(mode)  # the earliest of equal bests
    last, gap = points.last_step_and_gap()
    total = max(max_steps or logged_max or 0, last)  # a log that ran past its planned steps ran that long
    fraction = best_step / total if total else 0.0
    if fraction < EARLY:
        verdict = "too-long"
        advice = f"the best {metric} came at step {best_step:,} of {total:,}: lower max_steps to about {math.ceil(best_step * 1.5):,}, or keep the best checkpoint"
    elif fraction > LATE:
        verdict = "train-longer"
        advice = f"{metric} was still at its best at step {best_step:,} of {total:,}: train longer (more steps or epochs)"
    else:
        verdict = "ok"
        advice = f"the best {metric} came at step {best_step:,} of {total:,} ({fraction:.0%} of the run)"
    sparse = points.count < MIN_EVALUATIONS or (total > 0 and gap > MAX_GAP_SHARE * total)
    return Review(path, metric, mode, best_step, best_value, total, round(fraction, 4), verdict, advice, points.count, gap, sparse)

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
import functools
import math
from array import array
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict, dataclass, field

from .checked import shown
from .maxima import maximum
from .read.logs import TOO_LARGE, LogError, Skipped, TrainerState, csv_rows, head_of, jsonl_rows

EARLY, LATE = 0.1, 0.75
MIN_EVALUATIONS, MAX_GAP_SHARE = 5, 0.25


ReviewError = LogError  # one line, exit 2


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
    notes: list[str] = field(default_factory=list)  # rows passed over (over the row limit, a number too large), said once a kind

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


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


def load_points(path: str, metric: str | None, skipped: Skipped | None = None) -> tuple[Evaluations, str, int | None]:
    """The metric's evaluations, the metric's name, and max_steps if the log says. Every log is
    streamed a row at a time (ftlint/read/logs.py: a row over the limit is passed over and
    counted in `skipped`), and only the chosen metric's evaluations are kept, at a few bytes each;
    a UTF-8 byte-order mark (an Excel export) is read past."""
    from .trust import Refused, open_regular

    skipped = skipped if skipped is not None else Skipped()
    try:
        with open_regular(path, "") as fh:
            head = head_of(fh)
            stripped = head.lstrip()
            if stripped.startswith("{") and not path.endswith(".jsonl") and not _one_object_per_line(head):
                state = TrainerState(fh, path, skipped)
                points, chosen = _points(path, state.rows(), metric, skipped)
                logged = state.max_steps
                if not isinstance(logged, int) or isinstance(logged, bool) or logged <= 0:
                    return points, chosen, None
                if logged > maximum("max-steps"):
                    skipped.values.append(f"max_steps {shown(logged)}: over {maximum('max-steps'):,}, the most --max-steps "
                                          "takes; not used (give --max-steps)")
                    return points, chosen, None
                return points, chosen, logged
            if path.endswith(".jsonl") or stripped.startswith("{"):
                return (*_points(path, jsonl_rows(fh, path, skipped), metric, skipped), None)
            header, rows = csv_rows(fh, path, skipped)
            return (*_csv_points(path, header, rows, metric, skipped), None)
    except Refused as exc:
        raise ReviewError(str(exc).strip()) from None
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ReviewError(f"{path}: cannot read: {getattr(exc, 'strerror', None) or exc}") from None


def _one_object_per_line(head: str) -> bool:
    first = head.split("\n", 1)[0].strip()
    return first.startswith("{") and first.endswith("}") and "\n" in head


class _Chosen:
    """The evaluations of the metric a review is of, while the rows stream: the one named, else
    eval_loss once met, else the first by name of the eval_* metrics with a usable value (what
    the whole log would choose), so one metric's evaluations are kept, whatever the columns."""

    def __init__(self, wanted: str | None) -> None:
        self.wanted = wanted
        self.loss = False  # eval_loss met (with or without a usable value)
        self.first_seen: str | None = None  # the first by name of the metrics met
        self.name: str | None = wanted
        self.points = Evaluations()

    def met(self, name: str) -> None:
        if name == "eval_loss" and not self.wanted and not self.loss:
            self.loss = True
            if self.name != "eval_loss":
                self.name, self.points = "eval_loss", Evaluations()
        if self.first_seen is None or name < self.first_seen:
            self.first_seen = name

    def add(self, name: str, step: int, value: float) -> None:
        if name != self.name:
            if self.wanted or self.loss or (self.name is not None and name > self.name):
                return
            self.name, self.points = name, Evaluations()  # a metric first by name has its first value
        self.points.add(step, value)

    def result(self, path: str) -> tuple[Evaluations, str]:
        chosen = self.name if self.name is not None else self.first_seen
        if chosen is None:
            raise ReviewError(f"{path}: no eval_loss column; name the metric with --metric")
        if not self.points.count or chosen != self.name:
            raise ReviewError(f"{path}: no rows with both step and {chosen}")
        return self.points, chosen


def _points(path: str, rows: Iterable[tuple[str, dict]], metric: str | None, skipped: Skipped) -> tuple[Evaluations, str]:
    chosen = _Chosen(metric)
    met: set[str] = set()  # names already met, while few (a hostile log's names can be many)
    for where, row in rows:
        names = ([metric] if metric in row else []) if metric else [k for k in row if _is_eval(k)]
        for name in names:
            if name not in met:
                chosen.met(name)
                if len(met) < 4096:
                    met.add(name)
        step = _step(row.get("step"))
        if step is None:
            if _too_large(row.get("step")):
                skipped.add(TOO_LARGE, where)
            continue
        for name in names:
            value = _number(row[name])
            if value is not None and math.isfinite(value):
                chosen.add(name, step, value)
            elif _too_large(row[name]):
                skipped.add(TOO_LARGE, where)
    return chosen.result(path)


def _csv_points(path: str, header: list[str], rows: Iterator[tuple[str, list[str]]], metric: str | None,
                skipped: Skipped) -> tuple[Evaluations, str]:
    """A CSV log: the columns are the header's, so they are looked up once, not row by row."""
    at: dict[str, int] = {}
    for i, name in enumerate(header):
        at.setdefault(name, i)
    names = [metric] if metric else sorted(k for k in at if _is_eval(k))
    columns = [(n, at[n]) for n in names if n in at]
    if not columns:
        return _points(path, iter(()), metric, skipped)  # the error for a log without the metric
    chosen = _Chosen(metric)
    for name, _ in columns:
        chosen.met(name)
    if "step" not in at:
        raise ReviewError(f"{path}: no rows with both step and {chosen.name or chosen.first_seen}")
    step_at = at["step"]
    for _, row in rows:
        step = _step(row[step_at]) if step_at < len(row) else None
        if step is None:
            continue
        for name, i in columns:
            if chosen.name is not None and name > chosen.name:
                break  # sorted: no later column can be chosen now
            value = _number(row[i]) if i < len(row) else None
            if value is not None and math.isfinite(value):
                chosen.add(name, step, value)
    return chosen.result(path)


@functools.lru_cache(maxsize=4096)  # a log's columns repeat row after row
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
    except (TypeError, ValueError, OverflowError):  # OverflowError: a JSON integer of hundreds of digits
        return None


def _too_large(value: object) -> bool:
    """A JSON integer no float holds (float() of a CSV's digits is infinity, passed over as such)."""
    return isinstance(value, int) and not isinstance(value, bool) and _number(value) is None


def review(path: str, metric: str | None = None, mode: str | None = None, max_steps: int | None = None) -> Review:
    skipped = Skipped()
    points, metric, logged_max = load_points(path, metric, skipped)
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
    return Review(path, metric, mode, best_step, best_value, total, round(fraction, 4), verdict, advice, points.count, gap, sparse,
                  skipped.notes())

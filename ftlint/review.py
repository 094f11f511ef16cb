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
from dataclasses import asdict, dataclass
from itertools import pairwise
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


def load_points(path: str, metric: str | None) -> tuple[list[tuple[int, float]], str, int | None]:
    """(step, value) points of the metric, the metric's name, and max_steps if the log says."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ReviewError(f"{path}: no such file") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ReviewError(f"{path}: cannot read: {exc}") from None
    rows: list[dict]
    max_steps = None
    stripped = text.lstrip()
    if stripped.startswith("{") and p.suffix != ".jsonl":
        try:
            state = json.loads(text)
        except ValueError as exc:
            raise ReviewError(f"{path}: not valid JSON: {exc}") from None
        if not isinstance(state, dict) or not isinstance(state.get("log_history"), list):
            raise ReviewError(f"{path}: no log_history: expected a Hugging Face trainer_state.json")
        rows = [r for r in state["log_history"] if isinstance(r, dict)]
        max_steps = state.get("max_steps") if isinstance(state.get("max_steps"), int) else None
    elif p.suffix == ".jsonl" or stripped.startswith("{"):
        rows = []
        for n, line in enumerate(text.splitlines(), 1):
            if line.strip():
                try:
                    rows.append(json.loads(line))
                except ValueError as exc:
                    raise ReviewError(f"{path}:{n}: not valid JSON: {exc}") from None
    else:
        rows = list(csv.DictReader(text.splitlines()))
    metric = metric or _default_metric(rows)
    if metric is None:
        raise ReviewError(f"{path}: no eval_loss column; name the metric with --metric")
    points = []
    for row in rows:
        step, value = _number(row.get("step")), _number(row.get(metric))
        if step is not None and value is not None and math.isfinite(value):
            points.append((int(step), value))
    if not points:
        raise ReviewError(f"{path}: no rows with both step and {metric}")
    return sorted(points), metric, max_steps


def _default_metric(rows: list[dict]) -> str | None:
    keys = {k for r in rows for k in r}
    if "eval_loss" in keys:
        return "eval_loss"
    evals = sorted(k for k in keys if k.startswith("eval_") and "runtime" not in k and "per_second" not in k)
    return evals[0] if evals else None


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
    best_value = (min if mode == "min" else max)(v for _, v in points)
    best_step = min(s for s, v in points if v == best_value)  # the earliest of equal bests
    total = max_steps or logged_max or points[-1][0]
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
    steps = [0] + [s for s, _ in points]
    gap = max(b - a for a, b in pairwise(steps)) if len(steps) > 1 else total
    sparse = len(points) < MIN_EVALUATIONS or (total > 0 and gap > MAX_GAP_SHARE * total)
    return Review(path, metric, mode, best_step, best_value, total, round(fraction, 4), verdict, advice, len(points), gap, sparse)

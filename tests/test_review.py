"""ftlint review: the best evaluation step of a finished run, and its verdict."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run


def review(*args: str) -> tuple[int, dict]:
    r = run("review", *args, "-o", "json")
    return r.exit_code, (json.loads(r.stdout) if r.stdout else {})


def test_trainer_state_best_in_the_middle_is_ok() -> None:
    code, r = review("fixtures/logs/trainer_state.json")
    # eval every 100 steps of 1000; the eval loss is lowest (0.6) at step 600
    assert (r["best_step"], r["max_steps"], r["best_fraction"], r["verdict"], r["sparse"]) == (600, 1000, 0.6, "ok", False)
    assert r["metric"] == "eval_loss" and r["evaluations"] == 10 and code == 0


def test_best_in_the_first_tenth_means_too_many_steps() -> None:
    code, r = review("fixtures/logs/early_best.csv")
    assert (r["best_step"], r["best_fraction"], r["verdict"]) == (50, 0.05, "too-long") and code == 1
    code, r = review("fixtures/logs/early_best.csv", "--metric", "eval_accuracy")  # all equal: earliest wins
    assert r["best_step"] == 50 and r["mode"] == "max"


def test_best_at_the_end_and_sparse_checkpoints() -> None:
    code, r = review("fixtures/logs/sparse.jsonl")
    # accuracy (higher is better) peaks at the last of 3 evaluations; gap 400 > 1000 / 4
    assert (r["best_step"], r["verdict"], r["evaluations"], r["largest_gap"], r["sparse"]) == (1000, "train-longer", 3, 400, True)
    assert code == 1
    assert review("fixtures/logs/sparse.jsonl", "--max-steps", "4000")[1]["best_fraction"] == 0.25


@pytest.mark.parametrize(("content", "message"), [
    (None, "no such file"), ("step,loss\n1,2\n", "no eval_loss column"), ('{"log_history": 3}', "no log_history"),
    ("{broken", "not valid JSON"), ("step,eval_loss\nx,y\n", "no rows with both step and eval_loss"),
])
def test_bad_logs_are_one_line_errors(content: str | None, message: str, tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    if content is not None:
        path.write_text(content)
    r = run("review", str(path))
    assert r.exit_code == 2 and message in r.stderr


def _evaluations() -> list[tuple[int, float]]:
    # a loss that falls to 0.41 at step 700, rises, and equals its best again at step 900
    values = [2.0, 1.2, 0.9, 0.7, 0.5, 0.45, 0.41, 0.6, 0.41, 0.8, 0.9]
    return [(step, v) for step, v in zip([0, 100, 200, 300, 400, 500, 700, 800, 900, 950, 1000], values, strict=True)]


@pytest.mark.parametrize("shape", ["csv", "csv-shuffled", "jsonl", "trainer_state"])
def test_every_log_shape_and_order_gives_the_same_review(shape: str, tmp_path: Path) -> None:
    points = _evaluations()
    rows = sorted(points, key=lambda p: (p[0] * 7919) % 1009) if shape == "csv-shuffled" else points
    if shape.startswith("csv"):
        path = tmp_path / "log.csv"
        path.write_text("step,loss,eval_loss\n" + "".join(f"{s},3.0,{v}\n" for s, v in rows) + "1200,2.0\n")  # a short row
    elif shape == "jsonl":
        path = tmp_path / "log.jsonl"
        path.write_text("".join(json.dumps({"step": s, "eval_loss": v}) + "\n" for s, v in rows))
    else:
        path = tmp_path / "trainer_state.json"
        path.write_text(json.dumps({"max_steps": 1000, "log_history": [{"step": s, "eval_loss": v} for s, v in rows]}))
    code, r = review(str(path))
    # independently: the lowest loss is 0.41, first at step 700 of 1,000 (a short CSV row past the
    # last evaluation carries no eval_loss and is no evaluation); the largest gap is 500 -> 700
    best = min(v for _, v in points)
    assert (r["best_value"], r["best_step"]) == (best, min(s for s, v in points if v == best)) == (0.41, 700)
    assert (r["evaluations"], r["largest_gap"], r["max_steps"], r["verdict"]) == (11, 200, 1000, "ok") and code == 0


def test_a_csv_without_a_step_column_is_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("iteration,eval_loss\n1,2.0\n")
    r = run("review", str(path))
    assert r.exit_code == 2 and "no rows with both step and eval_loss" in r.stderr

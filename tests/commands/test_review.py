"""ftlint review: the best evaluation step of a finished run, and its verdict."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from untrusted import SECRETS, tree_peak_rss

from conftest import ROOT, Result, run


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


# --- issue 35: a log from a pull request is streamed, bounded per row, and echoes no secret ---

def review_process(*args: str, cwd: Path = ROOT, timeout: float = 60) -> subprocess.CompletedProcess[str]:
    """The real console entry point, under a timeout: a hang fails the test."""
    return subprocess.run([sys.executable, "-m", "ftlint", "review", *args], capture_output=True, text=True, cwd=cwd,
                          timeout=timeout, errors="replace")


def one_line_error(r: subprocess.CompletedProcess[str] | Result, *words: str) -> None:
    code = r.returncode if isinstance(r, subprocess.CompletedProcess) else r.exit_code
    assert code == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("ftlint: error: "), r.stderr
    assert "Traceback" not in r.stderr and "internal error" not in r.stderr
    for word in words:
        assert word in r.stderr, (word, r.stderr)


def _peak_review(path: Path) -> tuple[dict, int]:
    """The review of `path` as JSON, and the peak resident memory of the process (KiB)."""
    proc = subprocess.Popen([sys.executable, "-m", "ftlint", "review", str(path), "-o", "json"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, cwd=ROOT)
    stop = threading.Event()
    peak = tree_peak_rss(proc.pid, stop)
    out, err = proc.communicate(timeout=300)
    stop.set()
    assert proc.returncode in (0, 1), err
    return json.loads(out), peak[0]


def test_a_large_trainer_state_is_streamed_an_entry_at_a_time(tmp_path: Path) -> None:
    # 300,000 log_history entries (24 MB), keys before and after it as transformers sorts them;
    # parsed whole it took about six times the file; streamed, the process stays near its start
    path = tmp_path / "trainer_state.json"
    n = 300_000
    with open(path, "w") as fh:
        fh.write(f'{{"best_metric": null, "epoch": 3.0, "global_step": {n}, "log_history": [')
        for start in range(0, n, 10_000):
            fh.write(", ".join(json.dumps({"epoch": s / n, "step": s, "eval_loss": 1 + abs(s - 2 * n // 3) / n, "loss": 2.0})
                               for s in range(start + 1, start + 10_001)) + (", " if start + 10_000 < n else ""))
        fh.write(f'], "logging_steps": 1, "max_steps": {n}, "stateful_callbacks": {{"x": {{"args": [1, {{"y": "]}}"}}]}}}}}}\n')
    r, peak_kib = _peak_review(path)
    assert (r["best_step"], r["best_value"], r["max_steps"], r["evaluations"]) == (2 * n // 3, 1.0, n, n)
    assert peak_kib < 100 * 1024, peak_kib


def test_a_row_over_the_limit_is_passed_over_and_said_once(tmp_path: Path) -> None:
    big = "a" * (3 << 20)  # over the 1 MiB a row may hold
    rows = [{"step": 10, "eval_loss": 0.5}, {"step": 20, "eval_loss": 0.1, "text": big}, {"step": 30, "eval_loss": 0.4}]
    jsonl = tmp_path / "log.jsonl"
    jsonl.write_text("".join(json.dumps(r) + "\n" for r in rows))
    csv_log = tmp_path / "log.csv"
    csv_log.write_text("step,eval_loss,text\n10,0.5,\n20,0.1," + big + "\n30,0.4,\n")
    state = tmp_path / "trainer_state.json"
    state.write_text(json.dumps({"log_history": rows, "max_steps": 40}))
    for path, where in ((jsonl, "line 2"), (csv_log, "line 3"), (state, "log_history[1]")):
        _, r = review(str(path))
        # the row over the limit is not an evaluation: the best of the others is 0.4 at step 30
        assert (r["best_step"], r["best_value"], r["evaluations"]) == (30, 0.4, 2), path
        assert r["notes"] == [f"1 row over the 1 MiB limit for a row, not counted (the first at {where})"]
        assert "note: 1 row over the 1 MiB limit" in run("review", str(path)).stdout


def test_a_40_mb_csv_row_is_not_held(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    with open(path, "w") as fh:
        fh.write("step,eval_loss,x\n1,0.5,a\n2,0.3,")
        for _ in range(20):
            fh.write(",".join(["1"] * 1_000_000) + ",")
        fh.write("1\n3,0.4,b\n")
    r, peak_kib = _peak_review(path)
    assert (r["best_step"], r["evaluations"]) == (3, 2) and len(r["notes"]) == 1
    assert peak_kib < 100 * 1024, peak_kib


def test_a_csv_header_over_the_limit_is_one_line_at_once(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text(",".join(f"eval_{i}" for i in range(200_000)) + ",step\n1,0.5\n")  # 2 MB of metric names
    one_line_error(review_process(str(path)), "header", "1 MiB")


def test_a_wide_header_is_read_in_linear_time(tmp_path: Path) -> None:
    # 60,000 metric columns (under the limit); only the last has values: it is the metric, and
    # (not a loss) higher is better
    names = [f"eval_m{i:05d}" for i in range(60_000)]
    path = tmp_path / "log.csv"
    path.write_text("step," + ",".join(names) + "\n" + "".join(f"{s}," + "," * 59_999 + f"{s / 10}\n" for s in range(1, 6)))
    r = review_process(str(path), "-o", "json", timeout=30)
    assert json.loads(r.stdout)["metric"] == names[-1] and json.loads(r.stdout)["best_step"] == 5, r.stderr


def test_a_number_too_large_for_a_float_is_a_note_not_an_internal_error(tmp_path: Path) -> None:
    huge = "9" * 400
    path = tmp_path / "log.jsonl"
    path.write_text(f'{{"step": 10, "eval_loss": 0.5}}\n{{"step": {huge}, "eval_loss": 0.1}}\n'
                    f'{{"step": 20, "eval_loss": {huge}}}\n{{"step": 30, "eval_loss": 0.4}}\n'
                    f'{{"step": 40, "eval_loss": {"9" * 5000}}}\n')  # more digits than Python converts
    r = review_process(str(path), "-o", "json")
    found = json.loads(r.stdout)
    assert (found["best_step"], found["evaluations"]) == (30, 2), r.stderr
    assert found["notes"] == ["3 rows with a number too large for a float, not counted (the first at line 2)"]
    state = tmp_path / "trainer_state.json"
    state.write_text(f'{{"log_history": [{{"step": 10, "eval_loss": 0.5}}, {{"step": 20, "eval_loss": 0.4}}], "max_steps": {huge}}}')
    found = json.loads(review_process(str(state), "-o", "json").stdout)
    assert found["max_steps"] == 20 and "max_steps 99999999999999999999... (400 characters): over 10,000,000" in found["notes"][0]


@pytest.mark.parametrize("layout", ["max_steps first", "escaped key", "brackets in strings", "bom"])
def test_a_trainer_state_in_any_layout_gives_the_same_review(layout: str, tmp_path: Path) -> None:
    history = [{"step": s, "eval_loss": v, "note": "[{,}]"} for s, v in _evaluations()]
    text = json.dumps({"max_steps": 1000, "log_history": history, "trial_params": None})
    if layout == "escaped key":
        text = json.dumps({"log_history_x": [], "max_steps": 1000}).replace("}", ', "log\\u005fhistory": ' + json.dumps(history) + "}")
    elif layout == "brackets in strings":
        text = json.dumps({"a": "\"log_history\": [", "b": {"log_history": 3}, "log_history": history, "max_steps": 1000})
    path = tmp_path / "trainer_state.json"
    path.write_bytes((b"\xef\xbb\xbf" if layout == "bom" else b"") + text.encode())
    code, r = review(str(path))
    assert code == 0
    assert (r["best_step"], r["evaluations"], r["max_steps"], r["verdict"], r["notes"]) == (700, 11, 1000, "ok", [])


def test_a_cut_trainer_state_is_one_line(tmp_path: Path) -> None:
    path = tmp_path / "trainer_state.json"
    path.write_text(json.dumps({"log_history": [{"step": s, "eval_loss": v} for s, v in _evaluations()]})[:-20])
    one_line_error(run("review", str(path)), "not valid JSON")


@pytest.mark.parametrize("where", ["metric", "file"])
def test_no_secret_is_echoed_by_review(where: str, tmp_path: Path) -> None:
    secret = SECRETS["aws"]
    metric = f"eval_{secret}" if where == "metric" else "eval_loss"
    path = tmp_path / (f"log-{secret}.csv" if where == "file" else "log.csv")
    path.write_text(f"step,{metric}\n" + "".join(f"{s},{1 / s}\n" for s in range(10, 60, 10)))
    for fmt in ("text", "json"):
        r = run("review", str(path), "-o", fmt)
        assert r.exit_code in (0, 1) and r.stdout and secret not in r.stdout + r.stderr, r.stdout
        assert secret not in run("review", str(path), "--metric", metric, "-o", fmt).stdout


def test_a_log_named_in_bytes_that_are_not_utf8_is_valid_json(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/log-\xff.jsonl"
    with open(name, "w") as fh:
        fh.write("".join(json.dumps({"step": s, "eval_loss": 1 / s}) + "\n" for s in range(10, 60, 10)))
    r = subprocess.run([sys.executable, "-m", "ftlint", "review", name, "-o", "json"], capture_output=True, timeout=60)
    assert json.loads(r.stdout)["log"].endswith("log-\\xff.jsonl") and r.returncode == 1, r.stderr


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_log_that_is_no_regular_file_is_refused_at_once(kind: str, tmp_path: Path) -> None:
    path = tmp_path / "trainer_state.json"
    if kind == "fifo":
        os.mkfifo(path)
    else:
        path.symlink_to("/dev/zero")
    one_line_error(review_process(str(path), timeout=20), "not a regular file")


def test_review_max_steps_has_a_maximum(tmp_path: Path) -> None:
    path = tmp_path / "log.csv"
    path.write_text("step,eval_loss\n1,0.5\n")
    r = run("review", str(path), "--max-steps", "9" * 400)
    assert r.exit_code == 2 and "at most 10,000,000" in r.stderr

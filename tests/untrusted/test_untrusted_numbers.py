"""Untrusted pull requests, round 4 (issue 35): every number a repository, a flag or the API can
set has a maximum (ftlint/maxima.py, listed in docs/trust.md), refused past it with one line
naming the key and the maximum; a cost is then always a number the gate and the JSON agree on,
and the pictures keep a fixed size whatever the epochs and steps."""

from __future__ import annotations

import json
import math
import re
import subprocess
import sys
from pathlib import Path

import pytest
from test_hosted import openai_tokens, records, usd

import ftlint
from conftest import FIXTURES, ROOT, run
from ftlint.cli import cli
from ftlint.maxima import MAXIMA

TOY = FIXTURES / "oracle" / "toy_chat_fine_tuning.jsonl"
LOG = FIXTURES / "logs" / "early_best.csv"


def _figure(value: float) -> str:
    """A maximum as the errors and docs/trust.md write it."""
    return f"{int(value):,}" if float(value).is_integer() else f"{value:g}"


def _command(key: str) -> str:
    """A command that has the flag --KEY (review's own --max-steps aside)."""
    for name in ("estimate", "plan", "check", "review"):
        if any(f"--{key}" in getattr(p, "opts", ()) for p in cli.commands[name].params):
            return name
    raise AssertionError(f"no command has --{key}")


def test_docs_trust_lists_every_maximum() -> None:
    text = (ROOT / "docs" / "trust.md").read_text(encoding="utf-8")
    rows = dict(re.findall(r"^  \| `([a-z-]+)` \| ([0-9,]+) \|", text, re.M))
    assert rows == {key: _figure(value) for key, value in MAXIMA.items()}


@pytest.mark.parametrize("key", sorted(MAXIMA))
def test_every_number_past_its_maximum_is_one_line_naming_the_flag(key: str) -> None:
    command, maximum = _command(key), MAXIMA[key]
    path = str(LOG if command == "review" else TOY)
    over = [str(maximum + 1) if isinstance(maximum, int) else repr(maximum * 2), "9" * 400]
    for value in over:
        r = run(command, path, f"--{key}", value)  # in-process: an OverflowError later would raise here
        assert r.exit_code == 2 and f"--{key}" in r.stderr and f"at most {_figure(maximum)}" in r.stderr, (value, r.stderr)
        assert len(r.stderr) < 400
    partner = {"learning-rate": ("--reference-batch-size", "8"), "reference-batch-size": ("--learning-rate", "1e-4"),
               "max-seq-len": ("--trainer", "trl")}.get(key, ())  # what the flag is given with
    assert run(command, path, f"--{key}", str(maximum), *partner).exit_code in (0, 1)  # the maximum itself is taken


@pytest.mark.parametrize("key", sorted(MAXIMA))
def test_every_number_past_its_maximum_in_ftlint_toml_is_one_line(key: str, tmp_path: Path) -> None:
    command, maximum = _command(key), MAXIMA[key]
    config = tmp_path / "ftlint.toml"
    config.write_text(f"[{command}]\n{key} = {'9' * 400}\n")
    r = run("--config", str(config), command, str(LOG if command == "review" else TOY))
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and f"{command}.{key} = " in r.stderr, r.stderr
    assert f"at most {_figure(maximum)}" in r.stderr and len(r.stderr) < 600


def test_the_api_refuses_a_number_past_its_maximum_naming_the_keyword() -> None:
    for keyword, value in (("epochs", 10**400), ("price", 1e308), ("gpus", 10**6), ("max_steps", 10**12)):
        with pytest.raises(ftlint.UsageError, match=f"{keyword}: .* is not at least .* and at most"):
            ftlint.estimate(str(TOY), model="gpt-4o-mini", **{keyword: value})


def test_the_cost_at_the_largest_price_is_a_number_the_gate_agrees_with() -> None:
    r = run("estimate", str(TOY), "--model", "gpt-4o-mini", "--price", "1e308", "--max-cost", "1", "-o", "json")
    assert r.exit_code == 2 and "--price" in r.stderr and "at most 10,000" in r.stderr and not r.stdout
    tokens = sum(openai_tokens(record)[0] for record in records(TOY))
    r = run("estimate", str(TOY), "--model", "gpt-4o-mini", "--price", "10000", "--epochs", "1000", "--max-cost", "1",
            "-o", "json")
    e = json.loads(r.stdout)
    cost = usd(tokens * 1000, 10_000)
    assert e["cost_usd"] == cost and math.isfinite(cost) and r.exit_code == 1
    (gate,) = [w for w in e["warnings"] if w["code"] == "FT701"]
    assert gate["message"] == f"the run costs ${cost:,.2f}, over the --max-cost of $1.00"


def test_plots_with_a_trillion_steps_end_at_once() -> None:
    p = subprocess.run([sys.executable, "-m", "ftlint", "estimate", str(TOY), "--max-steps", str(10**12), "--plots"],
                       capture_output=True, text=True, cwd=ROOT, timeout=30)
    assert p.returncode == 2 and "--max-steps" in p.stderr and "at most 10,000,000" in p.stderr


def test_plots_at_the_most_steps_mark_every_epochs_end_from_the_columns() -> None:
    # one step an epoch, the most steps: every column holds an epoch's end; drawn from 60 columns
    p = subprocess.run([sys.executable, "-m", "ftlint", "estimate", str(TOY), "--max-steps", str(10**7), "--batch-size", "5",
                        "--plots"], capture_output=True, text=True, cwd=ROOT, timeout=30)
    axis = next(line for line in p.stdout.splitlines() if line.startswith("  └"))
    assert axis == "  └" + "┼" * 60, p.stderr


def _brute(total: int, steps_per_epoch: int, columns: int) -> list[bool]:
    """The axis as the plot drew it before: one mark per epoch's end, at round(step x columns / total)."""
    marks = [False] * columns
    for end in range(steps_per_epoch, total, steps_per_epoch) if steps_per_epoch else ():
        marks[min(columns - 1, round(end * columns / total))] = True
    return marks


@pytest.mark.parametrize("total", [1, 2, 7, 59, 60, 61, 119, 120, 121, 600, 997, 1000, 6000, 12_345])
def test_the_epoch_marks_from_the_columns_are_the_marks_from_the_epochs(total: int) -> None:
    from ftlint.plots import epoch_ends

    columns = min(60, total)
    for steps_per_epoch in {0, 1, 2, 3, 5, 7, 10, 59, 60, 61, 100, 333, total // 2 or 1, total - 1 or 1, total, total + 1}:
        assert epoch_ends(total, steps_per_epoch, columns) == _brute(total, steps_per_epoch, columns), steps_per_epoch

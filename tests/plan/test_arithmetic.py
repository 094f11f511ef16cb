"""Every explanation the estimate prints as arithmetic ("= ceil(103 / 8)", "floor(0.1 x 19) = 1")
recomputes to the figure it explains, on the fixtures under every trainer and the run configs: an
evaluator of the explanations' own notation (x, /, +, ceil, floor, min, max, $ and 1M, unit words
skipped), in exact fractions, or in floating point where the words say so."""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import FIXTURES, run

DRONE = "fixtures/good/drone_training.jsonl"
TOY = "fixtures/oracle/toy_chat_fine_tuning.jsonl"
RUNS = FIXTURES / "runs"
INVOCATIONS: list[tuple[str, ...]] = [
    *(("estimate", str(p.relative_to(FIXTURES.parent))) for p in sorted((FIXTURES / "formats").glob("*/good.jsonl"))),
    ("estimate", DRONE, "--epochs", "3", "--batch-size", "8", "--warmup-ratio", "0.1"),
    ("estimate", DRONE, "--warmup-steps", "20", "--max-cost", "1", "--budget-usd", "0.5"),
    ("estimate", DRONE, "--trainer", "trl", "--warmup-ratio", "0.1", "--tokens-per-second", "1234", "--gpu-hour-usd", "2.5",
     "--gpus", "2", "--grad-accum", "3"),
    ("estimate", DRONE, "--trainer", "trl", "--hf-legacy", "--grad-accum", "4", "--batch-size", "3", "--warmup-ratio", "0.05"),
    ("estimate", DRONE, "--trainer", "trl", "--packing", "--max-seq-len", "2048", "--warmup-ratio", "0.3"),
    # axolotl's warmups of 1 made 2: its default min(floor(0.03 x 52), 100), and floor(0.1 x 13)
    ("estimate", DRONE, "--trainer", "axolotl", "--max-seq-len", "4096", "--epochs", "2", "--batch-size", "4"),
    ("estimate", DRONE, "--trainer", "axolotl", "--max-seq-len", "4096", "--warmup-ratio", "0.1", "--batch-size", "8"),
    ("estimate", DRONE, "--trainer", "axolotl", "--max-seq-len", "4096", "--warmup-ratio", "0.1", "--batch-size", "5"),
    ("estimate", DRONE, "--trainer", "llama-factory", "--warmup-ratio", "0.1", "--max-steps", "7"),
    ("estimate", DRONE, "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--assistant-only-loss", "--warmup-ratio", "0.1"),
    ("estimate", DRONE, "--model", "together/Qwen/Qwen2.5-7B-Instruct", "--validation", TOY, "--n-evals", "2"),
    ("estimate", DRONE, "--model", "together/Qwen/Qwen2.5-7B-Instruct", "--no-packing", "--max-seq-len", "1024"),
    ("estimate", DRONE, "--run", str(RUNS / "axolotl" / "instruct-lora-8b.yml")),
    ("estimate", "--run", str(RUNS / "llama-factory" / "qwen3_lora_sft.yaml")),
    ("estimate", "fixtures/runs/llama-factory/data/c4_demo.jsonl", "--run", str(RUNS / "trl" / "example_config.yaml")),
    ("estimate", TOY, "--run", str(RUNS / "mistral-finetune" / "7B.yaml"), "--max-steps", "100"),
    ("estimate", TOY, "--run", str(RUNS / "together" / "job.json")),
]

_TOKEN = re.compile(r"\s*(?:(?P<num>\$?\d[\d,]*(?:\.\d+)?(?:e-?\d+)?M?)(?:/[A-Za-z]+)?|(?P<func>ceil|floor|min|max|round)\(|"
                    r"(?P<op>[x*/+(),-])(?![A-Za-z])|(?P<word>[A-Za-z][\w'./-]*))")
FUNCS = {"ceil": lambda a: math.ceil(a), "floor": lambda a: math.floor(a), "round": round, "min": min, "max": max}


class Expression:
    """A recursive-descent evaluator of the explanations' arithmetic: it reads as far as the
    expression goes (the words after it are the explanation's own)."""

    def __init__(self, text: str, floats: bool) -> None:
        self.tokens = [(m.lastgroup, m.group(m.lastgroup)) for m in _TOKEN.finditer(text) if m.lastgroup]
        self.i, self.floats = 0, floats

    def number(self, text: str) -> Fraction | float:
        text = text.lstrip("$").replace(",", "")
        scale = 1_000_000 if text.endswith("M") else 1
        value = Fraction(text.rstrip("M")) * scale
        return float(value) if self.floats else value

    def peek(self) -> tuple[str | None, str]:
        return self.tokens[self.i] if self.i < len(self.tokens) else (None, "")

    def skip_words(self) -> None:
        while self.peek()[0] == "word":
            self.i += 1

    def expr(self) -> Fraction | float:
        value = self.term()
        while self.peek() in (("op", "+"), ("op", "-")):
            sign = self.peek()[1]
            self.i += 1
            value = value + self.term() if sign == "+" else value - self.term()
        return value

    def term(self) -> Fraction | float:
        value = self.factor()
        while self.peek() in (("op", "x"), ("op", "*"), ("op", "/")):
            op = self.peek()[1]
            self.i += 1
            right = self.factor()
            value = value / right if op == "/" else value * right
        return value

    def factor(self) -> Fraction | float:
        kind, text = self.peek()
        self.i += 1
        if kind == "num":
            value = self.number(text)
        elif kind == "func":
            args = [self.expr()]
            while self.peek() == ("op", ","):
                self.i += 1
                args.append(self.expr())
            assert self.peek() == ("op", ")"), self.tokens
            self.i += 1
            value = FUNCS[text](*args)
        elif (kind, text) == ("op", "("):
            value = self.expr()
            assert self.peek() == ("op", ")"), self.tokens
            self.i += 1
        else:
            raise AssertionError(f"not arithmetic at {text!r}: {self.tokens}")
        self.skip_words()
        return value


def evaluate(text: str) -> Fraction | float:
    """The arithmetic at the start of `text`, up to the words that follow it."""
    head = re.split(r":|;|, (?![\d$])| \((?=[a-z])", text, maxsplit=1)[0]
    return Expression(head, "in floating point" in text).expr()


def explained(text: str) -> list[tuple[str, str, str]]:
    """(figure, arithmetic, the row) of every explanation: a row whose words start "= ...", an
    "EXPRESSION = N" inside words, and "N = EXPRESSION" inside words."""
    out = []
    for line in text.splitlines():
        row = re.match(r"  (\S.*?\S)\s{2,}(\$?[\d,.]+(?: h)?)\s{2}(.*)$", line)
        if row is None:
            continue
        figure, how = row.group(2), row.group(3)
        if how.startswith("= "):
            out.append((figure, how[2:], line))
        for m in re.finditer(r"((?:ceil|floor|min|max)\(.*?\)(?: in floating point)?) = (\d[\d,]*)", how):
            out.append((m.group(2), m.group(1), line))
        for m in re.finditer(r"(?<=[a-z] )(\d[\d,]*) = (.*)", how):
            out.append((m.group(1), m.group(2), line))
    return out


def test_the_evaluator_reads_the_notation() -> None:
    assert evaluate("ceil(103 / 8): 12 full batches") == 13
    assert evaluate("2 batch x 4 grad-accum x 1 GPU") == 8
    assert evaluate("233,403 x $5 / 1M tokens (from provider docs: x)") == Fraction(233403 * 5, 10**6)
    assert evaluate("ceil(0.07 x 100) in floating point, as transformers does") == 8  # 7.000000000000001
    assert evaluate("ceil(0.07 x 100)") == 7
    assert evaluate("min(floor(0.03 x 52), 100) in floating point") == 1
    assert evaluate("1 epoch x 1,000 + 2 evals x 30 validation tokens") == 1060


@pytest.mark.parametrize("args", INVOCATIONS, ids=lambda a: " ".join(Path(x).name for x in a[1:])[:80])
def test_every_arithmetic_explanation_recomputes_to_its_figure(args: tuple[str, ...]) -> None:
    out = run(*args).stdout
    found = explained(out)
    assert found or "= " not in out, out
    for figure, arithmetic, line in found:
        value = evaluate(arithmetic)
        if figure.endswith(" h"):
            assert f"{float(value):,.2f} h" == figure, line
        elif figure.startswith("$"):
            decimals = len(figure.split(".")[1]) if "." in figure else 0
            assert f"${float(value):,.{decimals}f}" == figure, line
        else:
            assert value == int(figure.replace(",", "")), line


def test_the_runs_checked_make_every_kind_of_explanation() -> None:
    """The invocations above reach each rule that explains itself as arithmetic."""
    rows = {line.split("  ")[1].strip() for args in INVOCATIONS for _, _, line in explained(run(*args).stdout)}
    assert {"effective batch", "steps per epoch", "total steps", "warmup steps", "tokens processed", "cost", "wall time",
            "compute cost", "billed tokens"} <= rows


def test_axolotls_warmup_is_its_builders() -> None:
    """core/builders/base.py _configure_warmup_and_logging, case by case: warmup_steps when not 0;
    else int(ratio x total) in floats (0.29 x 100 is 28.999999999999996: 28, where exact arithmetic
    gives 29); else min(int(0.03 x total), 100); a warmup of 1 is made 2, a given one too."""
    from ftlint.trainers.axolotl.steps import AxolotlSteps as Axolotl

    warmup = Axolotl().warmup
    assert warmup(100, Fraction("0.29"), None) == 28
    assert warmup(13, Fraction("0.1"), None) == 2 and warmup(52, None, None) == 2  # 1 made 2
    assert warmup(52, None, 1) == 2 and warmup(52, None, 5) == 5
    assert warmup(5000, None, 0) == 100  # warmup_steps 0 is unset to axolotl: its default, capped at 100
    assert warmup(20, Fraction(0), None) == 0  # min(int(0.6), 100)

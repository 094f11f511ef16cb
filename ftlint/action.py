"""The GitHub Action (action.yml at the repository's root): check a pull request's changed data
files, annotate them, and write the job summary. Thin over the CLI: every figure comes from
`ftlint check`, `ftlint diff` and `ftlint estimate`, run as a user would run them.

    python -m ftlint.action        (action.yml runs it; it reads what the runner sets)

Read from the environment: the inputs (INPUT_PATHS, INPUT_MODEL, ... : action.yml maps each
input it declares to one, and tests/test_action.py holds the two lists equal), GITHUB_BASE_REF
(the pull request's base branch: the changed files are `git diff --name-only origin/BASE...HEAD`),
GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (files the runner reads after the step).

What it costs: each changed file is read by `check` twice (once for the annotations, once for
the summary), by `estimate` twice (the summary, and the cost as JSON for the step's output), and
by `diff` with its base revision; nothing is read that the pull request did not change.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from .report.escape import github_data, md_code, md_text

# The inputs action.yml declares, by their environment names; the values are what each does.
INPUTS = {
    "INPUT_PATHS": "globs (one a line, or separated by spaces) the checked files must match; empty: every file ftlint reads",
    "INPUT_BASE": "the revision to compare with; empty: origin/$GITHUB_BASE_REF (a pull request's base)",
    "INPUT_MODEL": "--model",
    "INPUT_TRAINER": "--trainer",
    "INPUT_RUN": "--run (a run config)",
    "INPUT_MAX_COST": "estimate's --max-cost gate (USD)",
    "INPUT_MAX_TOKENS": "estimate's --max-tokens gate",
    "INPUT_MIN_RECORDS": "estimate's --min-records gate",
    "INPUT_FAIL_ON": "--fail-on: error or warning",
}

# Files ftlint reads, as .pre-commit-hooks.yaml matches them (tests/test_action.py holds them equal).
DATA_FILES = re.compile(r"(\.(jsonl|ndjson|json)(\.gz|\.zst)?|\.(parquet|arrow))$")
NOT_DATA = re.compile(
    r"(^|/)(dataset_info|state|dataset_dict|tokenizer|tokenizer_config|special_tokens_map|added_tokens|config"
    r"|generation_config|preprocessor_config|adapter_config|trainer_state|vocab|tekken|params|package|package-lock"
    r"|tsconfig|composer|deno|renovate|\.?eslintrc|launch|settings|extensions|devcontainer)\.json$"
    r"|(^|/)\.(vscode|github|devcontainer)/")


class ActionError(Exception):
    """What stops the step before any check: one line, exit 2."""


@dataclass(frozen=True)
class Inputs:
    paths: tuple[str, ...]
    base: str | None
    model: str
    trainer: str
    run: str
    gates: tuple[str, ...]  # estimate's gate flags with their values
    fail_on: str

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Inputs:
        def get(name: str) -> str:
            return env.get(name, "").strip()

        gates = []
        for name, flag in (("INPUT_MAX_COST", "--max-cost"), ("INPUT_MAX_TOKENS", "--max-tokens"),
                           ("INPUT_MIN_RECORDS", "--min-records")):
            if get(name):
                gates += [flag, get(name)]
        base = get("INPUT_BASE") or (f"origin/{get('GITHUB_BASE_REF')}" if get("GITHUB_BASE_REF") else None)
        fail_on = get("INPUT_FAIL_ON") or "error"
        if fail_on not in ("error", "warning"):
            raise ActionError(f"fail-on: {fail_on!r} is not error or warning")
        return cls(tuple(get("INPUT_PATHS").split()), base, get("INPUT_MODEL"), get("INPUT_TRAINER"), get("INPUT_RUN"),
                   tuple(gates), fail_on)

    def judging(self) -> list[str]:
        """The flags check, diff and estimate share."""
        return [f for flag, value in (("--model", self.model), ("--trainer", self.trainer), ("--run", self.run))
                if value for f in (flag, value)]


def glob_match(path: str, pattern: str) -> bool:
    """A git-style glob: `*` and `?` stay within a folder, `**/` is any number of folders."""
    regex = ""
    i = 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex, i = regex + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            regex, i = regex + ".*", i + 2
        elif pattern[i] == "*":
            regex, i = regex + "[^/]*", i + 1
        elif pattern[i] == "?":
            regex, i = regex + "[^/]", i + 1
        else:
            regex, i = regex + re.escape(pattern[i]), i + 1
    return re.fullmatch(regex, path) is not None


def is_data(path: str) -> bool:
    return DATA_FILES.search(path) is not None and NOT_DATA.search(path) is None


def git(*args: str) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, check=False)
    if done.returncode:
        raise ActionError(f"git {' '.join(args)}: {done.stderr.strip().splitlines()[-1] if done.stderr.strip() else 'failed'}")
    return done.stdout


def changed_files(inputs: Inputs) -> list[str]:
    """The data files the pull request adds or changes (every tracked one without a base),
    as they match `paths`; deleted files are not there to check."""
    if inputs.base:
        names = git("diff", "--name-only", "--diff-filter=d", "-z", f"{inputs.base}...HEAD").split("\0")
    else:
        names = git("ls-files", "-z").split("\0")
    patterns = inputs.paths or ("**",)
    return [n for n in names if n and is_data(n) and any(glob_match(n, p) for p in patterns)]


def ftlint(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ftlint", *args], capture_output=True, text=True, check=False)


def ftlint_all(commands: Sequence[Sequence[str]]) -> list[subprocess.CompletedProcess[str]]:
    """The commands' results, in order, run two at a time: they read the same files and share
    nothing, and a runner has two cores (ftlint spreads a large file over the cores itself)."""
    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(max_workers=2) as pool:
        return list(pool.map(lambda args: ftlint(*args), commands))


@dataclass
class Outcome:
    summary: list[str]
    outputs: dict[str, str]
    exit_code: int


def run(inputs: Inputs, files: Sequence[str]) -> Outcome:
    """check (annotations on stdout, its Markdown in the summary), diff of each file against the
    base, estimate of the training files; the step fails as `check` and the gates do."""
    from .splits import split_by_name

    summary = ["## ftlint", ""]
    if not files:
        summary.append("No data file changed" + (f" against {md_code(inputs.base)}." if inputs.base else "."))
        return Outcome(summary, {"errors": "0", "warnings": "0", "cost": "", "files": "0"}, 0)
    judging = inputs.judging()
    checking = ["check", *files, *judging, "--fail-on", inputs.fail_on]
    diffs = [["diff", f"{inputs.base}:{path}", path, *judging, "-o", "markdown"] for path in files] if inputs.base else []
    train, held = split_by_name(tuple(files))
    validation = ["--validation", held[0]] if len(held) == 1 else []
    estimating = ["estimate", *train, *validation, *judging, *inputs.gates, "--fail-on", inputs.fail_on]
    estimates = [[*estimating, "-o", "markdown"], [*estimating, "-o", "json"]] if train else []
    annotated, checked, *done = ftlint_all([[*checking, "-o", "github"], [*checking, "-o", "markdown"], *diffs, *estimates])
    sys.stdout.write(annotated.stdout)
    sys.stderr.write(annotated.stderr)
    lines = annotated.stdout.splitlines()
    errors = sum(line.startswith("::error ") for line in lines)
    warnings = sum(line.startswith("::warning ") for line in lines)
    codes = [annotated.returncode]
    summary += [section(checked), *(section(d) for d in done[:len(diffs)])]
    cost = ""
    if train:
        shown, costed = done[len(diffs):]
        summary.append(section(shown))
        codes.append(shown.returncode)
        cost = estimate_cost(costed)
    outputs = {"errors": str(errors), "warnings": str(warnings), "cost": cost, "files": str(len(files))}
    return Outcome(summary, outputs, 2 if 2 in codes else max(codes))


def section(done: subprocess.CompletedProcess[str]) -> str:
    """A command's Markdown, or its one-line error (exit 2) said as such."""
    if done.returncode == 2 or not done.stdout.strip():
        return f"> ftlint: {done.stderr.strip() or 'no output'}\n"
    return done.stdout


def estimate_cost(done: subprocess.CompletedProcess[str]) -> str:
    """The estimate's cost in USD as printed by JSON ("" without a price or without an estimate)."""
    try:
        cost = orjson.loads(done.stdout).get("cost_usd")
    except (orjson.JSONDecodeError, AttributeError):
        return ""
    return "" if cost is None else f"{cost:.4f}"


def write_outputs(path: str, outputs: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.writelines(f"{key}={value}\n" for key, value in outputs.items())


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    try:
        inputs = Inputs.of(env)
        outcome = run(inputs, changed_files(inputs))
    except ActionError as exc:
        print(f"::error title=ftlint::{github_data(str(exc))}")
        outcome = Outcome(["## ftlint", "", f"> ftlint: {md_text(str(exc))}"], {}, 2)
    if env.get("GITHUB_STEP_SUMMARY"):
        with open(env["GITHUB_STEP_SUMMARY"], "a", encoding="utf-8") as out:
            out.write("\n".join(outcome.summary) + "\n")
    if env.get("GITHUB_OUTPUT"):
        write_outputs(env["GITHUB_OUTPUT"], outcome.outputs)
    return outcome.exit_code


if __name__ == "__main__":
    sys.exit(main())

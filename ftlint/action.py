"""The GitHub Action (action.yml at the repository's root): judge a pull request's change as part
of the dataset it lands in, annotate the changed files, and write the job summary and outputs.

    python -m ftlint.action        (action.yml runs it; it reads what the runner sets)

Read from the environment: the inputs (INPUT_PATHS, INPUT_MODEL, ... : action.yml maps each
input it declares to one, and tests/commands/test_action.py holds the two lists equal), GITHUB_BASE_REF
(the pull request's base branch: the changed files are `git diff --name-only origin/BASE...HEAD`),
GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (files the runner reads after the step).

The dataset is the unit (`dataset: true`, the default; ftlint/change.py): every data file the
checkout holds (matching `paths`), as it stands after the change, is read once, in this process;
the changed files' records are annotated; the minimum, duplicates and leakage across files, the
estimate and the gates are the dataset's; the diff is the dataset at the merge base against the
pull request, its validation set apart. `dataset: false` judges the changed files alone.

The pull request is a stranger's: its file names, its files and its ftlint.toml. So every name
reaches a command line after `--` (a file named `--output-file=/x.jsonl` is a file), the base after
`git rev-parse --verify --end-of-options`; names are read from git as bytes (`-z`: a newline or
a non-UTF-8 byte in a name is a name); a changed file is read only when it resolves inside the
workspace to a regular file (trust.workspace_file), and the dataset's other files are the regular
files git tracks, checked the same way; the model, trainer, price, run config and the dataset's
definition are the workflow's (WORKFLOW_KEYS: the repository's values are said and not used), and
the gates are judged here, on the estimate's figures, whatever the repository's configuration
switches off. ftlint's error output lands in the summary inside a fence it cannot close.

What it costs: the dataset's unchanged files are read once, its changed files once, and the base's
versions of the changed files once (from git); check, diff and estimate share that one reading.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .report.escape import github_data, github_property, md_code, md_fence, md_text, shown_path
from .repository import DATA_FILES, NOT_DATA, glob_match, is_data
from .trust import Refused, workspace_file

if TYPE_CHECKING:
    from .cli.change import Judged

__all__ = ["DATA_FILES", "NOT_DATA", "glob_match", "is_data"]  # the data files' one definition, ftlint/repository.py

# The inputs action.yml declares, by their environment names; the values are what each does.
INPUTS = {
    "INPUT_PATHS": "globs (one a line, or separated by spaces) the dataset's files must match; empty: every file ftlint reads",
    "INPUT_BASE": "the revision to compare with; empty: origin/$GITHUB_BASE_REF (a pull request's base)",
    "INPUT_DATASET": "true (default): judge the change as part of the repository's dataset; false: the changed files alone",
    "INPUT_MODEL": "--model",
    "INPUT_TRAINER": "--trainer",
    "INPUT_RUN": "--run (a run config)",
    "INPUT_MAX_COST": "estimate's --max-cost gate (USD)",
    "INPUT_MAX_TOKENS": "estimate's --max-tokens gate",
    "INPUT_MIN_RECORDS": "estimate's --min-records gate",
    "INPUT_FAIL_ON": "--fail-on: error or warning",
}
# The gates: input, estimate's flag, the rule of the value (ftlint/options.py Gates), the figure judged.
GATES = (("INPUT_MAX_COST", "max-cost", "max_cost_usd", "cost_usd"),
         ("INPUT_MAX_TOKENS", "max-tokens", "max_tokens", "tokens_processed"),
         ("INPUT_MIN_RECORDS", "min-records", "min_records", "records"))
# What the gate relies on, owned by the workflow: a repository's ftlint.toml may not change them.
WORKFLOW_KEYS = ("model", "trainer", "price", "run", "dataset", "dataset-paths")
# ftlint's error output quoted in the summary: at most so many lines of so many characters.
QUOTED_LINES, QUOTED_CHARS = 40, 500
# The outputs: name -> the estimate's figure (of the dataset after the change), besides errors, warnings and files.
FIGURES = {"records": "records", "tokens": "tokens_processed", "epochs": "epochs", "steps": "total_steps"}


class ActionError(Exception):
    """What stops the step before any check: one line, exit 2."""


@dataclass(frozen=True)
class Inputs:
    paths: tuple[str, ...]
    base: str | None
    model: str
    trainer: str
    run: str
    gates: tuple[tuple[str, str, float | int], ...]  # (flag without dashes, as given, limit) of each gate set
    fail_on: str
    dataset: bool = True

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Inputs:
        from .checked import OptionError
        from .options import Gates

        def get(name: str) -> str:
            return env.get(name, "").strip()

        gates = []
        for name, flag, field_name, _ in GATES:
            if get(name):
                try:
                    gates.append((flag, get(name), Gates.RULES[field_name](get(name))))
                except OptionError as exc:
                    raise ActionError(f"{flag}: {exc.reason}") from None
        base = get("INPUT_BASE") or (f"origin/{get('GITHUB_BASE_REF')}" if get("GITHUB_BASE_REF") else None)
        fail_on = get("INPUT_FAIL_ON") or "error"
        if fail_on not in ("error", "warning"):
            raise ActionError(f"fail-on: {fail_on!r} is not error or warning")
        dataset = get("INPUT_DATASET").lower() or "true"
        if dataset not in ("true", "false"):
            raise ActionError(f"dataset: {dataset!r} is not true or false")
        return cls(tuple(get("INPUT_PATHS").split()), base, get("INPUT_MODEL"), get("INPUT_TRAINER"), get("INPUT_RUN"),
                   tuple(gates), fail_on, dataset == "true")

    def judging(self) -> list[str]:
        """The flags check and estimate share (`--flag=value`: a value is never a flag)."""
        return [f"--{flag}={value}" for flag, value in (("model", self.model), ("trainer", self.trainer), ("run", self.run))
                if value]

    def dataset_flags(self) -> list[str]:
        return ["--dataset" if self.dataset else "--no-dataset", *(f"--dataset-paths={p}" for p in self.paths)]


def git(*args: str) -> bytes:
    from .repository import RepositoryError
    from .repository import git as run_git

    try:
        return run_git(*args)
    except RepositoryError as exc:
        raise ActionError(str(exc)) from None


def base_commit(base: str) -> str:
    """The commit the change is judged against: the merge base of `base` and HEAD, as a pull
    request's diff has it (`base` is checked as a revision: `--output=x` is no option)."""
    try:
        named = git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}").decode("ascii").strip()
    except ActionError:
        raise ActionError(f"base {base!r} is not a commit in this checkout (fetch it: actions/checkout with fetch-depth: 0)") from None
    try:
        return git("merge-base", "--end-of-options", named, "HEAD").decode("ascii").strip()
    except ActionError:
        raise ActionError(f"base {base!r} has no common history with HEAD (fetch it: actions/checkout with fetch-depth: 0)") from None


def changed_files(inputs: Inputs, base: str | None, deleted: bool = False) -> list[str]:
    """The data files the pull request adds or changes (every tracked one without a base), or with
    `deleted` those it removes, as they match `paths`. Names are git's bytes, as the file system
    takes them back (a non-UTF-8 byte is a surrogate escape, as in sys.argv)."""
    if base:
        listed = git("diff", "--name-only", f"--diff-filter={'D' if deleted else 'd'}", "--no-renames", "-z", "--end-of-options",
                     base, "HEAD", "--")
    else:
        listed = b"" if deleted else git("ls-files", "-z")
    names = [os.fsdecode(n) for n in listed.split(b"\0") if n]
    patterns = inputs.paths or ("**",)
    return [n for n in names if is_data(n) and any(glob_match(n, p) for p in patterns)]


def trusted(names: Sequence[str]) -> tuple[list[str], list[tuple[str, str]]]:
    """(the files to read, (name, why) of each other one): the trust rule of ftlint/trust.py."""
    files, refused = [], []
    for name in names:
        try:
            workspace_file(name, os.getcwd())
        except Refused as exc:
            refused.append((name, str(exc)))
        else:
            files.append(name)
    return files, refused


@dataclass
class Outcome:
    summary: list[str]
    outputs: dict[str, str]
    exit_code: int


def judge(inputs: Inputs, files: Sequence[str], base: str | None) -> Judged:
    """check, diff and estimate of the change in one reading, parsed as `ftlint --not-from-config
    WORKFLOW_KEYS check|estimate ...` parses them (the flags, then the repository's ftlint.toml)."""
    from .cli.change import judge_in_one_process

    checking = [*inputs.dataset_flags(), *inputs.judging(), f"--fail-on={inputs.fail_on}", "--", *files]
    estimating = [*inputs.judging(), *(f"--{flag}={given}" for flag, given, _ in inputs.gates)]
    return judge_in_one_process(checking, estimating, WORKFLOW_KEYS, base, "the pull request" if base else "HEAD")


def run(inputs: Inputs, files: Sequence[str], refused: Sequence[tuple[str, str]] = (), base: str | None = None,
        removed: Sequence[str] = ()) -> Outcome:
    """The change judged (one reading: findings annotated, the check's Markdown, the diff of the
    dataset against the base, the estimate of the dataset after the change), then the gates. The
    step fails as `check` and the gates do (exit 1), and with exit 2 when a file is refused or
    ftlint cannot judge (its error output quoted in the summary)."""
    from .diagnostics import fails
    from .report.change import DATASET_DIFF_RENDERERS
    from .report.estimate import ESTIMATE_RENDERERS

    summary = ["## ftlint", ""]
    for name, reason in refused:
        print(f"::error file={github_property(name)},title=ftlint::{github_data(shown_path(reason))}")
    if refused:
        summary += ["### ftlint: files not read", "", *(f"- {md_code(shown_path(reason))}" for _, reason in refused), ""]
    if not files and not (removed and inputs.dataset):
        if not refused:
            summary.append("No data file changed" + (f" against {md_code(inputs.base)}." if inputs.base else "."))
        return Outcome(summary, _outputs(len(refused), 0, None, 0), 2 if refused else 0)
    judged = judge(inputs, files, base)
    sys.stdout.write(judged.annotations)
    change = judged.change
    if judged.check:
        summary.append(judged.check)
    if change is not None and change.diff is not None:
        change.diff.base = inputs.base or change.diff.base
        summary.append(DATASET_DIFF_RENDERERS["markdown"](change.diff))
    estimate = change.estimate if change is not None else None
    if estimate is not None:
        summary.append(ESTIMATE_RENDERERS["markdown"](estimate))
    if judged.failure:
        summary.append(quoted(judged.failure))
    figures = estimate.estimate.to_dict() if estimate is not None and not judged.failure else None
    training = bool(change is not None and change.data.train.files) or judged.failure
    judged_gates, failing = gates(inputs, figures, bool(training))
    summary += judged_gates
    estimate_failing = estimate is not None and fails((d.severity for d in estimate.estimate.findings), inputs.fail_on)
    codes = [1 if judged.failing or estimate_failing or failing else 0, 2 if refused or judged.failure else 0]
    return Outcome(summary, _outputs(judged.errors + len(refused), _warnings(judged.annotations), figures, len(files)),
                   2 if 2 in codes else max(codes))


def _warnings(annotations: str) -> int:
    return sum(line.startswith("::warning ") for line in annotations.splitlines())


def _outputs(errors: int, warnings: int, figures: dict[str, object] | None, files: int) -> dict[str, str]:
    """The step's outputs: the findings on the changed files, and the dataset's figures after the change."""
    def number(name: str) -> str:
        value = figures.get(name) if figures else None
        return str(value) if isinstance(value, int) and not isinstance(value, bool) else ""

    cost = figures.get("cost_usd") if figures else None
    return {"errors": str(errors), "warnings": str(warnings), "cost": f"{cost:.4f}" if isinstance(cost, (int, float)) else "",
            "files": str(files), **{name: number(figure) for name, figure in FIGURES.items()}}


def quoted(said: list[str]) -> str:
    """ftlint's error output in a fence it cannot close, one line per line it wrote, so no HTML,
    link or heading of a file name renders."""
    quoted_lines = [line if len(line) <= QUOTED_CHARS else line[:QUOTED_CHARS] + " ..." for line in said[:QUOTED_LINES]]
    if len(said) > QUOTED_LINES:
        quoted_lines.append(f"... {len(said) - QUOTED_LINES} more lines")
    return "\n".join(["ftlint exited 2:", "", *md_fence(quoted_lines)]) + "\n"


def gates(inputs: Inputs, figures: dict[str, object] | None, estimated: bool) -> tuple[list[str], bool]:
    """The workflow's gates judged on the estimate's figures: its own verdict, whatever the
    repository's configuration ignores; a gate that has no estimate to judge fails, saying why."""
    if not inputs.gates:
        return [], False
    rows, failing = [], False
    for flag, given, limit in inputs.gates:
        name = next(figure for _, gate, _, figure in GATES if gate == flag)
        value = figures.get(name) if figures else None
        verdict = _judged(flag, limit, value, figures, estimated, inputs.dataset)
        failing = failing or verdict is not None
        rows.append(f"| {flag} | {('$' if flag == 'max-cost' else '') + given} | {_shown(flag, value)} | {'❌ ' + md_text(verdict) if verdict else '✅'} |")
        if verdict:
            print(f"::error title=ftlint {flag}::{github_data(verdict)}")
    head = f"### ftlint gates {'❌' if failing else '✅'}"
    return [head, "", "| gate | limit | estimate | verdict |", "|---|---:|---:|---|", *rows, ""], failing


def _shown(flag: str, value: object) -> str:
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "none"
    return f"${value:,.4f}" if flag == "max-cost" else f"{value:,}"


def _judged(flag: str, limit: float | int, value: object, figures: dict[str, object] | None, estimated: bool,
            dataset: bool) -> str | None:
    """Why the gate fails (None: it passes)."""
    if not estimated:
        return ("no estimate: the dataset holds no training file (every data file is named as a held-out split)" if dataset
                else "no estimate: every changed data file is named as a held-out split, none as training")
    if figures is None:
        return "no estimate: the estimate failed (its error is above)"
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        return "no estimate of the cost: the model has no price (give the workflow a priced model)" if flag == "max-cost" \
            else "no such figure in the estimate"
    if flag == "max-cost" and value > limit:
        return f"the run costs {_shown(flag, value)}, over the limit"
    if flag == "max-tokens" and value > limit:
        return f"{_shown(flag, value)} tokens processed, over the limit"
    if flag == "min-records" and value < limit:
        return f"{_shown(flag, value)} training records, under the limit"
    return None


def failed(message: str) -> Outcome:
    print(f"::error title=ftlint::{github_data(message)}")
    return Outcome(["## ftlint", "", f"> ftlint: {md_code(message)}"], {**_outputs(0, 0, None, 0), "errors": "", "warnings": ""}, 2)


def write_outputs(path: str, outputs: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.writelines(f"{key}={value}\n" for key, value in outputs.items())


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    # polars' allocator returns freed pages at once (as the CLI's main sets it), before polars loads
    os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
    try:
        inputs = Inputs.of(env)
        if inputs.run:
            try:
                workspace_file(inputs.run, os.getcwd())
            except Refused as exc:
                raise ActionError(f"run: {exc}") from None
        base = base_commit(inputs.base) if inputs.base else None
        files, refused = trusted(changed_files(inputs, base))
        outcome = run(inputs, files, refused, base, changed_files(inputs, base, deleted=True))
    except ActionError as exc:
        outcome = failed(str(exc))
    except Exception as exc:  # never a traceback: one line, and the summary and outputs still written
        outcome = failed(f"internal error (please report): {type(exc).__name__}: {exc}")
    for name, write in (("GITHUB_STEP_SUMMARY", lambda path: _append(path, "\n".join(outcome.summary) + "\n")),
                        ("GITHUB_OUTPUT", lambda path: write_outputs(path, outcome.outputs))):
        if env.get(name):
            try:
                write(env[name])
            except OSError as exc:
                print(f"::error title=ftlint::{github_data(f'{name}: cannot write it: {exc.strerror or exc}')}")
                outcome.exit_code = 2
    return outcome.exit_code


def _append(path: str, text: str) -> None:
    with open(path, "a", encoding="utf-8", errors="backslashreplace") as out:
        out.write(text)


if __name__ == "__main__":
    sys.exit(main())

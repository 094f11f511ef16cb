"""The GitHub Action (action.yml at the repository's root): check a pull request's changed data
files, annotate them, and write the job summary. Thin over the CLI: every figure comes from
`ftlint check`, `ftlint diff` and `ftlint estimate`, run as a user would run them.

    python -m ftlint.action        (action.yml runs it; it reads what the runner sets)

Read from the environment: the inputs (INPUT_PATHS, INPUT_MODEL, ... : action.yml maps each
input it declares to one, and tests/test_action.py holds the two lists equal), GITHUB_BASE_REF
(the pull request's base branch: the changed files are `git diff --name-only origin/BASE...HEAD`),
GITHUB_STEP_SUMMARY and GITHUB_OUTPUT (files the runner reads after the step).

The pull request is a stranger's: its file names, its files and its ftlint.toml. So every name
reaches a command line after `--` (a file named `--output-file=/x` is a file), the base after
`git rev-parse --verify --end-of-options`; names are read from git as bytes (`-z`: a newline or
a non-UTF-8 byte in a name is a name); a changed file is read only when it resolves inside the
workspace to a regular file (trust.workspace_file); the model, trainer, price and run config
are the workflow's (`--not-from-config`: the repository's values are said and not used), and
the gates are judged here, on the estimate's figures, whatever the repository's configuration
switches off. ftlint's error output lands in the summary inside a fence it cannot close.

What it costs: the changed files are read by `check` twice (the annotations, the summary), by
`estimate` twice (the summary, the figures as JSON) and by one `diff` with their base revision;
nothing is read that the pull request did not change.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import orjson

from .report.escape import github_data, github_property, md_code, md_fence, md_text, shown_path
from .trust import Refused, workspace_file

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
# The gates: input, estimate's flag, the rule of the value (ftlint/options.py Gates), the figure judged.
GATES = (("INPUT_MAX_COST", "max-cost", "max_cost_usd", "cost_usd"),
         ("INPUT_MAX_TOKENS", "max-tokens", "max_tokens", "tokens_processed"),
         ("INPUT_MIN_RECORDS", "min-records", "min_records", "records"))
# What the gate relies on, owned by the workflow: a repository's ftlint.toml may not change them.
WORKFLOW_KEYS = ("model", "trainer", "price", "run")
# ftlint's error output quoted in the summary: at most so many lines of so many characters.
QUOTED_LINES, QUOTED_CHARS = 40, 500

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
    gates: tuple[tuple[str, str, float | int], ...]  # (flag without dashes, as given, limit) of each gate set
    fail_on: str

    @classmethod
    def of(cls, env: Mapping[str, str]) -> Inputs:
        from .checked import OptionError
        from .options import Gates

        def get(name: str) -> str:
            return env.get(name, "").strip()

        gates = []
        for name, flag, field, _ in GATES:
            if get(name):
                try:
                    gates.append((flag, get(name), Gates.RULES[field](get(name))))
                except OptionError as exc:
                    raise ActionError(f"{flag}: {exc.reason}") from None
        base = get("INPUT_BASE") or (f"origin/{get('GITHUB_BASE_REF')}" if get("GITHUB_BASE_REF") else None)
        fail_on = get("INPUT_FAIL_ON") or "error"
        if fail_on not in ("error", "warning"):
            raise ActionError(f"fail-on: {fail_on!r} is not error or warning")
        return cls(tuple(get("INPUT_PATHS").split()), base, get("INPUT_MODEL"), get("INPUT_TRAINER"), get("INPUT_RUN"),
                   tuple(gates), fail_on)

    def judging(self) -> list[str]:
        """The flags check, diff and estimate share (`--flag=value`: a value is never a flag)."""
        return [f"--{flag}={value}" for flag, value in (("model", self.model), ("trainer", self.trainer), ("run", self.run))
                if value]


def glob_match(path: str, pattern: str) -> bool:
    """A git-style glob: `*` and `?` stay within a folder, `**/` is any number of folders, `**`
    anything. Matched by following every place in the pattern at once (a Thompson simulation),
    so time is the path's length times the pattern's, never exponential; any character of a
    name (a newline too) is a character."""
    tokens = re.findall(r"\*\*/|\*\*|\*|\?|.", pattern, re.DOTALL)
    end = len(tokens)

    def closure(places: set[int]) -> set[int]:
        # a star of any kind may match nothing
        more, todo = set(places), list(places)
        while todo:
            i = todo.pop()
            if i < end and tokens[i] in ("*", "**", "**/") and i + 1 not in more:
                more.add(i + 1)
                todo.append(i + 1)
        return more

    places, folders = closure({0}), set[int]()  # folders: "**/" tokens inside a folder name, before its "/"
    for ch in path:
        after: set[int] = set()
        inside: set[int] = set()
        for i in places | folders:
            token = tokens[i] if i < end else None
            if token == "**/" or i in folders:
                inside.add(i)
                if ch == "/":
                    after.add(i + 1)
            elif token == "**" or (token == "*" and ch != "/"):
                after.add(i)
            elif (token == "?" and ch != "/") or token == ch:
                after.add(i + 1)
        places, folders = closure(after), inside
        if not places and not folders:
            return False
    return end in places


def is_data(path: str) -> bool:
    return DATA_FILES.search(path) is not None and NOT_DATA.search(path) is None


def git(*args: str) -> bytes:
    try:
        done = subprocess.run(["git", *args], capture_output=True, stdin=subprocess.DEVNULL, check=False)
    except OSError as exc:
        raise ActionError(f"cannot run git: {exc.strerror or exc}") from None
    if done.returncode:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise ActionError(f"git {args[0]}: {said[-1] if said else 'failed'}")
    return done.stdout


def base_commit(base: str) -> str:
    """The commit `base` names, checked as a revision (a `base` of `--output=x` is no option)."""
    try:
        return git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{base}^{{commit}}").decode("ascii").strip()
    except ActionError:
        raise ActionError(f"base {base!r} is not a commit in this checkout (fetch it: actions/checkout with fetch-depth: 0)") from None


def changed_files(inputs: Inputs) -> list[str]:
    """The data files the pull request adds or changes (every tracked one without a base),
    as they match `paths`; deleted files are not there to check. Names are git's bytes, as the
    file system takes them back (a non-UTF-8 byte is a surrogate escape, as in sys.argv)."""
    if inputs.base:
        listed = git("diff", "--name-only", "--diff-filter=d", "-z", "--end-of-options", f"{base_commit(inputs.base)}...HEAD", "--")
    else:
        listed = git("ls-files", "-z")
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


def ftlint(*args: str) -> subprocess.CompletedProcess[str]:
    argv = [sys.executable, "-m", "ftlint", "--not-from-config", ",".join(WORKFLOW_KEYS), *args]
    return subprocess.run(argv, capture_output=True, stdin=subprocess.DEVNULL, encoding="utf-8", errors="replace", check=False)


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


def commands(inputs: Inputs, files: Sequence[str]) -> dict[str, list[str]]:
    """Each command the step runs, by what it is for: the files always after `--`."""
    from .splits import split_by_name

    judging = inputs.judging()
    checking = ["check", *judging, f"--fail-on={inputs.fail_on}"]
    out = {"annotations": [*checking, "-o", "github", "--", *files], "check": [*checking, "-o", "markdown", "--", *files]}
    if inputs.base:
        out["diff"] = ["diff", f"--rev={inputs.base}", *judging, "-o", "markdown", "--", *files]
    train, held = split_by_name(tuple(files))
    if train:
        validation = [f"--validation={held[0]}"] if len(held) == 1 else []
        gates = [f"--{flag}={given}" for flag, given, _ in inputs.gates]
        estimating = ["estimate", *judging, *gates, f"--fail-on={inputs.fail_on}", *validation]
        out["estimate"] = [*estimating, "-o", "markdown", "--", *train]
        out["figures"] = [*estimating, "-o", "json", "--", *train]
    return out


def run(inputs: Inputs, files: Sequence[str], refused: Sequence[tuple[str, str]] = ()) -> Outcome:
    """check (annotations on stdout, its Markdown in the summary), one diff of the files against
    the base, estimate of the training files, the gates. The step fails as `check` and the gates
    do (exit 1), and with exit 2 when a file is refused or a command cannot run."""
    summary = ["## ftlint", ""]
    for name, reason in refused:
        print(f"::error file={github_property(name)},title=ftlint::{github_data(shown_path(reason))}")
    if refused:
        summary += ["### ftlint: files not read", "", *(f"- {md_code(shown_path(reason))}" for _, reason in refused), ""]
    if not files:
        if not refused:
            summary.append("No data file changed" + (f" against {md_code(inputs.base)}." if inputs.base else "."))
        return Outcome(summary, {"errors": str(len(refused)), "warnings": "0", "cost": "", "files": "0"}, 2 if refused else 0)
    planned = commands(inputs, files)
    done = dict(zip(planned, ftlint_all(list(planned.values())), strict=True))
    annotated = done["annotations"]
    sys.stdout.write(annotated.stdout)
    sys.stderr.write(annotated.stderr)
    lines = annotated.stdout.splitlines()
    summary += [section(done[name]) for name in ("check", "diff", "estimate") if name in done]
    figures = _figures(done.get("figures"))
    judged, failing = gates(inputs, figures, "figures" in done)
    summary += judged
    codes = [annotated.returncode, done["estimate"].returncode if "estimate" in done else 0, 1 if failing else 0,
             2 if refused or any(d.returncode == 2 for d in done.values()) else 0]
    cost = figures.get("cost_usd") if figures else None
    outputs = {"errors": str(sum(line.startswith("::error ") for line in lines) + len(refused)),
               "warnings": str(sum(line.startswith("::warning ") for line in lines)),
               "cost": f"{cost:.4f}" if isinstance(cost, (int, float)) else "", "files": str(len(files))}
    return Outcome(summary, outputs, 2 if 2 in codes else max(codes))


def section(done: subprocess.CompletedProcess[str]) -> str:
    """A command's Markdown; and its error output (exit 2, or no report) in a fence it cannot
    close, one line per line it wrote, so no HTML, link or heading of a file name renders."""
    if done.returncode != 2 and done.stdout.strip():
        return done.stdout
    said = done.stderr.splitlines() or ["no output"]
    quoted = [line if len(line) <= QUOTED_CHARS else line[:QUOTED_CHARS] + " ..." for line in said[:QUOTED_LINES]]
    if len(said) > QUOTED_LINES:
        quoted.append(f"... {len(said) - QUOTED_LINES} more lines")
    return done.stdout + "\n".join([f"ftlint exited {done.returncode}:", "", *md_fence(quoted)]) + "\n"


def _figures(done: subprocess.CompletedProcess[str] | None) -> dict[str, object] | None:
    """The estimate's figures (its JSON), or None without an estimate or when it failed."""
    if done is None or done.returncode == 2:
        return None
    try:
        figures = orjson.loads(done.stdout)
    except orjson.JSONDecodeError:
        return None
    return figures if isinstance(figures, dict) else None


def gates(inputs: Inputs, figures: dict[str, object] | None, estimated: bool) -> tuple[list[str], bool]:
    """The workflow's gates judged on the estimate's figures: its own verdict, whatever the
    repository's configuration ignores; a gate that has no estimate to judge fails, saying why."""
    if not inputs.gates:
        return [], False
    rows, failing = [], False
    for flag, given, limit in inputs.gates:
        name = next(figure for _, gate, _, figure in GATES if gate == flag)
        value = figures.get(name) if figures else None
        verdict = _judged(flag, limit, value, figures, estimated)
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


def _judged(flag: str, limit: float | int, value: object, figures: dict[str, object] | None, estimated: bool) -> str | None:
    """Why the gate fails (None: it passes)."""
    if not estimated:
        return "no estimate: every changed data file is named as a held-out split, none as training"
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
    return Outcome(["## ftlint", "", f"> ftlint: {md_code(message)}"], {"errors": "", "warnings": "", "cost": "", "files": "0"}, 2)


def write_outputs(path: str, outputs: Mapping[str, str]) -> None:
    with open(path, "a", encoding="utf-8") as out:
        out.writelines(f"{key}={value}\n" for key, value in outputs.items())


def main(env: Mapping[str, str] | None = None) -> int:
    env = os.environ if env is None else env
    try:
        inputs = Inputs.of(env)
        if inputs.run:
            try:
                workspace_file(inputs.run, os.getcwd())
            except Refused as exc:
                raise ActionError(f"run: {exc}") from None
        outcome = run(inputs, *trusted(changed_files(inputs)))
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

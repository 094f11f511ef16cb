"""`ftlint diff BASE HEAD`: what a data pull request changes.

Both sides go through the same pipeline and estimate as `ftlint check` and `ftlint estimate`
(ftlint/app.py), so all three agree on a file's format, limit and tokens. Records are matched by
content, not by line: a record in HEAD whose exact fingerprint is in BASE is unchanged wherever
it moved. Of the rest, a HEAD record whose prompt (everything before its first target) matches a
removed BASE record is *changed* (an edited answer); the others are added or removed. Findings
are matched by (code, message, JSON path, the record's fingerprint), so a known problem that
moved is not new, and a new record with a known kind of problem is.

Git: REV:PATH is read with `git cat-file` after the revision is checked with `git rev-parse`,
each called with `--end-of-options`, so nothing in a spec can be taken for an option (a revision
starting with `-` is refused: no ref can). A revision that exists but has no such file is an
empty side (the first data pull request of a repository: every record is added); a path that is
a folder in that revision is an error. With `rev` (`ftlint diff --rev REV PATH...`) the base is
always git's REV:./PATH, never a file that happens to be named so.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .app import Data, analyse_data, estimate_data
from .diagnostics import Diagnostic, fails
from .engine import Analysis
from .models import default_model
from .options import PlanOptions, RunOptions
from .resolve import resolve_run

if TYPE_CHECKING:
    import polars as pl

GIT_TIMEOUT = 300


class DiffInputError(Exception):
    pass


def _git(*args: str) -> subprocess.CompletedProcess[bytes]:
    try:
        return subprocess.run(["git", *args], capture_output=True, timeout=GIT_TIMEOUT)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DiffInputError(f"cannot run git: {exc}") from None


def _last_line(output: bytes) -> str:
    lines = output.decode("utf-8", "replace").strip().splitlines()
    return lines[-1] if lines else "no output"


@contextmanager
def resolve(spec: str) -> Iterator[str | None]:
    """Yield the path to read for a side: the file itself, a temporary copy of REV:PATH (removed
    afterwards), or None for a revision that has no such file."""
    if spec == "-" or os.path.exists(spec) or ":" not in spec:
        yield spec
        return
    rev, _, _ = spec.partition(":")
    with _from_git(spec, rev) as path:
        yield path


@contextmanager
def in_revision(rev: str, path: str) -> Iterator[str | None]:
    """resolve for PATH as the git revision REV holds it (REV:./PATH, from the working directory)."""
    if not rev:
        raise DiffInputError(f"--rev {rev!r}: not a git revision")
    relative = os.path.relpath(path) if os.path.isabs(path) else path
    with _from_git(f"{rev}:./{relative}", rev, f"{rev}:{path}") as found:
        yield found


def _side(spec: str, rev: str | None) -> AbstractContextManager[str | None]:
    return resolve(spec) if rev is None else in_revision(rev, spec)


@contextmanager
def _from_git(spec: str, rev: str, shown: str | None = None) -> Iterator[str | None]:
    shown = shown or spec
    if rev.startswith("-"):
        raise DiffInputError(f"{shown}: a revision may not start with '-'")
    if rev:
        known = _git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}")
        if known.returncode != 0:
            raise DiffInputError(f"{shown}: not a file, and {rev!r} is not a git revision here")
    kind = _git("cat-file", "-t", "--end-of-options", spec)
    if kind.returncode != 0:
        if rev:  # the revision exists; the file does not (yet) in it
            yield None
            return
        raise DiffInputError(f"{shown}: not a file, and git cannot show it ({_last_line(kind.stderr)})")
    if kind.stdout.strip() != b"blob":
        raise DiffInputError(f"{shown}: is a {kind.stdout.decode('ascii', 'replace').strip()} in git, not a file")
    blob = _git("cat-file", "blob", "--end-of-options", spec)
    if blob.returncode != 0:
        raise DiffInputError(f"{shown}: git cannot show it ({_last_line(blob.stderr)})")
    suffix = ".jsonl.gz" if spec.endswith(".gz") else ".jsonl"
    fd, tmp = tempfile.mkstemp(prefix="ftlint-diff-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(blob.stdout)
        yield tmp
    finally:
        os.unlink(tmp)


@dataclass
class Side:
    name: str
    diagnostics: list[Diagnostic]
    exact: list[int]  # per record, in order
    prompt: list[int]


@dataclass
class DiffResult:
    base: str
    head: str
    records_base: int
    records_head: int
    added: int
    removed: int
    changed: int
    new_findings: list[Diagnostic] = field(default_factory=list)
    fixed_findings: int = 0
    estimates: dict[str, dict] = field(default_factory=dict)  # "base"/"head" -> estimate dict
    io_errors: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    @property
    def failing(self) -> bool:
        return fails(d.severity for d in self.new_findings)


def run_diff(base: str, head: str, run: RunOptions, plan: PlanOptions, rev: str | None = None) -> DiffResult:
    """BASE against HEAD; with `rev`, BASE is the path `base` in that git revision."""
    sides: list[Side] = []
    estimates: dict[str, dict] = {}
    io_errors: list[str] = []
    notes: list[str] = []
    for label, spec in (("base", base), ("head", head)):
        side_rev = rev if label == "base" else None
        with _side(spec, side_rev) as path:
            spec = spec if side_rev is None else f"{side_rev}:{spec}"
            found: list[Diagnostic] = []
            if path is None:
                resolved = resolve_run(run)
                model = resolved.model or default_model("openai-chat", resolved.today)
                data = Data(resolved, model, Analysis(), None, today=resolved.today.isoformat())
                notes.append(f"{spec}: no such file in that revision: an empty {label}, every record is added")
            else:
                side_run = dataclasses.replace(run, paths=(path,), labels=((path, spec),))
                data = analyse_data(resolve_run(side_run), found.append)
            io_errors += data.io_errors
            prints = data.train.fingerprints()  # a line's records repeat its fingerprints
            sides.append(Side(spec, found, per_record(prints, "exact"), per_record(prints, "prompt")))
            estimates[label] = estimate_data(data, plan).estimate.to_dict()
    outcome = compare(*sides)
    outcome.estimates, outcome.io_errors, outcome.notes = estimates, io_errors, notes
    return outcome


def per_record(prints: pl.DataFrame, column: str) -> list[int]:
    """A fingerprint column, once per record (a line's records repeat its fingerprints)."""
    return [value for value, n in zip(prints[column].to_list(), prints["records"].to_list(), strict=True) for _ in range(n)]


def compare(base: Side, head: Side) -> DiffResult:
    base_exact, head_exact = Counter(base.exact), Counter(head.exact)
    only_head = head_exact - base_exact
    only_base = base_exact - head_exact
    # prompts of the records only one side has, with multiplicity
    removed_prompts = Counter(p for e, p in zip(base.exact, base.prompt, strict=True) if _take(only_base, e))
    only_head_left = Counter(only_head)
    added_prompts = Counter(p for e, p in zip(head.exact, head.prompt, strict=True) if _take(only_head_left, e))
    changed = sum((removed_prompts & added_prompts).values())
    added = sum(added_prompts.values()) - changed
    removed = sum(removed_prompts.values()) - changed

    def key(d: Diagnostic) -> tuple[str, str | None, str]:
        # a finding on a record: its code, place and the record's content (a message may name
        # another line, which moves); on the file as a whole: its code and message
        return (d.code, d.pointer, d.fingerprint) if d.fingerprint else (d.code, d.pointer, d.message)

    remaining = Counter(key(d) for d in base.diagnostics)
    new = []
    for d in head.diagnostics:
        if remaining[key(d)] > 0:
            remaining[key(d)] -= 1
        else:
            new.append(d)
    fixed = sum(remaining.values())
    return DiffResult(base.name, head.name, len(base.exact), len(head.exact), added, removed, changed, new, fixed)


def _take(counter: Counter, key: int) -> bool:
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False

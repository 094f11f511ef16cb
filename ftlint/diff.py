"""`ftlint diff BASE HEAD`: what a data pull request changes.

Records are matched by content, not by line: a record in HEAD whose exact fingerprint is in
BASE is unchanged wherever it moved. Of the rest, a HEAD record whose prompt (everything before
its first target) matches a removed BASE record is *changed* (an edited answer); the others are
added or removed. Findings are matched the same way, by (code, message, JSON path, record), so
a known problem that moved is not new.
"""

from __future__ import annotations

import os
import subprocess
import tempfile
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

from .diagnostics import ERROR, Diagnostic


class DiffInputError(Exception):
    pass


@contextmanager
def resolve(spec: str) -> Iterator[tuple[str, str]]:
    """Yield (path to read, name to show). A spec that is not a file but looks like
    REV:PATH is read with `git show` into a temporary file, removed afterwards."""
    if spec == "-" or os.path.exists(spec) or ":" not in spec:
        yield spec, spec
        return
    try:
        shown = subprocess.run(["git", "show", spec], capture_output=True, timeout=300)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise DiffInputError(f"{spec}: cannot run git: {exc}") from None
    if shown.returncode != 0:
        reason = shown.stderr.decode("utf-8", "replace").strip().splitlines()
        raise DiffInputError(f"{spec}: not a file, and git cannot show it ({reason[-1] if reason else 'no output'})")
    suffix = ".jsonl.gz" if spec.endswith(".gz") else ".jsonl"
    fd, tmp = tempfile.mkstemp(prefix="ftlint-diff-", suffix=suffix)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(shown.stdout)
        yield tmp, spec
    finally:
        os.unlink(tmp)


@dataclass
class Side:
    name: str
    diagnostics: list[Diagnostic]
    exact: list[int]  # per record, in order
    prompt: list[int]
    line_exact: dict[int, int]  # line -> exact fingerprint of its record


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

    @property
    def failing(self) -> bool:
        return any(d.severity == ERROR for d in self.new_findings)


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

    def keys(side: Side) -> list[tuple[tuple, Diagnostic]]:
        return [((d.code, d.message, d.pointer, side.line_exact.get(d.line)), d) for d in side.diagnostics]

    base_keys = Counter(k for k, _ in keys(base))
    remaining = Counter(base_keys)
    new = []
    for key, d in keys(head):
        if remaining[key] > 0:
            remaining[key] -= 1
        else:
            new.append(d)
    fixed = sum(remaining.values())
    return DiffResult(base.name, head.name, len(base.exact), len(head.exact), added, removed, changed, new, fixed)


def _take(counter: Counter, key: int) -> bool:
    if counter[key] > 0:
        counter[key] -= 1
        return True
    return False

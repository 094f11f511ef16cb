"""Which findings a run shows (--dataset, ftlint/change.py): the changed files' only. The dataset's
other files are read for their figures and fingerprints, never reported on; and the provider's
minimum (FT401) is the dataset's training set's, said on the change."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic, Hit
from .redact import redact

if TYPE_CHECKING:
    from .engine import Analysis
    from .formats import Format
    from .resolve import Run

Emit = Callable[[Diagnostic], None]


class _Shown:
    """`emit`, for the findings of the files shown (a reporter's runs of findings kept as runs)."""

    def __init__(self, emit: Emit, hidden: frozenset[str]) -> None:
        self.inner, self.hidden = emit, hidden

    def __call__(self, d: Diagnostic) -> None:
        if d.path not in self.hidden:
            self.inner(d)

    def run(self, d: Diagnostic, last: int) -> None:
        if d.path in self.hidden:
            return
        run = getattr(self.inner, "run", None)
        if run is not None:
            run(d, last)
            return
        for line in range(d.line, last + 1):
            self.inner(dataclasses.replace(d, line=line))


@dataclass(frozen=True)
class Shown:
    """The files a run shows findings on (RunOptions.changed), by the names findings give files."""

    names: frozenset[str]  # the changed files'
    hidden: frozenset[str]  # the others', masked as a finding's path is

    @classmethod
    def of(cls, run: Run) -> Shown | None:
        options = run.options
        if options.changed is None:
            return None
        labels = dict(run.settings.labels)

        def name(path: str) -> str:
            return labels.get(path) or path

        changed = {name(p) for p in options.changed}
        others = {name(p) for p in (*options.paths, *options.validation_files)} - changed
        return cls(frozenset(changed), frozenset(redact(n) for n in others))

    def changed(self, path: str) -> bool:
        return path in self.names

    def emit(self, emit: Emit) -> Emit:
        return _Shown(emit, self.hidden)


def dataset_minimum(train: Analysis, fmt: Format, run: Run, shown: Shown | None) -> list[Diagnostic]:
    """FT401 of the training set as a whole, on the first changed training file (the change that
    leaves the dataset short), else the first changed file, else (every file shown) the first one."""
    from .engine.verdict import Verdict
    from .rules import checks
    from .rules.context import FileContext, FileSummary

    whole = FileSummary(path="", format=fmt.name)
    for summary in train.files:
        whole.add(summary)
    names = [f.path for f in train.files]
    if shown is None:
        place = names[0] if names else ""
    else:  # a change that only removes files has none to put it on
        place = ([p for p in names if shown.changed(p)] or sorted(shown.names) or [""])[0]
    verdict = Verdict(fmt, run.settings.selection.for_path(place), run.settings.trainer)
    ctx = FileContext(fmt, True, dataset_files=len(names))
    hits = [("FT401", hit) for c in checks("file") if "FT401" in c.codes for hit in c.func(whole, ctx)]
    return verdict.findings(place, [(code, Hit(hit.message)) for code, hit in hits])

"""Which findings a run shows (--dataset, ftlint/change.py): the changed files' only. The dataset's
other files are read for their figures and fingerprints, never reported on; and the provider's
minimum (FT401) is the dataset's training set's, said on the change (engine/phases.py)."""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic
from .redact import redact

if TYPE_CHECKING:
    from .options import RunOptions

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
    def of(cls, options: RunOptions) -> Shown | None:
        if options.changed is None:
            return None
        labels = dict(options.labels)

        def name(path: str) -> str:
            return labels.get(path) or path

        changed = {name(p) for p in options.changed}
        others = {name(p) for p in (*options.paths, *options.validation_files)} - changed
        return cls(frozenset(changed), frozenset(redact(n) for n in others))

    def changed(self, path: str) -> bool:
        return path in self.names

    def emit(self, emit: Emit) -> Emit:
        return _Shown(emit, self.hidden)

    def first(self, names: list[str]) -> str:
        """Where a finding of the training set as a whole is said: on the first changed file of
        `names` (the change that leaves the dataset short), else the first changed file; "" when
        a change only removes files, which has none to put it on."""
        return ([p for p in names if self.changed(p)] or sorted(self.names) or [""])[0]

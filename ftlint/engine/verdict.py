"""The one gate from a rule's hit to a finding (flake8's StyleGuide.handle_error): the code's
severity (the registry's, the format's own where its provider decides otherwise, the trainer's on
a format it shares), the selection's choice (--select, --ignore, [per-file-ignores]), and the
masking of secrets in what the finding says. Every rule phase (line, record, file, dataset,
split, trainer, model, plan) and `convert` make their findings here and nowhere else."""

from __future__ import annotations

from collections import abc
from typing import TYPE_CHECKING

from ..diagnostics import OFF, Diagnostic
from ..redact import redact
from ..rules import severity

if TYPE_CHECKING:
    from ..diagnostics import Hit
    from ..formats import Format


def _everything(code: str) -> bool:
    return True


class Verdict:
    """The reported severity of each code for one file and format (None: not reported), and the
    findings made at it."""

    def __init__(self, fmt: Format | None, allowed: abc.Callable[[str], bool] = _everything, trainer: str = "") -> None:
        from ..formats.registry import severities_for
        from ..trainers import TRAINERS

        self.allowed = allowed
        own = TRAINERS.get(trainer)
        shared = own.checks_as.get(fmt.name) if own is not None and fmt is not None else None
        # the format's own and the trainer's on a format it shares (no format: the registry's), then the trainer's own
        overrides = severities_for(fmt, shared) if fmt is not None else None
        if own is not None and own.severities:
            overrides = {**(overrides or {}), **own.severities}
        self.overrides = overrides
        self.known: dict[str, str | None] = {}
        self.shown: dict[str, str] = {}  # each path masked once (a file's findings all name it)

    def __call__(self, code: str) -> str | None:
        found = self.known.get(code, "")
        if found == "":
            level = severity(code, self.overrides)
            found = level if level != OFF and self.allowed(code) else None
            self.known[code] = found
        return found

    def finding(self, path: str, line: int, code: str, hit: Hit, fingerprint: str = "",
                col: int | None = None) -> Diagnostic | None:
        """The hit as the finding every output shows (None: its code is not reported): the path,
        message and JSON path with secrets masked."""
        level = self(code)
        if level is None:
            return None
        shown = self.shown.get(path)
        if shown is None:
            shown = self.shown[path] = redact(path)
        return Diagnostic(shown, line, hit.col if col is None else col, code, redact(hit.message), level,
                          hit.pointer and redact(hit.pointer), fingerprint)

    def findings(self, path: str, hits: abc.Iterable[tuple[str, Hit]], line: int = 0,
                 fingerprint: str = "") -> list[Diagnostic]:
        """The reported findings of some (code, hit) pairs on one line (0: on the file, column 0)."""
        col = None if line else 0
        return [d for code, hit in hits if (d := self.finding(path, line, code, hit, fingerprint, col)) is not None]

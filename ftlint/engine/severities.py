"""The severity each code is reported at, for one file: the registry's, the format's own where its
provider decides otherwise, the trainer's on a format it shares, and the selection's choice."""

from __future__ import annotations

from collections import abc
from typing import TYPE_CHECKING

from ..diagnostics import OFF
from ..rules import severity

if TYPE_CHECKING:
    from ..formats import Format


class Severities:
    """The reported severity of each code for one file and format (None: not reported)."""

    def __init__(self, fmt: Format, allowed: abc.Callable[[str], bool], trainer: str = "") -> None:
        from ..formats.registry import severities_for
        from ..trainers import TRAINERS

        self.fmt, self.allowed = fmt, allowed
        shared = TRAINERS[trainer].checks_as.get(fmt.name) if trainer else None
        # the format's own, the trainer's on a format it shares, and the trainer's own
        self.overrides = {**severities_for(fmt, shared), **(TRAINERS[trainer].severities if trainer else {})}
        self.known: dict[str, str | None] = {}

    def __call__(self, code: str) -> str | None:
        found = self.known.get(code, "")
        if found == "":
            level = severity(code, self.overrides)
            found = level if level != OFF and self.allowed(code) else None
            self.known[code] = found
        return found

"""Reporters, one per output format, in a dict by name. Only the CLI and reporters print.

Two protocols: check's reporters stream the findings as they are found (report/check.py: start,
diagnostic, finish); every other report is rendered whole from one use case's result
(report/renderer.py `Renderer`: result -> text), one dict of renderers per report.

Each report is imported where it is used (`from ftlint.report import X` still works): importing one
report costs none of the others', so `ftlint models` loads no engine, and `check` no estimate."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .check import CHECK_REPORTERS
    from .estimate import ESTIMATE_RENDERERS

__all__ = ["CHECK_REPORTERS", "ESTIMATE_RENDERERS"]


def __getattr__(name: str) -> Any:
    if name == "CHECK_REPORTERS":
        from .check import CHECK_REPORTERS

        return CHECK_REPORTERS
    if name == "ESTIMATE_RENDERERS":
        from .estimate import ESTIMATE_RENDERERS

        return ESTIMATE_RENDERERS
    raise AttributeError(name)

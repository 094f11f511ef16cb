"""Reporters, one per output format, in a dict by name. Only the CLI and reporters print."""

from __future__ import annotations

from typing import Any

from .check import CHECK_REPORTERS

__all__ = ["CHECK_REPORTERS", "ESTIMATE_RENDERERS"]


def __getattr__(name: str) -> Any:
    if name == "ESTIMATE_RENDERERS":  # `check` never imports the estimate's modules
        from .estimate import ESTIMATE_RENDERERS

        return ESTIMATE_RENDERERS
    raise AttributeError(name)

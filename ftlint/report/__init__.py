"""Reporters, one per output format, in a dict by name. Only the CLI and reporters print."""

from __future__ import annotations

from .check import CHECK_REPORTERS
from .estimate import ESTIMATE_RENDERERS

__all__ = ["CHECK_REPORTERS", "ESTIMATE_RENDERERS"]

"""ftlint: a preflight linter for fine-tuning datasets.

The Python API (ftlint/api.py) is reached from here: `ftlint.check`, `ftlint.estimate`,
`ftlint.check_records`, `ftlint.summarise`, `ftlint.merge`. It is imported on first use, so
`import ftlint` (and the CLI's start-up) stays light.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

__all__ = ["CheckResult", "Estimate", "Summary", "UsageError", "__version__", "check", "check_records", "estimate", "merge",
           "summarise"]
API = frozenset(__all__) - {"__version__"}

if TYPE_CHECKING:
    from .api import CheckResult, Estimate, Summary, UsageError, check, check_records, estimate, merge, summarise


def __getattr__(name: str) -> Any:
    if name in API:
        from . import api

        return getattr(api, name)
    raise AttributeError(f"module 'ftlint' has no attribute {name!r}")

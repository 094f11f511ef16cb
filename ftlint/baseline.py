"""Baselines: adopt ftlint on an existing dataset and fail only on new findings.

A baseline is the JSON output of `ftlint check -o json` (write it with --output-file). A finding
is known when the baseline holds one with the same path, code, message and JSON path; line
numbers are not compared, so inserting or deleting lines above a known finding keeps it known.
Each baseline entry excuses one finding: a second identical finding is new.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from .diagnostics import Diagnostic


class BaselineError(Exception):
    pass


Key = tuple[str, str, str, str | None]


class Baseline:
    def __init__(self, keys: Counter[Key]) -> None:
        self.remaining = keys
        self.suppressed = 0

    @classmethod
    def load(cls, path: str) -> Baseline:
        try:
            with open(path, encoding="utf-8") as fh:
                data = json.load(fh)
        except FileNotFoundError:
            raise BaselineError(f"--baseline {path}: no such file") from None
        except (OSError, ValueError) as exc:
            raise BaselineError(f"--baseline {path}: not a JSON findings list ({exc})") from None
        if not isinstance(data, list) or not all(isinstance(f, dict) and {"path", "code", "message"} <= set(f) for f in data):
            raise BaselineError(f"--baseline {path}: expected the output of `ftlint check -o json`")
        return cls(Counter((f["path"], f["code"], f["message"], f.get("pointer")) for f in data))

    def filter(self, emit: Callable[[Diagnostic], None]) -> Callable[[Diagnostic], None]:
        def known_or_emit(d: Diagnostic) -> None:
            key = (d.path, d.code, d.message, d.pointer)
            if self.remaining[key] > 0:
                self.remaining[key] -= 1
                self.suppressed += 1
            else:
                emit(d)

        return known_or_emit

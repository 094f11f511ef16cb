"""Baselines: adopt ftlint on an existing dataset and fail only on new findings.

A baseline is the JSON output of `ftlint check -o json` (write it with --output-file). A finding
is known when the baseline holds one with the same path, code, message, JSON path and record
fingerprint (the record's content); line numbers are not compared, so inserting or deleting
lines above a known finding keeps it known, and a new record with the same problem as a known
one is new, wherever it lands. Each baseline entry excuses one finding. Entries without a
fingerprint (older baselines, or findings on a whole file) match on the rest.

A baseline is read whole, so it must be a regular file of at most 256 MiB (trust.MAX_BASELINE_BYTES),
read by trust.read_text: a FIFO or a device is refused at once, without blocking.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable

from .diagnostics import Diagnostic
from .trust import MAX_BASELINE_BYTES, Refused, read_text


class BaselineError(Exception):
    pass


Key = tuple[str, str, str, str | None, str]


def _key(path: str, code: str, message: str, pointer: str | None, fingerprint: str) -> Key:
    return path, code, message, pointer, fingerprint


class Baseline:
    def __init__(self, keys: Counter[Key]) -> None:
        self.remaining = keys
        self.suppressed = 0

    @classmethod
    def load(cls, path: str) -> Baseline:
        try:
            data = json.loads(read_text(path, "--baseline", MAX_BASELINE_BYTES))
        except Refused as exc:
            raise BaselineError(str(exc)) from None
        except (ValueError, RecursionError) as exc:
            raise BaselineError(f"--baseline {path}: not a JSON findings list ({type(exc).__name__})") from None
        if not isinstance(data, list) or not all(isinstance(f, dict) and {"path", "code", "message"} <= set(f) for f in data):
            raise BaselineError(f"--baseline {path}: expected the output of `ftlint check -o json`")
        return cls(Counter(_key(str(f["path"]), str(f["code"]), str(f["message"]), f.get("pointer"),
                                str(f.get("fingerprint") or "")) for f in data))

    def filter(self, emit: Callable[[Diagnostic], None]) -> Callable[[Diagnostic], None]:
        legacy = Counter({k[:4]: n for k, n in self.remaining.items() if not k[4]})

        def known_or_emit(d: Diagnostic) -> None:
            key = _key(d.path, d.code, d.message, d.pointer, d.fingerprint)
            if self.remaining[key] > 0:
                self.remaining[key] -= 1
                self.suppressed += 1
            elif legacy[key[:4]] > 0:  # an entry without a fingerprint
                legacy[key[:4]] -= 1
                self.suppressed += 1
            else:
                emit(d)

        return known_or_emit

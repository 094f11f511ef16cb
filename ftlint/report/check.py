"""Reporters for `ftlint check`: findings stream out as they are found."""

from __future__ import annotations

from collections import Counter
from typing import IO

import orjson

from ..diagnostics import ERROR, WARNING, Diagnostic
from ..engine import Analysis


def concise(d: Diagnostic) -> str:
    """path:line:col: CODE message ($.json.path), the shape editors and CI logs understand."""
    where = f" ({d.pointer})" if d.pointer else ""
    return f"{d.path}:{d.line}:{d.col}: {d.code} {d.message}{where}"


class TextReporter:
    def __init__(self, out: IO[str], max_shown: int | None) -> None:
        self.out = out
        self.max_shown = max_shown
        self.shown = 0
        self.by_code: Counter[tuple[str, str]] = Counter()

    def start(self) -> None:
        pass

    def diagnostic(self, d: Diagnostic) -> None:
        self.by_code[(d.severity, d.code)] += 1
        if self.max_shown is None or self.shown < self.max_shown:
            self.out.write(concise(d) + "\n")
            self.shown += 1

    def finish(self, result: Analysis) -> None:
        total = sum(self.by_code.values())
        if self.max_shown is not None and total > self.shown:
            self.out.write(f"... {total - self.shown} more finding(s) not shown (--max-errors {self.max_shown})\n")
        files = len(result.files)
        valid = sum(f.valid for f in result.files)
        blank = sum(f.blank for f in result.files)
        self.out.write(
            f"checked {files} file{'s' if files != 1 else ''}, {result.lines:,} line{'s' if result.lines != 1 else ''}: "
            f"{valid:,} valid, {result.invalid:,} with errors ({blank:,} blank)\n"
        )
        parts = []
        for severity in (ERROR, WARNING):
            codes = sorted((code, n) for (sev, code), n in self.by_code.items() if sev == severity)
            n = sum(c for _, c in codes)
            detail = f" ({', '.join(f'{code} x{c}' for code, c in codes)})" if codes else ""
            parts.append(f"{n:,} {severity}{'s' if n != 1 else ''}{detail}")
        self.out.write(", ".join(parts) + "\n")


class JsonReporter:
    """A JSON array of findings, written as they come so memory stays flat."""

    def __init__(self, out: IO[str], max_shown: int | None) -> None:
        self.out = out
        self.max_shown = max_shown
        self.shown = 0

    def start(self) -> None:
        self.out.write("[")

    def diagnostic(self, d: Diagnostic) -> None:
        if self.max_shown is not None and self.shown >= self.max_shown:
            return
        self.out.write(("," if self.shown else "") + "\n  " + orjson.dumps(d.to_dict()).decode())
        self.shown += 1

    def finish(self, result: Analysis) -> None:
        self.out.write("\n]\n" if self.shown else "]\n")


CHECK_REPORTERS = {"text": TextReporter, "json": JsonReporter}

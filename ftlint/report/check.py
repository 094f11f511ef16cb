"""Reporters for `ftlint check`: findings stream out as they are found."""

from __future__ import annotations

import os
from collections import Counter
from typing import IO

import orjson

from ..diagnostics import ERROR, WARNING, Diagnostic
from ..engine import Analysis
from ..rules import load_all
from .shared import github_annotation, md_escape, sarif_log, sarif_result


def concise(d: Diagnostic) -> str:
    """path:line:col: CODE message ($.json.path), the shape editors and CI logs understand."""
    where = f" ({d.pointer})" if d.pointer else ""
    return f"{d.path}:{d.line}:{d.col}: {d.code} {d.message}{where}"


class Reporter:
    """Counts every finding; shows at most `max_shown` of them."""

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
            self.show(d)
            self.shown += 1

    def show(self, d: Diagnostic) -> None:
        raise NotImplementedError

    @property
    def hidden(self) -> int:
        return sum(self.by_code.values()) - self.shown

    def finish(self, result: Analysis) -> None:
        pass

    def summary_lines(self, result: Analysis) -> list[str]:
        files = len(result.files)
        valid = sum(f.valid for f in result.files)
        blank = sum(f.blank for f in result.files)
        head = (f"checked {files} file{'s' if files != 1 else ''}, {result.lines:,} line{'s' if result.lines != 1 else ''}: "
                f"{valid:,} valid, {result.invalid:,} with errors ({blank:,} blank)")
        parts = []
        for severity in (ERROR, WARNING):
            codes = sorted((code, n) for (sev, code), n in self.by_code.items() if sev == severity)
            n = sum(c for _, c in codes)
            detail = f" ({', '.join(f'{code} x{c}' for code, c in codes)})" if codes else ""
            parts.append(f"{n:,} {severity}{'s' if n != 1 else ''}{detail}")
        return [head, ", ".join(parts)]


def use_color(out: IO[str]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org)."""
    return not os.environ.get("NO_COLOR") and hasattr(out, "isatty") and out.isatty()


class TextReporter(Reporter):
    def start(self) -> None:
        self.color = use_color(self.out)

    def show(self, d: Diagnostic) -> None:
        if not self.color:
            self.out.write(concise(d) + "\n")
            return
        import click

        where = f" {click.style(f'({d.pointer})', dim=True)}" if d.pointer else ""
        code = click.style(d.code, fg="red" if d.severity == ERROR else "yellow", bold=True)
        self.out.write(f"{click.style(f'{d.path}:{d.line}:{d.col}:', bold=True)} {code} {d.message}{where}\n")

    def finish(self, result: Analysis) -> None:
        if self.hidden:
            self.out.write(f"... {self.hidden} more finding(s) not shown (--max-errors {self.max_shown})\n")
        self.out.write("\n".join(self.summary_lines(result)) + "\n")


class GithubReporter(Reporter):
    """GitHub Actions annotations: each finding lands on its line in the pull request."""

    def show(self, d: Diagnostic) -> None:
        where = f" ({d.pointer})" if d.pointer else ""
        self.out.write(github_annotation(d.severity, d.code, d.message + where, d.path, d.line, d.col) + "\n")

    def finish(self, result: Analysis) -> None:
        if self.hidden:
            self.out.write(f"ftlint: {self.hidden} more finding(s) not annotated (--max-errors {self.max_shown})\n")
        self.out.write("\n".join(self.summary_lines(result)) + "\n")


class SarifReporter(Reporter):
    """SARIF 2.1.0 for code scanning. Written at the end (a SARIF log is one JSON document)."""

    def start(self) -> None:
        self.results: list[dict] = []

    def show(self, d: Diagnostic) -> None:
        self.results.append(sarif_result(d.code, d.severity, d.message, d.path, d.line, d.col, d.pointer))

    def finish(self, result: Analysis) -> None:
        self.out.write(orjson.dumps(sarif_log(self.results), option=orjson.OPT_INDENT_2).decode() + "\n")


class MarkdownReporter(Reporter):
    """A summary to post as a pull-request comment: findings by code, then the first findings."""

    FIRST = 50

    def start(self) -> None:
        self.first: list[Diagnostic] = []

    def show(self, d: Diagnostic) -> None:
        if len(self.first) < self.FIRST:
            self.first.append(d)

    def finish(self, result: Analysis) -> None:
        head, _ = self.summary_lines(result)
        errors = sum(n for (sev, _), n in self.by_code.items() if sev == ERROR)
        warnings = sum(self.by_code.values()) - errors
        mark = "❌" if errors else "✅"
        lines = [f"### ftlint check {mark} {errors:,} error{'s' if errors != 1 else ''}, "
                 f"{warnings:,} warning{'s' if warnings != 1 else ''}", "", head, ""]
        if self.by_code:
            registry = load_all()
            lines += ["| code | severity | count | what |", "|---|---|---:|---|"]
            for (sev, code), n in sorted(self.by_code.items(), key=lambda kv: (kv[0][0] != ERROR, kv[0][1])):
                what = registry[code].summary if code in registry else ""
                lines.append(f"| {code} | {sev} | {n:,} | {md_escape(what)} |")
            lines += ["", f"<details><summary>first {len(self.first)} finding(s)</summary>", "", "```"]
            lines += [concise(d) for d in self.first]
            lines += ["```", "</details>"]
        self.out.write("\n".join(lines) + "\n")


class JsonReporter(Reporter):
    """A JSON array of findings, written as they come so memory stays flat."""

    def start(self) -> None:
        self.out.write("[")

    def show(self, d: Diagnostic) -> None:
        self.out.write(("," if self.shown else "") + "\n  " + orjson.dumps(d.to_dict()).decode())

    def finish(self, result: Analysis) -> None:
        self.out.write("\n]\n" if self.shown else "]\n")


CHECK_REPORTERS = {"text": TextReporter, "json": JsonReporter, "github": GithubReporter,
                   "sarif": SarifReporter, "markdown": MarkdownReporter}

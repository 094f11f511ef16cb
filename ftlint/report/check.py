"""Reporters for `ftlint check`: findings stream out as they are found, and memory stays flat
however many there are (SARIF and JSON are written as they come; markdown keeps the first 50).
Every piece of text from data or a file name goes through ftlint/report/escape.py.

The reports people read (text, github, markdown) say a per-file rule's findings once per file and
message, with the count and the first lines (report/repeated.py); JSON and SARIF, read by tools,
list every one. The summary line counts every finding either way, so its counts, the exit code
and the JSON agree."""

from __future__ import annotations

import os
from collections import Counter
from typing import IO

import click
import orjson

from ..diagnostics import ERROR, WARNING, Diagnostic
from ..engine import FileSummary
from ..rules import once_per_file, registry
from .escape import json_safe, md_code, md_fence, md_text, path_text, terminal_safe
from .repeated import Groups, Repeated
from .shared import SarifWriter, github_annotation


def concise(d: Diagnostic) -> str:
    """path:line:col: CODE message ($.json.path), the shape editors and CI logs understand;
    always one line, whatever the data holds. A finding on no file (the model a flag chose,
    ftlint/origin.py) is CODE message: no location it does not have."""
    where = f" ({terminal_safe(beside(d))})" if d.pointer or d.element else ""
    return f"{location(d)}{d.code} {terminal_safe(d.message)}{where}"


def beside(d: Diagnostic) -> str:
    """What follows a finding's message in parentheses: a JSON array's element, its JSON path."""
    element = f"element {d.element}" if d.element else ""
    return ", ".join(part for part in (element, d.pointer or "") if part)


def location(d: Diagnostic) -> str:
    """`path:line:col: `, or nothing for a finding on no file."""
    return f"{path_text(d.path)}:{d.line}:{d.col}: " if d.path else ""


def summary_lines(files: list[FileSummary], by_code: Counter[tuple[str, str]], headline: str | None = None) -> list[str]:
    """What was read (`headline`, or check's count of files and lines), then the findings by severity and code."""
    return [terminal_safe(headline) if headline else _files_line(files), _counts_line(by_code)]


def _files_line(files: list[FileSummary]) -> str:
    lines = sum(f.lines for f in files)
    valid = sum(f.valid for f in files)
    invalid = sum(f.invalid for f in files)
    blank = sum(f.blank for f in files)
    names = sorted({f.format for f in files if f.format})  # the format each file was judged as, detected or given
    formats = f" ({', '.join(names)})" if names else ""
    return (f"checked {len(files)} file{'s' if len(files) != 1 else ''}{formats}, {lines:,} line{'s' if lines != 1 else ''}: "
            f"{valid:,} valid, {invalid:,} with errors ({blank:,} blank)")


def _counts_line(by_code: Counter[tuple[str, str]]) -> str:
    parts = []
    for severity in (ERROR, WARNING):
        codes = sorted((code, n) for (sev, code), n in by_code.items() if sev == severity)
        n = sum(c for _, c in codes)
        detail = f" ({', '.join(f'{code} x{c}' for code, c in codes)})" if codes else ""
        parts.append(f"{n:,} {severity}{'s' if n != 1 else ''}{detail}")
    return ", ".join(parts)


class Reporter:
    """Counts every finding; shows at most `max_shown` lines of them. A reporter that `summarises`
    says a per-file rule's findings in one line per file and message (report/repeated.py)."""

    summarises = False

    def __init__(self, out: IO[str], max_shown: int | None) -> None:
        self.out = out
        self.max_shown = max_shown
        self.shown = 0  # lines shown
        self.covered = 0  # findings those lines say (a summarised line says several)
        self.groups = Groups()
        self.by_code: Counter[tuple[str, str]] = Counter()
        self.notes: list[str] = []  # what a configuration file switched off, said in the summary
        self.title = "ftlint check"  # the command, as a Markdown summary heads it
        self.headline: str | None = None  # what was read, said instead of check's count of files and lines

    def start(self) -> None:
        pass

    def diagnostic(self, d: Diagnostic) -> None:
        self.by_code[(d.severity, d.code)] += 1
        if self.summarises:
            self._say(self.groups.moved_to(d.path))  # the previous file's groups, before this file's findings
            if once_per_file(d.code):
                self.groups.add(d)
                return
        self._show_limited(d, 1)

    __call__ = diagnostic  # the reporter is the run's `emit`

    def run(self, d: Diagnostic, last: int) -> None:
        """`d`, and the same finding on every line after it up to `last` (a flood of blank lines):
        what as many calls of `diagnostic` would do, written by `show_run` in one go."""
        if self.summarises:
            self._say(self.groups.moved_to(d.path))
            if once_per_file(d.code):
                for line in range(d.line, last + 1):
                    self.diagnostic(_on_line(d, line))
                return
        n = last - d.line + 1
        self.by_code[(d.severity, d.code)] += n
        shown = n if self.max_shown is None else max(0, min(n, self.max_shown - self.shown))
        if shown:
            self.show_run(d, d.line + shown - 1)
            self.shown += shown
            self.covered += shown

    def show_run(self, d: Diagnostic, last: int) -> None:
        """Show `d` on each line from its own to `last`; a reporter whose lines differ only in the
        number writes them from one template (`_write_run`)."""
        for line in range(d.line, last + 1):
            self.show(_on_line(d, line))

    def _write_run(self, before: str, after: str, first: int, last: int) -> None:
        for start in range(first, last + 1, RUN_BATCH):
            self.out.write("".join(f"{before}{line}{after}" for line in range(start, min(start + RUN_BATCH, last + 1))))

    def _say(self, groups: list[Repeated]) -> None:
        for group in groups:
            self._show_limited(group.finding(), group.findings)

    def _show_limited(self, d: Diagnostic, findings: int) -> None:
        if self.max_shown is None or self.shown < self.max_shown:
            self.show(d)
            self.shown += 1
            self.covered += findings

    def show(self, d: Diagnostic) -> None:
        raise NotImplementedError

    def said(self) -> None:
        """Every finding received is shown or counted as hidden: the last file's groups are said."""
        self._say(self.groups.flush())

    @property
    def hidden(self) -> int:
        return sum(self.by_code.values()) - self.covered

    def finish(self, files: list[FileSummary]) -> None:
        pass


RUN_BATCH = 10_000  # lines of a run written at a time: memory stays flat


def _on_line(d: Diagnostic, line: int) -> Diagnostic:
    return d.at(line)


def _split_at(text: str, key: str) -> tuple[str, str]:
    """`text` around the first `key` (which ends with the line number 1): the parts before and after the number."""
    at = text.index(key) + len(key) - 1
    return text[:at], text[at + 1:]


def use_color(out: IO[str]) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set to anything (no-color.org)."""
    return not os.environ.get("NO_COLOR") and hasattr(out, "isatty") and out.isatty()


class PlainReporter(Reporter):
    """A plain-text output (text, github): the findings, then a line on those --max-errors hid,
    and the summary: files and formats, counts by code, the notes."""

    summarises = True
    hid = ""  # the line on the findings --max-errors hid, of {hidden} (how many) and {most} (--max-errors)

    def finish(self, files: list[FileSummary]) -> None:
        self.said()
        if self.hidden:
            self.out.write(self.hid.format(hidden=self.hidden, most=self.max_shown) + "\n")
        self.out.write("\n".join(summary_lines(files, self.by_code, self.headline) + [f"note: {terminal_safe(n)}" for n in self.notes]) + "\n")


class TextReporter(PlainReporter):
    hid = "... {hidden} more finding(s) not shown (--max-errors {most})"

    def start(self) -> None:
        self.color = use_color(self.out)

    def show(self, d: Diagnostic) -> None:
        if not self.color:
            self.out.write(concise(d) + "\n")
            return
        where = f" {click.style(f'({terminal_safe(beside(d))})', dim=True)}" if d.pointer or d.element else ""
        code = click.style(d.code, fg="red" if d.severity == ERROR else "yellow", bold=True)
        place = click.style(location(d), bold=True) if d.path else ""
        self.out.write(f"{place}{code} {terminal_safe(d.message)}{where}\n")

    def show_run(self, d: Diagnostic, last: int) -> None:
        if self.color:
            super().show_run(d, last)
            return
        first = concise(d) + "\n"
        before = f"{path_text(d.path)}:"
        self._write_run(before, first[len(before) + len(str(d.line)):], d.line, last)


class GithubReporter(PlainReporter):
    """GitHub Actions annotations: each finding lands on its line in the pull request (a per-file
    rule's on its first line, with the count: GitHub shows only the first few annotations of a step)."""

    hid = "ftlint: {hidden} more finding(s) not annotated (--max-errors {most})"

    def show(self, d: Diagnostic) -> None:
        where = f" ({beside(d)})" if d.pointer or d.element else ""
        self.out.write(github_annotation(d.severity, d.code, d.message + where, d.path, d.line, d.col) + "\n")

    def show_run(self, d: Diagnostic, last: int) -> None:
        where = f" ({beside(d)})" if d.pointer or d.element else ""
        one = github_annotation(d.severity, d.code, d.message + where, d.path, 1, d.col) + "\n"
        if not d.path or d.path == "<stdin>":  # no file to put it on (github_annotation): every line's is the same
            self.out.write(one * (last - d.line + 1))
            return
        self._write_run(*_split_at(one, ",line=1"), d.line, last)  # the file's name has its commas escaped


class SarifReporter(Reporter):
    """SARIF 2.1.0 for code scanning, written as the findings come."""

    def start(self) -> None:
        self.writer = SarifWriter(self.out)
        self.writer.start()

    def show(self, d: Diagnostic) -> None:
        self.writer.result(d.code, d.severity, d.message, d.path, d.line, d.col, d.pointer, d.fingerprint)

    def show_run(self, d: Diagnostic, last: int) -> None:
        self.show(d)
        if last == d.line:
            return
        entry = self.writer.entry(d.code, d.severity, d.message, d.path, 1, d.col, d.pointer, d.fingerprint)
        if not d.path or d.path == "<stdin>":  # no location (sarif_result): the same entry on every line
            self.writer.write_entries(("," + "\n   " + entry) * (last - d.line), last - d.line)
            return
        before, after = _split_at(",\n   " + entry, '"startLine":1')  # strings escape their quotes: the key is the region's
        for start in range(d.line + 1, last + 1, RUN_BATCH):
            end = min(start + RUN_BATCH, last + 1)
            self.writer.write_entries("".join(f"{before}{line}{after}" for line in range(start, end)), end - start)

    def finish(self, files: list[FileSummary]) -> None:
        self.writer.finish()


class MarkdownReporter(Reporter):
    """A summary to post as a pull-request comment: findings by code, then the first findings."""

    FIRST = 50
    summarises = True

    def start(self) -> None:
        self.first: list[Diagnostic] = []

    def show(self, d: Diagnostic) -> None:
        if len(self.first) < self.FIRST:
            self.first.append(d)

    def show_run(self, d: Diagnostic, last: int) -> None:
        for line in range(d.line, min(last, d.line + self.FIRST - len(self.first) - 1) + 1):
            self.first.append(_on_line(d, line))

    def finish(self, files: list[FileSummary]) -> None:
        self.said()
        head, _ = summary_lines(files, self.by_code, self.headline)
        errors = sum(n for (sev, _), n in self.by_code.items() if sev == ERROR)
        warnings = sum(self.by_code.values()) - errors
        mark = "❌" if errors else "✅"
        lines = [f"### {self.title} {mark} {errors:,} error{'s' if errors != 1 else ''}, "
                 f"{warnings:,} warning{'s' if warnings != 1 else ''}", "", _md_headline(head, self.headline is not None), ""]
        lines += [f"> note: {md_code(n)}" for n in self.notes] + ([""] if self.notes else [])
        if self.by_code:
            known = registry()
            lines += ["| code | severity | count | what |", "|---|---|---:|---|"]
            for (sev, code), n in sorted(self.by_code.items(), key=lambda kv: (kv[0][0] != ERROR, kv[0][1])):
                what = known[code].summary if code in known else ""
                lines.append(f"| {code} | {sev} | {n:,} | {md_text(what)} |")
            lines += ["", f"<details><summary>first {len(self.first)} finding(s)</summary>", ""]
            lines += md_fence([concise(d) for d in self.first])
            lines += ["</details>"]
        self.out.write("\n".join(lines) + "\n")


def _md_headline(head: str, given: bool) -> str:
    """What was read: check's count in prose; a headline given (convert's, which names its input
    and its output, file names a pull request chooses) in a code span, where no HTML, link or
    heading renders."""
    return md_code(head) if given else md_text(head)


class JsonReporter(Reporter):
    """A JSON array of findings, written as they come so memory stays flat."""

    def start(self) -> None:
        self.out.write("[")

    def show(self, d: Diagnostic) -> None:
        self.out.write(("," if self.shown else "") + "\n  " + orjson.dumps(json_finding(d)).decode())

    def show_run(self, d: Diagnostic, last: int) -> None:
        self.show(d)
        one = ",\n  " + orjson.dumps(json_finding(_on_line(d, 1))).decode()
        self._write_run(*_split_at(one, ',"line":1'), d.line + 1, last)  # the path before it escapes its quotes

    def finish(self, files: list[FileSummary]) -> None:
        self.out.write("\n]\n" if self.shown else "]\n")


def json_finding(d: Diagnostic) -> dict[str, object]:
    found = d.to_dict()
    found["path"], found["message"] = json_safe(d.path), json_safe(d.message)
    if d.pointer:
        found["pointer"] = json_safe(d.pointer)
    return found


CHECK_REPORTERS = {"text": TextReporter, "json": JsonReporter, "github": GithubReporter,
                   "sarif": SarifReporter, "markdown": MarkdownReporter}

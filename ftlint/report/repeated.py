"""One finding per problem: a rule that speaks per file (`Rule.per == "file"`: FT235, FT801, ...)
is emitted for every record, and the reports people read say it once per file and message, with
how many records hold it and their first lines, as FT237 and FT239 do for their own counts.

Memory stays flat: a group keeps its first finding, its counts and FIRST_LINES line numbers.
A group is said when its file's findings end (the next file's first finding, or the run's end).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from ..diagnostics import Diagnostic
from ..rules.context import FIRST_LINES

Key = tuple[str, str, str, str]  # path, severity, code, message


@dataclass(slots=True)
class Repeated:
    """The findings of one code and message in one file."""

    first: Diagnostic
    findings: int = 1
    records: int = 1  # distinct lines: a record may hold the fact twice (two weights dropped)
    lines: list[int] = field(default_factory=list)
    pointer: str | None = None  # the records' JSON path when every finding has the same one
    last_line: int = 0

    def __post_init__(self) -> None:
        self.lines = [self.first.line]
        self.pointer = self.first.pointer
        self.last_line = self.first.line

    def add(self, d: Diagnostic) -> None:
        self.findings += 1
        if d.pointer != self.pointer:
            self.pointer = None
        if d.line != self.last_line:
            self.records += 1
            if len(self.lines) < FIRST_LINES:
                self.lines.append(d.line)
        self.last_line = d.line

    def finding(self) -> Diagnostic:
        """The one line that says them all: the first finding, with the count and the first lines."""
        if self.findings == 1:
            return self.first
        more = ", ..." if self.records > len(self.lines) else ""
        many = "s" if self.records != 1 else ""
        message = (f"{self.first.message}; {self.records:,} record{many} "
                   f"(line{many} {', '.join(map(str, self.lines))}{more})")
        return replace(self.first, message=message, pointer=self.pointer)


class Groups:
    """The per-file findings of the file being reported, grouped by code and message."""

    def __init__(self) -> None:
        self.path: str | None = None
        self.groups: dict[Key, Repeated] = {}

    def moved_to(self, path: str) -> list[Repeated]:
        """The groups of the previous file, when a finding of another file comes."""
        if path == self.path:
            return []
        self.path = path
        return self.flush()

    def add(self, d: Diagnostic) -> None:
        key = (d.path, d.severity, d.code, d.message)
        if key in self.groups:
            self.groups[key].add(d)
        else:
            self.groups[key] = Repeated(d)

    def flush(self) -> list[Repeated]:
        done = list(self.groups.values())
        self.groups = {}
        return done

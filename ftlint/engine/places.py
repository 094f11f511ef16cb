"""Where a JSON array file's findings are: a record's number is its element's (1, 2, ...), which is
what the engine, the fingerprints and the dataset checks count by; what a reader's editor and a
GitHub annotation need is the line the element starts on. The reader notes each element's first
line (read/json_array.py), the chunks carry their elements' (pipeline.py), and here a finding's
element becomes its line, the element kept beside it (Diagnostic.element). JSONL files are not
touched: their numbers are lines."""

from __future__ import annotations

import copy
from array import array
from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING

from ..diagnostics import Diagnostic

if TYPE_CHECKING:
    from ..rules.context import FileSummary
    from .result import Analysis

RUN_FIELDS = 9  # engine/merge.py: a run of findings is a finding's 8 fields and its last line


def line_of(lines: Sequence[int] | None, element: int) -> int:
    """The line element `element` starts on (its number when the file is not an array, or it is past what was read)."""
    return lines[element - 1] if lines is not None and 0 < element <= len(lines) else element


def placed(d: Diagnostic, lines: Sequence[int] | None) -> Diagnostic:
    """`d` on its element's first line, column 1 (a column the judge found counts from the
    element's own start, not the line's), the element beside it; a file's finding (line 0) as it is."""
    if not lines or d.line <= 0:
        return d
    return d.at(line_of(lines, d.line), 1, element=d.line)


def on_elements(fields: tuple, lines: Sequence[int]) -> Iterator[Diagnostic]:
    """A chunk's finding (its fields, or a run's: engine/merge.py) on its elements' lines: a run of
    the same finding on consecutive elements is one finding a line, each on its element."""
    if len(fields) == RUN_FIELDS:
        for element in range(fields[1], fields[-1] + 1):
            yield placed(Diagnostic.of(fields[:-1]).at(element), lines)
    else:
        yield placed(Diagnostic.of(fields), lines)


def summary_on_lines(summary: FileSummary, lines: Sequence[int] | None) -> FileSummary:
    """A file's summary as its file-level findings name lines: the first records cut, dropped or
    losing their system prompt, on their elements' lines."""
    if not lines:
        return summary
    shown = copy.copy(summary)
    for name in ("cut_lines", "dropped_lines", "system_dropped_lines"):
        setattr(shown, name, [line_of(lines, n) for n in getattr(summary, name)])
    return shown


def placed_all(found: Iterable[Diagnostic], analyses: Iterable[Analysis | None]) -> list[Diagnostic]:
    """Dataset findings (duplicates, leakage: made from element numbers) on their elements' lines."""
    from ..redact import redact

    lines: dict[str, array] = {}
    for analysis in analyses:
        if analysis is not None:
            for index, starts in analysis.element_lines.items():
                lines[redact(analysis.files[index].path)] = starts
    return [placed(d, lines.get(d.path)) for d in found]

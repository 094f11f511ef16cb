"""The renderer of `ftlint formats`: every format in three lines (what a record is, who takes it).
One format in full is report/format_sheet.py."""

from __future__ import annotations

from collections.abc import Iterable

from ..formats import Format
from .renderer import Renderer


def render_list(formats: Iterable[Format]) -> str:
    lines = []
    for fmt in formats:
        mark = "" if fmt.documented else "  [record rule undocumented: conservative reading]"
        lines.append(f"{fmt.name:<24} {fmt.title}\n{'':<24} record: {fmt.record_rule}{mark}\n{'':<24} for: {fmt.providers}\n")
    return "".join(lines)


FORMATS_RENDERERS: dict[str, Renderer[Iterable[Format]]] = {"text": render_list}

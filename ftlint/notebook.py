"""HTML tables for notebooks (Jupyter shows an object's `_repr_html_`): CheckResult and Estimate.
Every cell is escaped (html.escape, quotes too), so a record's text shows as text and never as
markup or script. A leaf: the objects hand over their rows."""

from __future__ import annotations

import html
from collections.abc import Iterable, Sequence

FIRST = 50  # findings shown in a notebook; the object holds them all

# The figures of an Estimate a notebook shows, by attribute, in the order of `ftlint estimate`.
ESTIMATE_FIGURES = ("model", "format", "lines", "records", "tokens", "trainable_tokens", "epochs", "effective_batch_size",
                    "steps_per_epoch", "total_steps", "tokens_processed", "cost_usd")


def cell(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return html.escape(str(value))
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}"
    return html.escape(str(value), quote=True)


def table(caption: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{html.escape(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><caption>{html.escape(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def findings_table(findings: Sequence[tuple[str, int, str, str, str]]) -> str:
    """(path, line, code, severity, message) rows, the first FIRST of them."""
    shown = findings[:FIRST]
    more = f" (first {len(shown):,} of {len(findings):,})" if len(findings) > len(shown) else ""
    return table(f"findings{more}", ("file", "line", "code", "severity", "message"), shown) if findings else ""


def figures_table(caption: str, obj: object, names: Sequence[str]) -> str:
    return table(caption, ("figure", "value"), [(name.replace("_", " "), getattr(obj, name)) for name in names])

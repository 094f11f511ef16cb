"""HTML tables for notebooks (Jupyter shows an object's `_repr_html_`): CheckResult and Estimate.
Every text passes the CLI's text rule first (ftlint/shown.py path_text: any secret masked, as
ftlint.redact masks file names and messages, and control characters shown as escapes), then is
escaped for HTML (html.escape, quotes too), so a record's text or a file's name shows as text,
never as markup or script, and a notebook shows no more of a secret than the terminal does. The
objects hand over their rows."""

from __future__ import annotations

import html
from collections.abc import Iterable, Mapping, Sequence

FIRST = 50  # findings shown in a notebook; the object holds them all


def text(value: str) -> str:
    """Text as a cell shows it: masked and escaped as the CLI's text output, then for HTML."""
    from .shown import path_text

    return html.escape(path_text(value), quote=True)


def cell(value: object) -> str:
    if isinstance(value, bool) or value is None:
        return html.escape(str(value))
    if isinstance(value, int):
        return f"{value:,}"
    if isinstance(value, float):
        return f"{value:,.4f}"
    return text(str(value))


def table(caption: str, header: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    head = "".join(f"<th>{text(h)}</th>" for h in header)
    body = "".join("<tr>" + "".join(f"<td>{cell(v)}</td>" for v in row) + "</tr>" for row in rows)
    return f"<table><caption>{text(caption)}</caption><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def findings_table(findings: Sequence[tuple[str, int, str, str, str]]) -> str:
    """(path, line, code, severity, message) rows, the first FIRST of them."""
    shown = findings[:FIRST]
    more = f" (first {len(shown):,} of {len(findings):,})" if len(findings) > len(shown) else ""
    return table(f"findings{more}", ("file", "line", "code", "severity", "message"), shown) if findings else ""


def figures_table(caption: str, figures: Mapping[str, object]) -> str:
    """A figure a row, by its name: the figures an object shows (an Estimate's, in the order of `ftlint estimate`)."""
    return table(caption, ("figure", "value"), figures.items())

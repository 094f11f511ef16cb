"""Renderers for `ftlint diff`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..diff import DiffResult
from .check import concise, json_finding
from .escape import json_safe, md_code, md_fence, md_text, path_text, shown_path, terminal_safe
from .renderer import Renderer

if TYPE_CHECKING:
    from ..change import DatasetDiff


def _delta(a: float | int | None, b: float | int | None, money: bool = False) -> str:
    if a is None or b is None:
        return "unknown"
    fmt = (lambda v: f"${v:,.2f}") if money else (lambda v: f"{v:,}")
    sign = "+" if b - a >= 0 else "-"
    return f"{fmt(a)} -> {fmt(b)} ({sign}{fmt(abs(b - a))})"


def _rows(r: DiffResult) -> list[tuple[str, str]]:
    b, h = r.estimates["base"], r.estimates["head"]
    records = f"{r.records_base:,} -> {r.records_head:,} ({r.added:,} added, {r.removed:,} removed, {r.changed:,} changed)"
    return [
        ("records", records),
        ("tokens per epoch", _delta(b["tokens"], h["tokens"])),
        ("epochs", f"{b['epochs']} -> {h['epochs']}"),
        ("tokens processed", _delta(b["tokens_processed"], h["tokens_processed"])),
        ("cost", _delta(b["cost_usd"], h["cost_usd"], money=True)),
        ("findings", f"{len(r.new_findings):,} new in HEAD, {r.fixed_findings:,} fixed"),
    ]


def render_text(r: DiffResult) -> str:
    rows = _rows(r)
    width = max(len(k) for k, _ in rows)
    lines = [f"ftlint diff: {path_text(r.base)} -> {path_text(r.head)}"] + [f"  {k:<{width}}  {v}" for k, v in rows]
    lines += [f"  note: {terminal_safe(n)}" for n in r.notes]
    if r.new_findings:
        lines += ["", "new in HEAD:"] + [f"  {concise(d)}" for d in r.new_findings]
    return "\n".join(lines) + "\n"


def render_json(r: DiffResult) -> str:
    data = {
        "base": json_safe(shown_path(r.base)), "head": json_safe(shown_path(r.head)),
        "records": {"base": r.records_base, "head": r.records_head, "added": r.added, "removed": r.removed, "changed": r.changed},
        **json_tail(r),
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def json_tail(r: DiffResult | DatasetDiff) -> dict[str, object]:
    """What a diff's JSON ends with, of a file or of a dataset: the findings new and fixed, the
    estimates either side, the notes."""
    return {"new_findings": [json_finding(d) for d in r.new_findings], "fixed_findings": r.fixed_findings,
            "estimate": r.estimates, "notes": [json_safe(n) for n in r.notes]}


def render_markdown(r: DiffResult) -> str:
    mark = "❌" if r.failing else "✅"
    lines = [f"### ftlint diff {mark} {md_code(shown_path(r.base))} -> {md_code(shown_path(r.head))}", "", "| | base -> head |", "|---|---|"]
    lines += [f"| {k} | {md_text(v)} |" for k, v in _rows(r)]
    lines += [f"| note | {md_code(n)} |" for n in r.notes]
    if r.new_findings:
        lines += ["", f"<details><summary>{len(r.new_findings)} new finding(s)</summary>", ""]
        lines += [*md_fence([concise(d) for d in r.new_findings[:100]]), "</details>"]
    return "\n".join(lines) + "\n"


DIFF_RENDERERS: dict[str, Renderer[DiffResult]] = {"text": render_text, "json": render_json, "markdown": render_markdown}


def render_all(results: list[DiffResult], output_format: str) -> str:
    """Several reports (diff --rev REV PATH...): one after another, or a JSON list."""
    if output_format == "json":
        return "[\n" + ",\n".join(render_json(r).rstrip("\n") for r in results) + "\n]\n"
    return "\n".join(DIFF_RENDERERS[output_format](r) for r in results)

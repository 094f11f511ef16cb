"""Renderers for `ftlint diff --dataset` (and the GitHub Action's diff section): the dataset before
and after a change, its training set and its validation set apart. The training set carries the
run's figures (tokens, epochs, steps, cost); the validation set its records, tokens, the records
also in the training data (FT404) and whether the provider bills them: never epochs or a cost of
its own."""

from __future__ import annotations

import orjson

from ..change import DatasetDiff, Part
from .check import concise
from .diff import json_tail
from .escape import json_safe, md_code, md_fence, md_text, path_text, shown_path, terminal_safe
from .estimate import usd
from .renderer import Renderer

SHOWN_FILES = 10  # changed files named in a report; the others counted


def _delta(a: object, b: object, money: bool = False) -> str:
    """`a -> b (+d)`; a side without the figure (a cost without a price) is "unknown"."""
    def shown(v: float) -> str:
        return usd(v) if money else f"{v:,}"

    if not isinstance(a, (int, float)) or not isinstance(b, (int, float)):
        return " -> ".join(shown(v) if isinstance(v, (int, float)) else "unknown" for v in (a, b))
    return f"{shown(a)} -> {shown(b)} ({'+' if b >= a else '-'}{shown(abs(b - a))})"


def _files(p: Part) -> str:
    return f"{p.files[0]:,} -> {p.files[1]:,} ({p.files_added:,} added, {p.files_removed:,} removed, {p.files_changed:,} changed)"


def _records(p: Part) -> str:
    return f"{p.records[0]:,} -> {p.records[1]:,} ({p.added:,} added, {p.removed:,} removed, {p.changed:,} changed)"


def training_rows(r: DatasetDiff) -> list[tuple[str, str]]:
    b, h = r.estimates["base"], r.estimates["head"]
    return [("files", _files(r.training)), ("records", _records(r.training)),
            ("tokens per epoch", _delta(b["tokens"], h["tokens"])),
            ("epochs", f"{b['epochs']} -> {h['epochs']}"),
            ("total steps", _delta(b["total_steps"], h["total_steps"])),
            ("tokens processed", _delta(b["tokens_processed"], h["tokens_processed"])),
            ("cost", _delta(b["cost_usd"], h["cost_usd"], money=True))]


def validation_rows(r: DatasetDiff) -> list[tuple[str, str]]:
    """The validation set's rows; none when neither side holds a validation file."""
    if not any(r.validation.files):
        return []
    b, h = r.estimates["base"].get("validation") or {}, r.estimates["head"].get("validation") or {}
    held = h or b
    return [("files", _files(r.validation)), ("records", _records(r.validation)),
            ("tokens", _delta(b.get("tokens", 0), h.get("tokens", 0))),
            ("also in the training data (FT404)", f"{r.leaks[0]:,} -> {r.leaks[1]:,}"),
            ("cost", str(held.get("billing_note", "")))]


def _changed(r: DatasetDiff) -> list[str]:
    files = list(r.changed_files)
    more = f" and {len(files) - SHOWN_FILES:,} more" if len(files) > SHOWN_FILES else ""
    return [shown_path(p) for p in files[:SHOWN_FILES]] + ([more.strip()] if more else [])


def _findings(r: DatasetDiff) -> str:
    return f"{len(r.new_findings):,} new in the change, {r.fixed_findings:,} fixed"


def render_text(r: DatasetDiff) -> str:
    sets = [("training", training_rows(r)), ("validation", validation_rows(r))]
    width = max(len(k) for _, rows in sets for k, _ in rows)
    lines = [f"ftlint diff: the dataset at {path_text(r.base)} -> {path_text(r.head)}",
             f"  changed: {', '.join(terminal_safe(p) for p in _changed(r)) or 'no data file'}"]
    for name, rows in sets:
        if rows:
            lines += [f"  {name}:"] + [f"    {k:<{width}}  {v}" for k, v in rows]
    lines += [f"  findings: {_findings(r)}"] + [f"  note: {terminal_safe(n)}" for n in r.notes]
    if r.new_findings:
        lines += ["", "new in the change:"] + [f"  {concise(d)}" for d in r.new_findings]
    return "\n".join(lines) + "\n"


def _part(p: Part) -> dict[str, object]:
    return {"files": {"base": p.files[0], "head": p.files[1], "added": p.files_added, "removed": p.files_removed,
                      "changed": p.files_changed},
            "records": {"base": p.records[0], "head": p.records[1], "added": p.added, "removed": p.removed, "changed": p.changed}}


def render_json(r: DatasetDiff) -> str:
    data = {
        "base": json_safe(shown_path(r.base)), "head": json_safe(r.head), "dataset": True,
        "changed": [json_safe(shown_path(p)) for p in r.changed_files],
        "training": _part(r.training),
        "validation": {**_part(r.validation), "records_in_training": {"base": r.leaks[0], "head": r.leaks[1]}},
        **json_tail(r),
    }
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def render_markdown(r: DatasetDiff) -> str:
    mark = "❌" if r.failing else "✅"
    changed = ", ".join(md_code(p) if i < SHOWN_FILES else md_text(p) for i, p in enumerate(_changed(r)))
    lines = [f"### ftlint diff {mark} the dataset at {md_code(shown_path(r.base))} -> {md_text(r.head)}", "",
             f"Changed: {changed or 'no data file'}", ""]
    for name, rows in (("training", training_rows(r)), ("validation", validation_rows(r))):
        if rows:
            lines += [f"| {name} | base -> head |", "|---|---|", *(f"| {k} | {md_text(v)} |" for k, v in rows), ""]
    lines += [f"Findings: {_findings(r)}."] + [f"> note: {md_code(n)}" for n in r.notes]
    if r.new_findings:
        lines += ["", f"<details><summary>{len(r.new_findings)} new finding(s)</summary>", ""]
        lines += [*md_fence([concise(d) for d in r.new_findings[:100]]), "</details>"]
    return "\n".join(lines) + "\n"


DATASET_DIFF_RENDERERS: dict[str, Renderer[DatasetDiff]] = {"text": render_text, "json": render_json, "markdown": render_markdown}

"""Renderers for `ftlint review`: where the best evaluation of a finished run fell, and whether
its checkpoints were dense enough to choose from."""

from __future__ import annotations

import dataclasses

import orjson

from ..review import Review
from .escape import json_safe, shown_path, terminal_safe
from .renderer import Renderer


def shown(r: Review) -> Review:
    """The review as every output shows it: the log's name, the metric's (a log's own column
    name) and the sentences quoting them with any secret masked (ftlint.redact), as the other
    commands' file names and messages are."""
    from ..redact import redact

    return dataclasses.replace(r, log=shown_path(r.log), metric=redact(r.metric), advice=redact(r.advice),
                               notes=[redact(n) for n in r.notes])


def render_text(r: Review) -> str:
    r = shown(r)
    lines = [f"{terminal_safe(r.log)}: best {terminal_safe(r.metric)} {r.best_value:g} at step {r.best_step:,} "
             f"of {r.max_steps:,} ({r.best_fraction:.0%})",
             f"  verdict: {r.verdict}: {terminal_safe(r.advice)}"]
    if r.sparse:
        lines.append(f"  checkpoints too sparse to choose from: {r.evaluations} evaluations, largest gap {r.largest_gap:,} steps "
                     f"(evaluate at least 5 times, no gap over a quarter of the run)")
    lines += [f"  note: {terminal_safe(n)}" for n in r.notes]
    return "\n".join(lines) + "\n"


def render_json(r: Review) -> str:
    r = shown(r)
    safe = dataclasses.replace(r, log=json_safe(r.log), metric=json_safe(r.metric), advice=json_safe(r.advice),
                               notes=[json_safe(n) for n in r.notes])  # a non-UTF-8 name is valid JSON all the same
    return orjson.dumps(safe.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"


REVIEW_RENDERERS: dict[str, Renderer[Review]] = {"text": render_text, "json": render_json}

"""Renderers for `ftlint review`: where the best evaluation of a finished run fell, and whether
its checkpoints were dense enough to choose from."""

from __future__ import annotations

import orjson

from ..review import Review
from .escape import terminal_safe
from .renderer import Renderer


def render_text(r: Review) -> str:
    lines = [f"{terminal_safe(r.log)}: best {terminal_safe(r.metric)} {r.best_value:g} at step {r.best_step:,} "
             f"of {r.max_steps:,} ({r.best_fraction:.0%})",
             f"  verdict: {r.verdict}: {terminal_safe(r.advice)}"]
    if r.sparse:
        lines.append(f"  checkpoints too sparse to choose from: {r.evaluations} evaluations, largest gap {r.largest_gap:,} steps "
                     f"(evaluate at least 5 times, no gap over a quarter of the run)")
    return "\n".join(lines) + "\n"


def render_json(r: Review) -> str:
    return orjson.dumps(r.to_dict(), option=orjson.OPT_INDENT_2).decode() + "\n"


REVIEW_RENDERERS: dict[str, Renderer[Review]] = {"text": render_text, "json": render_json}

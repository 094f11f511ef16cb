"""Renderers for `ftlint plan`: the production run, the tuning study's rounds, and the plan's
errors (gates fail the command)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..diagnostics import ERROR
from .escape import json_safe, path_text, shown_path
from .estimate import findings_block, json_data, usd
from .renderer import Renderer

if TYPE_CHECKING:
    from ..app import StudyRun


def render_text(run: StudyRun) -> str:
    e, s = run.production.estimate, run.study
    lines = [f"tuning study for {', '.join(path_text(p) for p in run.production.paths)} on {e.run.model}",
             f"  production run   {s.production_steps:,} steps, {s.production_tokens:,} tokens, {usd(s.production_cost_usd)}"]
    for r in s.rounds:
        lines.append(f"  {r.name:<8} {r.runs:>3} run(s) x {r.steps_per_run:,} steps = {r.steps:,} steps, "
                     f"{r.tokens:,} tokens, {usd(r.cost_usd)}")
    lines.append(f"  total            {s.total_steps:,} steps, {s.total_tokens:,} tokens, {usd(s.total_cost_usd)} "
                 f"(= {s.cost_in_production_runs:g} production runs)")
    lines += findings_block("errors", [d for d in e.findings if d.severity == ERROR])
    return "\n".join(lines) + "\n"


def render_json(run: StudyRun) -> str:
    data = {"paths": [json_safe(shown_path(p)) for p in run.production.paths], "estimate": json_data(run.production.estimate.to_dict()),
            "study": run.study.to_dict()}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


PLAN_RENDERERS: dict[str, Renderer[StudyRun]] = {"text": render_text, "json": render_json}

"""Renderers for `ftlint plan`: the production run, the tuning study's rounds, and the plan's
findings (gates fail the command)."""

from __future__ import annotations

import orjson

from ..plan.estimate import Estimate
from ..plan.study import Study
from .escape import json_safe, path_text, shown_path, terminal_safe
from .estimate import usd


def render_text(e: Estimate, s: Study, paths: list[str]) -> str:
    lines = [f"tuning study for {', '.join(path_text(p) for p in paths)} on {e.model}",
             f"  production run   {s.production_steps:,} steps, {s.production_tokens:,} tokens, {usd(s.production_cost_usd)}"]
    for r in s.rounds:
        lines.append(f"  {r.name:<8} {r.runs:>3} run(s) x {r.steps_per_run:,} steps = {r.steps:,} steps, "
                     f"{r.tokens:,} tokens, {usd(r.cost_usd)}")
    lines.append(f"  total            {s.total_steps:,} steps, {s.total_tokens:,} tokens, {usd(s.total_cost_usd)} "
                 f"(= {s.cost_in_production_runs:g} production runs)")
    errors = [d for d in e.findings if d.severity == "error"]
    if errors:
        lines += ["", "errors:"] + [f"  {d.code} {terminal_safe(d.message)}" for d in errors]
    return "\n".join(lines) + "\n"


def render_json(e: Estimate, s: Study, paths: list[str]) -> str:
    data = {"paths": [json_safe(shown_path(p)) for p in paths], "estimate": e.to_dict(), "study": s.to_dict()}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


PLAN_RENDERERS = {"text": render_text, "json": render_json}

"""CI gates (FT7xx): a plan that breaches a threshold the user set is an error finding."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, Hit
from . import check, register

if TYPE_CHECKING:
    from ..plan.estimate import Estimate
    from .context import PlanContext

register("FT701", "max-cost", ERROR, """
    Gate: the planned run costs more than --max-cost (or its cost is unknown).

    Why: a CI gate on data pull requests, so a change that makes training too expensive fails
    review before anyone pays for it.
""", kind="plan")

register("FT702", "max-tokens", ERROR, """
    Gate: more tokens would be processed (all epochs) than --max-tokens.
""", kind="plan")

register("FT703", "min-records", ERROR, """
    Gate: fewer training records than --min-records.
""", kind="plan")


@check("plan", "FT701", "FT702", "FT703")
def gates(e: Estimate, ctx: PlanContext) -> Iterator[Hit]:
    g = ctx.plan.gates
    if g.max_cost_usd is not None:
        if e.cost_usd is None:
            yield Hit(f"--max-cost {g.max_cost_usd:g} cannot be checked: no price for {e.model} (give --price)", code="FT701")
        elif e.cost_usd > g.max_cost_usd:
            yield Hit(f"the run costs ${e.cost_usd:,.2f}, over the --max-cost of ${g.max_cost_usd:,.2f}", code="FT701")
    if g.max_tokens is not None and e.tokens_processed > g.max_tokens:
        yield Hit(f"{e.tokens_processed:,} tokens processed, over the --max-tokens of {g.max_tokens:,}", code="FT702")
    if g.min_records is not None and e.records < g.min_records:
        yield Hit(f"{e.records:,} training records, under the --min-records of {g.min_records:,}", code="FT703")

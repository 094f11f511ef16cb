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

    Its tokens cannot be an estimate either: a model a run config names that ftlint does not
    know (counted with o200k_base) fails the gate, naming the fix (its folder, or --model NAME).

    Why: a CI gate on data pull requests, so a change that makes training too expensive fails
    review before anyone pays for it.
""", kind="plan")

register("FT702", "max-tokens", ERROR, """
    Gate: more tokens would be processed (all epochs) than --max-tokens.

    The tokens of a model ftlint does not know (a run config's model that is neither in the
    catalog nor matched by a name rule, counted with o200k_base) are an estimate: the gate cannot
    be checked, and the message says what to give (the model's folder with --tokenizer DIR, or
    --model NAME).
""", kind="plan")

register("FT703", "min-records", ERROR, """
    Gate: fewer training records than --min-records.
""", kind="plan")


@check("plan", "FT701", "FT702", "FT703")
def gates(e: Estimate, ctx: PlanContext) -> Iterator[Hit]:
    g = ctx.plan.gates
    guess = _unknown(e, ctx)
    cost, processed, records = e.cost.cost_usd, e.schedule.tokens_processed, e.data.records
    if g.max_cost_usd is not None:
        if guess:
            yield Hit(f"--max-cost {g.max_cost_usd:g} cannot be checked: {guess}", code="FT701")
        elif cost is None:
            yield Hit(f"--max-cost {g.max_cost_usd:g} cannot be checked: no price for {e.run.model} (give --price)", code="FT701")
        elif cost > g.max_cost_usd:
            yield Hit(f"the run costs ${cost:,.2f}, over the --max-cost of ${g.max_cost_usd:,.2f}", code="FT701")
    if g.max_tokens is not None and guess:
        yield Hit(f"--max-tokens {g.max_tokens:,} cannot be checked: {guess}", code="FT702")
    elif g.max_tokens is not None and processed > g.max_tokens:
        yield Hit(f"{processed:,} tokens processed, over the --max-tokens of {g.max_tokens:,}", code="FT702")
    if g.min_records is not None and records < g.min_records:
        yield Hit(f"{records:,} training records, under the --min-records of {g.min_records:,}", code="FT703")


def _unknown(e: Estimate, ctx: PlanContext) -> str:
    """Why the counts a gate would read are a guess: a model ftlint does not know, counted with
    o200k_base ("" when the model is known, or the user gave its tokenizer)."""
    from ..models import UNKNOWN

    model = ctx.model
    if model is None or model.tokenizer != UNKNOWN or e.counts.tokenizer != model.encoding:
        return ""
    return (f"{model.name} is not a model ftlint knows, so its {e.schedule.tokens_processed:,} tokens are an estimate (o200k_base); give "
            "the model's folder (--tokenizer DIR --chat-template DIR) or --model NAME of `ftlint models`")

"""A record's figures with its images: the planner's record counted by the format, and each
image's tokens added where the convention counts them apart (plan.py says the two ways)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .cut import cut_through, spans
from .plan import MediaPlan, Planner

if TYPE_CHECKING:
    from ..chat.tally import Tally
    from ..formats import Format, LineFigures
    from ..tokens import TokenCounter
    from ..trainers.cut import Cut


def with_media(fmt: Format, planner: Planner, plan: MediaPlan, value: dict, counter: TokenCounter,
               tally: Tally | None) -> tuple[dict, LineFigures]:
    """(the record as counted, its figures with its media plan attached)."""
    counted = plan.counted if plan.counted is not None else value
    figures = fmt.figures(counted, counter, tally)
    figures.media = plan
    if planner.rewrite and not planner.spell and plan.uses:
        expands = getattr(fmt, "expands", None)
        split = bool(expands(counted)) if expands is not None else False
        for record in figures.records:
            record.tokens += sum(u.tokens for u in plan.uses if not split or u.turn < record.messages)
    return counted, figures


def images_cut(plan: MediaPlan, figures: LineFigures, planner: Planner, cut: int, rule: Cut, counter: TokenCounter,
               tally: Tally | None) -> None:
    """Which images a record past the cut loses tokens of (plan.cut_images): through the template
    only, where the rendered text says where each image lies."""
    if not planner.spell or tally is None or planner.processor is None or not plan.uses:
        return
    rendered = figures.rendered
    text = rendered.text if rendered is not None else (tally.seen[-1] if tally.seen else "")
    if not text:
        return
    from ..chat import count_rendered

    splitter = tally.spec.splitter
    found = spans(text, planner.processor, [u.tokens for u in plan.uses if u.tokens], lambda t: count_rendered(t, splitter, counter.count))
    pairs = rendered.pairs if rendered is not None and rendered.pairs else []
    plan.cut_images = cut_through(found, pairs, cut, rule)

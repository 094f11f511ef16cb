"""Mermaid charts for the Markdown outputs (GitHub renders ```mermaid blocks in job summaries,
pull requests and issues): records per token length against the limit, and the cost over the
run's epochs. Only numbers and ftlint's own words reach a chart (mermaid_text keeps even those
inside their quotes), so no data can write Mermaid or Markdown."""

from __future__ import annotations

import math
import re
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..lengths import Lengths
    from ..plan.estimate import Estimate


# A chart's bars at most, whatever the run's epochs: its size is fixed, not the pull request's to set
CHART_POINTS = 20


def mermaid_text(text: str) -> str:
    """Text inside a quoted Mermaid label: no quote, bracket, backtick, newline or other control
    character can end the label, the line or the fence."""
    return re.sub(r"[\"`\[\]{}<>#;\x00-\x1f\x7f-\x9f\u2028\u2029]", " ", text)


def y_axis(title: str, top: float) -> str:
    """The y axis from 0 to the tallest bar: Mermaid's own range starts at the smallest bar, which
    draws the first epoch's cost (or the smallest bin) as a sliver of the others."""
    return f'  y-axis "{mermaid_text(title)}" 0 --> {top:g}'


def length_bins(lengths: Lengths, limit: int | None) -> list[tuple[int, int, int]]:
    """(low, high, records of low <= tokens < high): bins doubling from 16 (a long tail stays
    readable), split at the limit so no bin holds records on both sides of it; from the first
    bin with records to the last."""
    if not lengths.counts:
        return []
    top = max(lengths.counts)
    edges = {0, *(2**k for k in range(4, max(5, math.ceil(math.log2(top + 1)) + 1)))}
    if limit is not None:
        edges.add(limit + 1)  # records of more than `limit` tokens start a bin
    ordered = sorted(edges)
    ordered = ordered[: next(i for i, edge in enumerate(ordered) if edge > top) + 1]
    bins = [(low, high, lengths.in_range(low, high)) for low, high in pairwise(ordered)]
    full = [i for i, (_, _, n) in enumerate(bins) if n]
    return bins[full[0]: full[-1] + 1]


def length_chart(lengths: Lengths, limit: int | None) -> list[str]:
    """A bar chart of records per token-length bin, the bins over the limit named so."""
    bins = length_bins(lengths, limit)
    if not bins:
        return []
    labels = [f"{low:,}-{high - 1:,}" + (" over" if limit is not None and low > limit else "") for low, high, _ in bins]
    title = f"records by tokens per record (limit {limit:,})" if limit else "records by tokens per record (no limit known)"
    return ["```mermaid", "xychart-beta", f'  title "{mermaid_text(title)}"',
            "  x-axis [" + ", ".join(f'"{mermaid_text(label)}"' for label in labels) + "]",
            y_axis("records", max(n for _, _, n in bins)), "  bar [" + ", ".join(str(n) for _, _, n in bins) + "]", "```"]


def epochs_shown(epochs: int, points: int = CHART_POINTS) -> list[int]:
    """The epochs a chart has a bar for: every one up to `points`, else `points` of them evenly
    spread, the last included (the cost grows by the same amount each epoch, so none is lost)."""
    if epochs <= points:
        return list(range(1, epochs + 1))
    return [math.ceil(i * epochs / points) for i in range(1, points + 1)]


def cost_chart(e: Estimate, cost: str) -> list[str]:
    """The cost billed by the end of each epoch, the steps it takes to get there on the axis:
    only when the bill is tokens x epochs (no minimum charge, every epoch run whole). `cost`: the
    total as the table prints it."""
    b, s, total = e.cost.bill, e.schedule, e.cost.cost_usd
    whole = s.total_steps == s.steps_per_epoch * s.epochs and not s.max_steps
    if total is None or b is None or b.minimum_applied or not whole or s.epochs < 1:
        return []
    shown = epochs_shown(s.epochs)
    labels = [f"epoch {k} (step {k * s.steps_per_epoch:,})" for k in shown]
    values = [round(total * k / s.epochs, 4) for k in shown]
    if not values[-1]:  # under half a hundredth of a cent: bars of 0 say nothing
        return []
    title = f"cost by epoch: {cost} for {s.total_steps:,} steps"
    return ["```mermaid", "xychart-beta", f'  title "{mermaid_text(title)}"',
            "  x-axis [" + ", ".join(f'"{mermaid_text(label)}"' for label in labels) + "]",
            y_axis("USD", values[-1]), "  bar [" + ", ".join(f"{v:g}" for v in values) + "]", "```"]

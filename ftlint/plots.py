"""Terminal pictures: the token-length distribution and the learning-rate schedule."""

from __future__ import annotations

import math
from itertools import pairwise
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .lengths import Lengths

BLOCKS = " ▁▂▃▄▅▆▇█"


def length_histogram(tokens: Lengths, limit: int | None, width: int = 40) -> str:
    """Records per token-length bin, bins doubling in size (long tails stay readable)."""
    if not tokens.counts:
        return "tokens per record: no records"
    top = max(tokens.counts)
    edges = [0] + [2**k for k in range(4, max(5, math.ceil(math.log2(top + 1)) + 1))]
    counts = []
    for low, high in pairwise(edges):
        counts.append(((low, high), tokens.in_range(low, high)))
    counts = [c for c in counts if c[1]] or counts[:1]
    peak = max(n for _, n in counts) or 1
    label_width = max(len(f"{lo:,}-{hi - 1:,}") for (lo, hi), _ in counts)
    lines = ["tokens per record (records per bin):"]
    for (low, high), n in counts:
        bar = "█" * max(1 if n else 0, round(n / peak * width))
        over = "  over the limit" if limit is not None and low > limit else ""
        lines.append(f"  {f'{low:,}-{high - 1:,}':>{label_width}} | {bar} {n:,}{over}")
    return "\n".join(lines)


def learning_rate(step: int, total: int, warmup: int, schedule: str) -> float:
    """The multiplier of the peak learning rate at `step` (0-based), as transformers' linear,
    cosine and constant-with-warmup schedules compute it."""
    if warmup and step < warmup:
        return step / warmup
    if schedule == "constant":
        return 1.0
    progress = (step - warmup) / max(1, total - warmup)
    if schedule == "cosine":
        return max(0.0, 0.5 * (1.0 + math.cos(math.pi * progress)))
    return max(0.0, (total - step) / max(1, total - warmup))


def epoch_ends(total: int, steps_per_epoch: int, columns: int) -> list[bool]:
    """Whether an epoch ends (at a step k x steps_per_epoch below total) in each column of the
    axis, a step's column being round(step x columns / total), the last column taking the steps
    past it. A loop over the columns, never over the epochs: 10^8 epochs draw as fast as 3."""
    ends = [False] * columns
    if not steps_per_epoch:
        return ends

    def column(step: int) -> int:
        return min(columns - 1, round(step * columns / total))

    for c in range(columns):
        start = max(steps_per_epoch, -(-((2 * c - 1) * total) // (2 * columns)))  # where c starts, give or take a step
        first = -(-start // steps_per_epoch) * steps_per_epoch
        ends[c] = any(steps_per_epoch <= step < total and column(step) == c
                      for step in (first - steps_per_epoch, first, first + steps_per_epoch))
    return ends


def schedule_plot(total: int, warmup: int, steps_per_epoch: int, schedule: str, width: int = 60, height: int = 8) -> str:
    if total <= 0:
        return "learning-rate schedule: no steps"
    columns = min(width, total)
    levels = []
    for c in range(columns):
        step = min(total - 1, round(c * total / columns))
        levels.append(learning_rate(step, total, warmup, schedule))
    rows = []
    for r in range(height, 0, -1):
        line = ""
        for level in levels:
            fill = level * height - (r - 1)
            line += BLOCKS[max(0, min(8, round(fill * 8)))] if fill < 1 else "█"
        rows.append("  │" + line)
    axis = ["┼" if ends else "─" for ends in epoch_ends(total, steps_per_epoch, columns)]
    head = f"learning rate ({schedule}, warmup {warmup:,} of {total:,} steps; ┼ marks an epoch's end):"
    return "\n".join([head, *rows, "  └" + "".join(axis), f"   0{'':>{columns - len(str(total)) - 1}}{total:,}"])

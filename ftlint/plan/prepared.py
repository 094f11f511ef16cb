"""A trainer's own preparation of the records (Trainer.prepare: a part of a dataset read, a share
held out, packed rows) applied to the dataset's figures; and the ranges of the figures it draws
at random, as the estimate states them."""

from __future__ import annotations

import dataclasses
from typing import TYPE_CHECKING

from .figures import PackingFigures, ValidationFigures

if TYPE_CHECKING:
    from ..options import PlanOptions
    from ..trainers.base import Prepared
    from ..trainers.steps import Schedule, Steps
    from .figures import DatasetFigures


def applied(data: DatasetFigures, p: Prepared) -> tuple[DatasetFigures, ValidationFigures | None, PackingFigures | None]:
    """The dataset's figures as the trainer prepares the records, the share it holds out as the
    validation figures, and its packed rows."""
    data = dataclasses.replace(data, records=p.records, tokens_capped=p.tokens, trainable_tokens=p.trained, records_dropped=p.dropped,
                               tokens_dropped=p.dropped_tokens, trainable_dropped=p.dropped_trained, truncated_records=p.truncated,
                               truncated_tokens=p.truncated_tokens)
    held = ValidationFigures([], 0, p.validation, p.validation_tokens, 0, billing_note="held out of the training data by the trainer (its data: above)") \
        if p.validation else None
    packed = p.packing
    if packed is None:
        return data, held, None
    return data, held, PackingFigures(packed.algorithm, packed.max_seq_len, packed.rows, packed.lower_bound_rows,
                                      packed.truncated_records, packed.truncated_tokens)


def drawn(p: Prepared | None, s: Schedule, strategy: Steps, plan: PlanOptions) -> dict[str, tuple[int, int]]:
    """The figures drawn at random, with their lowest and highest: the trainer's own, the steps
    its schedule works out from them, and the warmup from those. A figure worked out from drawn
    ones is said with its range only where the draws move it."""
    own = {name for name, _, _ in p.ranges} if p is not None else set()
    ranges = {name: (low, high) for name, low, high in (*(p.ranges if p is not None else ()), *s.ranges)}
    if "total_steps" in ranges:  # the warmup follows the steps the schedule is made for
        low, high = (strategy.warmup(n, plan.warmup_ratio, plan.warmup_steps) for n in ranges["total_steps"])
        ranges["warmup_steps"] = (low, high)
    return {k: v for k, v in ranges.items() if v[0] != v[1] or k in own}

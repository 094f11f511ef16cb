"""A trainer's own preparation of the records (Trainer.prepare: the records it trains, a share held
out, packed rows) applied to the dataset's figures; and the ranges of the figures it draws at
random, as the estimate states them."""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence
from typing import TYPE_CHECKING

from ..lengths import Lengths
from .figures import DatasetFigures, PackingFigures, ValidationFigures, in_rows

if TYPE_CHECKING:
    from ..options import PlanOptions
    from ..trainers.base import HeldOut, Prepared, RecordRow
    from ..trainers.steps import Schedule, Steps

HELD = "held out of the training data by the trainer (its data: above)"  # a share it does not say more of


def applied(data: DatasetFigures, p: Prepared, records: Sequence[RecordRow], paths: Sequence[str],
            context_limit: int | None) -> tuple[DatasetFigures, ValidationFigures | None, PackingFigures | None]:
    """The dataset's figures (of `records`, every one in the files' order, in `paths`) as the trainer
    prepares them: those of the part it trains, or its own counts; the share it holds out as the
    validation figures; and its packed rows, whose tokens are those it trains."""
    if p.train is not None:
        data = figures_of(data, [records[i] for i in p.train], context_limit)
    c = p.counts
    if c is not None:
        data = dataclasses.replace(data, records=c.records, tokens_capped=c.tokens, trainable_tokens=c.trained, records_dropped=c.dropped,
                                   tokens_dropped=c.dropped_tokens, trainable_dropped=c.dropped_trained, truncated_records=c.truncated,
                                   truncated_tokens=c.truncated_tokens)
    held = _validation(p.validation, paths) if p.validation is not None else None
    packed = p.packing
    if packed is None:
        return data, held, None
    data = dataclasses.replace(in_rows(data, packed), tokens_capped=packed.kept_tokens)
    return data, held, PackingFigures(packed.algorithm, packed.max_seq_len, packed.rows, packed.lower_bound_rows,
                                      packed.truncated_records, packed.truncated_tokens)


def _validation(v: HeldOut, paths: Sequence[str]) -> ValidationFigures:
    """The held-out share as validation figures: rows of the training files where the trainer counts
    them so, else a share of no file."""
    if v.lines is None:
        return ValidationFigures([], 0, v.records, v.tokens, 0, billing_note=v.words or HELD)
    return ValidationFigures(list(paths), v.lines, v.records, v.tokens, 0, billing_note=v.words or HELD)


def figures_of(data: DatasetFigures, records: Sequence[RecordRow], context_limit: int | None) -> DatasetFigures:
    """The figures of some of the records `data` is of (its lines are the files')."""
    kept = [r for r in records if not r.dropped]
    dropped = [r for r in records if r.dropped]
    lengths = Lengths()
    for r in kept:
        lengths.add(r.tokens)
    cut = [r for r in kept if r.cut]
    trainable = sum(r.trainable - r.cut_trainable for r in kept)
    trainable_cut = sum(r.cut_trainable for r in kept)
    return DatasetFigures(
        lines=data.lines, invalid_lines=data.invalid_lines, messages=sum(r.messages for r in records), records=len(kept),
        targets=sum(r.targets for r in kept), tokens_in_file=sum(r.tokens for r in records),
        tokens_capped=sum(r.tokens - r.cut for r in kept), trainable_tokens=trainable,
        records_over_limit=lengths.over(context_limit) if context_limit is not None else 0, token_stats=lengths.stats(),
        truncated_records=len(cut), truncated_tokens=sum(r.cut for r in cut),
        trainable_tokens_in_file=sum(r.trainable for r in records), trainable_cut=trainable_cut,
        records_emptied=sum(1 for r in cut if r.cut_trainable and r.cut_trainable >= r.trainable),
        records_dropped=len(dropped), tokens_dropped=sum(r.tokens for r in dropped),
        trainable_dropped=sum(r.trainable for r in dropped),
    )


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

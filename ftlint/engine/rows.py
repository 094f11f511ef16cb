"""The records a run's trainer trains and those it holds out (Trainer.split), from an analysis
that kept each record in order (Settings.keep_order): the figures a plan is made from are those
of the training part, and the held-out part is the run's validation. Without a split every
record trains, in the files' order; the trainer's packing (Trainer.pack) follows that order."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..trainers.base import RecordRow, Trainer
from .result import Analysis, Lengths

if TYPE_CHECKING:
    from ..plan.figures import DatasetFigures, ValidationFigures


@dataclass(frozen=True)
class TrainerRows:
    figures: DatasetFigures  # of the records that train
    validation: ValidationFigures | None  # the held-out records, when the trainer holds some out
    records: list[RecordRow] | None  # the records that train, in the trainer's order (None: no order was kept)


def trainer_rows(analysis: Analysis, trainer: Trainer | None, keys: Mapping[str, object],
                 context_limit: int | None) -> TrainerRows:
    """All the records, when the analysis kept no order (nothing the trainer does depends on it)."""
    if analysis.ordered is None:
        return TrainerRows(analysis.figures(context_limit=context_limit), None, None)
    from ..plan.figures import ValidationFigures

    records = analysis.record_rows()
    split = trainer.split(records, keys) if trainer is not None else None
    if split is None:
        return TrainerRows(analysis.figures(context_limit=context_limit), None, records)
    train = [records[i] for i in split.train]
    held = [records[i] for i in split.validation]
    kept = [r for r in held if not r.dropped]
    validation = ValidationFigures(analysis.paths, len(held), len(kept), sum(r.tokens - r.cut for r in kept), 0,
                                   billing_note=split.words)
    return TrainerRows(figures_of(analysis, train, context_limit), validation, train)


def figures_of(analysis: Analysis, records: Sequence[RecordRow], context_limit: int | None) -> DatasetFigures:
    """The figures of some of an analysis's records (its lines are the files')."""
    from ..plan.figures import DatasetFigures

    kept = [r for r in records if not r.dropped]
    dropped = [r for r in records if r.dropped]
    lengths = Lengths()
    for r in kept:
        lengths.add(r.tokens)
    cut = [r for r in kept if r.cut]
    trainable = sum(r.trainable - r.cut_trainable for r in kept)
    trainable_cut = sum(r.cut_trainable for r in kept)
    return DatasetFigures(
        lines=analysis.lines, invalid_lines=analysis.invalid, messages=sum(r.messages for r in records), records=len(kept),
        targets=sum(r.targets for r in kept), tokens_in_file=sum(r.tokens for r in records),
        tokens_capped=sum(r.tokens - r.cut for r in kept), trainable_tokens=trainable,
        records_over_limit=lengths.over(context_limit) if context_limit is not None else 0, token_stats=lengths.stats(),
        truncated_records=len(cut), truncated_tokens=sum(r.cut for r in cut),
        trainable_tokens_in_file=sum(r.trainable for r in records), trainable_cut=trainable_cut,
        records_emptied=sum(1 for r in cut if r.cut_trainable and r.cut_trainable >= r.trainable),
        records_dropped=len(dropped), tokens_dropped=sum(r.tokens for r in dropped),
        trainable_dropped=sum(r.trainable for r in dropped),
    )


__all__ = ["TrainerRows", "figures_of", "trainer_rows"]

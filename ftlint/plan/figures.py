"""The dataset's figures a plan is made from: records, targets, tokens in the file and as trained
(each record cut at the per-example limit, and at --max-seq-len when a trainer truncates), and
the token-length distribution. The engine makes them from an analysis (engine/result.py
`Analysis.figures`); rejected lines (with an error) are in no figure."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..trainers.base import Packing


@dataclass(frozen=True, slots=True)
class DatasetFigures:
    lines: int
    invalid_lines: int
    messages: int
    records: int = 0
    targets: int = 0
    tokens_in_file: int = 0
    tokens_capped: int = 0  # as trained: each record as the trainer cuts it at its max length (or the limit)
    trainable_tokens: int = 0  # what the run trains: the kept records' trained tokens within the cut
    records_over_limit: int = 0
    token_stats: dict[str, float] = field(default_factory=dict)
    truncated_records: int = 0  # records the trainer cuts at its max length (tokens past it)
    truncated_tokens: int = 0  # what that cuts off
    trainable_tokens_in_file: int = 0  # the targets' tokens of every valid record, uncut and none dropped
    trainable_cut: int = 0  # trained tokens the cut takes off the records kept
    records_emptied: int = 0  # records the cut leaves with no trained token
    records_dropped: int = 0  # records the trainer leaves out (its drop): in no figure above
    tokens_dropped: int = 0
    trainable_dropped: int = 0


@dataclass(frozen=True, slots=True)
class ValidationFigures:
    paths: list[str]
    lines: int
    records: int
    tokens: int
    records_in_training: int
    billed: bool = False
    billing_note: str = "not added to cost: OpenAI bills training tokens only [unverified]"


@dataclass(frozen=True, slots=True)
class PackingFigures:
    algorithm: str
    max_seq_len: int
    rows: int  # packed sequences: what the trainer batches
    lower_bound_rows: int  # perfect packing
    truncated_records: int
    truncated_tokens: int


def in_rows(data: DatasetFigures, packed: Packing) -> DatasetFigures:
    """The figures of the records in the rows, when packing leaves some out or cuts them (a
    trainer's Packing.records): those it leaves out are in no figure, those it cuts are cut."""
    if packed.records is None:
        return data
    trained = packed.trained_tokens if packed.trained_tokens is not None else data.trainable_tokens
    return dataclasses.replace(data, records=packed.records, tokens_capped=packed.kept_tokens, trainable_tokens=trained,
                               truncated_records=data.truncated_records + packed.truncated_records,
                               truncated_tokens=data.truncated_tokens + packed.truncated_tokens)

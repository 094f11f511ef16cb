"""The dataset's figures, from an analysis's mergeable summary: records, targets, tokens in the
file and as trained (each record cut at the per-example limit, and at --max-seq-len when a
trainer truncates), and the token-length distribution. Rejected lines (with an error) are in no
figure. Every figure is exact: the distribution keeps each distinct token count (result.Lengths),
so a clipped sum or a quantile is the same for one run and for merged shards."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..engine.result import Analysis


@dataclass(frozen=True, slots=True)
class DatasetFigures:
    lines: int
    invalid_lines: int
    messages: int
    records: int = 0
    targets: int = 0
    tokens_in_file: int = 0
    tokens_capped: int = 0  # as trained: each record at most at the limit (and --max-seq-len)
    trainable_tokens: int = 0
    records_over_limit: int = 0
    token_stats: dict[str, float] = field(default_factory=dict)
    truncated_records: int = 0  # records longer than --max-seq-len
    truncated_tokens: int = 0  # what that cuts off (beyond what the limit cuts)


@dataclass(frozen=True, slots=True)
class ValidationFigures:
    paths: list[str]
    lines: int
    records: int
    tokens: int
    records_in_training: int
    billed: bool = False
    billing_note: str = "not added to cost: OpenAI bills training tokens only [unverified]"


def dataset_figures(analysis: Analysis, *, context_limit: int | None, truncate_at: int | None = None) -> DatasetFigures:
    """The analysis's figures. Quantiles use the nearest record (no interpolation): every figure
    is a real record's."""
    lengths = analysis.lengths
    files = analysis.files
    limited = lengths.total(context_limit)
    cap = min(context_limit, truncate_at) if context_limit is not None and truncate_at is not None else (truncate_at or context_limit)
    capped = lengths.total(cap)
    cut = 0
    if truncate_at is not None:  # records longer than --max-seq-len once the limit has cut them
        cut = lengths.over(truncate_at) if context_limit is None or truncate_at < context_limit else 0
    return DatasetFigures(
        lines=analysis.lines,
        invalid_lines=analysis.invalid,
        messages=analysis.messages,
        records=lengths.records,
        targets=sum(f.targets for f in files),
        tokens_in_file=lengths.total(),
        tokens_capped=capped,
        trainable_tokens=sum(f.trainable for f in files),
        records_over_limit=lengths.over(context_limit) if context_limit is not None else 0,
        token_stats=lengths.stats(),
        truncated_records=cut,
        truncated_tokens=limited - capped,
    )

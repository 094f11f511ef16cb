"""The dataset's figures, summed from the frame of per-record figures (polars): records,
targets, tokens in the file and as trained (each record cut at the per-example limit, and at
--max-seq-len when a trainer truncates), and the token-length distribution. Rejected lines
(with an error) are not in the frame, so they are in no figure."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import polars as pl


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


def dataset_figures(frame: pl.DataFrame, *, lines: int, invalid_lines: int, messages: int,
                    context_limit: int | None, truncate_at: int | None = None) -> DatasetFigures:
    """Sum the per-record frame into dataset figures. Quantiles use the nearest record (no
    interpolation): every figure is a real record's."""
    import polars as pl

    tokens = pl.col("tokens")
    limited = tokens.clip(upper_bound=context_limit) if context_limit is not None else tokens
    kept = limited.clip(upper_bound=truncate_at) if truncate_at is not None else limited
    over = (tokens > context_limit).sum() if context_limit is not None else pl.lit(0)
    cut = (limited > truncate_at).sum() if truncate_at is not None else pl.lit(0)
    row = frame.select(
        records=pl.len(),
        targets=pl.col("targets").sum(),
        tokens_in_file=tokens.sum(),
        tokens_capped=kept.sum(),
        tokens_limited=limited.sum(),
        trainable=pl.col("trainable").sum(),
        over=over,
        cut=cut,
        min=tokens.min(),
        p50=tokens.quantile(0.5, "nearest"),
        p90=tokens.quantile(0.9, "nearest"),
        max=tokens.max(),
        mean=tokens.mean(),
    ).row(0, named=True)
    stats: dict[str, float] = {}
    if row["records"]:
        stats = {k: int(row[k]) for k in ("min", "p50", "p90", "max")}
        stats["mean"] = round(row["mean"], 1)
    capped = row["tokens_capped"] or 0
    return DatasetFigures(
        lines=lines,
        invalid_lines=invalid_lines,
        messages=messages,
        records=row["records"],
        targets=row["targets"] or 0,
        tokens_in_file=row["tokens_in_file"] or 0,
        tokens_capped=capped,
        trainable_tokens=row["trainable"] or 0,
        records_over_limit=row["over"] or 0,
        token_stats=stats,
        truncated_records=row["cut"] or 0,
        truncated_tokens=(row["tokens_limited"] or 0) - capped,
    )

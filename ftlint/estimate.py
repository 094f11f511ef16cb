"""Training arithmetic and advice. Pure: figures and a plan in, an Estimate out; no I/O.

  effective batch   = per-device batch x gradient accumulation x GPUs
  steps per epoch   = ceil(records / effective batch)   (floor with drop_last)
  total steps       = steps per epoch x epochs
  warmup steps      = ceil(warmup ratio x total steps)  (exact decimal arithmetic), or as given
  tokens per epoch  = sum over records of min(tokens, context limit)
  tokens processed  = tokens per epoch x epochs
  cost              = tokens processed x price per 1M tokens / 1,000,000
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass, field
from fractions import Fraction
from typing import TYPE_CHECKING

from .models import Sourced

if TYPE_CHECKING:
    import polars as pl

# OpenAI cookbook heuristic for n_epochs="auto" (Chat_finetuning_data_prep.ipynb); OpenAI does
# not document its current rule.
TARGET_EPOCHS = 3
MIN_TARGET_EXAMPLES = 100
MAX_TARGET_EXAMPLES = 25_000
MIN_DEFAULT_EPOCHS = 1
MAX_DEFAULT_EPOCHS = 25
# batch_size="auto": Azure documents "0.2% of examples in training set and the max is 256";
# rounding to nearest is our reading.
AUTO_BATCH_FRACTION = Fraction(2, 1000)
AUTO_BATCH_MAX = 256

ADVICE_THRESHOLDS = {
    "min_total_steps": 100,  # FT503
    "memorisation_max_epochs_small": 3,  # FT504: more epochs than this ...
    "memorisation_small_records": 100,  # ... over fewer records than this
    "memorisation_max_epochs": 10,  # FT504: more epochs than this at any size
    "max_warmup_share": 0.2,  # FT505
}


@dataclass(frozen=True, slots=True)
class Plan:
    epochs: int | None = None  # None: the provider's auto rule
    batch_size: int | None = None  # per device; None: the provider's auto rule
    grad_accum: int = 1
    gpus: int = 1
    warmup_ratio: Fraction | None = None  # exact: 0.1 is 1/10
    warmup_steps: int | None = None
    drop_last: bool = False


@dataclass(frozen=True, slots=True)
class Gates:
    """CI thresholds: a breach is an error-severity finding (FT7xx)."""

    max_cost_usd: float | None = None
    max_tokens: int | None = None  # tokens processed (all epochs)
    min_records: int | None = None


@dataclass(frozen=True, slots=True)
class DatasetFigures:
    lines: int
    invalid_lines: int
    messages: int
    records: int = 0
    targets: int = 0
    tokens_in_file: int = 0
    tokens_capped: int = 0
    trainable_tokens: int = 0
    records_over_limit: int = 0
    token_stats: dict[str, float] = field(default_factory=dict)


@dataclass
class Estimate:
    lines: int
    invalid_lines: int
    records: int
    messages: int
    targets: int
    tokens: int  # per epoch, as trained: each record counted at most at the context limit
    tokens_in_file: int  # without the cap
    trainable_tokens: int
    context_limit: int | None
    records_over_limit: int
    token_stats: dict[str, float]
    model: str
    encoding: str
    epochs: int
    epochs_source: str
    batch_size: int
    batch_size_source: str
    grad_accum: int
    gpus: int
    effective_batch_size: int
    drop_last: bool
    full_batches: int
    last_batch: int  # records in the partial last batch of an epoch; 0 if none
    steps_per_epoch: int
    total_steps: int
    warmup_ratio: float | None
    warmup_steps: int
    tokens_processed: int
    price_per_1m: float | None
    price_source: str | None
    cost_usd: float | None
    warnings: list[dict[str, str]] = field(default_factory=list)
    validation: dict[str, object] | None = None  # with --validation: its records, tokens, leaks

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def dataset_figures(frame: pl.DataFrame, *, lines: int, invalid_lines: int, messages: int,
                    context_limit: int | None) -> DatasetFigures:
    """Sum the per-record frame (columns line, targets, tokens, trainable) into dataset figures.
    Quantiles use the nearest record (no interpolation): every figure is a real record's."""
    import polars as pl

    tokens = pl.col("tokens")
    capped = tokens.clip(upper_bound=context_limit) if context_limit is not None else tokens
    over = (tokens > context_limit).sum() if context_limit is not None else pl.lit(0)
    row = frame.select(
        records=pl.len(),
        targets=pl.col("targets").sum(),
        tokens_in_file=tokens.sum(),
        tokens_capped=capped.sum(),
        trainable=pl.col("trainable").sum(),
        over=over,
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
    return DatasetFigures(
        lines=lines,
        invalid_lines=invalid_lines,
        messages=messages,
        records=row["records"],
        targets=row["targets"] or 0,
        tokens_in_file=row["tokens_in_file"] or 0,
        tokens_capped=row["tokens_capped"] or 0,
        trainable_tokens=row["trainable"] or 0,
        records_over_limit=row["over"] or 0,
        token_stats=stats,
    )


def validation_figures(held_out, context_limit: int | None, train) -> dict[str, object]:  # type: ignore[no-untyped-def]
    """Figures of a validation file. Not added to cost: OpenAI bills training tokens only
    (its pricing names one training rate; validation is run at no training charge) [unverified]."""
    from .dataset import leakage_findings

    figures = dataset_figures(held_out.frame(), lines=held_out.lines, invalid_lines=held_out.invalid,
                              messages=held_out.messages, context_limit=context_limit)
    leaks = leakage_findings(train.frame(), [f.path for f in train.files], held_out.frame(),
                             [f.path for f in held_out.files])
    return {"paths": [f.path for f in held_out.files], "lines": figures.lines, "records": figures.records,
            "tokens": figures.tokens_capped, "records_in_training": len(leaks),
            "billed": False, "billing_note": "not added to cost: OpenAI bills training tokens only [unverified]"}


def auto_epochs(records: int) -> int:
    """OpenAI cookbook heuristic: 3 epochs, raised or lowered so that records x epochs stays
    within 100..25,000, and epochs within 1..25."""
    if records <= 0:
        return TARGET_EPOCHS
    if records * TARGET_EPOCHS < MIN_TARGET_EXAMPLES:
        return min(MAX_DEFAULT_EPOCHS, MIN_TARGET_EXAMPLES // records)
    if records * TARGET_EPOCHS > MAX_TARGET_EXAMPLES:
        return max(MIN_DEFAULT_EPOCHS, MAX_TARGET_EXAMPLES // records)
    return TARGET_EPOCHS


def auto_batch_size(records: int) -> int:
    """About 0.2% of the records, at least 1 and at most 256 (rounded half up)."""
    return max(1, min(AUTO_BATCH_MAX, math.floor(records * AUTO_BATCH_FRACTION + Fraction(1, 2))))


def estimate(
    data: DatasetFigures,
    plan: Plan,
    *,
    model: str,
    encoding: str,
    context_limit: int | None,
    price: Sourced | None,
    min_examples: int | None = None,
    gates: Gates = Gates(),
) -> Estimate:
    records = data.records
    if plan.epochs is not None:
        epochs, epochs_source = plan.epochs, "--epochs"
    else:
        epochs = auto_epochs(records)
        epochs_source = "auto: OpenAI cookbook heuristic (3, kept within 100-25,000 example passes); not documented by OpenAI"
    if plan.batch_size is not None:
        batch, batch_source = plan.batch_size, "--batch-size"
    else:
        batch = auto_batch_size(records)
        batch_source = "auto: about 0.2% of records, 1 to 256 (Azure's documented rule; OpenAI's is undocumented)"
    effective = batch * plan.grad_accum * plan.gpus
    full_batches, last_batch = divmod(records, effective)
    steps_per_epoch = full_batches if plan.drop_last else full_batches + (1 if last_batch else 0)
    total_steps = steps_per_epoch * epochs
    if plan.warmup_steps is not None:
        warmup = plan.warmup_steps
    elif plan.warmup_ratio is not None:
        warmup = math.ceil(plan.warmup_ratio * total_steps)
    else:
        warmup = 0
    tokens_processed = data.tokens_capped * epochs
    price_value = float(price.value) if price is not None else None  # type: ignore[arg-type]
    cost = tokens_processed * price_value / 1_000_000 if price_value is not None else None
    result = Estimate(
        lines=data.lines,
        invalid_lines=data.invalid_lines,
        records=records,
        messages=data.messages,
        targets=data.targets,
        tokens=data.tokens_capped,
        tokens_in_file=data.tokens_in_file,
        trainable_tokens=data.trainable_tokens,
        context_limit=context_limit,
        records_over_limit=data.records_over_limit,
        token_stats=data.token_stats,
        model=model,
        encoding=encoding,
        epochs=epochs,
        epochs_source=epochs_source,
        batch_size=batch,
        batch_size_source=batch_source,
        grad_accum=plan.grad_accum,
        gpus=plan.gpus,
        effective_batch_size=effective,
        drop_last=plan.drop_last,
        full_batches=full_batches,
        last_batch=last_batch,
        steps_per_epoch=steps_per_epoch,
        total_steps=total_steps,
        warmup_ratio=float(plan.warmup_ratio) if plan.warmup_ratio is not None else None,
        warmup_steps=warmup,
        tokens_processed=tokens_processed,
        price_per_1m=price_value,
        price_source=price.note if price is not None else None,
        cost_usd=round(cost, 6) if cost is not None else None,
    )
    result.warnings = gate_findings(result, gates) + advice(result, min_examples)
    return result


def gate_findings(e: Estimate, gates: Gates) -> list[dict[str, str]]:
    out = []
    if gates.max_cost_usd is not None:
        if e.cost_usd is None:
            out.append(_finding("FT701", f"--max-cost {gates.max_cost_usd:g} cannot be checked: no price for {e.model} (give --price)", "error"))
        elif e.cost_usd > gates.max_cost_usd:
            out.append(_finding("FT701", f"the run costs ${e.cost_usd:,.2f}, over the --max-cost of ${gates.max_cost_usd:,.2f}", "error"))
    if gates.max_tokens is not None and e.tokens_processed > gates.max_tokens:
        out.append(_finding("FT702", f"{e.tokens_processed:,} tokens processed, over the --max-tokens of {gates.max_tokens:,}", "error"))
    if gates.min_records is not None and e.records < gates.min_records:
        out.append(_finding("FT703", f"{e.records:,} training records, under the --min-records of {gates.min_records:,}", "error"))
    return out


def _finding(code: str, message: str, severity: str = "warning") -> dict[str, str]:
    return {"code": code, "message": message, "severity": severity}


def advice(e: Estimate, min_examples: int | None) -> list[dict[str, str]]:
    t = ADVICE_THRESHOLDS
    out: list[dict[str, str]] = []

    def warn(code: str, message: str) -> None:
        out.append(_finding(code, message))

    if e.invalid_lines:
        warn("FT501", f"{e.invalid_lines} line(s) have errors and are not counted; the provider would reject the file (run ftlint check)")
    if e.records_over_limit:
        warn("FT301", f"{e.records_over_limit} record(s) exceed the {e.context_limit:,}-token limit; each is counted at the limit and truncated in training")
    if min_examples and e.records < min_examples:
        warn("FT502", f"{e.records} records; the provider needs at least {min_examples}")
    if e.records and e.total_steps < t["min_total_steps"]:
        warn("FT503", f"only {e.total_steps} optimizer steps in total: too few for a learning-rate schedule (aim for {t['min_total_steps']}+; lower the batch size or add data)")
    small = e.records < t["memorisation_small_records"] and e.epochs > t["memorisation_max_epochs_small"]
    if e.records and (small or e.epochs > t["memorisation_max_epochs"]):
        warn("FT504", f"{e.epochs} epochs over {e.records} records: the model memorises these answers rather than learning the task; add data rather than epochs")
    if e.total_steps and e.warmup_steps > t["max_warmup_share"] * e.total_steps:
        share = e.warmup_steps / e.total_steps
        warn("FT505", f"warmup is {e.warmup_steps} of {e.total_steps} steps ({share:.0%}); give it as --warmup-ratio (e.g. 0.05) instead")
    return out

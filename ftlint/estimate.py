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
from collections.abc import Iterable
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

# Advice thresholds; each is an `estimate` option (and so a config key) of the same name.
ADVICE_THRESHOLDS: dict[str, float] = {
    "min_total_steps": 100,  # FT503: fewer optimizer steps than this
    "small_dataset": 100,  # FT504: fewer records than this ...
    "max_epochs_small": 3,  # ... with more epochs than this
    "max_epochs": 10,  # FT504: more epochs than this at any size
    "max_warmup_share": 0.2,  # FT505: warmup above this share of the steps
    "max_usual_epochs": 3,  # FT506: supervised runs rarely need more (preference: 2)
    "large_dataset": 100_000,  # FT508: one epoch over this many records is plenty
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
    trainer: str = "hosted"  # "hosted" (OpenAI, Azure: plain arithmetic) or "hf" (transformers Trainer)
    hf_legacy: bool = False  # transformers <=4.51 rounding
    max_steps: int | None = None
    max_seq_len: int | None = None  # with packing: rows of this many tokens
    packing: bool = False
    budget_usd: float | None = None
    budget_tokens: int | None = None
    tokens_per_second: float | None = None  # whole job
    gpu_hour_usd: float | None = None  # per GPU
    learning_rate: float | None = None
    reference_batch_size: int | None = None  # the effective batch the learning rate was tuned at
    thresholds: dict[str, float] = field(default_factory=lambda: dict(ADVICE_THRESHOLDS))


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
class PackingFigures:
    algorithm: str
    max_seq_len: int
    rows: int  # packed sequences: what the trainer batches
    lower_bound_rows: int  # perfect packing
    truncated_records: int
    truncated_tokens: int


@dataclass
class BudgetFigures:
    usd: float | None
    tokens: int | None
    max_epochs: int | None  # None: no price to turn dollars into epochs
    max_steps: int | None
    fits: bool | None = None
    note: str | None = None


@dataclass
class SelfHostedFigures:
    tokens_per_second: float
    wall_hours: float
    gpus: int
    gpu_hour_usd: float | None
    compute_cost_usd: float | None


@dataclass
class ScaledRates:
    learning_rate: float
    reference_batch_size: int
    effective_batch_size: int
    linear: float
    sqrt: float


@dataclass
class ValidationFigures:
    paths: list[str]
    lines: int
    records: int
    tokens: int
    records_in_training: int
    billed: bool = False
    billing_note: str = "not added to cost: OpenAI bills training tokens only [unverified]"


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
    validation: ValidationFigures | None = None  # with --validation: its records, tokens, leaks
    format: str = "openai-chat"
    format_reason: str = ""
    record_rule: str = "1 line = 1 record"
    sequences: int = 0  # what the trainer batches: records, or packed rows
    trainer: str = "hosted"
    trainer_rule: str = "steps per epoch = ceil(records / effective batch)"
    max_steps: int | None = None
    epochs_covered: float | None = None  # passes over the data that total_steps makes
    packing: PackingFigures | None = None
    budget: BudgetFigures | None = None
    self_hosted: SelfHostedFigures | None = None  # wall time and compute cost
    learning_rate: ScaledRates | None = None  # scaled rates for a changed batch

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


def validation_figures(held_out, context_limit: int | None, train) -> ValidationFigures:  # type: ignore[no-untyped-def]
    """Figures of a validation file. Not added to cost: OpenAI bills training tokens only
    (its pricing names one training rate; validation is run at no training charge) [unverified]."""
    from .dataset import leakage_findings

    figures = dataset_figures(held_out.frame(), lines=held_out.lines, invalid_lines=held_out.invalid,
                              messages=held_out.messages, context_limit=context_limit)
    leaks = leakage_findings(train.frame(), [f.path for f in train.files], held_out.frame(),
                             [f.path for f in held_out.files])
    return ValidationFigures([f.path for f in held_out.files], figures.lines, figures.records, figures.tokens_capped, len(leaks))


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
    lengths: Iterable[int] | None = None,
) -> Estimate:
    """`lengths` (tokens per record, in file order) is needed only for packing."""
    from .trainer import PACKING_RULE, TRANSFORMERS_LEGACY_RULE, TRANSFORMERS_RULE, hf_steps, hf_warmup, pack

    records = data.records
    tokens_per_epoch = data.tokens_capped
    packing = None
    sequences = records  # what the trainer batches: records, or packed rows
    if plan.packing and plan.max_seq_len and lengths is not None:
        packed = pack(lengths, plan.max_seq_len)
        sequences, tokens_per_epoch = packed.rows, packed.kept_tokens
        packing = PackingFigures(PACKING_RULE, packed.max_seq_len, packed.rows, packed.lower_bound_rows,
                                 packed.truncated_records, packed.truncated_tokens)
    if plan.epochs is not None:
        epochs, epochs_source = plan.epochs, "--epochs"
    elif plan.trainer == "hf":
        epochs, epochs_source = 3, "transformers default (num_train_epochs=3)"
    else:
        epochs = auto_epochs(records)
        epochs_source = "auto: OpenAI cookbook heuristic (3, kept within 100-25,000 example passes); not documented by OpenAI"
    if plan.batch_size is not None:
        batch, batch_source = plan.batch_size, "--batch-size"
    elif plan.trainer == "hf":
        batch, batch_source = 8, "transformers default (per_device_train_batch_size=8)"
    else:
        batch = auto_batch_size(records)
        batch_source = "auto: about 0.2% of records, 1 to 256 (Azure's documented rule; OpenAI's is undocumented)"
    effective = batch * plan.grad_accum * plan.gpus
    full_batches, last_batch = divmod(sequences, effective)
    if plan.trainer == "hf":
        steps = hf_steps(sequences, batch, plan.gpus, plan.grad_accum, plan.drop_last, plan.hf_legacy)
        steps_per_epoch = steps.updates_per_epoch
        rule = TRANSFORMERS_LEGACY_RULE if plan.hf_legacy else TRANSFORMERS_RULE
    else:
        steps_per_epoch = full_batches if plan.drop_last else full_batches + (1 if last_batch else 0)
        rule = "steps per epoch = " + ("floor" if plan.drop_last else "ceil") + "(records / effective batch)"
    if plan.max_steps:
        total_steps = plan.max_steps
        epochs = math.ceil(plan.max_steps / steps_per_epoch) if steps_per_epoch else 0
        epochs_source = f"--max-steps {plan.max_steps}: ceil({plan.max_steps} / {steps_per_epoch} steps per epoch)"
    else:
        total_steps = steps_per_epoch * epochs
    covered = (total_steps / steps_per_epoch) if steps_per_epoch else 0.0
    if plan.trainer == "hf":
        warmup = hf_warmup(total_steps, plan.warmup_steps, float(plan.warmup_ratio) if plan.warmup_ratio is not None else None)
    elif plan.warmup_steps is not None:
        warmup = plan.warmup_steps
    elif plan.warmup_ratio is not None:
        warmup = math.ceil(plan.warmup_ratio * total_steps)
    else:
        warmup = 0
    if plan.max_steps:  # a partial last epoch: its share of the tokens, at the average record length
        tokens_processed = round(tokens_per_epoch * Fraction(total_steps, steps_per_epoch)) if steps_per_epoch else 0
    else:
        tokens_processed = tokens_per_epoch * epochs
    price_value = float(price.value) if price is not None else None  # type: ignore[arg-type]
    cost = tokens_processed * price_value / 1_000_000 if price_value is not None else None
    result = Estimate(
        lines=data.lines,
        invalid_lines=data.invalid_lines,
        records=records,
        messages=data.messages,
        targets=data.targets,
        tokens=tokens_per_epoch,
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
        sequences=sequences,
        trainer=plan.trainer,
        trainer_rule=rule,
        max_steps=plan.max_steps,
        epochs_covered=round(covered, 4),
        packing=packing,
    )
    result.budget = _budget(result, plan, price_value)
    result.self_hosted = _self_hosted(result, plan)
    result.learning_rate = _scaled_rates(result, plan)
    result.warnings = gate_findings(result, gates) + advice(result, min_examples, plan)
    return result


def _budget(e: Estimate, plan: Plan, price: float | None) -> BudgetFigures | None:
    """The most whole epochs (and their steps) a budget in dollars or tokens buys."""
    if plan.budget_usd is None and plan.budget_tokens is None:
        return None
    limits = []
    if plan.budget_tokens is not None and e.tokens:
        limits.append(plan.budget_tokens // e.tokens)
    if plan.budget_usd is not None:
        per_epoch_usd = e.tokens * price / 1_000_000 if price is not None else None
        if per_epoch_usd is None and plan.tokens_per_second and plan.gpu_hour_usd:
            per_epoch_usd = e.tokens / plan.tokens_per_second / 3600 * plan.gpus * plan.gpu_hour_usd
        if per_epoch_usd:
            limits.append(math.floor(Fraction(str(plan.budget_usd)) / Fraction(str(per_epoch_usd))))
    if not limits:
        return BudgetFigures(plan.budget_usd, plan.budget_tokens, None, None,
                             note="no price per token (give --price, or --tokens-per-second with --gpu-hour-usd)")
    max_epochs = min(limits)
    fits = e.epochs_covered is not None and e.epochs_covered <= max_epochs
    return BudgetFigures(plan.budget_usd, plan.budget_tokens, max_epochs, max_epochs * e.steps_per_epoch, fits)


def _self_hosted(e: Estimate, plan: Plan) -> SelfHostedFigures | None:
    if not plan.tokens_per_second:
        return None
    hours = e.tokens_processed / plan.tokens_per_second / 3600
    cost = hours * plan.gpus * plan.gpu_hour_usd if plan.gpu_hour_usd is not None else None
    return SelfHostedFigures(plan.tokens_per_second, round(hours, 4), plan.gpus, plan.gpu_hour_usd,
                             round(cost, 4) if cost is not None else None)


def _scaled_rates(e: Estimate, plan: Plan) -> ScaledRates | None:
    if plan.learning_rate is None or plan.reference_batch_size is None:
        return None
    ratio = e.effective_batch_size / plan.reference_batch_size
    return ScaledRates(plan.learning_rate, plan.reference_batch_size, e.effective_batch_size,
                       plan.learning_rate * ratio, plan.learning_rate * math.sqrt(ratio))


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


def advice(e: Estimate, min_examples: int | None, plan: Plan | None = None) -> list[dict[str, str]]:
    t = plan.thresholds if plan is not None else ADVICE_THRESHOLDS
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
    small = e.records < t["small_dataset"] and e.epochs > t["max_epochs_small"]
    memorising = bool(e.records) and (small or e.epochs > t["max_epochs"])
    if memorising:
        warn("FT504", f"{e.epochs} epochs over {e.records} records: the model memorises these answers rather than learning the task; add data rather than epochs")
    elif e.records and e.epochs > t["max_usual_epochs"]:
        warn("FT506", f"{e.epochs} epochs: supervised runs rarely gain past {t['max_usual_epochs']:g} (preference runs past 2); check validation loss per epoch")
    if e.total_steps and e.warmup_steps > t["max_warmup_share"] * e.total_steps:
        share = e.warmup_steps / e.total_steps
        warn("FT505", f"warmup is {e.warmup_steps} of {e.total_steps} steps ({share:.0%}); give it as --warmup-ratio (e.g. 0.05) instead")
    if e.learning_rate and e.effective_batch_size != e.learning_rate.reference_batch_size:
        lr = e.learning_rate
        warn("FT507", f"effective batch {e.effective_batch_size} differs from the reference {lr.reference_batch_size} the learning rate {lr.learning_rate:g} was set for: "
                      f"scale it to {lr.linear:.3g} (linear) or {lr.sqrt:.3g} (square root) if you did not already")
    if e.records >= t["large_dataset"] and (e.epochs_covered or e.epochs) > 1:
        warn("FT508", f"{e.records:,} records: one epoch is usually plenty at this size; more passes mostly add cost")
    if e.packing and e.packing.truncated_records:
        p = e.packing
        warn("FT509", f"{p.truncated_records:,} record(s) longer than --max-seq-len {p.max_seq_len:,}: {p.truncated_tokens:,} tokens cut off by packing")
    if e.budget and e.budget.max_epochs is not None and e.budget.max_steps is not None and not e.budget.fits:
        warn("FT510", f"the plan ({e.epochs_covered:g} epochs) is over the budget, which buys at most {e.budget.max_epochs} epoch(s), {e.budget.max_steps:,} steps")
    return out

"""Training arithmetic. Pure: dataset figures and plan options in, one frozen Estimate out.

  effective batch   = per-device batch x gradient accumulation x GPUs
  steps per epoch   = the trainer's rule (ftlint/trainers/steps.py)
  total steps       = steps per epoch x epochs (or max steps)
  warmup steps      = the trainer's rounding of ratio x total steps, or as given
  tokens per epoch  = sum over records of min(tokens, limit[, max seq len])
  tokens processed  = tokens per epoch x epochs; when a run feeds another number of sequences
                      than whole epochs (max steps, dropped or repeated batches), sequences fed x
                      the mean tokens of a sequence: what a shuffled run processes on average
  cost              = what the provider bills (the trainer's `bill`, ftlint/trainers/billing.py):
                      billed tokens x price per 1M tokens / 1,000,000, at least the model's minimum charge

The plan's advice and gates are plan rules (ftlint/rules/advice.py, gates.py): the engine runs
them on the estimate this module makes (engine/judge.py `plan_findings`), and the use case
attaches their findings (app.py); this module knows no rule.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from ..diagnostics import Diagnostic
from ..models import Model, Sourced
from ..options import PlanOptions
from ..tokenizing import Encoding, Template
from ..trainers import Trainer
from ..trainers.base import RecordRow
from ..trainers.billing import Bill, Usage, max_batch, method_of, per_token, rate_of
from ..trainers.profile import HOSTED_STEPS
from ..trainers.steps import Hosted, Schedule
from .exactness import counts_exact
from .figures import DatasetFigures, PackingFigures, ValidationFigures
from .groups import (
    BudgetFigures,
    CostFigures,
    DataFigures,
    RunFigures,
    ScaledRates,
    ScheduleFigures,
    SelfHostedFigures,
    TokenCounts,
    TruncationFigures,
)
from .prepared import applied, drawn
from .sources import sources_of, trainer_default
from .warmup import warmup_of


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """What the estimate says of the data besides its figures: format, model, paths."""

    paths: tuple[str, ...]
    model: str
    encoding: Encoding
    context_limit: int | None
    format: str = "openai-chat"
    format_reason: str = ""
    record_rule: str = "1 line = 1 record"
    min_examples: int | None = None  # the format's provider minimum
    validation: ValidationFigures | None = None
    model_entry: Model | None = None  # the catalog's entry (lifecycle, provider, tokenizer)
    today: str = ""  # ISO date the lifecycle is judged on
    trainer: Trainer | None = None  # the run's trainer (None: none named or implied: a provider's plain job)
    trainer_source: str = ""  # why it is the run's: --trainer, the model's provider, ...
    run_config: str = ""  # --run FILE: the run config the plan's values came from
    run_notes: tuple[str, ...] = ()  # what it says that the figures do not model, and its defaults
    max_length: int | None = None  # where the trainer cuts (the judge's Loss.max_seq_len), None: the limit
    max_length_source: str = ""
    past_max: str = "truncate"
    preference: bool = False  # a preference format: a DPO job, at its rate
    trainer_keys: tuple[tuple[str, object], ...] = ()  # the run config's keys the trainer reads itself (its renderer's, split's, packer's)
    rows_per_file: int | None = None  # only the first rows of each file were read (a trainer's max_samples)
    template: Template = "openai"  # how records became tokens (resolve.settings): a family, a TemplatePath, "openai"
    model_source: str = ""  # what named the model (RunOptions.model_source) and the file it is in: its findings' place
    model_file: str = ""


# `-o json`'s keys, flat, in the order it has always printed them (JSON keys are added, never moved): each
# as the path to its figure in the Estimate, GROUP.KEY, or KEY of the Estimate itself
JSON_KEYS = (
    "data.lines", "data.invalid_lines", "data.records", "data.messages", "data.targets", "counts.tokens",
    "counts.tokens_in_file", "counts.trainable_tokens", "counts.context_limit", "counts.records_over_limit",
    "counts.token_stats", "run.model", "counts.encoding", "schedule.epochs", "schedule.epochs_source", "schedule.batch_size",
    "schedule.batch_size_source", "schedule.grad_accum", "schedule.gpus", "schedule.effective_batch_size", "schedule.drop_last",
    "schedule.full_batches", "schedule.last_batch", "schedule.steps_per_epoch", "schedule.total_steps", "schedule.warmup_ratio",
    "schedule.warmup_steps", "schedule.tokens_processed", "schedule.tokens_processed_rule", "cost.price_per_1m",
    "cost.price_source", "cost.cost_usd", "validation", "data.format", "data.format_reason", "data.record_rule",
    "schedule.sequences", "schedule.sequences_processed", "run.trainer", "run.trainer_rule", "schedule.max_steps",
    "schedule.epochs_covered", "packing", "truncation", "cost.budget", "cost.self_hosted", "learning_rate", "refusal",
    "run.provider", "run.model_assumed", "counts.tokenizer", "counts.tokens_exact", "counts.tokens_note", "cost.price_unit",
    "cost.price_note", "run.trainer_title", "run.trainer_source", "run.trainer_steps", "schedule.warmup_steps_given",
    "schedule.warmup_rule", "cost.bill", "run.rows_rule", "sources", "run.run_config", "run.run_notes",
    "counts.trainable_tokens_in_file", "run.renderer", "data.rows_per_file", "ranges", "run.prepared",
)


@dataclass(frozen=True)
class Estimate:
    """The run's figures, by concern (plan/groups.py), and the plan rules' findings."""

    data: DataFigures
    counts: TokenCounts
    run: RunFigures
    schedule: ScheduleFigures
    cost: CostFigures
    validation: ValidationFigures | None = None
    packing: PackingFigures | None = None
    truncation: TruncationFigures | None = None
    learning_rate: ScaledRates | None = None  # scaled rates for a changed batch
    refusal: str | None = None  # why the trainer would not start, or trains nothing
    # where each plan figure's value came from: a flag, the run config, the trainer's default or ftlint's rule
    sources: dict[str, str] = dataclasses.field(default_factory=dict)
    # figures the trainer draws at random (a shuffled held-out share, a random packing order): (lowest, highest), an
    # estimate; by their names in `-o json`
    ranges: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    findings: tuple[Diagnostic, ...] = ()  # advice and gates, with the registry's severities

    # the figures docs/api.md reads by name, as on the Estimate before it had groups
    @property
    def tokens(self) -> int:
        return self.counts.tokens

    @property
    def token_stats(self) -> dict[str, float]:
        return self.counts.token_stats

    @property
    def total_steps(self) -> int:
        return self.schedule.total_steps

    @property
    def warnings(self) -> list[dict[str, str]]:
        """The findings as the JSON output lists them."""
        return [{"code": d.code, "message": d.message, "severity": d.severity} for d in self.findings]

    def _repr_html_(self) -> str:  # a notebook's table of the figures, and the findings
        from ..notebook import figures_table, findings_table

        d, c, s = self.data, self.counts, self.schedule
        figures = {"model": self.run.model, "format": d.format, "lines": d.lines, "records": d.records, "tokens": c.tokens,
                   "trainable tokens": c.trainable_tokens, "epochs": s.epochs, "effective batch size": s.effective_batch_size,
                   "steps per epoch": s.steps_per_epoch, "total steps": s.total_steps, "tokens processed": s.tokens_processed,
                   "cost usd": self.cost.cost_usd}
        findings = [("", 0, f.code, f.severity, f.message) for f in self.findings]
        return figures_table("ftlint estimate", figures) + findings_table(findings)

    def to_dict(self) -> dict[str, object]:
        """The figures flat, as `-o json` prints them: a group of its own (a bill, a budget) as an object."""
        out: dict[str, object] = {}
        for path in JSON_KEYS:
            group, _, key = path.rpartition(".")
            value = getattr(getattr(self, group) if group else self, key)
            out[key] = dataclasses.asdict(value) if dataclasses.is_dataclass(value) and not isinstance(value, type) else value
        out["warnings"] = self.warnings
        return out


def estimate(data: DatasetFigures, plan: PlanOptions, info: DatasetInfo, *, price: Sourced | None,
             ordered: Sequence[RecordRow] | None = None) -> Estimate:
    """The run's figures, without findings. `ordered` (every record, in the files' order, when the
    order was kept) is what the trainer prepares (Trainer.prepare: its split, its packing, its own
    preparation); without it, or a preparation, the records train as judged."""
    trainer = info.trainer
    strategy = trainer.steps(plan.hf_legacy) if trainer else Hosted()
    packing = None
    prepared = trainer.prepare(ordered, dict(info.trainer_keys), plan) if trainer is not None and ordered is not None else None
    if prepared is not None:
        data, held, packing = applied(data, prepared, ordered or (), info.paths, info.context_limit)
        info = dataclasses.replace(info, validation=held or info.validation)
        strategy = prepared.steps or strategy
    records = data.records
    tokens_per_epoch = data.tokens_capped
    sequences = packing.rows if packing is not None else records
    truncation = _truncation(data, info)
    model = info.model_entry
    method = method_of(info.preference, plan.full)
    rows = trainer.rows(records, tokens_per_epoch, plan, model, method) if trainer else None  # what it batches, if not records
    if rows is not None and rows.sequences is not None:
        sequences = rows.sequences
    rows_rule = rows.rule if rows is not None else ""
    profile = trainer.profile if trainer else None
    given = dict(plan.sources)
    max_steps, steps_source = plan.max_steps, given.get("max_steps", f"--max-steps {plan.max_steps}")
    if max_steps is None and profile is not None and isinstance(profile.max_steps.value, int):
        max_steps = profile.max_steps.value
        steps_source = f"max_steps {max_steps}: {profile.name}'s default ({profile.max_steps.source})"
    epochs, epochs_source = ((plan.epochs, given.get("epochs", "--epochs")) if plan.epochs is not None
                             else trainer_default(trainer, "epochs", records, strategy))
    batch, batch_source = ((plan.batch_size, given.get("batch_size", "--batch-size")) if plan.batch_size is not None
                           else trainer_default(trainer, "batch", records, strategy, max_batch(model, plan.full)))
    s = strategy.schedule(sequences, epochs, batch, plan.grad_accum, plan.gpus, plan.drop_last, max_steps)
    if max_steps:
        epochs = s.epochs_run
        epochs_source = f"{steps_source}: ceil({max_steps} / {s.steps_per_epoch} steps per epoch)"
    elif s.epochs_run != epochs and s.steps_per_epoch:
        epochs_source += f"; the run ends in epoch {s.epochs_run}, when its {s.total_steps:,} planned steps are done"
        epochs = s.epochs_run
    warmup, warmup_rule = warmup_of(strategy, s.schedule_steps, plan)
    ranges = drawn(prepared, s, strategy, plan)
    per_epoch_rule = strategy.per_epoch_words(sequences, "rows", batch, plan.gpus, plan.grad_accum, plan.drop_last) \
        if prepared is not None and prepared.steps is not None else ""
    tokens_processed, processed_rule = _tokens_processed(tokens_per_epoch, s, epochs)
    covered = s.epochs_covered
    if rows is not None and rows.full and rows.length and tokens_per_epoch:  # an endless iterator: every sequence is full
        tokens_processed = s.sequences_processed * rows.length
        processed_rule = f"= {s.sequences_processed:,} sequences fed x {rows.length:,} tokens, each one full"
        covered = round(tokens_processed / tokens_per_epoch, 4)
        epochs, epochs_source = math.ceil(covered), f"passes over the data begun: {tokens_processed:,} / {tokens_per_epoch:,} tokens"
    charged, price_note = _price(price, trainer.hosted if trainer else strategy.charges_per_token, info, method)
    usage = Usage(method, tokens_per_epoch, records, epochs, tokens_processed, processed_rule,
                  info.validation.tokens if info.validation else 0, charged, model.minimum_charge if model else None,
                  str(model.storage.remark) if model and model.storage else "")
    billed = trainer.bill(usage, rows, plan) if trainer else per_token("tokens x epochs", usage)
    counts_note = trainer.counts_note(dict(info.trainer_keys), info.format) if trainer and info.template != "openai" else ""
    price_value, cost = billed.rate, billed.cost_usd
    exactness = counts_exact(model, info.encoding, info.template, info.format)
    counts = TokenCounts(
        tokens=tokens_per_epoch, tokens_in_file=data.tokens_in_file, trainable_tokens=data.trainable_tokens,
        trainable_tokens_in_file=data.trainable_tokens_in_file, context_limit=info.context_limit,
        records_over_limit=data.records_over_limit, token_stats=data.token_stats, encoding=str(info.encoding),
        tokenizer=str(info.encoding), tokens_exact=exactness[0] and not counts_note, tokens_note=exactness[1] or counts_note)
    schedule = ScheduleFigures(
        epochs=epochs, epochs_source=epochs_source, batch_size=batch, batch_size_source=batch_source, grad_accum=plan.grad_accum,
        gpus=plan.gpus, effective_batch_size=s.effective_batch, drop_last=plan.drop_last, full_batches=s.full_batches,
        last_batch=s.last_batch, sequences=sequences, sequences_processed=s.sequences_processed, steps_per_epoch=s.steps_per_epoch,
        total_steps=s.total_steps, max_steps=max_steps, epochs_covered=covered,
        warmup_ratio=float(plan.warmup_ratio) if plan.warmup_ratio is not None else None, warmup_steps=warmup,
        tokens_processed=tokens_processed, tokens_processed_rule=processed_rule, warmup_steps_given=plan.warmup_steps is not None,
        warmup_rule=warmup_rule, per_epoch_rule=per_epoch_rule)
    bill = billed if profile is None or profile.hosted or charged is not None else None
    return Estimate(
        data=DataFigures(lines=data.lines, invalid_lines=data.invalid_lines, records=records, messages=data.messages,
                         targets=data.targets, format=info.format, format_reason=info.format_reason,
                         record_rule=info.record_rule, rows_per_file=info.rows_per_file),
        counts=counts,
        run=RunFigures(model=info.model, provider=model.provider if model else "", model_assumed=model.assumed if model else False,
                       model_unnamed=model is not None and model.unnamed,
                       trainer=profile.name if profile else "", trainer_title=trainer.title_for(info.preference) if trainer else "",
                       trainer_source=info.trainer_source, trainer_rule=s.rule,
                       trainer_steps=profile.steps if profile else HOSTED_STEPS, rows_rule=rows_rule,
                       renderer=_renderer(trainer, info), prepared=prepared.rule if prepared else "",
                       run_config=info.run_config, run_notes=info.run_notes),
        schedule=schedule,
        cost=CostFigures(price_per_1m=price_value, price_source=charged.note if charged is not None else None, cost_usd=cost,
                         price_unit=price.unit if price is not None else "", price_note=price_note, bill=bill,
                         budget=_budget(counts, schedule, bill, plan, price_value), self_hosted=_self_hosted(schedule, plan)),
        validation=_validation(info.validation, trainer, plan.n_evals or 0), packing=packing, truncation=truncation,
        learning_rate=_scaled_rates(schedule, plan), refusal=(prepared.refusal if prepared else None) or s.refusal,
        sources={**sources_of(plan, profile, epochs_source, batch_source, info.max_length_source),
                 **({"max_steps": steps_source} if max_steps else {}), **dict(prepared.sources if prepared else ())},
        ranges=ranges,
    )


def _renderer(trainer: Trainer | None, info: DatasetInfo) -> str:
    """The trainer's own renderer, when it made the records (Trainer.renderer)."""
    rendered = trainer is not None and info.trainer_keys and info.template != "openai"
    found = trainer.renderer(dict(info.trainer_keys)) if rendered else None  # type: ignore[union-attr]
    return found.title if found is not None and found.reads(info.format) else ""


def _truncation(data: DatasetFigures, info: DatasetInfo) -> TruncationFigures | None:
    """Past the max length: the trainer's (always said), or the limit's when it cuts a record."""
    length, source = info.max_length, info.max_length_source
    if length is None:
        if not (data.truncated_records or data.records_dropped) or info.context_limit is None:
            return None
        length = info.context_limit
    return TruncationFigures(length, data.truncated_records, data.truncated_tokens, info.past_max, source, data.trainable_cut,
                             data.records_emptied, data.records_dropped, data.tokens_dropped, data.trainable_dropped,
                             data.trainable_tokens, data.trainable_tokens_in_file)


def _price(price: Sourced | None, per_token_trainer: bool, info: DatasetInfo, method: str) -> tuple[Sourced | None, str]:
    """The price the cost uses (per token, and for a hosted trainer unless the user gave it; by
    method where the catalog prices by method), and otherwise why there is none and what to pass."""
    if price is not None and price.confidence == "user":
        return price, ""
    model = info.model_entry
    if not per_token_trainer:
        return None, "self-hosted: see compute cost (--tokens-per-second, --gpu-hour-usd); --price compares with a provider"
    if model is not None and model.rates:
        found = rate_of(model, method)
        if found is not None:
            return found, ""
        return None, (f"price unknown: pass --price USD_PER_1M_TOKENS; the catalog prices {model.name} for "
                      f"{', '.join(k for k, _ in model.rates)} only, not {method}")
    if price is not None and price.unit == "usd_per_1m_tokens":
        return price, ""
    if model is not None and model.provider == "hf" and price is None:
        return None, ("self-hosted: no price per token; give --tokens-per-second and --gpu-hour-usd for compute cost, "
                      "or --price to compare with a provider")
    if price is not None and price.unit == "usd_per_training_hour":
        return None, (f"billed ${float(price.value):g} per training hour, not per token ({price.note}); the hours are not "
                      "known before the job")
    if model is not None and model.unnamed:
        provider = f" for {model.provider}" if model.provider else ""
        return None, f"no model of ftlint's catalog: give --model (`ftlint models --provider {model.provider or 'NAME'}`){provider} or --price USD_PER_1M_TOKENS"
    rule = f"; {info.trainer.name} bills {info.trainer.profile.billing.value}" if info.trainer and info.trainer.hosted else ""
    why = f" ({model.unpriced.value}; {model.unpriced.note})" if model is not None and model.unpriced is not None else ""
    return None, f"price unknown for {info.model}{why}: pass --price USD_PER_1M_TOKENS{rule}"


def _validation(v: ValidationFigures | None, trainer: Trainer | None, evals: int) -> ValidationFigures | None:
    """The validation figures, saying whether the bill counts them (a trainer that bills evaluations)."""
    said = trainer.validation_billing(evals) if trainer is not None and v is not None else None
    if v is None or said is None:
        return v
    return dataclasses.replace(v, billed=said[0], billing_note=said[1])


def _tokens_processed(tokens_per_epoch: int, s: Schedule, epochs: int) -> tuple[int, str]:
    n = s.sequences
    if not n or not s.total_steps:
        return 0, "no step is trained"
    passes, rest = divmod(s.sequences_processed, n)
    if not rest:
        return tokens_per_epoch * passes, f"= {tokens_per_epoch:,} x {passes} epoch{'s' if passes != 1 else ''}"
    tokens = round(Fraction(tokens_per_epoch * s.sequences_processed, n))
    return tokens, (f"= round({s.sequences_processed:,} sequences fed x {tokens_per_epoch:,} / {n:,}): the tokens of "
                    "a sequence on average, a shuffled run's expected tokens")


def _budget(counts: TokenCounts, schedule: ScheduleFigures, bill: Bill | None, plan: PlanOptions,
            price: float | None) -> BudgetFigures | None:
    """The most whole epochs (and their steps) a budget in dollars or tokens buys."""
    if plan.budget_usd is None and plan.budget_tokens is None:
        return None
    tokens = counts.tokens
    limits = []
    if plan.budget_tokens is not None and tokens:
        limits.append(plan.budget_tokens // tokens)
    if plan.budget_usd is not None:
        billed = bill.training_tokens if bill is not None else tokens  # an epoch as billed (padded rows, where so billed)
        per_epoch_usd = billed * price / 1_000_000 if price is not None else None
        if per_epoch_usd is None and plan.tokens_per_second and plan.gpu_hour_usd:
            per_epoch_usd = tokens / plan.tokens_per_second / 3600 * plan.gpus * plan.gpu_hour_usd
        if per_epoch_usd:
            limits.append(math.floor(Fraction(str(plan.budget_usd)) / Fraction(str(per_epoch_usd))))
    if not limits:
        return BudgetFigures(plan.budget_usd, plan.budget_tokens, None, None,
                             note="no price per token (give --price, or --tokens-per-second with --gpu-hour-usd)")
    max_epochs = min(limits)
    fits = schedule.epochs_covered is not None and schedule.epochs_covered <= max_epochs
    return BudgetFigures(plan.budget_usd, plan.budget_tokens, max_epochs, max_epochs * schedule.steps_per_epoch, fits)


def _self_hosted(schedule: ScheduleFigures, plan: PlanOptions) -> SelfHostedFigures | None:
    if not plan.tokens_per_second:
        return None
    hours = schedule.tokens_processed / plan.tokens_per_second / 3600
    cost = hours * plan.gpus * plan.gpu_hour_usd if plan.gpu_hour_usd is not None else None
    return SelfHostedFigures(plan.tokens_per_second, round(hours, 4), plan.gpus, plan.gpu_hour_usd,
                             round(cost, 4) if cost is not None else None)


def _scaled_rates(schedule: ScheduleFigures, plan: PlanOptions) -> ScaledRates | None:
    if plan.learning_rate is None or plan.reference_batch_size is None:
        return None
    ratio = schedule.effective_batch_size / plan.reference_batch_size
    return ScaledRates(plan.learning_rate, plan.reference_batch_size, schedule.effective_batch_size,
                       plan.learning_rate * ratio, plan.learning_rate * math.sqrt(ratio))


__all__ = ["JSON_KEYS", "DatasetInfo", "Estimate", "estimate"]

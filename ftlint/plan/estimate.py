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
from ..trainers import Trainer
from ..trainers.base import RecordRow
from ..trainers.billing import Bill, Usage, max_batch, method_of, per_token, rate_of
from ..trainers.profile import HOSTED_STEPS
from ..trainers.steps import Hosted, Schedule
from .exactness import counts_exact
from .figures import DatasetFigures, PackingFigures, ValidationFigures
from .prepared import applied, drawn
from .sources import sources_of, trainer_default
from .warmup import warmup_of


@dataclass(frozen=True, slots=True)
class TruncationFigures:
    """What the trainer does past its max length (ftlint/trainers/cut.py), from the records the
    judge cut: those it cuts and what it cuts off them, those it drops, and what still trains."""

    max_seq_len: int
    records: int  # records cut
    tokens: int  # tokens cut off them
    rule: str = "truncate"  # the name of the trainer's Cut (its past_max; ftlint/trainers CUTS)
    source: str = ""  # where the max length comes from: --max-seq-len, the trainer's default, the model's limit
    trainable_cut: int = 0  # trained tokens cut off
    records_emptied: int = 0  # records left with no trained token
    records_dropped: int = 0  # records left out (a trainer's drop): in no figure of the estimate
    tokens_dropped: int = 0
    trainable_dropped: int = 0
    trainable_tokens: int = 0  # what the run trains: the estimate's trainable_tokens
    trainable_tokens_in_file: int = 0  # before the cut and the drop


@dataclass(frozen=True, slots=True)
class BudgetFigures:
    usd: float | None
    tokens: int | None
    max_epochs: int | None  # None: no price to turn dollars into epochs
    max_steps: int | None
    fits: bool | None = None
    note: str | None = None


@dataclass(frozen=True, slots=True)
class SelfHostedFigures:
    tokens_per_second: float
    wall_hours: float
    gpus: int
    gpu_hour_usd: float | None
    compute_cost_usd: float | None


@dataclass(frozen=True, slots=True)
class ScaledRates:
    learning_rate: float
    reference_batch_size: int
    effective_batch_size: int
    linear: float
    sqrt: float


@dataclass(frozen=True, slots=True)
class DatasetInfo:
    """What the estimate says of the data besides its figures: format, model, paths."""

    paths: tuple[str, ...]
    model: str
    encoding: str
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
    template: str = "openai"  # how records became tokens (resolve.settings): a family, "file:PATH", "openai"
    model_source: str = ""  # what named the model (RunOptions.model_source) and the file it is in: its findings' place
    model_file: str = ""


@dataclass(frozen=True)
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
    tokens_processed_rule: str
    price_per_1m: float | None
    price_source: str | None
    cost_usd: float | None
    validation: ValidationFigures | None
    format: str
    format_reason: str
    record_rule: str
    sequences: int  # what the trainer batches: records, or packed rows
    sequences_processed: int  # sequences fed over the run (repeats in, dropped out)
    trainer: str  # the profile's name ("" when none was named or implied)
    trainer_rule: str
    max_steps: int | None
    epochs_covered: float | None  # passes over the data that total_steps makes
    packing: PackingFigures | None
    truncation: TruncationFigures | None
    budget: BudgetFigures | None
    self_hosted: SelfHostedFigures | None  # wall time and compute cost
    learning_rate: ScaledRates | None  # scaled rates for a changed batch
    refusal: str | None  # why the trainer would not start, or trains nothing
    provider: str = ""
    model_assumed: bool = False  # no --model: the format's provider's default model, or none
    tokenizer: str = ""  # the tokenizer family the counts use
    tokens_exact: bool = True  # False: the model's tokenizer is not available; counted with o200k_base
    tokens_note: str = ""  # what the counts are, when they are not exact
    price_unit: str = ""  # the catalog price's unit: usd_per_1m_tokens, usd_per_training_hour
    price_note: str = ""  # why there is no cost, and what to pass
    findings: tuple[Diagnostic, ...] = ()  # advice and gates, with the registry's severities
    trainer_title: str = ""
    trainer_source: str = ""  # why the run has this trainer
    trainer_steps: str = "hosted"  # its step arithmetic, as its profile names it (ftlint/trainers/profile.py)
    warmup_steps_given: bool = False  # --warmup-steps (not the trainer's rule)
    warmup_rule: str = ""  # how the warmup steps were found (plan/warmup.py)
    bill: Bill | None = None  # what the provider will bill (cost_usd is its cost)
    rows_rule: str = ""  # how the rows a trainer batches were counted (Trainer.rows)
    # where each plan figure's value came from: a flag, the run config, the trainer's default or ftlint's rule
    sources: dict[str, str] = dataclasses.field(default_factory=dict)
    run_config: str = ""
    run_notes: tuple[str, ...] = ()
    trainable_tokens_in_file: int = 0  # the targets' tokens before the trainer's cut and drop (trainable_tokens: after)
    renderer: str = ""  # the trainer's own renderer that made the records, with its source ("": the model's template)
    rows_per_file: int | None = None  # only the first rows of each file were read, as the trainer reads them
    # figures the trainer draws at random (a shuffled held-out share, a random packing order): (lowest, highest), an estimate
    ranges: dict[str, tuple[int, int]] = dataclasses.field(default_factory=dict)
    prepared: str = ""  # what the trainer makes of the records before it batches them, in words (Trainer.prepare)
    per_epoch_rule: str = ""  # how steps per epoch were found, when a trainer's preparation chose the step arithmetic

    @property
    def warnings(self) -> list[dict[str, str]]:
        """The findings as the JSON output lists them."""
        return [{"code": d.code, "message": d.message, "severity": d.severity} for d in self.findings]

    def _repr_html_(self) -> str:  # a notebook's table of the figures, and the findings
        from ..notebook import ESTIMATE_FIGURES, figures_table, findings_table

        findings = [("", 0, d.code, d.severity, d.message) for d in self.findings]
        return figures_table("ftlint estimate", self, ESTIMATE_FIGURES) + findings_table(findings)

    def to_dict(self) -> dict[str, object]:
        data = {f.name: getattr(self, f.name) for f in dataclasses.fields(self) if f.name not in ("findings", "per_epoch_rule")}
        out = {k: (dataclasses.asdict(v) if dataclasses.is_dataclass(v) and not isinstance(v, type) else v) for k, v in data.items()}
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
    e = Estimate(
        lines=data.lines, invalid_lines=data.invalid_lines, records=records, messages=data.messages, targets=data.targets,
        tokens=tokens_per_epoch, tokens_in_file=data.tokens_in_file, trainable_tokens=data.trainable_tokens,
        context_limit=info.context_limit, records_over_limit=data.records_over_limit, token_stats=data.token_stats,
        model=info.model, encoding=info.encoding, epochs=epochs, epochs_source=epochs_source, batch_size=batch,
        batch_size_source=batch_source, grad_accum=plan.grad_accum, gpus=plan.gpus, effective_batch_size=s.effective_batch,
        drop_last=plan.drop_last, full_batches=s.full_batches, last_batch=s.last_batch, steps_per_epoch=s.steps_per_epoch,
        total_steps=s.total_steps, warmup_ratio=float(plan.warmup_ratio) if plan.warmup_ratio is not None else None,
        warmup_steps=warmup, tokens_processed=tokens_processed, tokens_processed_rule=processed_rule,
        price_per_1m=price_value, price_source=charged.note if charged is not None else None,
        cost_usd=cost, validation=_validation(info.validation, trainer, plan.n_evals or 0), format=info.format,
        format_reason=info.format_reason, record_rule=info.record_rule, sequences=sequences,
        sequences_processed=s.sequences_processed, trainer=profile.name if profile else "", trainer_rule=s.rule, max_steps=max_steps,
        epochs_covered=covered, packing=packing, truncation=truncation, budget=None, self_hosted=None,
        learning_rate=None, refusal=(prepared.refusal if prepared else None) or s.refusal, provider=model.provider if model else "",
        model_assumed=model.assumed if model else False, tokenizer=info.encoding,
        tokens_exact=exactness[0] and not counts_note, tokens_note=exactness[1] or counts_note,
        price_unit=price.unit if price is not None else "", price_note=price_note,
        trainer_title=trainer.title_for(info.preference) if trainer else "", trainer_source=info.trainer_source,
        trainer_steps=profile.steps if profile else HOSTED_STEPS, warmup_steps_given=plan.warmup_steps is not None, warmup_rule=warmup_rule,
        bill=billed if profile is None or profile.hosted or charged is not None else None, rows_rule=rows_rule,
        sources={**sources_of(plan, profile, epochs_source, batch_source, info.max_length_source),
                 **({"max_steps": steps_source} if max_steps else {}), **dict(prepared.sources if prepared else ())},
        run_config=info.run_config, run_notes=info.run_notes, trainable_tokens_in_file=data.trainable_tokens_in_file,
        renderer=_renderer(trainer, info), rows_per_file=info.rows_per_file, ranges=ranges,
        prepared=prepared.rule if prepared else "", per_epoch_rule=per_epoch_rule,
    )
    return dataclasses.replace(e, budget=_budget(e, plan, price_value), self_hosted=_self_hosted(e, plan),
                               learning_rate=_scaled_rates(e, plan))


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
    if model is not None and model.assumed and model.name.startswith("("):
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


def _budget(e: Estimate, plan: PlanOptions, price: float | None) -> BudgetFigures | None:
    """The most whole epochs (and their steps) a budget in dollars or tokens buys."""
    if plan.budget_usd is None and plan.budget_tokens is None:
        return None
    limits = []
    if plan.budget_tokens is not None and e.tokens:
        limits.append(plan.budget_tokens // e.tokens)
    if plan.budget_usd is not None:
        billed = e.bill.training_tokens if e.bill is not None else e.tokens  # an epoch as billed (padded rows, where so billed)
        per_epoch_usd = billed * price / 1_000_000 if price is not None else None
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


def _self_hosted(e: Estimate, plan: PlanOptions) -> SelfHostedFigures | None:
    if not plan.tokens_per_second:
        return None
    hours = e.tokens_processed / plan.tokens_per_second / 3600
    cost = hours * plan.gpus * plan.gpu_hour_usd if plan.gpu_hour_usd is not None else None
    return SelfHostedFigures(plan.tokens_per_second, round(hours, 4), plan.gpus, plan.gpu_hour_usd,
                             round(cost, 4) if cost is not None else None)


def _scaled_rates(e: Estimate, plan: PlanOptions) -> ScaledRates | None:
    if plan.learning_rate is None or plan.reference_batch_size is None:
        return None
    ratio = e.effective_batch_size / plan.reference_batch_size
    return ScaledRates(plan.learning_rate, plan.reference_batch_size, e.effective_batch_size,
                       plan.learning_rate * ratio, plan.learning_rate * math.sqrt(ratio))


__all__ = ["BudgetFigures", "DatasetInfo", "Estimate", "PackingFigures", "ScaledRates", "SelfHostedFigures",
           "TruncationFigures", "estimate"]

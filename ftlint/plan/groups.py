"""The Estimate's figures, in groups by concern (plan/estimate.py builds them): what the files hold
(DataFigures), the tokens counted (TokenCounts), who trains what (RunFigures), the steps
(ScheduleFigures), what the run costs (CostFigures), and the figures only some plans have: past the
max length, a budget, a self-hosted run's hours, scaled learning rates. `-o json` keeps them flat
(Estimate.to_dict)."""

from __future__ import annotations

from dataclasses import dataclass

from ..trainers.billing import Bill


@dataclass(frozen=True, slots=True)
class DataFigures:
    """What the files hold, as read, and how their lines became records."""

    lines: int
    invalid_lines: int
    records: int
    messages: int
    targets: int
    format: str
    format_reason: str
    record_rule: str
    rows_per_file: int | None = None  # only the first rows of each file were read, as the trainer reads them


@dataclass(frozen=True, slots=True)
class TokenCounts:
    """The tokens of an epoch and of the file, those that train, and how exact the counts are."""

    tokens: int  # per epoch, as trained: each record counted at most at the context limit
    tokens_in_file: int  # without the cap
    trainable_tokens: int
    trainable_tokens_in_file: int  # the targets' tokens before the trainer's cut and drop (trainable_tokens: after)
    context_limit: int | None
    records_over_limit: int
    token_stats: dict[str, float]
    encoding: str
    tokenizer: str  # the tokenizer family the counts use
    tokens_exact: bool = True  # False: the model's tokenizer is not available; counted with o200k_base
    tokens_note: str = ""  # what the counts are, when they are not exact


@dataclass(frozen=True, slots=True)
class RunFigures:
    """Who trains what: the model, the trainer and what it does to the records, the run config."""

    model: str
    provider: str = ""
    model_assumed: bool = False  # no --model: the format's provider's default model, or none
    model_unnamed: bool = False  # ... none: no model of the catalog (Model.unnamed; not in `-o json`, where the name says it)
    trainer: str = ""  # the profile's name ("" when none was named or implied)
    trainer_title: str = ""
    trainer_source: str = ""  # why the run has this trainer
    trainer_rule: str = ""  # its steps per epoch, in words
    trainer_steps: str = "hosted"  # its step arithmetic, as its profile names it (ftlint/trainers/profile.py)
    rows_rule: str = ""  # how the rows a trainer batches were counted (Trainer.rows)
    renderer: str = ""  # the trainer's own renderer that made the records, with its source ("": the model's template)
    prepared: str = ""  # what the trainer makes of the records before it batches them, in words (Trainer.prepare)
    run_config: str = ""  # --run FILE
    run_notes: tuple[str, ...] = ()  # what it says that the figures do not model


@dataclass(frozen=True, slots=True)
class ScheduleFigures:
    """Epochs, batches and the steps they make, the warmup, and what the run feeds."""

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
    sequences: int  # what the trainer batches: records, or packed rows
    sequences_processed: int  # sequences fed over the run (repeats in, dropped out)
    steps_per_epoch: int
    total_steps: int
    max_steps: int | None
    epochs_covered: float | None  # passes over the data that total_steps makes
    warmup_ratio: float | None
    warmup_steps: int
    tokens_processed: int
    tokens_processed_rule: str
    warmup_steps_given: bool = False  # --warmup-steps (not the trainer's rule)
    warmup_rule: str = ""  # how the warmup steps were found (plan/warmup.py)
    per_epoch_rule: str = ""  # how steps per epoch were found, when a trainer's preparation chose the step arithmetic


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
class CostFigures:
    """What the run costs: the provider's price and bill, or a self-hosted run's hours; a budget."""

    price_per_1m: float | None
    price_source: str | None
    cost_usd: float | None
    price_unit: str = ""  # the catalog price's unit: usd_per_1m_tokens, usd_per_training_hour
    price_note: str = ""  # why there is no cost, and what to pass
    bill: Bill | None = None  # what the provider will bill (cost_usd is its cost)
    budget: BudgetFigures | None = None
    self_hosted: SelfHostedFigures | None = None  # wall time and compute cost


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

    def clauses(self, cut: str, emptied: str, dropped: str, **words: str) -> list[str]:
        """What the cut and the drop do, a clause for each that does anything, in one wording's
        templates (the estimate's max length row, report/past_max.py; FT509's message, rules/advice.py).
        Each template is of {n} (a number of records), {records} ("1 record", "2 records") and the
        caller's `words`; `cut` of {tokens} (cut off), {trained} (", N of them trained", or nothing) and
        {emptied} (`emptied` of the records left with no trained token, or nothing); `dropped` of {tokens}."""
        said = []
        if self.records:
            left = emptied.format(**_records(self.records_emptied), **words) if self.records_emptied else ""
            trained = f", {self.trainable_cut:,} of them trained" if self.trainable_cut else ""
            said.append(cut.format(**_records(self.records), tokens=f"{self.tokens:,}", trained=trained, emptied=left, **words))
        if self.records_dropped:
            said.append(dropped.format(**_records(self.records_dropped), tokens=f"{self.tokens_dropped:,}", **words))
        return said


def _records(n: int) -> dict[str, str]:
    return {"n": f"{n:,}", "records": f"{n:,} record{'s' if n != 1 else ''}"}


@dataclass(frozen=True, slots=True)
class ScaledRates:
    learning_rate: float
    reference_batch_size: int
    effective_batch_size: int
    linear: float
    sqrt: float


__all__ = ["BudgetFigures", "CostFigures", "DataFigures", "RunFigures", "ScaledRates", "ScheduleFigures", "SelfHostedFigures",
           "TokenCounts", "TruncationFigures"]

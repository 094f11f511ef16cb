"""The step arithmetic trainers share: what a run does with N sequences (records, or packed rows).
A trainer's `steps` (ftlint/trainers/base.py) is one of these, or one of its own, in its package.

Hosted (a provider's job, OpenAI's rules as documented):
    effective batch   = per-device batch x gradient accumulation x GPUs
    steps per epoch   = ceil(N / effective batch)   (floor with drop_last)
    total steps       = steps per epoch x epochs    (or max_steps)
    warmup            = ceil(ratio x total steps), in exact decimal arithmetic

Hugging Face Trainer, transformers 4.52 to 5.24 (read from the released wheels:
`Trainer.set_initial_training_values`, the epoch loop, torch's DataLoader and accelerate's
`BatchSamplerShard` with even_batches):
    batches           = ceil(N / per-device batch)            (floor with drop_last)
    batches/process   = ceil(batches / devices)               (floor with drop_last)
    updates/epoch     = max(ceil(batches/process / grad accum), 1); every batch is used, the
                        last update on a partial accumulation window
    total steps       = max_steps, else ceil(epochs x updates/epoch)
    warmup            = warmup_steps, else ceil(total x ratio) in binary floating point, as
                        transformers computes it (0.07 x 100 gives 8, not 7)
    no batch at all   (drop_last and fewer records than one batch on every device): the Trainer
                        raises "args.max_steps must be set to a positive value", or, with
                        max_steps, trains 0 steps
    sequences fed     one device: N per epoch (drop_last: whole batches only); several: every
                        device takes batches/process full batches, the short ones filled from
                        the epoch's first records (even_batches), so some records are seen twice

transformers 4.51 and older (`legacy`): total steps = ceil(epochs x max(batches/process //
grad accum, 1)), but the loop still steps on a partial accumulation window, so an epoch has
more steps than that and the last epoch ends early; and it chunks each epoch by
`N % grad accum` (the number of records, not batches), so an epoch may leave its last batches
unused. Both are followed here exactly.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from fractions import Fraction
from typing import Protocol


@dataclass(frozen=True, slots=True)
class Schedule:
    """A trainer's schedule for one dataset and plan."""

    sequences: int  # N: what is batched (records, or packed rows)
    effective_batch: int
    full_batches: int  # of the effective batch, in one epoch
    last_batch: int  # sequences in the partial last effective batch (0: none)
    steps_per_epoch: int  # optimizer steps in one whole epoch
    total_steps: int  # optimizer steps the run takes
    schedule_steps: int  # steps the learning-rate schedule is made for (the trainer's max_steps)
    epochs_run: int  # epochs begun
    epochs_covered: float  # total steps / steps per epoch
    sequences_processed: int  # sequences fed over the run: repeats counted, dropped ones not
    rule: str  # how steps per epoch were computed
    refusal: str | None = None  # why the trainer would not start, or trains nothing
    ranges: tuple[tuple[str, int, int], ...] = ()  # figures drawn at random: (Estimate field, lowest, highest)


NO_WARMUP = "no warmup (--warmup-ratio or --warmup-steps)"


class Steps(Protocol):
    """A trainer's step arithmetic: its defaults, its warmup rounding and its schedule."""

    name: str
    title: str
    charges_per_token: bool

    def default_epochs(self, records: int) -> tuple[int, str]: ...

    def default_batch(self, records: int) -> tuple[int, str]: ...

    def warmup(self, schedule_steps: int, ratio: Fraction | None, steps: int | None) -> int: ...

    def warmup_words(self, schedule_steps: int, ratio: Fraction | None, steps: int | None, source: str) -> str:
        """How the warmup steps were found, in words that recompute to the figure (`source`: where
        a given warmup_steps came from; tests/plan/test_arithmetic.py evaluates every "= ...")."""
        ...

    def per_epoch_words(self, sequences: int, unit: str, batch: int, gpus: int, grad_accum: int, drop_last: bool) -> str:
        """How the steps of an epoch follow from the `sequences` (records or rows: `unit`), in words."""
        ...

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule: ...


class Hosted:
    name = "hosted"
    title = "a provider's job"
    charges_per_token = True

    def default_epochs(self, records: int) -> tuple[int, str]:
        return auto_epochs(records), ("auto: OpenAI cookbook heuristic (3, kept within 100-25,000 example passes); "
                                      "not documented by OpenAI")

    def default_batch(self, records: int) -> tuple[int, str]:
        return auto_batch_size(records), "auto: about 0.2% of records, 1 to 256 (Azure's documented rule; OpenAI's is undocumented)"

    def warmup(self, schedule_steps: int, ratio: Fraction | None, steps: int | None) -> int:
        if steps is not None:
            return steps
        return math.ceil(ratio * schedule_steps) if ratio is not None else 0

    def warmup_words(self, schedule_steps: int, ratio: Fraction | None, steps: int | None, source: str) -> str:
        if steps is not None:
            return source
        if ratio is not None:
            return f"= ceil({float(ratio):g} x {schedule_steps:,})"
        return NO_WARMUP

    def per_epoch_words(self, sequences: int, unit: str, batch: int, gpus: int, grad_accum: int, drop_last: bool) -> str:
        return f"= {'floor' if drop_last else 'ceil'}({sequences:,} / {batch * grad_accum * gpus})"

    def per_epoch_rule(self, drop_last: bool) -> str:
        """How steps per epoch are computed, in words."""
        return f"steps per epoch = {'floor' if drop_last else 'ceil'}(records / effective batch)"

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule:
        effective = batch * grad_accum * gpus
        full, last = divmod(n, effective)
        per_epoch = full if drop_last else full + (1 if last else 0)
        fed_per_epoch = full * effective if drop_last else n
        rule = self.per_epoch_rule(drop_last)
        if per_epoch == 0:
            why = (f"--drop-last: {n:,} records make no full batch of {effective:,}: nothing trains" if n else None)
            return Schedule(n, effective, full, last, 0, 0, max_steps or 0, 0, 0.0, 0, rule, why)
        target = max_steps if max_steps else per_epoch * epochs
        whole, rest = divmod(target, per_epoch)
        fed = whole * fed_per_epoch + min(rest * effective, fed_per_epoch)
        return Schedule(n, effective, full, last, per_epoch, target, target, whole + (1 if rest else 0),
                        round(target / per_epoch, 4), fed, rule)


class HuggingFace:
    """transformers' Trainer (legacy: 4.51 and older)."""

    name = "hf"
    title = "Hugging Face Trainer"
    charges_per_token = False

    def __init__(self, legacy: bool = False) -> None:
        self.legacy = legacy

    @property
    def rule(self) -> str:
        return ("transformers <=4.51 Trainer step arithmetic (its loop steps on partial accumulation windows)" if self.legacy
                else "transformers 4.52-5.24 Trainer step arithmetic")

    def default_epochs(self, records: int) -> tuple[int, str]:
        return 3, "transformers default (num_train_epochs=3)"

    def default_batch(self, records: int) -> tuple[int, str]:
        return 8, "transformers default (per_device_train_batch_size=8)"

    def warmup(self, schedule_steps: int, ratio: Fraction | None, steps: int | None) -> int:
        if steps:
            return steps
        if ratio:
            return math.ceil(schedule_steps * float(ratio))  # floats, as transformers does
        return 0

    def warmup_words(self, schedule_steps: int, ratio: Fraction | None, steps: int | None, source: str) -> str:
        if steps:  # transformers: warmup_steps when not 0, else ceil(ratio x steps) in floats
            return source
        if ratio:
            return f"= ceil({float(ratio):g} x {schedule_steps:,}) in floating point, as transformers does"
        return NO_WARMUP

    def per_epoch_words(self, sequences: int, unit: str, batch: int, gpus: int, grad_accum: int, drop_last: bool) -> str:
        return f"from {sequences:,} {unit}, batches of {batch} on {gpus} device{'s' if gpus != 1 else ''}, accumulating {grad_accum}"

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule:
        effective = batch * grad_accum * gpus
        full, last = divmod(n, effective)
        batches = n // batch if drop_last else -(-n // batch)
        per_process = batches // gpus if drop_last else -(-batches // gpus)
        if per_process == 0:
            if not n:
                return Schedule(n, effective, full, last, 0, 0, max_steps or 0, 0, 0.0, 0, self.rule)
            if not max_steps:
                outcome = "the Trainer refuses to start (\"args.max_steps must be set to a positive value\")"
            elif self.legacy and grad_accum > 1:  # 4.51 asks the empty loader for batches; accelerate <1.9 then fails
                outcome = ("the Trainer trains 0 steps (with accelerate older than 1.9 it stops with "
                           "\"UnboundLocalError: current_batch\")")
            else:
                outcome = "the Trainer trains 0 steps"
            refusal = f"--drop-last: {n:,} records make no full batch of {batch:,} on each of {gpus} device(s): {outcome}"
            # with max_steps the loop still begins one epoch, finds no batch and stops
            return Schedule(n, effective, full, last, 0, 0, max_steps or 0, 1 if max_steps else 0, 0.0, 0, self.rule, refusal)
        if self.legacy:
            planned = max(per_process // grad_accum, 1)  # what max_steps and the epochs are computed from
            if grad_accum == 1:
                used = per_process
            else:
                remainder = n % grad_accum or grad_accum  # records, not batches: 4.51's own arithmetic
                used = min(per_process, per_process // grad_accum * grad_accum + remainder)
            per_epoch = used // grad_accum + (1 if used == per_process and per_process % grad_accum else 0)
        else:
            planned = per_epoch = -(-per_process // grad_accum)
            used = per_process
        if max_steps:
            target, epoch_limit = max_steps, -(-max_steps // planned)
        else:
            target, epoch_limit = epochs * planned, epochs
        fed_per_epoch = self._fed(n, batch, gpus, drop_last, used)
        if per_epoch == 0:
            total, epochs_run, fed = 0, epoch_limit, epoch_limit * fed_per_epoch
        elif target > epoch_limit * per_epoch:  # the epochs run out before the planned steps (legacy)
            total, epochs_run, fed = epoch_limit * per_epoch, epoch_limit, epoch_limit * fed_per_epoch
        else:
            # the run stops at its last planned step: the last epoch feeds only the batches up to it
            # (4.51's last epoch skips the batches after its last step that would never have synced)
            whole, rest = divmod(target, per_epoch)
            if not rest:
                whole, rest = whole - 1, per_epoch
            total, epochs_run = target, whole + 1
            fed = whole * fed_per_epoch + self._fed(n, batch, gpus, drop_last, min(rest * grad_accum, used))
        why = None if total else f"{n:,} records: the loop makes no optimizer step (transformers <=4.51, grad accum {grad_accum})"
        covered = round(total / per_epoch, 4) if per_epoch else 0.0
        return Schedule(n, effective, full, last, per_epoch, total, target, epochs_run, covered, fed, self.rule, why)

    @staticmethod
    def _fed(n: int, batch: int, gpus: int, drop_last: bool, batches_per_process: int) -> int:
        """Sequences fed by the first `batches_per_process` batches of each device in an epoch."""
        if gpus > 1:
            return batches_per_process * gpus * batch  # even_batches: every batch is full
        return batches_per_process * batch if drop_last else min(batches_per_process * batch, n)


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

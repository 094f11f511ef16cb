"""axolotl's own step count, which it passes to the Trainer as max_steps (src/axolotl/utils/data/sft.py
_prepare_standard_dataset: min(calculate_total_num_steps, max_steps) when max_steps is set), and
the Trainer's steps per epoch over the dataloader it builds."""

from __future__ import annotations

import math
from fractions import Fraction

from ..steps import Hosted, Schedule

RAISE = "axolotl's rule that a warmup of 1 step is 2 (core/builders/base.py _configure_warmup_and_logging)"


def axolotl_warmup(total: int, ratio: Fraction | None, steps: int | None) -> tuple[int, int]:
    """axolotl's warmup and the number before its last rule (core/builders/base.py
    _configure_warmup_and_logging): warmup_steps when set and not 0, else int(warmup_ratio x total)
    in floating point when set and not 0, else min(int(0.03 x total), 100); then a warmup of 1
    step is made 2."""
    if steps:
        found = steps
    elif ratio:
        found = int(float(ratio) * total)
    else:
        found = min(int(0.03 * total), 100)
    return (2 if found == 1 else found), found


class AxolotlSteps(Hosted):
    """axolotl's own count, passed to the Trainer as max_steps (src/axolotl/utils/trainer.py
    calculate_total_num_steps, without packing): total = ceil(sequences x epochs / (micro batch x
    accumulation x devices)), so a last epoch can end early; warmup: axolotl_warmup."""

    name = "axolotl"
    title = "axolotl"
    charges_per_token = False

    def default_epochs(self, records: int) -> tuple[int, str]:
        return 1, "axolotl's default (num_epochs=1.0)"

    def default_batch(self, records: int) -> tuple[int, str]:
        return 1, "axolotl's default (micro_batch_size=1)"

    def warmup(self, schedule_steps: int, ratio: Fraction | None, steps: int | None) -> int:
        return axolotl_warmup(schedule_steps, ratio, steps)[0]

    def warmup_words(self, schedule_steps: int, ratio: Fraction | None, steps: int | None, source: str) -> str:
        value, found = axolotl_warmup(schedule_steps, ratio, steps)
        if steps:
            how = source
        elif ratio:
            how = f"floor({float(ratio):g} x {schedule_steps:,}) in floating point"
        else:
            how = f"min(floor(0.03 x {schedule_steps:,}), 100) in floating point"
        if value != found:
            return f"{how}{':' if steps else ' ='} {found}, made {value}: {RAISE}"
        if steps:
            return how
        return f"= {how}, as axolotl does" + ("" if ratio else " without warmup_steps or warmup_ratio")

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule:
        effective = batch * grad_accum * gpus
        full, last = divmod(n, effective)
        per_epoch = -(-n // effective)
        rule = "total = ceil(records x epochs / effective batch), axolotl's max_steps"
        if not n:
            return Schedule(n, effective, full, last, 0, 0, max_steps or 0, 0, 0.0, 0, rule)
        total = -(-(n * epochs) // effective)
        if max_steps:
            total, rule = min(total, max_steps), rule + f", at most max_steps {max_steps}"
        fed = min(total * effective, n * epochs) if not max_steps else total * effective
        return Schedule(n, effective, full, last, per_epoch, total, total, -(-total // per_epoch), round(total / per_epoch, 4),
                        fed, rule)


class PackedSteps(AxolotlSteps):
    """With sample_packing (utils/trainer.py calculate_total_num_steps): the dataloader of its
    multipack sampler yields `batches` batches of `per_batch` bins; axolotl's total is
    floor(max(1, batches x micro batch // (micro batch x accumulation x devices)) x epochs) (less
    one step an epoch with dataloader_drop_last), or with sample_packing_eff_est given,
    (floor(0.99 x tokens / eff_est / sequence_len // batch) - 1) x epochs; the Trainer's steps
    per epoch are ceil(its batches per device / accumulation) (transformers'
    set_initial_training_values); the epochs run, ceil(total / steps per epoch).
    `n` (schedule's) is the bins; `low`, `high`: the fewest and most bins ftlint drew."""

    def __init__(self, per_batch: int, low: int, high: int, tokens: int, sequence_len: int,
                 eff_est: float | None = None, drop_last: bool = False) -> None:
        self.per_batch, self.low, self.high = per_batch, low, high
        self.tokens, self.sequence_len, self.eff_est, self.drop_last = tokens, sequence_len, eff_est, drop_last

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule:
        effective = batch * grad_accum * gpus
        batches = n // self.per_batch
        per_epoch, total = self._per_epoch(batches, grad_accum, gpus), self._total(batches, epochs, batch, effective, max_steps)
        epochs_run = -(-total // per_epoch) if per_epoch else 0
        ranges: tuple[tuple[str, int, int], ...] = ()
        if self.low != self.high:
            lows = (self._per_epoch(self.low // self.per_batch, grad_accum, gpus), self._total(self.low // self.per_batch, epochs,
                                                                                                 batch, effective, max_steps))
            highs = (self._per_epoch(self.high // self.per_batch, grad_accum, gpus), self._total(self.high // self.per_batch, epochs,
                                                                                                   batch, effective, max_steps))
            ranges = (("steps_per_epoch", lows[0], highs[0]), ("total_steps", lows[1], highs[1]),
                      ("epochs", -(-lows[1] // highs[0]) if highs[0] else 0, -(-highs[1] // lows[0]) if lows[0] else 0))
        fed = min(total * grad_accum * gpus, batches * epochs_run) * self.per_batch
        rule = (f"axolotl's max_steps from its packed batches (utils/trainer.py calculate_total_num_steps): "
                f"{self._words(batches, epochs, batch, effective)}; steps per epoch from the Trainer's dataloader of "
                f"{batches:,} batch{'es' if batches != 1 else ''} of {self.per_batch} bin{'s' if self.per_batch != 1 else ''}")
        return Schedule(n, effective, *divmod(batches, grad_accum * gpus), per_epoch, total, total, epochs_run,
                        round(total / per_epoch, 4) if per_epoch else 0.0, fed, rule, None, ranges)

    def per_epoch_words(self, sequences: int, unit: str, batch: int, gpus: int, grad_accum: int, drop_last: bool) -> str:
        batches = sequences // self.per_batch
        return f"= ceil({-(-batches // gpus):,} packed batches / {grad_accum}), the Trainer's"

    @staticmethod
    def _per_epoch(batches: int, grad_accum: int, gpus: int) -> int:
        per_device = -(-batches // gpus)
        return max(-(-per_device // grad_accum), 1) if per_device else 0

    def _total(self, batches: int, epochs: int, batch: int, effective: int, max_steps: int | None) -> int:
        if self.eff_est:
            total = int(math.floor(0.99 * self.tokens / self.eff_est / self.sequence_len // effective) - 1) * epochs
        else:
            total = math.floor(max(1, batches * batch // effective) * epochs) - (epochs if self.drop_last else 0)
        return min(total, max_steps) if max_steps else total

    def _words(self, batches: int, epochs: int, batch: int, effective: int) -> str:
        if self.eff_est:
            return (f"(floor(0.99 x {self.tokens:,} tokens / sample_packing_eff_est {self.eff_est:g} / {self.sequence_len:,} // "
                    f"{effective}) - 1) x {epochs} epochs")
        less = f" - {epochs} (dataloader_drop_last)" if self.drop_last else ""
        return f"floor(max(1, {batches:,} x {batch} // {effective}) x {epochs} epochs){less}"

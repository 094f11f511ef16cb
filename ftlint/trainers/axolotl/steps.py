"""axolotl's own step count, which it passes to the Trainer as max_steps."""

from __future__ import annotations

import math
from fractions import Fraction

from ..steps import Hosted, Schedule


class AxolotlSteps(Hosted):
    """axolotl's own count, passed to the Trainer as max_steps (src/axolotl/utils/trainer.py
    calculate_total_num_steps, without packing): total = ceil(sequences x epochs / (micro batch x
    accumulation x devices)), so a last epoch can end early; warmup = warmup_steps, else
    floor(ratio x total), else min(floor(0.03 x total), 100), a computed 1 made 2
    (core/builders/base.py _configure_warmup_and_logging)."""

    name = "axolotl"
    title = "axolotl"
    charges_per_token = False

    def default_epochs(self, records: int) -> tuple[int, str]:
        return 1, "axolotl's default (num_epochs=1.0)"

    def default_batch(self, records: int) -> tuple[int, str]:
        return 1, "axolotl's default (micro_batch_size=1)"

    def warmup(self, schedule_steps: int, ratio: Fraction | None, steps: int | None) -> int:
        if steps is not None:
            return steps
        found = math.floor(ratio * schedule_steps) if ratio is not None else min(math.floor(Fraction(3, 100) * schedule_steps), 100)
        return 2 if found == 1 else found

    def warmup_words(self, ratio: float | None, total: int, steps: int, given: bool) -> str:
        if ratio is not None:
            return f"= floor({ratio:g} x {total:,}), as axolotl does"
        if not given:
            return f"axolotl's default: min(floor(0.03 x {total:,}), 100), 1 made 2"
        return super().warmup_words(ratio, total, steps, given)

    def schedule(self, n: int, epochs: int, batch: int, grad_accum: int, gpus: int, drop_last: bool,
                 max_steps: int | None) -> Schedule:
        effective = batch * grad_accum * gpus
        full, last = divmod(n, effective)
        per_epoch = -(-n // effective)
        rule = "total = ceil(records x epochs / effective batch), axolotl's max_steps"
        if not n:
            return Schedule(n, effective, full, last, 0, 0, max_steps or 0, 0, 0.0, 0, rule)
        total = max_steps or -(-(n * epochs) // effective)
        fed = min(total * effective, n * epochs) if not max_steps else total * effective
        return Schedule(n, effective, full, last, per_epoch, total, total, -(-total // per_epoch), round(total / per_epoch, 4),
                        fed, rule)

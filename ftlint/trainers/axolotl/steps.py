"""axolotl's own step count, which it passes to the Trainer as max_steps."""

from __future__ import annotations

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
        total = max_steps or -(-(n * epochs) // effective)
        fed = min(total * effective, n * epochs) if not max_steps else total * effective
        return Schedule(n, effective, full, last, per_epoch, total, total, -(-total // per_epoch), round(total / per_epoch, 4),
                        fed, rule)

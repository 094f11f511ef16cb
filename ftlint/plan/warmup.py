"""The warmup steps of a run and how they were found, said so that the words recompute to the
figure (tests/test_arithmetic.py evaluates every "= ..." the estimate prints): each trainer's own
rule (ftlint/trainers/steps.py), over the steps its learning-rate schedule is made for."""

from __future__ import annotations

from fractions import Fraction
from typing import TYPE_CHECKING

from ..trainers.steps import axolotl_warmup

if TYPE_CHECKING:
    from ..options import PlanOptions
    from ..trainers.steps import Strategy

AXOLOTL_RAISE = "axolotl's rule that a warmup of 1 step is 2 (core/builders/base.py _configure_warmup_and_logging)"


def warmup_of(strategy: Strategy, schedule: int, plan: PlanOptions) -> tuple[int, str]:
    """The warmup steps and how they were found. `schedule`: the steps the learning-rate
    schedule is made for (the trainer's max_steps)."""
    ratio, steps = plan.warmup_ratio, plan.warmup_steps
    source = dict(plan.sources).get("warmup_steps", "--warmup-steps")  # where a given warmup_steps came from
    value = strategy.warmup(schedule, ratio, steps)
    if strategy.name == "axolotl":
        return value, _axolotl(schedule, ratio, steps, source)
    if strategy.name == "hf":  # transformers: warmup_steps when not 0, else ceil(ratio x steps) in floats
        if steps:
            return value, source
        if ratio:
            return value, f"= ceil({float(ratio):g} x {schedule:,}) in floating point, as transformers does"
    elif steps is not None:
        return value, source
    elif ratio is not None:
        return value, f"= ceil({float(ratio):g} x {schedule:,})"
    return value, "no warmup (--warmup-ratio or --warmup-steps)"


def _axolotl(schedule: int, ratio: Fraction | None, steps: int | None, source: str) -> str:
    value, found = axolotl_warmup(schedule, ratio, steps)
    if steps:
        how = source
    elif ratio:
        how = f"floor({float(ratio):g} x {schedule:,}) in floating point"
    else:
        how = f"min(floor(0.03 x {schedule:,}), 100) in floating point"
    if value != found:
        return f"{how}{':' if steps else ' ='} {found}, made {value}: {AXOLOTL_RAISE}"
    if steps:
        return how
    return f"= {how}, as axolotl does" + ("" if ratio else " without warmup_steps or warmup_ratio")

"""The warmup steps of a run and how they were found, said so that the words recompute to the
figure (tests/plan/test_arithmetic.py evaluates every "= ..." the estimate prints): each trainer's own
rule (its Steps: ftlint/trainers/steps.py, or its package's), over the steps its learning-rate
schedule is made for."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..options import PlanOptions
    from ..trainers.steps import Steps


def warmup_of(steps: Steps, schedule: int, plan: PlanOptions) -> tuple[int, str]:
    """The warmup steps and how they were found. `schedule`: the steps the learning-rate
    schedule is made for (the trainer's max_steps)."""
    source = dict(plan.sources).get("warmup_steps", "--warmup-steps")  # where a given warmup_steps came from
    return (steps.warmup(schedule, plan.warmup_ratio, plan.warmup_steps),
            steps.warmup_words(schedule, plan.warmup_ratio, plan.warmup_steps, source))

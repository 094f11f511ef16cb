"""Where each plan figure's value came from: a flag, the run config (--run), the trainer's default
or ftlint's rule, as the estimate's `sources` says it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Sourced
    from ..options import PlanOptions
    from ..trainers import Profile, Trainer
    from ..trainers.steps import Steps


def sources_of(plan: PlanOptions, profile: Profile | None, epochs: str, batch: str, max_length_source: str = "") -> dict[str, str]:
    """Where each plan figure's value came from: the flag or run config that gave it (plan.sources),
    else the trainer's default or ftlint's rule, said as such."""
    given = dict(plan.sources)
    who = profile.name if profile is not None else "ftlint"
    out = {"epochs": epochs, "batch_size": batch}
    defaults = {
        "grad_accum": f"not set: {plan.grad_accum}" if plan.grad_accum == 1 else "--grad-accum",
        "gpus": f"not set: {plan.gpus}" if plan.gpus == 1 else "--gpus",
        "max_seq_len": max_length_source or "not set: records counted whole, to the limit",
        "packing": "--packing" if plan.packing else (f"not set: {who} packs by default ({profile.packing.source}): its rows"
                                                     if profile is not None and profile.packing.value else "not set: off"),
        "warmup": ("--warmup-steps" if plan.warmup_steps is not None else "--warmup-ratio" if plan.warmup_ratio is not None
                   else f"not set: {who}'s rule"),
        "learning_rate": "--learning-rate" if plan.learning_rate is not None else "not set",
        "max_steps": "--max-steps" if plan.max_steps else "not set: the epochs decide",
    }
    for name, default in defaults.items():
        key = "warmup_ratio" if name == "warmup" and "warmup_ratio" in given else "warmup_steps" if name == "warmup" else name
        out[name] = given.get(key, default)
    out.update({k: v for k, v in given.items() if k not in out and k not in ("warmup_ratio", "warmup_steps")})
    return out


def trainer_default(trainer: Trainer | None, name: str, records: int, steps: Steps,
                    largest: Sourced | None = None) -> tuple[int, str]:
    """The trainer's default epochs or batch (Trainer.default); without one, the step arithmetic's own."""
    if trainer is not None:
        return trainer.default(name, records, steps, largest)
    return steps.default_epochs(records) if name == "epochs" else steps.default_batch(records)

"""Where each plan figure's value came from: a flag, the run config (--run), the trainer's default
or ftlint's rule, as the estimate's `sources` says it."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Sourced
    from ..options import PlanOptions
    from ..trainers import Profile
    from ..trainers.steps import Strategy


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
        "packing": "--packing" if plan.packing else (f"not set: {who} packs by default ({profile.packing.source}); counted unpacked"
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


def trainer_default(profile: Profile | None, name: str, records: int, strategy: Strategy,
             largest: Sourced | None = None) -> tuple[int, str]:
    """The trainer's default epochs or batch: its profile's number, said with its source; a rule
    ("auto"), or no profile, is the step arithmetic's own; "max", the model's largest batch."""
    fact = getattr(profile, name) if profile is not None else None
    if fact is not None and isinstance(fact.value, int) and not isinstance(fact.value, bool):
        return fact.value, f"{profile.name}'s default ({fact.source})"  # type: ignore[union-attr]
    if fact is not None and fact.value == "max" and largest is not None:
        return int(largest.value), (f"{profile.name}'s default 'max': the model's largest "  # type: ignore[union-attr]
                                    f"({largest.remark}; {largest.note})")
    if fact is not None and fact.value == "max":
        return 8, f"{profile.name}'s default is the model's largest batch, not known here: 8 assumed; give --batch-size"  # type: ignore[union-attr]
    value, rule = strategy.default_epochs(records) if name == "epochs" else strategy.default_batch(records)
    if fact is not None and fact.value == "auto" and profile is not None and profile.name not in _AUTO_DOCUMENTED:
        # another provider's rule standing in for one this provider does not publish, said as such
        rule = f"a stand-in for {profile.name}'s own default, which it does not publish ({fact.source}): {rule}"
    return value, rule


_AUTO_DOCUMENTED = ("openai", "azure")  # the jobs whose "auto" the step arithmetic's default rules are

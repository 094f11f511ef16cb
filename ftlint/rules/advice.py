"""Training-plan advice (FT5xx): what `ftlint estimate` and `ftlint plan` say of a plan.

Thresholds are options (ftlint/options.py, Thresholds), so config keys too; each doc names its own.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit
from . import check, register

if TYPE_CHECKING:
    from ..plan.estimate import Estimate
    from ..plan.groups import TruncationFigures
    from .context import PlanContext

register("FT501", "lines-with-errors", WARNING, """
    Some lines have errors; the estimate counts only the records it could read.

    Why: OpenAI rejects a file with any invalid line, so the run as planned cannot start.
    Run `ftlint check` for the findings.
""", kind="plan")

register("FT502", "below-minimum-examples", WARNING, """
    Fewer training records than the provider accepts (OpenAI: 10).

    Why: the job is refused. Add examples; do not copy the same ones.
""", kind="plan")

register("FT503", "too-few-steps", WARNING, """
    Too few optimizer steps for a learning-rate schedule (fewer than 100 in total).

    Why: a warmup-then-decay schedule needs room; with a few dozen updates the rate barely
    settles before it decays, and results vary a lot between runs. Lower the batch size or add
    data before adding epochs.
    Example: 156 records, batch 16, 3 epochs = 30 steps.
""", kind="plan")

register("FT504", "memorisation-risk", WARNING, """
    Many epochs over few records (more than 3 epochs over fewer than 100 records, or more than 10 epochs at any size).

    Why: more passes over 40 examples teach those 40 answers, not the task: the model
    memorises them and generalises worse. Add data rather than epochs.
""", kind="plan")

register("FT505", "warmup-eats-run", WARNING, """
    Warmup takes more than 20% of the planned steps.

    Why: a warmup given in steps is often copied from a longer run; on a short run the learning
    rate spends most of the run ramping up. Give warmup as a ratio (--warmup-ratio) instead.
    Example: --warmup-steps 100 on a 120-step run.
""", kind="plan")

register("FT506", "unusual-epochs", WARNING, """
    More epochs than supervised fine-tuning usually needs (more than 3), or preference tuning
    (DPO) on preference pairs (more than 2).

    Threshold: --max-usual-epochs (preference pairs: 2, or that if lower). Why: past a few
    passes the validation loss usually rises while the training loss keeps falling; the extra
    epochs cost money and generalisation.
""", kind="plan")

register("FT507", "batch-changed-not-lr", WARNING, """
    The effective batch size differs from the reference batch the learning rate was tuned at.

    Given --learning-rate and --reference-batch-size, ftlint shows the rate scaled linearly
    (lr x new/old, the usual rule for SGD-like regimes) and by the square root (often better for
    Adam). Why: changing the batch without the learning rate changes the size of every update.
""", kind="plan")

register("FT508", "one-epoch-is-plenty", WARNING, """
    More than one epoch over a very large dataset (100,000 records or more; --large-dataset).

    Why: at that size a single pass usually reaches what more passes would; later epochs mostly
    add cost and the risk of memorising.
""", kind="plan")

register("FT509", "truncated", WARNING, """
    Some records are longer than the trainer's max length (--max-seq-len, else its default):
    they lose their end, in proportion (LLaMA-Factory), or the run (axolotl's drop) (packed or not).

    Why: the cut-off part is usually the answer, the only part that carries loss.
""", kind="plan")

register("FT510", "over-budget", WARNING, """
    The plan needs more than --budget-usd or --budget-tokens buys.

    The estimate shows the most whole epochs and steps the budget covers.
""", kind="plan")

register("FT511", "nothing-trains", ERROR, """
    The trainer would train nothing: it refuses to start, its loop makes no optimizer step, no line
    of the file is left to train on, or no token trains under the trainer's loss.

    With --drop-last and fewer records than one batch on every device, the Hugging Face Trainer
    has an empty dataloader and raises "args.max_steps must be set to a positive value" (or,
    given --max-steps, runs 0 steps). A file whose every line has an error is refused by the
    provider; a chat template that marks no assistant span (--assistant-only-loss with a
    template without {% generation %}) trains on no token. Why: the run fails, or is paid for and
    trains nothing, while a --max-cost gate would pass it. Lower the batch size, drop
    --drop-last, fix the lines, or give a template that marks what trains.
""", kind="plan")


PREFERENCE_USUAL_EPOCHS = 2  # FT506's doc: preference runs rarely gain past 2 epochs


def _preference(fmt: str) -> bool:
    from ..formats.registry import FORMATS

    return fmt in FORMATS and FORMATS[fmt].preference


def _usual_epochs(fmt: str, supervised: float) -> float:
    """FT506's threshold: --max-usual-epochs for supervised data; for preference pairs 2, or less if it is."""
    return min(supervised, PREFERENCE_USUAL_EPOCHS) if _preference(fmt) else supervised


def past_max_words(tr: TruncationFigures) -> str:
    where = f"max length {tr.max_seq_len:,} ({tr.source.split(' (')[0]})"
    return "; ".join(tr.clauses("{n} record(s) longer than {where}: {tokens} tokens cut off{trained}{emptied}",
                                "; {n} record(s) left with no trained token",
                                "{n} record(s) longer than {where} dropped: {tokens} tokens not trained", where=where))


@check("plan", "FT501", "FT502", "FT503", "FT504", "FT505", "FT506", "FT507", "FT508", "FT509", "FT510", "FT511")
def advice(e: Estimate, ctx: PlanContext) -> Iterator[Hit]:
    t = ctx.plan.thresholds
    d, s = e.data, e.schedule

    def warn(code: str, message: str) -> Hit:
        return Hit(message, code=code)

    if e.refusal:
        yield warn("FT511", e.refusal)
    elif d.lines and not d.records:
        rejected = f"all {d.lines:,} line(s) have errors or hold no record" if d.invalid_lines else "no line holds a training record"
        yield warn("FT511", f"{rejected}: the provider would refuse the file, and the run would train nothing (run ftlint check)")
    elif d.targets and not e.counts.trainable_tokens:  # targets there are (RFT prompts have none), but no token of them trains
        yield warn("FT511", f"no token of the {d.targets:,} target(s) trains under the trainer's loss (trainable tokens 0): "
                            "the run would train nothing")
    if d.invalid_lines:
        yield warn("FT501", f"{d.invalid_lines} line(s) have errors and are not counted; the provider would reject the file (run ftlint check)")
    if ctx.min_examples and d.records < ctx.min_examples:
        yield warn("FT502", f"{d.records} records; the provider needs at least {ctx.min_examples}")
    if d.records and s.total_steps and s.total_steps < t.min_total_steps:
        yield warn("FT503", f"only {s.total_steps} optimizer steps in total: too few for a learning-rate schedule (aim for {t.min_total_steps}+; lower the batch size or add data)")
    small = d.records < t.small_dataset and s.epochs > t.max_epochs_small
    if d.records and (small or s.epochs > t.max_epochs):
        yield warn("FT504", f"{s.epochs} epochs over {d.records} records: the model memorises these answers rather than learning the task; add data rather than epochs")
    elif d.records and s.epochs > (usual := _usual_epochs(d.format, t.max_usual_epochs)):
        kind = "preference (DPO) runs" if _preference(d.format) else "supervised runs"
        yield warn("FT506", f"{s.epochs} epochs: {kind} rarely gain past {usual:g}; check validation loss per epoch")
    if s.total_steps and s.warmup_steps > t.max_warmup_share * s.total_steps:
        share = s.warmup_steps / s.total_steps
        yield warn("FT505", f"warmup is {s.warmup_steps} of {s.total_steps} steps ({share:.0%}); give it as --warmup-ratio (e.g. 0.05) instead")
    if e.learning_rate and s.effective_batch_size != e.learning_rate.reference_batch_size:
        lr = e.learning_rate
        yield warn("FT507", f"effective batch {s.effective_batch_size} differs from the reference {lr.reference_batch_size} the learning rate {lr.learning_rate:g} was set for: "
                            f"scale it to {lr.linear:.3g} (linear) or {lr.sqrt:.3g} (square root) if you did not already")
    if d.records >= t.large_dataset and (s.epochs_covered or s.epochs) > 1:
        yield warn("FT508", f"{d.records:,} records: one epoch is usually plenty at this size; more passes mostly add cost")
    if e.packing and e.packing.truncated_records:
        p = e.packing
        yield warn("FT509", f"{p.truncated_records:,} record(s) longer than --max-seq-len {p.max_seq_len:,}: {p.truncated_tokens:,} tokens cut off by packing")
    elif e.truncation and (e.truncation.records or e.truncation.records_dropped) and not e.counts.records_over_limit:
        yield warn("FT509", past_max_words(e.truncation))  # past a provider's limit alone: FT301 says it
    b = e.cost.budget
    if b and b.max_epochs is not None and b.max_steps is not None and not b.fits:
        yield warn("FT510", f"the plan ({s.epochs_covered:g} epochs) is over the budget, which buys at most {b.max_epochs} epoch(s), {b.max_steps:,} steps")

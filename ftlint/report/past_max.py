"""The estimate's words for what the trainer does past its max length (plan/estimate.py
TruncationFigures): the trainable tokens as the run trains them, and the max length's row."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..trainers import CUTS

if TYPE_CHECKING:
    from ..plan.estimate import Estimate

def trainable_how(e: Estimate) -> str:
    """How the trainable tokens are found, with the uncut figure beside them when the cut takes any."""
    t = e.truncation
    lost = e.counts.trainable_tokens_in_file - e.counts.trainable_tokens
    if t is None or not lost:
        return "in the targets"
    parts = [f"{t.trainable_cut:,} past the max length"] if t.trainable_cut else []
    parts += [f"{t.trainable_dropped:,} in dropped records"] if t.trainable_dropped else []
    held = lost - t.trainable_cut - t.trainable_dropped  # records the trainer holds out or leaves out (Trainer.prepare)
    parts += [f"{held:,} in records it holds out or leaves out"] if held > 0 else []
    return f"in the targets, as the run trains them: {e.counts.trainable_tokens_in_file:,} in the file, {' and '.join(parts)}"


def max_length_row(e: Estimate) -> tuple[str, str, str] | None:
    """The max length, where it comes from, and what it does to the records."""
    t = e.truncation
    if t is None:
        return None
    effect = "; ".join(t.clauses("{records} cut ({tokens} tokens{trained}{emptied})", "; {n} left with no trained token",
                                 "{records} dropped ({tokens} tokens)")) or "no record is past it"
    return ("max length", f"{t.max_seq_len:,}", f"{t.source}; {CUTS[t.rule].words if t.rule in CUTS else t.rule}: {effect}")

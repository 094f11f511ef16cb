"""LLaMA-Factory's cut past cutoff_len (src/llamafactory/data/processor/supervised.py
SupervisedDatasetProcessor._encode_data_example): the sample's (prompt, answer) pairs in order,
each cut by processor_utils.py infer_seqlen to what the earlier ones left, and none once they
have used it all. No row is dropped."""

from __future__ import annotations

from ..cut import Cut, Pairs

PROPORTIONAL = "proportional"  # each turn's prompt and answer cut in proportion


def infer_seqlen(source: int, target: int, cutoff: int) -> tuple[int, int]:
    """LLaMA-Factory's share of `cutoff` tokens between a turn's source and its target: a short
    target keeps whole, else a short source does, else they share in proportion (rounded down
    for the target); the source has what the target leaves."""
    if 2 * target < cutoff:
        most = cutoff
    elif 2 * source < cutoff:
        most = cutoff - source
    else:
        most = int(cutoff * (target / (source + target)))
    new_target = min(most, target)
    new_source = min(max(cutoff - new_target, 0), source)
    return new_source, new_target


def proportional(pairs: Pairs, cutoff: int) -> list[tuple[int, int]]:
    """Each pair's (source, target) tokens kept under LLaMA-Factory's rule, pair by pair: the
    start of each (source_ids[:source_len], target_ids[:target_len]), none once the cutoff is used."""
    out, total = [], 0
    for source, target in pairs:
        kept_source, kept_target = infer_seqlen(source, target, cutoff - total) if total < cutoff else (0, 0)
        total += kept_source + kept_target
        out.append((kept_source, kept_target))
    return out


class Proportional(Cut):
    name = PROPORTIONAL
    words = "each turn's prompt and answer cut in proportion (LLaMA-Factory infer_seqlen), later turns dropped"
    shown = "each turn's prompt and answer are cut in proportion (LLaMA-Factory)"

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        return proportional(pairs, cut)

    def kept_ranges(self, pairs: Pairs, cut: int) -> list[tuple[int, int]]:
        """Each pair's kept prompt and answer, where they lie in the whole sample."""
        if not pairs:
            return super().kept_ranges(pairs, cut)
        kept: list[tuple[int, int]] = []
        position = total = 0
        for source, target in pairs:
            if total < cut:
                s, t = infer_seqlen(source, target, cut - total)
                kept += [(position, position + s), (position + source, position + source + t)]
                total += s + t
            position += source + target
        return kept


PROPORTIONAL_CUT = Proportional()

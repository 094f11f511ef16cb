"""What a trainer keeps of a sample longer than its max length, as arithmetic on the sample's
layout: its tokens in order as (untrained, then trained) pairs, one pair per turn (the prompt or
the user's side, then the answer); a record that trains every token is [(0, tokens)].

  keep_start    TRL (trl/trainer/sft_trainer.py SFTTrainer._prepare_dataset, truncation_mode
                "keep_start"), axolotl's truncate and a hosted job: the first `cut` tokens stay,
                and the trained tokens among them train.
  proportional  LLaMA-Factory (src/llamafactory/data/processor/supervised.py
                SupervisedDatasetProcessor._encode_data_example): the pairs in order, each cut by
                processor_utils.py infer_seqlen to what the earlier ones left, and none once they
                have used it all.
  drop          axolotl (src/axolotl/utils/data/utils.py handle_long_seq_in_dataset, the drop
                strategy): only samples of min_sample_len (2) to sequence_len tokens stay.
"""

from __future__ import annotations

from collections.abc import Sequence

from .profile import DROP, PROPORTIONAL, REJECT, SPLIT

Pairs = Sequence[tuple[int, int]]
AXOLOTL_MIN_SAMPLE_LEN = 2  # src/axolotl/utils/data/utils.py: min_sample_len None -> 2


def pairs_of_mask(mask: Sequence[bool]) -> list[tuple[int, int]]:
    """A loss mask (one bool a token) as its (untrained, trained) runs."""
    pairs: list[tuple[int, int]] = []
    untrained = trained = 0
    for bit in mask:
        if bit:
            trained += 1
        elif trained:
            pairs.append((untrained, trained))
            untrained, trained = 1, 0
        else:
            untrained += 1
    if untrained or trained:
        pairs.append((untrained, trained))
    return pairs


def keep_start(pairs: Pairs, cut: int) -> list[tuple[int, int]]:
    """Each pair's (untrained, trained) tokens among the first `cut` tokens."""
    out, position = [], 0
    for untrained, trained in pairs:
        start = position + untrained
        out.append((max(0, min(start, cut) - position), max(0, min(start + trained, cut) - start)))
        position = start + trained
    return out


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


def kept_pairs(rule: str, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
    """Each pair's (untrained, trained) tokens the trainer keeps of a sample over `cut` (the start
    of each); None: the sample leaves the run (dropped, or refused with the job). `ftlint show`
    marks these, and `kept` sums them: the two cannot disagree."""
    if rule in (DROP, REJECT):
        return None
    if rule == PROPORTIONAL:
        return proportional(pairs, cut)
    if rule == SPLIT:  # packed across sequences: nothing is lost
        return [(u, t) for u, t in pairs]
    return keep_start(pairs, cut)


def kept(rule: str, pairs: Pairs, cut: int) -> tuple[int, int] | None:
    """(tokens kept, trained tokens kept) of a sample over `cut` under the trainer's rule; None:
    the sample leaves the run (dropped, or refused with the job)."""
    found = kept_pairs(rule, pairs, cut)
    return None if found is None else (sum(u + t for u, t in found), sum(t for _, t in found))


__all__ = ["AXOLOTL_MIN_SAMPLE_LEN", "Pairs", "infer_seqlen", "keep_start", "kept", "kept_pairs", "pairs_of_mask", "proportional"]

"""What unsloth keeps of a row under train_on_responses_only: the tokenizer's cut at max_seq_length
(keeping the start), then every row whose labels are all -100 is dropped, whatever its length
(unsloth_zoo/dataset_utils.py train_on_responses_only, _filter_fully_masked; all of them dropped is
unsloth's own error, FT241 here)."""

from __future__ import annotations

from ..cut import Cut, Pairs, keep_start


class Responses(Cut):
    name = "truncate-drop-unmatched"
    words = "cut keeping the start; a row left with no trained token dropped"

    def past(self, tokens: int, cut: int) -> bool:
        return True  # a row of any length may have no response part: each is asked

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        kept = keep_start(pairs, cut)
        return kept if any(t for _, t in kept) else None


RESPONSES = Responses()

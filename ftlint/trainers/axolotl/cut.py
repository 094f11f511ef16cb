"""axolotl's drop (src/axolotl/utils/data/utils.py handle_long_seq_in_dataset, excess_length_strategy
unset): only samples of min_sample_len (2) to sequence_len tokens stay; the others leave the run."""

from __future__ import annotations

from ..cut import Cut, Pairs

DROP = "drop"  # left out of the run
MIN_SAMPLE_LEN = 2  # src/axolotl/utils/data/utils.py: min_sample_len None -> 2


class Drop(Cut):
    name = DROP
    words = "records past it dropped"
    shown = "the record is dropped"
    leaves_out = True

    def past(self, tokens: int, cut: int) -> bool:
        return tokens > cut or tokens < MIN_SAMPLE_LEN

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        return None


DROP_CUT = Drop()

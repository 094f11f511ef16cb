"""mistral-finetune's packing (finetune/data/dataset.py sequence_iterator): samples are always
concatenated into sequences of seq_len tokens, a long one continuing into the next, so nothing is
cut or dropped, and what the run batches is those sequences."""

from __future__ import annotations

import math

from ..cut import Uncut

SPLIT = "split"  # nothing is cut: samples are packed across sequences


class Split(Uncut):
    name = SPLIT
    words = "packed across sequences: nothing cut"
    shown = "nothing is cut (samples are packed across sequences)"


SPLIT_CUT = Split()


def packed_rows(tokens: int, length: int) -> int:
    """The sequences of `length` tokens that `tokens` fill, end to end."""
    return math.ceil(tokens / length)

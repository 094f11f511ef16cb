"""Packing as TRL's SFTTrainer does it, `packing_strategy="bfd"`: each record is cut to
max_seq_len (the overflow is dropped), then records are placed best-fit-decreasing into rows of
max_seq_len tokens, separately within each batch of 1,000 records (`datasets.map(batched=True)`'s
default). TRL 0.27.x's `bfd` re-queued the overflow instead (trl#4632); trl#5076 restored the
truncation this follows. Pure functions.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable

from ..base import Packing

PACKING_RULE = "TRL SFTTrainer packing_strategy='bfd': best-fit decreasing per 1,000-record map batch, overflow truncated"
MAP_BATCH = 1000


def pack(lengths: Iterable[int], max_seq_len: int) -> Packing:
    rows = kept = truncated_records = truncated_tokens = 0
    chunk: list[int] = []
    for length in lengths:
        if length > max_seq_len:
            truncated_records += 1
            truncated_tokens += length - max_seq_len
            length = max_seq_len
        kept += length
        chunk.append(length)
        if len(chunk) == MAP_BATCH:
            rows += _best_fit_decreasing(chunk, max_seq_len)
            chunk = []
    if chunk:
        rows += _best_fit_decreasing(chunk, max_seq_len)
    return Packing(max_seq_len, rows, -(-kept // max_seq_len), kept, truncated_records, truncated_tokens, PACKING_RULE)


def _best_fit_decreasing(lengths: list[int], capacity: int) -> int:
    """Bins used when each item, longest first, goes to the fullest bin it still fits."""
    free: list[int] = []  # remaining capacity of each open bin, sorted
    for length in sorted(lengths, reverse=True):
        i = bisect.bisect_left(free, length)
        remaining = free.pop(i) - length if i < len(free) else capacity - length
        bisect.insort(free, remaining)
    return len(free)

"""Packing as TRL's SFTTrainer does it (trl/data_utils.py pack_dataset, after _prepare_dataset has
tokenized the rows), separately within each batch of 1,000 rows (`datasets.map(batched=True)`'s
default), by its `packing_strategy`:

  bfd        each row cut to max_seq_len (the overflow dropped: _pack_bfd's "truncate"), then placed
             best-fit-decreasing into rows of max_seq_len tokens. TRL 0.27.x's `bfd` re-queued the
             overflow instead (trl#4632); trl#5076 restored the truncation this follows.
  bfd_split  each row split into pieces of max_seq_len (the last one shorter: _pack_bfd's "split"),
             the pieces placed best-fit-decreasing; nothing is dropped.
  wrapped    the rows' tokens end to end, cut into rows of max_seq_len (_pack_wrapped): nothing dropped.

Pure functions.
"""

from __future__ import annotations

import bisect
from collections.abc import Iterable, Iterator, Sequence
from collections.abc import Mapping as Keyed

from ..base import Packing, RecordRow

RULES = {
    "bfd": "TRL SFTTrainer packing_strategy='bfd': best-fit decreasing per 1,000-record map batch, overflow truncated",
    "bfd_split": "TRL SFTTrainer packing_strategy='bfd_split': rows split into pieces of max_length, the pieces best-fit "
                 "decreasing per 1,000-record map batch",
    "wrapped": "TRL SFTTrainer packing_strategy='wrapped': each 1,000-record map batch's tokens end to end, cut every max_length",
}
PACKING_RULE = RULES["bfd"]
MAP_BATCH = 1000


def packed(records: Sequence[RecordRow], max_seq_len: int, keys: Keyed[str, object]) -> Packing:
    """The records it keeps, each by its own tokens (the packers cut them themselves), packed by the
    config's packing_strategy: SFTTrainer's, and unsloth's (sft_prepare_dataset calls the same pack_dataset)."""
    return pack((r.tokens for r in records if not r.dropped), max_seq_len, str(keys.get("packing_strategy") or "bfd"))


def pack(lengths: Iterable[int], max_seq_len: int, strategy: str = "bfd") -> Packing:
    rows = kept = truncated_records = truncated_tokens = 0
    for chunk in _batches(lengths):
        kept_here = 0
        pieces: list[int] = []
        for length in chunk:
            if strategy == "bfd" and length > max_seq_len:
                truncated_records += 1
                truncated_tokens += length - max_seq_len
                length = max_seq_len
            kept_here += length
            pieces += _split(length, max_seq_len) if strategy == "bfd_split" else [length]
        kept += kept_here
        rows += -(-kept_here // max_seq_len) if strategy == "wrapped" else _best_fit_decreasing(pieces, max_seq_len)
    return Packing(max_seq_len, rows, -(-kept // max_seq_len), kept, truncated_records, truncated_tokens, RULES[strategy])


def _batches(lengths: Iterable[int]) -> Iterator[list[int]]:
    chunk: list[int] = []
    for length in lengths:
        chunk.append(length)
        if len(chunk) == MAP_BATCH:
            yield chunk
            chunk = []
    if chunk:
        yield chunk


def _split(length: int, size: int) -> list[int]:
    """A row's pieces of at most `size` tokens: whole ones, then what is left."""
    whole, rest = divmod(length, size)
    return [size] * whole + ([rest] if rest else [])


def _best_fit_decreasing(lengths: list[int], capacity: int) -> int:
    """Bins used when each item, longest first, goes to the fullest bin it still fits."""
    free: list[int] = []  # remaining capacity of each open bin, sorted
    for length in sorted(lengths, reverse=True):
        if length <= 0:  # _pack_bfd filters out empty sequences
            continue
        i = bisect.bisect_left(free, length)
        remaining = free.pop(i) - length if i < len(free) else capacity - length
        bisect.insort(free, remaining)
    return len(free)

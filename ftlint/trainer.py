"""Self-hosted trainer arithmetic: Hugging Face Trainer steps and TRL packing. Pure functions.

Trainer steps follow transformers 4.52 to 5.24 (`Trainer.set_initial_training_values`, torch
DataLoader and accelerate's `BatchSamplerShard` with even_batches), read from the released
wheels:

    batches          = ceil(N / per_device_batch)             (floor with drop_last)
    batches/process  = ceil(batches / data_parallel_devices)  (floor with drop_last)
    updates/epoch    = max(ceil(batches/process / grad_accum), 1)
    total steps      = max_steps if given, else ceil(epochs x updates/epoch)
    epochs run       = ceil(max_steps / updates/epoch) when max_steps is given
    warmup           = warmup_steps if given, else ceil(total x warmup_ratio) in binary
                       floating point, as transformers computes it (0.07 x 100 gives 8, not 7)

transformers 4.51 and older floored the last line (`len // grad_accum`): `legacy=True`.

Packing follows TRL's SFTTrainer `packing_strategy="bfd"`: each record is cut to max_seq_len
(the overflow is dropped), then records are placed best-fit-decreasing into rows of max_seq_len
tokens, separately within each batch of 1,000 records (`datasets.map(batched=True)`'s default).
"""

from __future__ import annotations

import bisect
import math
from collections.abc import Iterable
from dataclasses import dataclass

TRANSFORMERS_RULE = "transformers 4.52-5.24 Trainer step arithmetic"
TRANSFORMERS_LEGACY_RULE = "transformers <=4.51 Trainer step arithmetic (floor over gradient accumulation)"
PACKING_RULE = "TRL SFTTrainer packing_strategy='bfd': best-fit decreasing per 1,000-record map batch, overflow truncated"
MAP_BATCH = 1000


@dataclass(frozen=True, slots=True)
class HFSteps:
    batches: int  # per epoch, over the whole dataset
    batches_per_process: int
    updates_per_epoch: int


def hf_steps(n: int, per_device: int, devices: int, grad_accum: int, drop_last: bool, legacy: bool = False) -> HFSteps:
    if n <= 0:
        return HFSteps(0, 0, 0)
    batches = n // per_device if drop_last else -(-n // per_device)
    per_process = batches // devices if drop_last else -(-batches // devices)
    updates = per_process // grad_accum if legacy else -(-per_process // grad_accum)
    return HFSteps(batches, per_process, max(updates, 1))


def hf_warmup(total_steps: int, warmup_steps: int | None, warmup_ratio: float | None) -> int:
    if warmup_steps:
        return warmup_steps
    if warmup_ratio:
        return math.ceil(total_steps * float(warmup_ratio))  # floats, as transformers does
    return 0


@dataclass(frozen=True, slots=True)
class Packing:
    max_seq_len: int
    rows: int  # packed sequences: the N the trainer sees
    lower_bound_rows: int  # ceil(sum of kept tokens / max_seq_len): perfect packing
    kept_tokens: int
    truncated_records: int
    truncated_tokens: int
    algorithm: str = PACKING_RULE


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
    return Packing(max_seq_len, rows, -(-kept // max_seq_len), kept, truncated_records, truncated_tokens)


def _best_fit_decreasing(lengths: list[int], capacity: int) -> int:
    """Bins used when each item, longest first, goes to the fullest bin it still fits."""
    free: list[int] = []  # remaining capacity of each open bin, sorted
    for length in sorted(lengths, reverse=True):
        i = bisect.bisect_left(free, length)
        remaining = free.pop(i) - length if i < len(free) else capacity - length
        bisect.insort(free, remaining)
    return len(free)

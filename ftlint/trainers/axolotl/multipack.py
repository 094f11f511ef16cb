"""axolotl's multipack sampler (src/axolotl/utils/samplers/multipack.py MultipackBatchSampler, at
axolotl-ai-cloud/axolotl@067b021), the count of what it yields:

  order      the indices of its sampler: torch's RandomSampler (a new random order each time it
             is read), or with curriculum_sampling a SequentialSampler (the dataset's order)
  bins       pack_parallel / pack_group: the order cut in groups of sample_packing_group_size
             (100,000), each packed first-fit: a sample goes into the first bin with room for its
             tokens (batch_max_len) that holds fewer than sample_packing_bin_size (200) samples,
             else into a new one; with sample_packing_sequentially, allocate_sequentially: into
             the last bin if it fits, else a new one
  batches    the bins in batches of batch_size, an incomplete last one dropped (drop_last)
  __len__    generate_batches once, then num_count_samples (4; 1 on 4 or more processes) more
             times, each over a new order: the fewest batches of those

The count of bins depends on the order, and torch's random orders cannot be had without torch:
ftlint draws its own orders (a seeded generator, so a run of ftlint always says the same) and
says the figure is an estimate, with the lowest and highest of its draws.
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass

COUNT_SAMPLES = 4  # MultipackBatchSampler num_count_samples
GROUP_SIZE = 100_000  # schemas/config.py sample_packing_group_size
BIN_SIZE = 200  # schemas/config.py sample_packing_bin_size
WORK = 4_000_000  # samples placed over all of ftlint's draws (a few seconds of Python), at most
MAX_DRAWS = 256
MIN_DRAWS = 8


@dataclass(frozen=True, slots=True)
class Sampler:
    """A MultipackBatchSampler's settings."""

    capacity: int  # batch_max_len: the tokens of a bin
    per_batch: int  # batch_size: bins a batch
    bin_size: int = BIN_SIZE
    group_size: int = GROUP_SIZE
    sequential: bool = False  # sample_packing_sequentially
    count_samples: int = COUNT_SAMPLES


def bins(lengths: Sequence[int], s: Sampler) -> int:
    """The bins of one pass over `lengths` in that order."""
    if s.sequential:
        return _sequential(lengths, s.capacity)
    return sum(_first_fit(lengths[i : i + s.group_size], s.capacity, s.bin_size) for i in range(0, len(lengths), s.group_size))


def batches(n_bins: int, s: Sampler) -> int:
    """Batches of per_batch bins, the incomplete last one dropped."""
    return n_bins // s.per_batch


def length(orders: Sequence[Sequence[int]], s: Sampler) -> int:
    """__len__ over the given orders (its count samples): the fewest batches."""
    return min(batches(bins(order, s), s) for order in orders)


def draws(lengths: Sequence[int], s: Sampler, seed: int, shuffled: bool = True) -> list[int]:
    """ftlint's draws of __len__: each the fewest batches of count_samples random orders of
    `lengths` (one order and one draw when the sampler is sequential: its count is exact)."""
    if not shuffled:
        return [batches(bins(lengths, s), s)]
    rng = random.Random(seed)
    n = max(1, len(lengths))
    wanted = max(MIN_DRAWS, min(MAX_DRAWS, WORK // (n * s.count_samples)))
    out = []
    order = list(lengths)
    for _ in range(wanted):
        found = []
        for _ in range(s.count_samples):
            rng.shuffle(order)
            found.append(batches(bins(order, s), s))
        out.append(min(found))
    return out


def _first_fit(lengths: Sequence[int], capacity: int, bin_size: int) -> int:
    """pack_group's bins: first fit, at most bin_size samples a bin. A tree over the bins keeps
    the most room of a stretch of them, so the first bin with room is found in a few steps."""
    n = len(lengths)
    if not n:
        return 0
    size = 1 << max(0, (n - 1).bit_length())
    room = [-1] * (2 * size)  # -1: no bin there, or a bin that holds bin_size samples
    count = [0] * n
    used = 0
    for tokens in lengths:
        if room[1] >= tokens:
            node = 1
            while node < size:
                node = 2 * node if room[2 * node] >= tokens else 2 * node + 1
            b = node - size
            left = room[node] - tokens
        else:
            b = used
            used += 1
            node = size + b
            left = capacity - tokens
        count[b] += 1
        room[node] = left if count[b] < bin_size else -1
        node //= 2
        while node:
            room[node] = max(room[2 * node], room[2 * node + 1])
            node //= 2
    return used


def _sequential(lengths: Sequence[int], capacity: int) -> int:
    """allocate_sequentially's bins: the last bin if it fits, else a new one."""
    used, left = 0, -1
    for tokens in lengths:
        if used and tokens <= left:
            left -= tokens
        else:
            used += 1
            left = capacity - tokens
    return used

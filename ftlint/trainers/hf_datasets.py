"""What Hugging Face `datasets` does to a trainer's rows, where the figures depend on it: the rows
a split's slice reads, which rows `Dataset.train_test_split` holds out (and which order
`Dataset.shuffle(seed)` gives), and how `Dataset.map(batched=True, num_proc=N)` groups them (a
trainer that packs per call of its function packs per group). Read from datasets 4.0.0
(src/datasets/arrow_dataset.py), the version LLaMA-Factory pins, the same in 4.8.4, axolotl's;
the permutation is numpy's.

split slicing ("train[:20%]": arrow_reader.py _str_to_read_instruction, _rel_to_abs_instr):
percent boundaries round to the closest row, round(pct x n / 100) with Python's round (half to
even), or with "(pct1_dropremainder)" pct x trunc(n / 100); negative boundaries count from the
end; several slices join with "+".

train_test_split(test_size, seed): n_test = ceil(test_size x n) for a share (floating point),
test_size itself for a count; rows = np.random.default_rng(seed).permutation(n): the first
n_test are the test split, the rest the train split, in that (permuted) order.

map(batched=True, batch_size=B, num_proc=N): N contiguous shards (N at most the number of rows;
Dataset.shard(contiguous=True): the first n % N shards one row longer), each cut into batches of
B rows; without N, one shard.

numpy's default_rng(seed).permutation(n), as numpy 1.17+ computes it (numpy/random/
bit_generator.pyx SeedSequence, _pcg64.pyx and pcg64.h PCG64, _generator.pyx shuffle,
distributions.c random_interval): the seed's 32-bit words hashed into a pool of four words,
eight state words drawn from the pool, a 128-bit PCG64 (XSL-RR output) seeded with them, then a
Fisher-Yates shuffle from the last place down, each place's partner drawn by rejection below
the next power of two (32-bit draws, two from each 64-bit output, low half first).
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterator, Sequence

M32, M64, M128 = (1 << 32) - 1, (1 << 64) - 1, (1 << 128) - 1
HASH_A, HASH_A_MULT, HASH_B, HASH_B_MULT = 0x43B0D7E5, 0x931E8875, 0x8B51F9DD, 0x58F38DED
MIX_LEFT, MIX_RIGHT = 0xCA01F9DD, 0x4973F715
PCG_MULTIPLIER = (2549297995355413924 << 64) + 4865540595714422341
POOL = 4


def _pool(seed: int) -> list[int]:
    """SeedSequence(seed).pool: the seed's words, hashed and mixed into four 32-bit words."""
    words = []
    while True:
        words.append(seed & M32)
        seed >>= 32
        if not seed:
            break
    constant = HASH_A

    def hashed(value: int) -> int:
        nonlocal constant
        value ^= constant
        constant = (constant * HASH_A_MULT) & M32
        value = (value * constant) & M32
        return value ^ (value >> 16)

    def mixed(x: int, y: int) -> int:
        result = (MIX_LEFT * x - MIX_RIGHT * y) & M32
        return result ^ (result >> 16)

    pool = [hashed(words[i] if i < len(words) else 0) for i in range(POOL)]
    for source in range(POOL):
        for target in range(POOL):
            if source != target:
                pool[target] = mixed(pool[target], hashed(pool[source]))
    for extra in words[POOL:]:
        for target in range(POOL):
            pool[target] = mixed(pool[target], hashed(extra))
    return pool


class PCG64:
    """numpy's PCG64 seeded by SeedSequence(seed), with its buffered 32-bit draws."""

    def __init__(self, seed: int) -> None:
        pool, constant, words = _pool(seed), HASH_B, []
        for i in range(8):  # SeedSequence.generate_state(4, uint64), as 32-bit words, low first
            value = pool[i % POOL] ^ constant
            constant = (constant * HASH_B_MULT) & M32
            value = (value * constant) & M32
            words.append(value ^ (value >> 16))
        state = [words[2 * i] | (words[2 * i + 1] << 32) for i in range(4)]
        self.increment = ((((state[2] << 64) | state[3]) << 1) | 1) & M128
        self.state = 0
        self._step()
        self.state = (self.state + ((state[0] << 64) | state[1])) & M128
        self._step()
        self.half: int | None = None

    def _step(self) -> None:
        self.state = (self.state * PCG_MULTIPLIER + self.increment) & M128

    def next64(self) -> int:
        self._step()
        folded = ((self.state >> 64) ^ self.state) & M64
        turn = self.state >> 122
        return ((folded >> turn) | (folded << ((64 - turn) & 63))) & M64

    def next32(self) -> int:
        if self.half is not None:
            value, self.half = self.half, None
            return value
        value = self.next64()
        self.half = value >> 32
        return value & M32

    def below(self, top: int) -> int:
        """random_interval: uniform in [0, top]."""
        if top == 0:
            return 0
        mask = top
        for shift in (1, 2, 4, 8, 16, 32):
            mask |= mask >> shift
        draw = self.next32 if top <= M32 else self.next64
        while (value := draw() & mask) > top:
            pass
        return value


def permutation(n: int, seed: int) -> list[int]:
    """np.random.default_rng(seed).permutation(n)."""
    generator, rows = PCG64(seed), list(range(n))
    for i in range(n - 1, 0, -1):
        j = generator.below(i)
        rows[i], rows[j] = rows[j], rows[i]
    return rows


def test_rows(test_size: float | int, n: int) -> int:
    """train_test_split's n_test: ceil(share x n) for a float, the count for an int."""
    return math.ceil(test_size * n) if isinstance(test_size, float) else int(test_size)


def held_out(n: int, test_size: float | int) -> int:
    """The rows train_test_split(test_size) holds out of `n`. ValueError where datasets refuses: a
    share outside (0, 1), a count not below n, an empty train split."""
    if (isinstance(test_size, float) and not 0 < test_size < 1) or (isinstance(test_size, int) and not 0 < test_size < n):
        raise ValueError(f"test_size={test_size} should be either positive and smaller than the number of samples {n} "
                         "or a float in the (0, 1) range")
    n_test = test_rows(test_size, n)
    if n - n_test <= 0:
        raise ValueError(f"With n_samples={n}, test_size={test_size}, the resulting train set will be empty")
    return n_test


def train_test_split(n: int, test_size: float | int, seed: int) -> tuple[list[int], list[int]]:
    """(train rows, test rows), each in the order the split gives them. ValueError where datasets
    refuses (held_out)."""
    n_test = held_out(n, test_size)
    rows = permutation(n, seed)
    return rows[n_test:], rows[:n_test]


def map_batches(items: Sequence[int], batch_size: int, num_proc: int | None) -> Iterator[Sequence[int]]:
    """The groups Dataset.map(batched=True) calls its function with: contiguous shards, batches in each."""
    n = len(items)
    shards = max(1, min(num_proc, n)) if num_proc and num_proc > 1 else 1
    size, longer = divmod(n, shards)
    step = batch_size if batch_size > 0 else max(n, 1)  # datasets: no batch size, or not above 0, is the whole shard
    start = 0
    for index in range(shards):
        end = start + size + (1 if index < longer else 0)
        for at in range(start, end, step):
            yield items[at:min(at + step, end)]
        start = end


# arrow_reader.py _SUB_SPEC_RE (the split's name as `split.py` allows it: a word, dots between)
_SLICE = re.compile(r"^(?P<split>\w+(?:\.\w+)*)(?:\[(?:(?P<from>-?[\d_]+)(?P<from_pct>%)?)?:"
                    r"(?:(?P<to>-?[\d_]+)(?P<to_pct>%)?)?\])?(?:\((?P<rounding>[^)]*)\))?$")
_PLUS = re.compile(r"\s*\+\s*")


def read_instruction(spec: str, names: dict[str, int]) -> list[tuple[str, int, int]]:
    """The rows `split: spec` reads: (split name, from, to) per slice, over splits of `names` rows
    (a local file has one split, "train"). ValueError where datasets refuses the spec."""
    out = []
    for sub in _PLUS.split(str(spec)):
        found = _SLICE.match(sub)
        if not found:
            raise ValueError(f"Unrecognized instruction format: {sub}")
        name, rounding = found.group("split"), found.group("rounding")
        percent = bool(found.group("from_pct") or found.group("to_pct"))
        if rounding is not None and rounding not in ("closest", "pct1_dropremainder"):
            raise ValueError("rounding must be either closest or pct1_dropremainder")
        if rounding is not None and not percent:
            raise ValueError("It is forbidden to specify rounding if not using percent slicing.")
        if name not in names:
            raise ValueError(f'Unknown split "{name}". Should be one of {list(names)}.')
        n = names[name]
        start, stop = (int(found.group(k)) if found.group(k) else None for k in ("from", "to"))
        if percent and any(b is not None and abs(b) > 100 for b in (start, stop)):
            raise ValueError("Percent slice boundaries must be > -100 and < 100.")
        if percent:
            start = 0 if start is None else _percent(start, n, rounding or "closest")
            stop = n if stop is None else _percent(stop, n, rounding or "closest")
        start, stop = (0 if start is None else start), (n if stop is None else stop)
        start = max(n + start, 0) if start < 0 else start
        stop = max(n + stop, 0) if stop < 0 else stop
        out.append((name, min(start, n), min(stop, n)))
    return out


def _percent(boundary: int, n: int, rounding: str) -> int:
    if rounding == "closest":
        return round(boundary * n / 100.0)  # Python's round: half to even, as datasets rounds
    if n < 100:
        raise ValueError('Using "pct1_dropremainder" rounding on a split with less than 100 elements is forbidden: '
                         "it always results in an empty dataset.")
    return boundary * math.trunc(n / 100.0)


__all__ = ["PCG64", "held_out", "map_batches", "permutation", "read_instruction", "test_rows", "train_test_split"]

"""Hugging Face `datasets`' own arithmetic, which the trainers that load data through it follow
(read in datasets 4.8.4, the version the trainers' recordings ran with):

  split slicing    `split: train[:20%]` (arrow_reader.py _str_to_read_instruction, _rel_to_abs_instr):
                   boundaries in percent round to the closest record, int(round(pct x n / 100)) with
                   Python's round (half to even), or with "(pct1_dropremainder)" pct x trunc(n / 100);
                   negative boundaries count from the end; several slices join with "+"
  held_out         Dataset.train_test_split(test_size): a float share holds out ceil(share x n) records (in
                   floating point), a whole number that many; the rest train; a share outside (0, 1),
                   a count outside (0, n) or an empty training part is a ValueError
"""

from __future__ import annotations

import math
import re

# arrow_reader.py _SUB_SPEC_RE (the split's name as `split.py` allows it: a word, dots between)
_SLICE = re.compile(r"^(?P<split>\w+(?:\.\w+)*)(?:\[(?:(?P<from>-?[\d_]+)(?P<from_pct>%)?)?:"
                    r"(?:(?P<to>-?[\d_]+)(?P<to_pct>%)?)?\])?(?:\((?P<rounding>[^)]*)\))?$")
_PLUS = re.compile(r"\s*\+\s*")


class SplitError(ValueError):
    """A split `datasets` refuses, in its words."""


def read_instruction(spec: str, names: dict[str, int]) -> list[tuple[str, int, int]]:
    """The records `split: spec` reads: (split name, from, to) per slice, over splits of `names`
    records (a local file has one split, "train")."""
    out = []
    for sub in _PLUS.split(str(spec)):
        found = _SLICE.match(sub)
        if not found:
            raise SplitError(f"Unrecognized instruction format: {sub}")
        name, rounding = found.group("split"), found.group("rounding")
        percent = bool(found.group("from_pct") or found.group("to_pct"))
        if rounding is not None and rounding not in ("closest", "pct1_dropremainder"):
            raise SplitError("rounding must be either closest or pct1_dropremainder")
        if rounding is not None and not percent:
            raise SplitError("It is forbidden to specify rounding if not using percent slicing.")
        if name not in names:
            raise SplitError(f'Unknown split "{name}". Should be one of {list(names)}.')
        n = names[name]
        start, stop = (int(found.group(k)) if found.group(k) else None for k in ("from", "to"))
        if percent and any(b is not None and abs(b) > 100 for b in (start, stop)):
            raise SplitError("Percent slice boundaries must be > -100 and < 100.")
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
        raise SplitError('Using "pct1_dropremainder" rounding on a split with less than 100 elements is forbidden: '
                         "it always results in an empty dataset.")
    return boundary * math.trunc(n / 100.0)


def held_out(n: int, size: float | int) -> int:
    """How many of `n` records train_test_split(test_size=size) holds out."""
    if isinstance(size, int) and not isinstance(size, bool):
        if not 0 < size < n:
            raise SplitError(f"test_size={size} should be either positive and smaller than the number of samples {n} or a "
                             "float in the (0, 1) range")
        held = size
    else:
        if not 0 < size < 1:
            raise SplitError(f"test_size={size} should be either positive and smaller than the number of samples {n} or a "
                             "float in the (0, 1) range")
        held = math.ceil(float(size) * n)
    if n - held <= 0:
        raise SplitError(f"With n_samples={n}, test_size={size} and train_size=None, the resulting train set will be empty. "
                         "Adjust any of the aforementioned parameters.")
    return held


# NumPy's default_rng(seed).permutation(n), which datasets' shuffle(seed=...) and
# train_test_split(seed=...) draw their order from (numpy/random: bit_generator.pyx SeedSequence,
# pcg64.h PCG64 XSL-RR 128/64, distributions.c random_interval, _generator.pyx Generator.shuffle:
# for i from n-1 down to 1, swap i with a draw in [0, i])
_MASK32, _MASK64, _MASK128 = (1 << 32) - 1, (1 << 64) - 1, (1 << 128) - 1
_PCG_MULT = 0x2360ED051FC65DA44385DF649FCCF645


def _seed_words(seed: int) -> list[int]:
    """SeedSequence(seed).generate_state(4, uint64) as 8 32-bit words."""
    entropy = [0] if seed == 0 else []
    while seed > 0:
        entropy.append(seed & _MASK32)
        seed >>= 32
    hash_const = 0x43B0D7E5

    def hashmix(value: int) -> int:
        nonlocal hash_const
        value ^= hash_const
        hash_const = (hash_const * 0x931E8875) & _MASK32
        value = (value * hash_const) & _MASK32
        return value ^ (value >> 16)

    def mix(x: int, y: int) -> int:
        result = (0xCA01F9DD * x - 0x4973F715 * y) & _MASK32
        return result ^ (result >> 16)

    pool = [hashmix(entropy[i] if i < len(entropy) else 0) for i in range(4)]
    for src in range(4):
        for dst in range(4):
            if src != dst:
                pool[dst] = mix(pool[dst], hashmix(pool[src]))
    for word in entropy[4:]:
        for dst in range(4):
            pool[dst] = mix(pool[dst], hashmix(word))
    out, const = [], 0x8B51F9DD
    for i in range(8):
        value = pool[i % 4] ^ const
        const = (const * 0x58F38DED) & _MASK32
        value = (value * const) & _MASK32
        out.append(value ^ (value >> 16))
    return out


class _PCG64:
    """NumPy's PCG64 bit generator, seeded as default_rng(seed) seeds it."""

    def __init__(self, seed: int) -> None:
        words = _seed_words(seed)
        values = [words[k] | words[k + 1] << 32 for k in range(0, 8, 2)]
        initstate, initseq = values[0] << 64 | values[1], values[2] << 64 | values[3]
        self.inc = (initseq << 1 | 1) & _MASK128
        self.state = self.inc  # pcg_setseq_128_srandom_r: state 0, stepped once, plus initstate, stepped again
        self.state = (self.state + initstate) & _MASK128
        self.state = (self.state * _PCG_MULT + self.inc) & _MASK128
        self.half: int | None = None

    def next64(self) -> int:
        self.state = (self.state * _PCG_MULT + self.inc) & _MASK128
        value = ((self.state >> 64) ^ self.state) & _MASK64
        turn = self.state >> 122
        return ((value >> turn) | (value << (64 - turn))) & _MASK64

    def next32(self) -> int:
        if self.half is not None:
            value, self.half = self.half, None
            return value
        value = self.next64()
        self.half = value >> 32
        return value & _MASK32

    def interval(self, high: int) -> int:
        """A draw in [0, high]: the smallest mask over `high`, redrawn until within it (random_interval)."""
        if high == 0:
            return 0
        mask = high
        for shift in (1, 2, 4, 8, 16, 32):
            mask |= mask >> shift
        draw = self.next32 if high <= _MASK32 else self.next64
        while True:
            value = draw() & mask
            if value <= high:
                return value


def permutation(n: int, seed: int) -> list[int]:
    """numpy.random.default_rng(seed).permutation(n)."""
    order = list(range(n))
    rng = _PCG64(seed)
    for i in range(n - 1, 0, -1):
        j = rng.interval(i)
        order[i], order[j] = order[j], order[i]
    return order

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

"""The Hugging Face `datasets` route, timed by run.py beside ftlint: `load_dataset("json")` of one
file, then `map(num_proc=2)` counting every string's tokens with tiktoken (the same shipped
encoding ftlint and bare.py use). Each run gets a fresh cache directory, so no run reads the Arrow
copy an earlier one made (a second run on the same file would otherwise skip the conversion).
Needs `pip install datasets`; run.py leaves the row out without it.

    python benchmarks/hf_datasets.py FILE [NUM_PROC]
"""

from __future__ import annotations

import sys
import tempfile
from typing import Any

ENCODER: Any = None


def walk(value: object) -> int:
    if isinstance(value, str):
        return len(ENCODER.encode_ordinary(value))
    if isinstance(value, dict):
        return sum(walk(v) for v in value.values())
    if isinstance(value, list):
        return sum(walk(v) for v in value)
    return 0


def count(batch: dict[str, list[object]]) -> dict[str, list[int]]:
    global ENCODER
    if ENCODER is None:  # loaded in each worker, as a user's map function would
        from ftlint.tokens import get_encoding

        ENCODER = get_encoding("o200k_base")
    rows = len(next(iter(batch.values())))
    return {"tokens": [walk([column[i] for column in batch.values()]) for i in range(rows)]}


def main() -> None:
    from datasets import disable_progress_bars, load_dataset

    disable_progress_bars()
    num_proc = int(sys.argv[2]) if len(sys.argv) > 2 else 2
    with tempfile.TemporaryDirectory(prefix="ftlint-bench-hf-") as cache:
        ds = load_dataset("json", data_files=sys.argv[1], split="train", cache_dir=cache)
        counted = ds.map(count, batched=True, num_proc=num_proc, remove_columns=ds.column_names)
        print(sum(counted["tokens"]))


if __name__ == "__main__":
    main()

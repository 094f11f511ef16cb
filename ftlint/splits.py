"""Which of the files given to `check` hold held-out data, by the names people give them.

A pre-commit hook or a CI step passes every changed data file at once: `train.jsonl` and
`valid.jsonl` together. A held-out file is judged as validation (the training-only rules, such as
a provider's minimum number of examples, do not apply; its records found in the training files are
FT404), never as a second training file.

A file is held out when a split word is its whole name (`valid.jsonl`, `test.parquet`), the last
word of its name (`sft_val.jsonl`, `chat.eval.json.gz`), the first word of a Hugging Face shard's
name (`validation-00000-of-00001.parquet`), or the name of the folder it is in (`eval/part-0.jsonl`).
A name that merely starts with one (`valid_system_first.jsonl`, a test case of valid data) is not.
"""

from __future__ import annotations

import re
from pathlib import PurePath

SPLIT_WORDS = frozenset({"valid", "validation", "val", "eval", "evaluation", "dev", "test", "heldout", "held-out", "holdout"})
_SUFFIXES = (".gz", ".zst", ".jsonl", ".ndjson", ".json", ".parquet", ".arrow")
_SHARD = re.compile(r"^(?P<split>[a-z_-]+?)-\d{5}-of-\d{5}$")
_WORDS = re.compile(r"[._\-\s]+")


def _stem(name: str) -> str:
    """A file's name without the data and compression suffixes ftlint reads."""
    lowered = name.lower()
    changed = True
    while changed:
        changed = False
        for suffix in _SUFFIXES:
            if lowered.endswith(suffix) and len(lowered) > len(suffix):
                lowered, changed = lowered[: -len(suffix)], True
    return lowered


def held_out_by_name(path: str) -> bool:
    """Whether `path` names a held-out split, by the rule above."""
    if path == "-":
        return False
    pure = PurePath(path)
    stem = _stem(pure.name)
    shard = _SHARD.match(stem)
    if shard and shard["split"] in SPLIT_WORDS:
        return True
    words = [w for w in _WORDS.split(stem) if w]
    if stem in SPLIT_WORDS or (len(words) > 1 and words[-1] in SPLIT_WORDS):
        return True
    folder = pure.parent
    return folder.name.lower() in SPLIT_WORDS and folder != PurePath("/dev")  # /dev/stdin is no split


def split_by_name(paths: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the training files, the held-out ones) of `paths`, in their order."""
    held = tuple(p for p in paths if held_out_by_name(p))
    return tuple(p for p in paths if p not in held), held

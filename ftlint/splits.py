"""Which of the files given to `check` hold held-out data, by the names people give them.

A pre-commit hook or a CI step passes every changed data file at once: `train.jsonl` and
`valid.jsonl` together. A held-out file is judged as validation (the training-only rules, such as
a provider's minimum number of examples, do not apply; its records found in the training files are
FT404), never as a second training file.

The words are Hugging Face `datasets`' (src/datasets/data_files.py): its SPLIT_KEYWORDS for the
validation and test splits, and its NON_WORDS_CHARS ("-._ 0-9") between words, so `sft_val2` ends
in `val`. A file is held out when a split word is its whole name (`valid.jsonl`, `test.parquet`),
the last word of its name (`sft_val.jsonl`, `chat.eval.json.gz`), or the name of the folder it is
in (`eval/part-0.jsonl`). A Hub shard, `{split}-00000-of-00001.parquet` (datasets'
SPLIT_PATTERN_SHARDED), is held out when its split's name has a held-out word and no training
one: `test_sft` and `sft-val` are, `train_sft` and `train_gen` are not (ultrachat_200k's splits).
A name that merely starts with a split word (`valid_system_first.jsonl`, a test case of valid
data) is not: datasets would put it in a split, ftlint keeps it to training, where every rule runs.
"""

from __future__ import annotations

import re
from pathlib import PurePath

# datasets' SPLIT_KEYWORDS of Split.VALIDATION and Split.TEST, and the held-out names it has not
SPLIT_WORDS = frozenset({"validation", "valid", "dev", "val", "test", "testing", "eval", "evaluation",
                         "heldout", "held-out", "holdout"})
TRAINING_WORDS = frozenset({"train", "training"})  # datasets' SPLIT_KEYWORDS of Split.TRAIN
_SUFFIXES = (".gz", ".zst", ".jsonl", ".ndjson", ".json", ".parquet", ".arrow")
_SHARD = re.compile(r"^(?P<split>.+?)-\d{5}-of-\d{5}$")
_WORDS = re.compile(r"[-._\s0-9]+")  # datasets' NON_WORDS_CHARS, and any white space


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


def _words(name: str) -> list[str]:
    # "held-out" is one word, though "-" separates the others
    return [w for w in _WORDS.split(name.replace("held-out", "heldout")) if w]


def held_out_by_name(path: str) -> bool:
    """Whether `path` names a held-out split, by the rule above."""
    if path == "-":
        return False
    pure = PurePath(path)
    stem = _stem(pure.name)
    shard = _SHARD.match(stem)
    if shard:
        split = set(_words(shard["split"]))
        return bool(split & SPLIT_WORDS) and not split & TRAINING_WORDS
    words = _words(stem)
    if stem in SPLIT_WORDS or (len(words) > 1 and words[-1] in SPLIT_WORDS):
        return True
    folder = pure.parent
    return folder.name.lower() in SPLIT_WORDS and folder != PurePath("/dev")  # /dev/stdin is no split


def split_by_name(paths: tuple[str, ...]) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(the training files, the held-out ones) of `paths`, in their order."""
    held = tuple(p for p in paths if held_out_by_name(p))
    return tuple(p for p in paths if p not in held), held

"""LLaMA-Factory's rows after its processors, at hiyouga/LLaMA-Factory@ff6d4d1:

  val_size      data/data_utils.py split_dataset: the merged rows (each dataset's first
                max_samples, concatenated in the order `dataset:` names them) split by datasets'
                train_test_split(test_size=val_size, or int(val_size) above 1, seed=the
                TrainingArguments' seed, 42) before any processing: the train rows come in the
                split's permuted order (ftlint/trainers/hf_datasets.py)
  packing (sft) data/processor/supervised.py PackedSupervisedDatasetProcessor: each row already
                cut to cutoff_len (one less with packing), then per call of the processor (the
                rows of one map batch: preprocessing_batch_size 1,000 rows of one of
                preprocessing_num_workers contiguous shards, data/loader.py
                _get_preprocessed_dataset) packed by processor_utils.py greedy_knapsack into rows
                of cutoff_len: the lengths sorted, each row filled with the longest that still
                fits until none does; a row longer than cutoff_len is dropped
  packing (pt)  data/processor/pretrain.py: per call, the texts (each with its eos) end to end,
                cut into blocks of cutoff_len; what is past the last whole block is dropped
The Trainer batches these rows (its step arithmetic: ftlint/trainers/steps.py)."""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence

from ..base import Packing, RecordRow, Split
from ..hf_datasets import map_batches, test_rows, train_test_split

SPLIT_SOURCE = "src/llamafactory/data/data_utils.py split_dataset, datasets' train_test_split"
KNAPSACK = ("LLaMA-Factory's greedy_knapsack (data/processor/processor_utils.py) per map batch ({how}): "
            "each row filled with the longest record that still fits")
BLOCKS = ("LLaMA-Factory's pretraining blocks (data/processor/pretrain.py) per map batch ({how}): "
          "texts end to end, cut every cutoff_len tokens, the rest of each batch dropped")


def split(records: Sequence[RecordRow], keys: Mapping[str, object]) -> Split | None:
    value = keys.get("val_size")
    if not isinstance(value, (int, float)) or value <= 1e-6:
        return None
    size: float | int = int(value) if value > 1 else float(value)
    seed = keys.get("seed", 42)
    seed = seed if isinstance(seed, int) else 42
    try:
        train, held = train_test_split(len(records), size, seed)
    except ValueError as exc:
        from ..configs.base import RunConfigError

        raise RunConfigError(f"val_size {value:g}: datasets refuses the split of {len(records):,} rows: {exc}") from None
    words = (f"val_size {value:g}: {test_rows(size, len(records)):,} of {len(records):,} rows held out for validation by "
             f"datasets' train_test_split with seed {seed} ({SPLIT_SOURCE})")
    return Split(tuple(train), tuple(held), words)


def _batches(keys: Mapping[str, object], lengths: Sequence[int]) -> tuple[list[Sequence[int]], str]:
    """The lengths as the processor is called on them, and how, in words."""
    batch = keys.get("batch", 1000)
    workers = keys.get("workers")
    batch = batch if isinstance(batch, int) else 1000
    workers = workers if isinstance(workers, int) and workers > 1 else None
    shards = f" in each of {min(workers, len(lengths)):,} shards (preprocessing_num_workers {workers})" if workers else ""
    return list(map_batches(lengths, batch, workers)), f"preprocessing_batch_size {batch:,}{shards}"


def greedy_knapsack(lengths: Sequence[int], capacity: int) -> int:
    """Rows greedy_knapsack makes: sorted lengths, each row taking the longest that fits, again and again."""
    left = sorted(lengths)
    rows = 0
    while left:
        room = capacity
        while (at := bisect.bisect(left, room)) > 0:
            room -= left.pop(at - 1)
        rows += 1
        if room == capacity:  # nothing fitted an empty row: greedy_knapsack never ends; the longer rows are dropped first
            break
    return rows


def pack(records: Sequence[RecordRow], cutoff: int, keys: Mapping[str, object]) -> Packing:
    kept = [r for r in records if not r.dropped]
    if keys.get("stage") == "pt":
        return _blocks(kept, cutoff, keys)
    lengths = [r.tokens - r.cut for r in kept]
    fitting = [n for n in lengths if n <= cutoff]  # PackedSupervisedDatasetProcessor drops a longer one
    groups, how = _batches(keys, fitting)
    rows = sum(greedy_knapsack(group, cutoff) for group in groups)
    total = sum(fitting)
    return Packing(cutoff, rows, -(-total // cutoff), total, 0, 0, KNAPSACK.format(how=how),
                   records=len(fitting) if len(fitting) != len(lengths) else None)


def _blocks(records: Sequence[RecordRow], cutoff: int, keys: Mapping[str, object]) -> Packing:
    """Blocks of cutoff_len per batch; a record wholly past the last block leaves, one partly past it is cut."""
    groups, how = _batches(keys, [r.tokens for r in records])
    rows = kept_records = cut_records = cut_tokens = 0
    for group in groups:
        blocks = sum(group) // cutoff
        rows += blocks
        room = blocks * cutoff
        for n in group:
            inside = max(0, min(n, room))
            room -= inside
            kept_records += inside > 0
            cut_records += 0 < inside < n
            cut_tokens += n - inside if inside else 0
    tokens = rows * cutoff
    return Packing(cutoff, rows, rows, tokens, cut_records, cut_tokens, BLOCKS.format(how=how),
                   records=kept_records, trained_tokens=tokens)


__all__ = ["greedy_knapsack", "pack", "split"]

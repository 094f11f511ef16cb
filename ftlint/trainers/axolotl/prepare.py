"""What axolotl makes of the tokenized records before it batches them (src/axolotl/utils/data/sft.py
_load_raw_datasets and _load_and_prepare_datasets, at axolotl-ai-cloud/axolotl@067b021), in its
order:

  1. each dataset entry's `split` (datasets' slicing: trainers/hf_datasets.py), the default "train"
     being the whole file;
  2. the length filter (utils/data/utils.py handle_long_seq_in_dataset): with drop (the default)
     only samples of min_sample_len (2) to sequence_len tokens stay; with truncate the shorter ones
     leave and the longer ones keep their first sequence_len tokens; with raise, one longer sample
     stops the run (the judge's cut has made the first two: its Cut and the run's past_max);
  3. with sample_packing, samples with no trained token leave (utils/trainer.py
     process_datasets_for_packing, drop_no_trainable_tokens);
  4. val_set_size (_handle_train_dataset_split): the merged datasets are shuffled
     (shared.py merge_datasets: seed=cfg.seed, unseeded when the config gives none; not with
     curriculum_sampling on one dataset, nor with shuffle_merged_datasets false), and
     train_test_split(shuffle=False) holds out their last ceil(share x n) (or that count);
  5. with sample_packing, the multipack sampler's batches (multipack.py).

Which records an unseeded shuffle holds out is random: the tokens of the part that trains are then
said as the expected share, between the least and the most the held-out records can take; the
packed batches as ftlint's draws of axolotl's sampler (multipack.py), between their fewest and most.
"""

from __future__ import annotations

import dataclasses
import math
import random
import statistics
from collections.abc import Mapping, Sequence
from fractions import Fraction

from ..base import Counts, HeldOut, Packing, Plan, Prepared, RecordRow
from ..hf_datasets import held_out, permutation, read_instruction
from . import multipack
from .steps import PackedSteps

SEED = 34  # ftlint's own draws start here: the same data and config always say the same figures


def prepare(rows: Sequence[RecordRow], keys: Mapping[str, object], plan: Plan) -> Prepared:
    sequence_len = plan.max_seq_len or 512
    words: list[str] = []
    parts, refusal = _read(rows, keys, words)
    read, random_order = _merged(parts, keys)
    minimum = int(keys.get("min_sample_len") or 2)  # type: ignore[call-overload]
    long = [r for r in read if r.dropped and r.tokens > sequence_len]
    if keys.get("excess_length_strategy") == "raise" and long:
        refusal = refusal or (f"excess_length_strategy raise: axolotl stops at the first of {len(long):,} samples longer than "
                              f"sequence_len {sequence_len:,} (\"Sequence encountered with {long[0].tokens:,} tokens, which "
                              f"exceeds the maximum {sequence_len}\": utils/trainer.py filter_sequences_by_length)")
    kept = [r for r in read if not r.dropped and r.tokens >= minimum]
    dropped = [r for r in read if r.dropped or r.tokens < minimum]
    packing = bool(keys.get("sample_packing"))
    untrained = [r for r in kept if not _trained(r)] if packing else []
    if untrained:
        kept = [r for r in kept if _trained(r)]
        words.append(f"{len(untrained):,} sample(s) with no trained token left out (sample_packing: drop_no_trainable_tokens)")
    n_test, refusal = _held_out(len(kept), keys, refusal)
    random_split = bool(n_test) and random_order
    if n_test:
        how = ("the last after an unseeded shuffle: which ones is random" if random_order else
               f"the last after the shuffle of seed {keys['seed']}" if keys.get("seed") is not None else "the last ones (no shuffle)")
        words.append(f"val_set_size {keys['val_set_size']:g}: {n_test:,} of {len(kept):,} held out, {how}")
    config = keys.get("config", "the run config")
    sources = ((("validation", f"val_set_size {keys['val_set_size']:g} from {config}: {n_test:,} of the {len(kept):,} records held out"),)
               if n_test else ())
    figures, ranges = _figures(kept, n_test, random_split)
    counts = Counts(
        records=len(kept) - n_test, tokens=figures["tokens"], trained=figures["trainable_tokens"], dropped=len(dropped),
        dropped_tokens=sum(r.tokens for r in dropped), dropped_trained=sum(_trained(r) for r in dropped),
        truncated=figures["truncation.records"], truncated_tokens=figures["truncation.tokens"], left_out=len(untrained))
    out = Prepared(counts=counts, validation=HeldOut(n_test, figures["validation.tokens"]) if n_test else None, ranges=ranges,
                   rule="; ".join(words), refusal=refusal, sources=sources)
    if not packing or not counts.records:
        return out
    train = kept if random_split else kept[: len(kept) - n_test]
    return _packed(out, train, n_test if random_split else 0, keys, plan, sequence_len)


def _trained(r: RecordRow) -> int:
    """Its trained tokens after the cut."""
    return r.trainable - r.cut_trainable


def _read(rows: Sequence[RecordRow], keys: Mapping[str, object], words: list[str]) -> tuple[list[list[RecordRow]], str | None]:
    """The records each dataset entry's `split` reads (all of them when it names none), per entry."""
    splits = keys.get("splits") or ()
    per_file: dict[int, list[RecordRow]] = {}
    for r in rows:
        per_file.setdefault(r.file, []).append(r)
    out: list[list[RecordRow]] = []
    for file, found in sorted(per_file.items()):
        spec = splits[file] if isinstance(splits, tuple) and file < len(splits) else None
        if not spec or spec == "train":
            out.append(found)
            continue
        try:
            parts = read_instruction(str(spec), {"train": len(found)})
        except ValueError as exc:
            return out, f"split {spec}: datasets refuses it ({exc})"
        chosen = [r for _, start, stop in parts for r in found[start:stop]]
        words.append(f"split {spec}: {len(chosen):,} of {len(found):,} records read")
        out.append(chosen)
    return out, None


def _merged(parts: list[list[RecordRow]], keys: Mapping[str, object]) -> tuple[list[RecordRow], bool]:
    """The datasets merged as utils/data/shared.py merge_datasets merges them, and whether their
    order is random (shuffled without a seed): one dataset is shuffled with cfg.seed unless
    curriculum_sampling or shuffle_merged_datasets false; several are each shuffled first with
    shuffle_before_merging_datasets, joined, and shuffled unless shuffle_merged_datasets false.
    A seeded shuffle is datasets' shuffle(seed): NumPy's default_rng(seed).permutation."""
    seed = keys.get("seed")
    shuffle_all = keys.get("shuffle_merged_datasets") is not False
    if len(parts) == 1:
        shuffle_all = shuffle_all and not keys.get("curriculum_sampling")
    elif keys.get("shuffle_before_merging_datasets"):
        if not isinstance(seed, int):
            return [r for part in parts for r in part], True
        parts = [[part[i] for i in permutation(len(part), seed)] for part in parts]
    merged = [r for part in parts for r in part]
    if not shuffle_all:
        return merged, False
    if not isinstance(seed, int):
        return merged, True
    return [merged[i] for i in permutation(len(merged), seed)], False


def _held_out(n: int, keys: Mapping[str, object], refusal: str | None) -> tuple[int, str | None]:
    """How many records val_set_size holds out (_handle_train_dataset_split: a size over 1 a count)."""
    size = keys.get("val_set_size")
    if not isinstance(size, (int, float)) or not size:
        return 0, refusal
    try:
        return held_out(n, int(size) if size > 1 else float(size)), refusal
    except ValueError as exc:
        return 0, refusal or f"val_set_size {size:g}: axolotl stops ({exc})"


def _figures(kept: list[RecordRow], n_test: int, random_split: bool) -> tuple[dict[str, int], tuple[tuple[str, int, int], ...]]:
    """The training part's figures (the first of `kept`, the rest held out); held out at random,
    the expected share, with the least and most the held-out records can take."""
    columns = {"tokens": [r.tokens - r.cut for r in kept], "trainable_tokens": [_trained(r) for r in kept],
               "truncation.records": [1 if r.cut else 0 for r in kept], "truncation.tokens": [r.cut for r in kept]}
    n = len(kept)
    out: dict[str, int] = {}
    ranges: list[tuple[str, int, int]] = []
    for name, values in columns.items():
        total = sum(values)
        if not n_test:
            out[name] = total
        elif not random_split:
            out[name] = sum(values[: n - n_test])
        else:
            ordered = sorted(values)
            low, high = total - sum(ordered[n - n_test :]), total - sum(ordered[:n_test])
            out[name] = round(Fraction(total * (n - n_test), n))
            if low != high:
                ranges.append((name, low, high))
    every = sum(columns["tokens"])
    out["validation.tokens"] = every - out["tokens"]
    ranges += [("validation.tokens", every - high, every - low) for name, low, high in ranges if name == "tokens"]
    return out, tuple(ranges)


def _packed(out: Prepared, train: list[RecordRow], n_test: int, keys: Mapping[str, object], plan: Plan,
            sequence_len: int) -> Prepared:
    """The multipack sampler's batches over the training part (utils/trainer.py calculate_total_num_steps,
    core/trainers/base.py _create_multipack_sampler: batch_max_len micro_batch_size x sequence_len, one bin
    a batch, on an attention that packs (flash_attention_2 ...); else micro_batch_size bins of sequence_len)."""
    micro = plan.batch_size or 1
    real = bool(keys.get("multipack_real_batches"))
    s = multipack.Sampler(sequence_len if real else micro * sequence_len, micro if real else 1,
                          int(keys.get("sample_packing_bin_size") or multipack.BIN_SIZE),  # type: ignore[call-overload]
                          int(keys.get("sample_packing_group_size") or multipack.GROUP_SIZE),  # type: ignore[call-overload]
                          bool(keys.get("sample_packing_sequentially")), 1 if plan.gpus >= multipack.COUNT_SAMPLES else
                          multipack.COUNT_SAMPLES)
    lengths = [r.tokens - r.cut for r in train]
    ordered = bool(keys.get("curriculum_sampling"))  # a SequentialSampler: the dataset's order
    found = _draws(lengths, s, n_test, ordered)
    point = int(statistics.median_low(found))
    low, high = min(found), max(found)
    attention = keys.get("attn_implementation") or "none"
    how = (f"attn_implementation {attention} packs: bins of micro_batch_size x sequence_len = {s.capacity:,} tokens, one a batch"
           if not real else f"attn_implementation {attention} does not pack: batches of {micro} bins of sequence_len {sequence_len:,}")
    exact = low == high and (ordered and not n_test)
    drawn = ("in the dataset's order (curriculum_sampling)" if ordered else
             f"in a random order (torch's RandomSampler; the fewest of {s.count_samples} orders' batches, as its __len__ takes; "
             f"ftlint draws {len(found)} times)")
    tokens = sum(lengths) if not n_test or out.counts is None else out.counts.tokens
    packed = Packing(s.capacity, point * s.per_batch, math.ceil(tokens / s.capacity), tokens, 0, 0,
                     f"axolotl's multipack sampler (utils/samplers/multipack.py): {'sequential' if s.sequential else 'first'} fit "
                     f"{drawn}; {how}")
    eff = keys.get("sample_packing_eff_est")
    steps = PackedSteps(s.per_batch, low * s.per_batch, high * s.per_batch, tokens, sequence_len,
                        float(eff) if isinstance(eff, (int, float)) and eff else None, bool(keys.get("dataloader_drop_last")))
    ranges = out.ranges if exact else (*out.ranges, ("packing.rows", low * s.per_batch, high * s.per_batch))
    refusal = out.refusal
    if real and not s.sequential and not point and lengths:
        refusal = refusal or (f"axolotl stops: its sampler packs fewer bins than a batch of {micro} and drops the last incomplete "
                              "batch, then reads the one before it (IndexError: utils/samplers/multipack.py generate_batches)")
    source = f"sample_packing true from {keys.get('config', 'the run config')}: {how}"
    return dataclasses.replace(out, packing=packed, steps=steps, ranges=ranges, refusal=refusal,
                               sources=(*out.sources, ("packing", source)))


def _draws(lengths: list[int], s: multipack.Sampler, n_test: int, ordered: bool) -> list[int]:
    """ftlint's draws of the sampler's count; with a random held-out share, each over its own share."""
    if ordered and not n_test:
        return multipack.draws(lengths, s, SEED, shuffled=False)
    if not n_test:
        return multipack.draws(lengths, s, SEED)
    rng = random.Random(SEED)
    pool = lengths
    rounds = max(multipack.MIN_DRAWS, min(multipack.MAX_DRAWS // 4, multipack.WORK // (max(1, len(pool)) * s.count_samples * 4)))
    found: list[int] = []
    for k in range(rounds):
        kept = rng.sample(pool, len(pool) - n_test) if n_test <= len(pool) else pool
        found += multipack.draws(kept, s, SEED + k + 1, shuffled=not ordered)[:4]
    return found


"""The arithmetic axolotl's figures follow, each against an oracle of its own: a plain first-fit
packer for axolotl's multipack bins; hand arithmetic for axolotl's packed step count and its
warmup (datasets' slicing, shuffle and split: tests/plan/test_hf_datasets.py; tests/oracles/test_replay_axolotl.py
holds the whole of it to the recorded runs)."""
from __future__ import annotations

import random

from ftlint.trainers.axolotl import multipack
from ftlint.trainers.axolotl.steps import AxolotlSteps, PackedSteps


def _plain_first_fit(lengths: list[int], capacity: int, bin_size: int) -> int:
    bins: list[list[int]] = []
    for tokens in lengths:
        for b in bins:
            if capacity - sum(b) >= tokens and len(b) < bin_size:
                b.append(tokens)
                break
        else:
            bins.append([tokens])
    return len(bins)


def test_multipack_bins_are_first_fit_with_at_most_bin_size_samples() -> None:
    rng = random.Random(7)
    for _ in range(300):
        capacity, bin_size = rng.choice([64, 512, 2048]), rng.choice([1, 3, 200])
        lengths = [rng.randint(1, capacity) for _ in range(rng.randint(0, 200))]
        s = multipack.Sampler(capacity, 1, bin_size)
        assert multipack.bins(lengths, s) == _plain_first_fit(lengths, capacity, bin_size)


def test_multipack_groups_are_packed_apart_and_sequential_packing_keeps_the_order() -> None:
    lengths = [300, 300, 300, 300, 100, 100]
    # groups of 3: [300, 300] [300] | [300, 100, 100]; one group would fit [300, 300] [300, 300] [100, 100]: 3 either way,
    # but apart the last group's 100s cannot join the first group's half-full bin
    assert multipack.bins(lengths, multipack.Sampler(600, 1, group_size=3)) == 3
    assert multipack.bins([500, 300, 100, 200], multipack.Sampler(600, 1, group_size=2)) == 3  # [500] [300] | [100, 200]
    assert multipack.bins([500, 300, 100, 200], multipack.Sampler(600, 1)) == 2  # [500, 100] [300, 200]
    # sequential: 300 opens a bin, 400 does not fit the 300 left, so a new one; 200 fits there; 100 does not: 3 bins
    assert multipack.bins([300, 400, 200, 100], multipack.Sampler(600, 1, sequential=True)) == 3


def test_real_batches_drop_the_incomplete_last_batch() -> None:
    s = multipack.Sampler(100, 4)
    assert multipack.batches(11, s) == 2 and multipack.batches(3, s) == 0


def test_axolotls_packed_step_count() -> None:
    # 26 batches of one bin, micro batch 1, accumulation 4, 2 epochs: floor(max(1, 26 x 1 // 4) x 2) = 12 steps;
    # the Trainer's steps per epoch: ceil(26 / 4) = 7; it runs ceil(12 / 7) = 2 epochs
    s = PackedSteps(1, 26, 26, 12_369, 512).schedule(26, 2, 1, 4, 1, False, None)
    assert (s.total_steps, s.steps_per_epoch, s.epochs_run) == (12, 7, 2)
    # one batch of 2 bins is 2 x 2 // 8 = 0: at least 1 step
    assert PackedSteps(2, 2, 2, 100, 8192).schedule(2, 1, 2, 4, 1, False, None).total_steps == 1
    # sample_packing_eff_est: (floor(0.99 x 10,000 / 0.9 / 512 // 4) - 1) x 2 = (5 - 1) x 2
    assert PackedSteps(1, 20, 20, 10_000, 512, eff_est=0.9).schedule(20, 2, 1, 4, 1, False, None).total_steps == 8
    assert PackedSteps(1, 20, 20, 10_000, 512).schedule(20, 3, 1, 1, 1, False, 10).total_steps == 10  # max_steps caps it


def test_axolotls_warmup_rounds_down_in_floating_point_and_makes_1_two() -> None:
    from fractions import Fraction

    steps = AxolotlSteps()
    assert steps.warmup(100, Fraction(29, 100), None) == int(0.29 * 100) == 28  # not 29: 0.29 x 100 is 28.999...
    assert steps.warmup(12, Fraction(1, 10), None) == 2  # int(1.2) = 1, made 2
    assert steps.warmup(10, None, 1) == 2  # a warmup_steps of 1 is made 2 too
    assert steps.warmup(5000, None, None) == 100 and steps.warmup(100, None, None) == 3

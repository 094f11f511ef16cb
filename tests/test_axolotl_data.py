"""The arithmetic axolotl's figures follow, each against an oracle of its own: NumPy's own
default_rng for the seeded shuffle datasets draws; hand counts from datasets' documented rules for
split slicing and train_test_split; a plain first-fit packer for axolotl's multipack bins; hand
arithmetic for axolotl's packed step count and its warmup (tests/test_replay_axolotl.py holds the
whole of it to the recorded runs)."""
from __future__ import annotations

import math
import random

import numpy as np
import pytest

from ftlint.trainers.axolotl import multipack
from ftlint.trainers.axolotl.steps import AxolotlSteps, PackedSteps
from ftlint.trainers.configs.hf_datasets import SplitError, held_out, permutation, read_instruction


@pytest.mark.parametrize("seed", [0, 1, 42, 2**32 - 1, 2**32, 2**70 + 12345])
def test_the_seeded_order_is_numpys_default_rng_permutation(seed: int) -> None:
    for n in (0, 1, 2, 7, 60, 1000, 70_000):
        assert permutation(n, seed) == np.random.default_rng(seed).permutation(n).tolist()


@pytest.mark.parametrize(("spec", "n", "want"), [
    ("train", 80, [(0, 80)]),
    ("train[:20%]", 80, [(0, 16)]),
    ("train[:25%]", 10, [(0, 2)]),  # 2.5 rounds half to even, as Python's round
    ("train[:35%]", 10, [(0, 4)]),  # 3.5 rounds to 4
    ("train[10:20]", 80, [(10, 20)]),
    ("train[-10%:]", 80, [(72, 80)]),
    ("train[:-5]", 12, [(0, 7)]),
    ("train[:50%]+train[-1:]", 10, [(0, 5), (9, 10)]),
    ("train[:20%](pct1_dropremainder)", 250, [(0, 40)]),  # 20 x trunc(250 / 100)
    ("train[5:500]", 80, [(5, 80)]),
])
def test_split_slicing_counts_as_datasets_does(spec: str, n: int, want: list[tuple[int, int]]) -> None:
    assert [(start, stop) for _, start, stop in read_instruction(spec, {"train": n})] == want


@pytest.mark.parametrize("spec", ["validation", "train[:20%](pct1_dropremainder)", "train[:120%]", "train[x:]"])
def test_a_split_datasets_refuses_is_refused(spec: str) -> None:
    with pytest.raises(SplitError):
        read_instruction(spec, {"train": 80})


@pytest.mark.parametrize(("n", "size", "want"), [(60, 0.05, 3), (103, 0.05, 6), (20, 0.05, 1), (54, 0.1, 6), (10, 3, 3),
                                                 (7, 0.5, 4)])
def test_train_test_split_holds_out_the_ceiling_of_the_share(n: int, size: float, want: int) -> None:
    assert held_out(n, size) == want == (size if isinstance(size, int) else math.ceil(size * n))


@pytest.mark.parametrize(("n", "size"), [(10, 10), (10, 0), (2, 0.9), (5, 1.0)])
def test_a_split_that_leaves_nothing_to_train_is_refused(n: int, size: float) -> None:
    with pytest.raises(SplitError):
        held_out(n, size)


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

"""ftlint/trainers/hf_datasets.py: the rows a split's slice reads (hand counts from datasets'
rules), which rows Hugging Face datasets' train_test_split holds out (numpy's
default_rng(seed).permutation, compared with numpy itself) and how its batched map groups rows
(contiguous shards, then batches), as a trainer that packs per call sees them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ftlint.trainers.hf_datasets import held_out as hf_held_out
from ftlint.trainers.hf_datasets import map_batches, permutation, read_instruction, train_test_split
from ftlint.trainers.hf_datasets import test_rows as held_out


@pytest.mark.parametrize("seed", [0, 1, 42, 1234, 2**32 - 1, 2**32 + 5, 2**64 + 7, 12345678901234567890])
@pytest.mark.parametrize("n", [0, 1, 2, 3, 151, 1000, 4099])
def test_the_permutation_is_numpys(seed: int, n: int) -> None:
    assert permutation(n, seed) == np.random.default_rng(seed).permutation(n).tolist()


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 3000), st.integers(0, 2**96))
def test_the_permutation_is_numpys_for_any_seed_and_size(n: int, seed: int) -> None:
    assert permutation(n, seed) == np.random.default_rng(seed).permutation(n).tolist()


def test_a_share_rounds_up_in_floating_point_and_a_count_is_itself() -> None:
    # datasets' train_test_split: n_test = ceil(test_size * n_samples) for a float
    assert held_out(0.1, 151) == 16  # 0.1 x 151 = 15.100000000000001
    assert held_out(0.2, 151) == 31 and held_out(0.3, 10) == 3
    assert held_out(0.07, 100) == 8  # 0.07 x 100 = 7.000000000000001 in floating point: one more than the share
    assert held_out(16, 151) == 16


def test_the_split_holds_out_the_permutations_first_rows_and_keeps_its_order() -> None:
    train, test = train_test_split(151, 0.1, 42)
    rows = np.random.default_rng(42).permutation(151).tolist()
    assert (test, train) == (rows[:16], rows[16:])


@pytest.mark.parametrize("size", [0.0, 1.0, 1.5, 0, 10, 11])
def test_the_split_refuses_what_datasets_refuses(size: float) -> None:
    with pytest.raises(ValueError):
        train_test_split(10, size, 42)


def test_map_shards_are_contiguous_with_the_first_ones_longer_then_batched() -> None:
    # Dataset.shard(num_shards, index, contiguous=True): div = n // shards, mod = n % shards,
    # shard i starts at div * i + min(i, mod) and holds div + (i < mod) rows
    items = list(range(10))
    assert [list(b) for b in map_batches(items, 1000, 4)] == [[0, 1, 2], [3, 4, 5], [6, 7], [8, 9]]
    assert [list(b) for b in map_batches(items, 2, 3)] == [[0, 1], [2, 3], [4, 5], [6], [7, 8], [9]]
    assert [list(b) for b in map_batches(items, 4, None)] == [[0, 1, 2, 3], [4, 5, 6, 7], [8, 9]]
    # more processes than rows: one row each (datasets lowers num_proc to the rows)
    assert [list(b) for b in map_batches(items[:3], 1000, 16)] == [[0], [1], [2]]
    assert list(map_batches([], 1000, 16)) == []


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
    with pytest.raises(ValueError):
        read_instruction(spec, {"train": 80})


@pytest.mark.parametrize(("n", "size", "want"), [(60, 0.05, 3), (103, 0.05, 6), (20, 0.05, 1), (54, 0.1, 6), (10, 3, 3),
                                                 (7, 0.5, 4)])
def test_train_test_split_holds_out_the_ceiling_of_the_share(n: int, size: float, want: int) -> None:
    assert hf_held_out(n, size) == want == (size if isinstance(size, int) else math.ceil(size * n))


@pytest.mark.parametrize(("n", "size"), [(10, 10), (10, 0), (2, 0.9), (5, 1.0)])
def test_a_split_that_leaves_nothing_to_train_is_refused(n: int, size: float) -> None:
    with pytest.raises(ValueError):
        hf_held_out(n, size)

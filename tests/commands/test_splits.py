"""Held-out files named as such are judged as validation by `check` (ftlint/splits.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run

RECORD = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}


@pytest.mark.parametrize(("name", "held_out"), [
    ("valid.jsonl", True), ("validation.jsonl.gz", True), ("val.json", True), ("eval.jsonl.zst", True), ("dev.ndjson", True),
    ("test.parquet", True), ("sft_val.jsonl", True), ("chat.eval.json", True), ("my-heldout.jsonl", True),
    ("validation-00000-of-00001.parquet", True), ("test-00003-of-00010.arrow", True), ("eval/part-0.jsonl", True),
    ("Valid.JSONL", True),
    ("train.jsonl", False), ("valid_system_first.jsonl", False), ("test_cases_train.jsonl", False),
    ("train-00000-of-00001.parquet", False), ("evaluation_notes/train.jsonl", False), ("/dev/stdin", False), ("-", False),
    ("interval.jsonl", False), ("devops.jsonl", False),
    # Hub shards of splits with more words (ultrachat_200k, ultrafeedback_binarized); datasets' words, digits between them
    ("data/test_sft-00000-of-00001.parquet", True), ("sft-val-00000-of-00002.parquet", True),
    ("test_prefs-00000-of-00001.parquet", True), ("data/train_sft-00000-of-00003.parquet", False),
    ("train_gen-00000-of-00001.parquet", False), ("sft_val2.jsonl", True), ("testing.jsonl", True),
])
def test_a_file_is_held_out_when_a_split_word_is_its_name_its_last_word_or_its_folder(tmp_path: Path, name: str,
                                                                                         held_out: bool) -> None:
    from ftlint.splits import held_out_by_name

    assert held_out_by_name(name) is held_out


def test_check_judges_a_validation_named_file_as_validation(tmp_path: Path) -> None:
    """On main, a 5-record valid.jsonl was a training file too small for OpenAI (FT401, exit 1)."""
    train = tmp_path / "train.jsonl"
    valid = tmp_path / "valid.jsonl"
    records = [{"messages": [RECORD["messages"][0], {"role": "assistant", "content": f"hello {i}"}]} for i in range(12)]
    train.write_text("".join(json.dumps(r) + "\n" for r in records))
    valid.write_text("".join(json.dumps(r) + "\n" for r in records[:2]) + "".join(json.dumps(RECORD) + "\n" for _ in range(3)))
    both = run("check", str(train), str(valid))
    assert both.exit_code == 0, both.stdout
    assert "FT401" not in both.stdout
    assert f"{valid}:1:1: FT404 validation record also in the training data at {train}:1" in both.stdout
    assert f"note: {valid}: judged as validation" in both.stdout
    alone = run("check", str(valid))
    assert alone.exit_code == 0 and "FT401" not in alone.stdout
    as_training = run("check", "--no-split-by-name", str(train), str(valid))
    assert as_training.exit_code == 1
    assert f"{valid}:0:0: FT401 5 training records; openai-chat needs at least 10" in as_training.stdout


def test_a_validation_file_also_given_as_a_training_path_is_judged_once_as_validation(tmp_path: Path) -> None:
    """A glob, or a pre-commit hook, passes the configured validation file among the training files."""
    train = tmp_path / "a.jsonl"
    held = tmp_path / "b.jsonl"
    train.write_text(json.dumps(RECORD) + "\n")
    held.write_text(json.dumps(RECORD) + "\n")
    out = run("check", str(train), str(held), "--validation", str(held), "--ignore", "FT401")
    assert out.exit_code == 0, out.stdout + out.stderr
    assert f"{held}:1:1: FT404 validation record also in the training data at {train}:1" in out.stdout
    assert "checked 2 files (openai-chat), 2 lines" in out.stdout

"""--dataset on the command line (ftlint/repository.py, ftlint/change.py, ftlint/scope.py): a change
judged as part of the repository's dataset, in temporary git repositories built here with real
git. Every figure asserted is derived here from the records written."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from drone import TRAIN, drone
from test_action import git, lines
from test_hosted import openai_tokens

from conftest import run_process


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A repository whose dataset is data/train.jsonl (143 records) and data/valid.jsonl (3 of its own)."""
    repo = tmp_path / "repo"
    (repo / "data").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "data" / "train.jsonl").write_text(lines(TRAIN), encoding="utf-8")
    (repo / "data" / "valid.jsonl").write_text(lines(drone(3, 2000)), encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "dataset")
    return repo


def findings(out: str) -> list[str]:
    return [line for line in out.splitlines() if ": FT" in line]


def test_the_minimum_is_the_training_sets_said_on_the_change(tmp_path: Path) -> None:
    """Two files of 3 and 4 records: judged alone each is FT401; as a dataset, one FT401 of 7, on
    the changed file."""
    repo = tmp_path / "repo"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "a.jsonl").write_text(lines(drone(3)), encoding="utf-8")
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "a")
    (repo / "b.jsonl").write_text(lines(drone(4, 3)), encoding="utf-8")
    git(repo, "add", "b.jsonl")
    done = run_process("check", "--dataset", "--", "b.jsonl", cwd=repo)
    assert done.exit_code == 1
    assert findings(done.stdout) == ["b.jsonl:0:0: FT401 7 training records in the dataset's 2 training files together; "
                                     "openai-chat needs at least 10"]
    alone = run_process("check", "--", "b.jsonl", cwd=repo)
    assert findings(alone.stdout) == ["b.jsonl:0:0: FT401 4 training records; openai-chat needs at least 10"]
    (repo / "c.jsonl").write_text(lines(drone(3, 7)), encoding="utf-8")
    git(repo, "add", "c.jsonl")
    assert run_process("check", "--dataset", "--", "c.jsonl", cwd=repo).exit_code == 0  # 10 together


def test_only_the_changes_findings_are_shown(repo: Path) -> None:
    """A duplicate between two committed records was there before: not said. A bad committed line
    is not said either; the staged file's are."""
    with open(repo / "data" / "train.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(TRAIN[0]) + "\n" + '{"messages": []}\n')
    git(repo, "commit", "-q", "-am", "old problems")
    (repo / "data" / "new.jsonl").write_text(lines(drone(2, 5000)) + '{"messages": [\n', encoding="utf-8")
    git(repo, "add", "data/new.jsonl")
    done = run_process("check", "--dataset", "--", "data/new.jsonl", cwd=repo)
    assert [f.split(":")[:2] for f in findings(done.stdout)] == [["data/new.jsonl", "3"]]  # the new file's broken line only
    assert "checked 1 file (openai-chat), 3 lines: 2 valid, 1 with errors (0 blank)" in done.stdout
    everything = run_process("check", "--dataset", cwd=repo)  # no PATH: every file is the change
    assert "data/train.jsonl:144:1: FT402 exact duplicate of data/train.jsonl:1" in everything.stdout
    assert "data/train.jsonl:145:" in everything.stdout


def test_dataset_paths_name_the_dataset_and_leave_the_rest_unchecked(repo: Path) -> None:
    (repo / "fixtures").mkdir()
    (repo / "fixtures" / "bad.jsonl").write_text('{"messages": []}\n', encoding="utf-8")
    (repo / "ftlint.toml").write_text('[check]\ndataset-paths = ["data/**"]\n', encoding="utf-8")
    git(repo, "add", ".")
    done = run_process("check", "--dataset", "--", "fixtures/bad.jsonl", cwd=repo)
    assert done.exit_code == 0 and findings(done.stdout) == []
    assert "note: fixtures/bad.jsonl: not in the dataset (dataset-paths): not checked" in done.stdout
    assert "judged with the repository's dataset: 1 training file (143 records), 1 validation file (3 records)" in done.stdout


def test_estimate_and_diff_of_the_dataset(repo: Path) -> None:
    """estimate --dataset is the training set's run; diff --dataset the change to each set, apart."""
    extra = drone(4, 6000)
    (repo / "data" / "shard.jsonl").write_text(lines(extra), encoding="utf-8")
    with open(repo / "data" / "valid.jsonl", "a", encoding="utf-8") as out:
        out.write(json.dumps(TRAIN[9]) + "\n")  # a fourth validation record, from the training data
    untracked = json.loads(run_process("estimate", "--dataset", "-o", "json", cwd=repo).stdout)
    assert untracked["records"] == 143 and untracked["paths"] == ["data/train.jsonl"]  # the dataset is what git tracks
    git(repo, "add", "data/shard.jsonl")  # staged: part of it; the working tree's valid.jsonl counts as it is
    estimate = json.loads(run_process("estimate", "--dataset", "-o", "json", cwd=repo).stdout)
    tokens = sum(openai_tokens(r)[0] for r in TRAIN + extra)
    assert (estimate["records"], estimate["tokens"], estimate["epochs"]) == (147, tokens, 3)
    assert estimate["paths"] == ["data/shard.jsonl", "data/train.jsonl"]
    assert estimate["validation"]["records"] == 4 and estimate["validation"]["records_in_training"] == 1
    diff = run_process("diff", "--dataset", "--rev", "HEAD", "-o", "json", cwd=repo)
    report = json.loads(diff.stdout)
    assert report["training"] == {"files": {"base": 1, "head": 2, "added": 1, "removed": 0, "changed": 0},
                                  "records": {"base": 143, "head": 147, "added": 4, "removed": 0, "changed": 0}}
    assert report["validation"]["files"] == {"base": 1, "head": 1, "added": 0, "removed": 0, "changed": 1}
    assert report["validation"]["records"] == {"base": 3, "head": 4, "added": 1, "removed": 0, "changed": 0}
    assert report["validation"]["records_in_training"] == {"base": 0, "head": 1}
    assert report["changed"] == ["data/shard.jsonl", "data/valid.jsonl"]
    assert report["estimate"]["head"]["tokens"] == tokens
    assert report["estimate"]["base"]["tokens"] == sum(openai_tokens(r)[0] for r in TRAIN)
    assert [(f["path"], f["code"]) for f in report["new_findings"]] == [("data/valid.jsonl", "FT404")]
    assert diff.exit_code == 0  # a warning is new, no error


def test_the_listing_is_gits_and_hostile_names_are_files(repo: Path) -> None:
    """A committed file named like a flag is a file of the dataset; a committed symlink out of the
    repository is not part of it and never read; an untracked file is not part of the dataset."""
    outside = repo.parent / "outside.jsonl"
    outside.write_text(json.dumps({"OUTSIDE_MARKER": 1}) + "\n", encoding="utf-8")
    (repo / "data" / "--output-file=x.jsonl").write_text(lines(drone(2, 7000)), encoding="utf-8")
    (repo / "data" / "link.jsonl").symlink_to(outside)
    git(repo, "add", ".")
    git(repo, "commit", "-q", "-m", "hostile")
    (repo / "data" / "untracked.jsonl").write_text('{"messages": []}\n', encoding="utf-8")
    done = run_process("check", "--dataset", cwd=repo)
    assert "OUTSIDE_MARKER" not in done.stdout + done.stderr and "link.jsonl" not in done.stdout
    assert "untracked.jsonl" not in done.stdout and not (repo / "x.jsonl").exists()
    assert "2 training files (145 records)" in done.stdout and done.exit_code == 0


def test_outside_a_repository_it_is_one_line(tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_text(lines(drone(12)), encoding="utf-8")
    env_free = run_process("check", "--dataset", "--", "a.jsonl", cwd=tmp_path)
    assert env_free.exit_code == 2 and env_free.stdout == ""
    assert env_free.stderr == "ftlint: error: --dataset: not in a git repository (the dataset is the data files git tracks; " \
                              "--no-dataset judges the files given)\n"


def test_under_pre_commit_check_judges_the_dataset_by_default(repo: Path) -> None:
    """pre-commit sets PRE_COMMIT=1 for its hooks: an entry of the user's own keeps --dataset."""
    import subprocess
    import sys

    (repo / "data" / "shard.jsonl").write_text(lines(drone(5, 8000)), encoding="utf-8")
    git(repo, "add", ".")
    argv = [sys.executable, "-m", "ftlint", "check", "--", "data/shard.jsonl"]
    under = subprocess.run(argv, cwd=repo, capture_output=True, text=True, env={**os.environ, "PRE_COMMIT": "1"}, timeout=120)
    plain = subprocess.run(argv, cwd=repo, capture_output=True, text=True,
                           env={k: v for k, v in os.environ.items() if k != "PRE_COMMIT"}, timeout=120)
    assert under.returncode == 0 and "judged with the repository's dataset" in under.stdout
    assert plain.returncode == 1 and "FT401 5 training records; openai-chat needs at least 10" in plain.stdout

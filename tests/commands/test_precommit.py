"""The pre-commit hook, with the real pre-commit, against a temporary git repository."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import ROOT

PRE_COMMIT = [sys.executable, "-m", "pre_commit"]
GOOD = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})
BAD = json.dumps({"messages": [{"role": "user", "content": "hi"}]})

# one worker builds the hook's environment once for the module (xdist would split the module otherwise)
pytestmark = [pytest.mark.skipif(shutil.which("git") is None, reason="pre-commit needs git"), pytest.mark.xdist_group("pre-commit"), pytest.mark.slow]


def git(repo: Path, *args: str) -> subprocess.CompletedProcess:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.com",
           "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.com"}
    return subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, env=env, timeout=600)


@pytest.fixture(scope="module")
def hook_home(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    """One pre-commit cache for the module: the hook's environment (a virtualenv with ftlint
    installed from the snapshot below) is built once, for every test (it costs ~15 s)."""
    return {**os.environ, "PRE_COMMIT_HOME": str(tmp_path_factory.mktemp("pre-commit-home"))}


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """This checkout as a hook repository pre-commit can clone: (its path, its commit)."""
    dest = tmp_path_factory.mktemp("ftlint-snapshot")
    return dest, _snapshot_of_this_checkout(dest)


def configured(repo: Path, hook: tuple[Path, str], *keys: str) -> Path:
    """The dataset repository's .pre-commit-config.yaml, naming the hook at the snapshot (with
    `keys`, lines of the hook's own configuration: `entry: ...`, `args: [...]`)."""
    extra = "".join(f"        {key}\n" for key in keys)
    (repo / ".pre-commit-config.yaml").write_text(f"repos:\n  - repo: {hook[0]}\n    rev: {hook[1]}\n    hooks:\n      - id: ftlint\n{extra}")
    return repo


def run_hook(repo: Path, env: dict[str, str], *files: str) -> subprocess.CompletedProcess:
    return subprocess.run([*PRE_COMMIT, "run", "ftlint", "--files", *files, "--verbose"],
                          cwd=repo, capture_output=True, text=True, env=env, timeout=900)


@pytest.fixture
def dataset_repo(tmp_path: Path) -> Path:
    repo = tmp_path / "datasets"
    repo.mkdir()
    git(repo, "init", "-q")
    (repo / "good.jsonl").write_text("\n".join([GOOD] * 10) + "\n")
    (repo / "bad.jsonl").write_text(GOOD + "\n" + BAD + "\n")
    (repo / "notes.txt").write_text("not data\n")
    return repo


def test_bad_file_fails_the_hook_with_its_diagnostics(dataset_repo: Path, hook_home: dict[str, str],
                                                      hook_repo: tuple[Path, str]) -> None:
    configured(dataset_repo, hook_repo)
    git(dataset_repo, "add", ".")
    bad = run_hook(dataset_repo, hook_home, "bad.jsonl")
    assert bad.returncode == 1, bad.stdout + bad.stderr
    assert "bad.jsonl:2:1: FT201 no assistant message" in bad.stdout
    good = run_hook(dataset_repo, hook_home, "good.jsonl", "notes.txt")
    assert good.returncode == 0, good.stdout + good.stderr
    assert "Passed" in good.stdout


def _snapshot_of_this_checkout(dest: Path) -> str:
    """A one-commit git repo holding this checkout's working tree (tracked and untracked, not
    ignored files), so the hook under test is the code under test, committed or not."""
    listed = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                            cwd=ROOT, capture_output=True, check=True).stdout.decode().split("\0")
    for name in filter(None, listed):
        source = ROOT / name
        if source.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, dest / name)
    git(dest, "init", "-q")
    git(dest, "add", "-A")
    git(dest, "commit", "-qm", "snapshot")
    return git(dest, "rev-parse", "HEAD").stdout.strip()


def test_installed_hook_blocks_a_commit(dataset_repo: Path, hook_home: dict[str, str], hook_repo: tuple[Path, str]) -> None:
    configured(dataset_repo, hook_repo)
    install = subprocess.run([*PRE_COMMIT, "install"], cwd=dataset_repo, capture_output=True, text=True, env=hook_home)
    assert install.returncode == 0, install.stderr
    git(dataset_repo, "add", ".pre-commit-config.yaml", "good.jsonl")
    ok = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "good data"],
                        cwd=dataset_repo, capture_output=True, text=True, env=hook_home, timeout=900)
    assert ok.returncode == 0, ok.stdout + ok.stderr
    git(dataset_repo, "add", "bad.jsonl")
    blocked = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "bad data"],
                             cwd=dataset_repo, capture_output=True, text=True, env=hook_home, timeout=900)
    assert blocked.returncode != 0
    assert "FT201" in blocked.stdout + blocked.stderr
    assert "bad data" not in git(dataset_repo, "log", "--oneline").stdout


def test_the_hook_reads_every_data_file_type_and_judges_held_out_files_as_validation(
        tmp_path: Path, hook_home: dict[str, str], hook_repo: tuple[Path, str]) -> None:
    """What a dataset repository holds: a JSON array, Parquet, zstd JSONL beside the training file;
    a validation file named as one, and one a configuration names; configuration JSON that is not
    data. The hook reads every data file (on main it skipped .json, .parquet and .zst), judges the
    held-out ones as validation (on main: FT401, too few training records, on a 5-record
    valid.jsonl), and leaves the configuration files alone."""
    import polars as pl
    import zstandard

    repo = tmp_path / "datasets"
    (repo / "data").mkdir(parents=True)
    git(repo, "init", "-q")
    good = [json.loads(GOOD.replace("hello", f"hello {i}")) for i in range(12)]
    (repo / "data" / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in good))
    (repo / "data" / "valid.jsonl").write_text("".join(json.dumps(r) + "\n" for r in good[:4]) + GOOD + "\n")
    (repo / "data" / "holdout_set.jsonl").write_text(GOOD + "\n")
    (repo / "ftlint.toml").write_text('[check]\nvalidation = "data/holdout_set.jsonl"\n')
    (repo / "data" / "extra.json").write_text(json.dumps([good[0], json.loads(BAD)]))
    pl.DataFrame({"messages": [r["messages"] for r in good]}).write_parquet(repo / "data" / "more.parquet")
    (repo / "data" / "web.jsonl.zst").write_bytes(zstandard.ZstdCompressor().compress((BAD + "\n").encode()))
    (repo / "data" / "dataset_info.json").write_text(json.dumps({"chat": {"file_name": "train.jsonl"}}))
    (repo / "package.json").write_text('{"name": "tools"}')
    configured(repo, hook_repo)
    git(repo, "add", ".")
    ran = subprocess.run([*PRE_COMMIT, "run", "ftlint", "--all-files", "--verbose"], cwd=repo, capture_output=True, text=True,
                         env=hook_home, timeout=900)
    out = ran.stdout
    assert ran.returncode == 1, out + ran.stderr
    assert "data/extra.json:1:1: FT201 no assistant message" in out and "(element 2, $.messages)" in out  # a one-line array
    assert "data/web.jsonl.zst:1:1: FT201 no assistant message" in out
    assert "checked 6 files" in out  # train, extra, more.parquet, web.jsonl.zst; valid and holdout_set as validation
    assert "valid.jsonl:0:0: FT401" not in out and "holdout_set.jsonl:0:0: FT401" not in out  # no held-out file judged as a
    assert "FT401" not in out  # (too small) training file; and the dataset's 25 training records are enough (--dataset)
    assert "data/valid.jsonl: judged as validation" in out
    assert "data/valid.jsonl:4:1: FT404 validation record also in the training data at data/" in out
    assert "FT402 exact duplicate of data/holdout_set.jsonl:1" in out  # the configured validation file: read as one (beside
    assert "note: data/holdout_set.jsonl" not in out  # valid.jsonl), as --validation is, not by its name
    assert "dataset_info.json" not in out and "package.json" not in out


def test_files_named_like_every_flag_are_files_to_the_hook(tmp_path: Path, hook_home: dict[str, str],
                                                          hook_repo: tuple[Path, str]) -> None:
    """The entry ends with `--`: on main `--output-file=/abs/x.jsonl` wrote the report outside, `-h.jsonl`
    printed the help and passed, and `--no-such-flag.jsonl` stopped the hook with a usage error."""
    from untrusted import flag_names

    repo, outside = tmp_path / "datasets", tmp_path / "outside"
    repo.mkdir()
    outside.mkdir()
    git(repo, "init", "-q")
    names = flag_names(outside)
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(BAD + "\n")
    configured(repo, hook_repo)
    git(repo, "add", ".")
    ran = subprocess.run([*PRE_COMMIT, "run", "ftlint", "--all-files", "--verbose"], cwd=repo, capture_output=True, text=True,
                         env=hook_home, timeout=900)
    assert list(outside.iterdir()) == []
    assert ran.returncode == 1, ran.stdout[-3000:]
    assert [n for n in names if f"{n}:1:1: FT201 no assistant message" not in ran.stdout] == []


def test_a_file_named_output_file_is_checked_not_written_to(dataset_repo: Path, hook_home: dict[str, str],
                                                           hook_repo: tuple[Path, str]) -> None:
    """On main the hook wrote its report to the absolute path the name holds, and passed."""
    outside = dataset_repo.parent / "outside"
    outside.mkdir()
    name = f"--output-file={outside / 'x.jsonl'}"
    (dataset_repo / name).parent.mkdir(parents=True)
    (dataset_repo / name).write_text(BAD + "\n")
    configured(dataset_repo, hook_repo)
    git(dataset_repo, "add", ".")
    ran = subprocess.run([*PRE_COMMIT, "run", "ftlint", "--all-files", "--verbose"], cwd=dataset_repo, capture_output=True,
                         text=True, env=hook_home, timeout=900)  # (pre-commit's own --files would take the name as its flag)
    assert list(outside.iterdir()) == []
    assert ran.returncode == 1 and f"{name}:1:1: FT201 no assistant message" in ran.stdout


def test_flags_given_in_the_entry_apply_and_flags_in_args_fail_loudly(dataset_repo: Path, hook_home: dict[str, str],
                                                                      hook_repo: tuple[Path, str]) -> None:
    """pre-commit puts `args:` after the entry's `--`: they are file names there, and the hook says so."""
    configured(dataset_repo, hook_repo, "entry: ftlint check --ignore FT201,FT401 --")
    git(dataset_repo, "add", ".")
    entry = run_hook(dataset_repo, hook_home, "bad.jsonl")
    assert entry.returncode == 0 and "FT201" not in entry.stdout, entry.stdout
    configured(dataset_repo, hook_repo, "args: [--ignore, FT201]")
    args = run_hook(dataset_repo, hook_home, "bad.jsonl")
    assert args.returncode == 1 and "- exit code: 2" in args.stdout  # pre-commit fails; ftlint said 2
    assert "ftlint: error: --ignore: no such file (after `--` every argument is a path: give flags before it)" in args.stdout


def test_a_committed_symlink_out_of_the_repository_is_not_read_by_the_hook(dataset_repo: Path, hook_home: dict[str, str],
                                                                            hook_repo: tuple[Path, str]) -> None:
    outside = dataset_repo.parent / "outside.jsonl"
    outside.write_text(json.dumps({"OUTSIDE_MARKER_7f3a": 1}) + "\n")
    (dataset_repo / "leak.jsonl").symlink_to(outside)
    (dataset_repo / "zero.jsonl").symlink_to("/dev/zero")
    configured(dataset_repo, hook_repo)
    git(dataset_repo, "add", ".")
    ran = subprocess.run([*PRE_COMMIT, "run", "ftlint", "--all-files", "--verbose"], cwd=dataset_repo, capture_output=True,
                         text=True, env=hook_home, timeout=900)
    assert "OUTSIDE_MARKER_7f3a" not in ran.stdout + ran.stderr and "leak.jsonl" not in ran.stdout
    assert "bad.jsonl:2:1: FT201" in ran.stdout and ran.returncode == 1


def test_the_hook_judges_the_staged_files_with_the_repositorys_dataset(tmp_path: Path, hook_home: dict[str, str],
                                                                      hook_repo: tuple[Path, str]) -> None:
    """A 143-record dataset committed: a valid 5-record shard staged passes (on main: FT401, 5
    training records, and the commit was refused); a validation file staged that repeats three
    training records is FT404 on each (on main: nothing, the training file was not staged); a shard
    repeating a committed validation record is FT404 on the shard's record."""
    from drone import SHARD, TRAIN, drone
    from test_action import lines

    repo = tmp_path / "datasets"
    (repo / "data").mkdir(parents=True)
    git(repo, "init", "-q")
    (repo / "data" / "train.jsonl").write_text(lines(TRAIN))
    configured(repo, hook_repo)
    git(repo, "add", ".")
    git(repo, "commit", "-qm", "the dataset")

    def staged(name: str, records: list[dict]) -> subprocess.CompletedProcess:
        (repo / name).write_text(lines(records))
        git(repo, "add", name)
        return subprocess.run([*PRE_COMMIT, "run", "ftlint", "--verbose"], cwd=repo, capture_output=True, text=True,
                              env=hook_home, timeout=900)

    shard = staged("data/shard.jsonl", SHARD)
    assert shard.returncode == 0 and "FT401" not in shard.stdout, shard.stdout
    assert "checked 1 file (openai-chat), 5 lines: 5 valid" in shard.stdout
    assert "judged with the repository's dataset: 2 training files (148 records)" in shard.stdout
    git(repo, "commit", "-qm", "shard")
    valid = staged("data/valid.jsonl", [TRAIN[7], TRAIN[20], TRAIN[142]])
    leaks = [line for line in valid.stdout.splitlines() if " FT404 " in line]
    assert leaks == [f"data/valid.jsonl:{n}:1: FT404 validation record also in the training data at data/train.jsonl:{t}"
                     for n, t in ((1, 8), (2, 21), (3, 143))], valid.stdout
    assert valid.returncode == 0 and "FT401" not in valid.stdout  # warnings: the commit goes on
    (repo / "data" / "valid.jsonl").write_text(lines(drone(3, 2000)))
    git(repo, "add", "data/valid.jsonl")
    git(repo, "commit", "-qm", "valid")
    later = staged("data/more.jsonl", [drone(1, 2001)[0], *drone(11, 3000)])
    assert "data/more.jsonl:1:1: FT404 training record also in the validation data at data/valid.jsonl:2" in later.stdout
    assert "data/valid.jsonl" not in later.stdout.replace("at data/valid.jsonl:2", "")  # the unchanged file is not reported on

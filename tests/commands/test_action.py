"""The GitHub Action (action.yml, ftlint/action.py) run as the runner runs it: a real git clone
whose pull-request branch changes data files, the runner's environment (GITHUB_BASE_REF,
GITHUB_STEP_SUMMARY, GITHUB_OUTPUT, the INPUT_* variables action.yml sets), `python -m
ftlint.action` in the checkout. Every figure asserted is derived here from the data written."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from drone import SHARD, TRAIN, drone
from test_hosted import auto_epochs, openai_tokens, usd

from conftest import ROOT
from ftlint.action import FIGURES, INPUTS, glob_match
from ftlint.repository import DATA_FILES, NOT_DATA

GPT_4O_MINI = 3.00  # USD per 1M training tokens (ftlint/catalog/openai.toml)


def git(cwd: Path, *args: str) -> str:
    done = subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.com", "-c", "init.defaultBranch=main",
                           *args], cwd=cwd, capture_output=True, text=True, check=True)
    return done.stdout


def record(i: int) -> dict:
    return {"messages": [{"role": "user", "content": f"What is {i} plus {i}?"},
                         {"role": "assistant", "content": f"{i} plus {i} is {2 * i}."}]}


def lines(records: list[dict]) -> str:
    return "".join(json.dumps(r) + "\n" for r in records)


@pytest.fixture
def clone(tmp_path: Path) -> Path:
    """origin: main with 10 records in data/train.jsonl; the clone's branch `pr` adds records,
    a validation file, a notes file and a config JSON (neither is data)."""
    origin, work = tmp_path / "origin", tmp_path / "work"
    (origin / "data").mkdir(parents=True)
    git(origin, "init", "-q")
    (origin / "data" / "train.jsonl").write_text(lines([record(i) for i in range(10)]), encoding="utf-8")
    (origin / "notes.md").write_text("data\n", encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    (work / "notes.md").write_text("more data\n", encoding="utf-8")
    (work / "data" / "config.json").write_text('{"lr": 1}\n', encoding="utf-8")
    (work / "data" / "valid.jsonl").write_text(lines([record(100)]), encoding="utf-8")
    return work


def commit(work: Path, train: str) -> None:
    (work / "data" / "train.jsonl").write_text(train, encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "pr")


def run_action(work: Path, script: str | None = None, **inputs: str) -> tuple[subprocess.CompletedProcess[str], str, dict[str, str]]:
    """The Action in `work` as the runner runs it (`script`: Python that runs ftlint.action's main instead)."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    summary, output = work.parent / "summary.md", work.parent / "output.txt"
    summary.unlink(missing_ok=True)
    output.unlink(missing_ok=True)
    env.update({"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
                "INPUT_FAIL_ON": "error", **{f"INPUT_{k.upper().replace('-', '_')}": v for k, v in inputs.items()}})
    argv = [sys.executable, "-c", script] if script else [sys.executable, "-m", "ftlint.action"]
    done = subprocess.run(argv, cwd=work, env=env, capture_output=True, text=True, timeout=300)
    written = output.read_text(encoding="utf-8") if output.exists() else ""
    outputs = dict(line.split("=", 1) for line in written.splitlines())
    return done, summary.read_text(encoding="utf-8"), outputs


def test_a_clean_pull_request_passes_with_its_diff_estimate_and_outputs(clone: Path) -> None:
    train = [record(i) for i in range(12)]
    commit(clone, lines(train))
    done, summary, outputs = run_action(clone, model="gpt-4o-mini")
    assert done.returncode == 0, done.stdout + done.stderr
    # OpenAI's auto epochs for 12 examples: min(25, floor(100 / 12)) = 8; validation is not billed
    tokens = sum(openai_tokens(r)[0] for r in train)
    cost = usd(tokens * 8, GPT_4O_MINI)
    assert outputs == {"errors": "0", "warnings": "1", "cost": f"{cost:.4f}", "files": "2", "records": "12",
                       "tokens": str(tokens * 8), "epochs": "8", "steps": "96"}
    # the one warning: the model's last training date is 36 days after FTLINT_TODAY (tests/conftest.py)
    annotations = [line for line in done.stdout.splitlines() if line.startswith("::")]
    # on no file: the action's model input chose the model, not a data file (ftlint/origin.py)
    assert len(annotations) == 1 and annotations[0].startswith("::warning title=ftlint FT513::")
    assert "### ftlint check ✅ 0 errors, 1 warning" in summary
    assert "### ftlint diff" in summary and "data/valid.jsonl" in summary
    shown = f"${cost:.4f}" if cost < 0.01 else f"${cost:,.2f}"  # dollars under a cent keep 4 decimals
    assert f"{shown} for {tokens * 8:,} tokens" in summary
    # the cost by epoch: one eighth more at each epoch's end, 12 steps an epoch (batch 1)
    bars = ", ".join(f"{round(cost * k / 8, 4):g}" for k in range(1, 9))
    assert f'title "cost by epoch: {shown} for 96 steps"' in summary and f"  bar [{bars}]" in summary
    assert "notes.md" not in summary and "config.json" not in summary  # not data
    # every record is 16 to 31 tokens long (the OpenAI convention): one bar of 12
    assert all(16 <= openai_tokens(r)[0] < 32 for r in train)
    assert '  x-axis ["16-31"]\n  y-axis "records" 0 --> 12\n  bar [12]' in summary


def test_a_bad_line_is_annotated_on_its_line_and_fails_the_step(clone: Path) -> None:
    commit(clone, lines([record(i) for i in range(12)]) + '{"messages": [\n')
    done, summary, outputs = run_action(clone, model="gpt-4o-mini")
    assert done.returncode == 1
    errors = [line for line in done.stdout.splitlines() if line.startswith("::error ")]
    assert len(errors) == 1 and errors[0].startswith("::error file=data/train.jsonl,line=13,")
    assert (outputs["errors"], outputs["files"]) == ("1", "2")
    assert "### ftlint check ❌ 1 error" in summary


def test_a_gate_fails_the_step_and_only_matching_paths_are_checked(clone: Path) -> None:
    commit(clone, lines([record(i) for i in range(12)]))
    done, summary, outputs = run_action(clone, model="gpt-4o-mini", paths="data/train*.jsonl", max_tokens="100")
    assert done.returncode == 1
    assert outputs["files"] == "1" and "data/valid.jsonl" not in summary
    assert "FT702" in summary


def test_no_changed_data_file_is_said_and_passes(clone: Path) -> None:
    git(clone, "checkout", "-q", "main")
    git(clone, "checkout", "-q", "-b", "docs")
    (clone / "notes.md").write_text("docs only\n", encoding="utf-8")
    git(clone, "commit", "-q", "-am", "docs")
    done, summary, outputs = run_action(clone)
    assert done.returncode == 0 and outputs["files"] == "0"
    assert "No data file changed against `origin/main`." in summary


def test_a_base_that_does_not_exist_is_one_line_and_exit_2(clone: Path) -> None:
    done, summary, _ = run_action(clone, base="origin/nope")
    assert done.returncode == 2 and "> ftlint: `base 'origin/nope' is not a commit in this checkout" in summary
    assert done.stdout.startswith("::error title=ftlint::base 'origin/nope'") and len(done.stdout.splitlines()) == 1


def test_action_yml_passes_every_input_to_the_script() -> None:
    action = yaml.safe_load((ROOT / "action.yml").read_text(encoding="utf-8"))
    assert action["runs"]["using"] == "composite"
    step = next(s for s in action["runs"]["steps"] if s.get("id") == "ftlint")
    assert step["run"] == "python -m ftlint.action"
    passed = {name: value for name, value in step["env"].items()}
    script_inputs = {name for name in action["inputs"] if name not in ("python-version", "ftlint-source")}
    assert passed == {f"INPUT_{n.upper().replace('-', '_')}": f"${{{{ inputs.{n} }}}}" for n in script_inputs}
    assert set(passed) == set(INPUTS)
    install = " ".join(str(s.get("env", "")) + s.get("run", "") for s in action["runs"]["steps"])
    assert "inputs.ftlint-source" in install and "inputs.python-version" in str(action["runs"]["steps"][0])
    for name in action["outputs"]:
        assert action["outputs"][name]["value"] == f"${{{{ steps.ftlint.outputs.{name} }}}}"
    assert set(action["outputs"]) == {"errors", "warnings", "cost", "files", *FIGURES}  # every output the script writes


def test_the_action_reads_the_files_the_pre_commit_hook_reads() -> None:
    hook = yaml.safe_load((ROOT / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))[0]
    assert (DATA_FILES.pattern, NOT_DATA.pattern) == (hook["files"], hook["exclude"])


@pytest.mark.parametrize(("path", "pattern", "matches"), [
    ("data/train.jsonl", "data/*.jsonl", True), ("data/sub/train.jsonl", "data/*.jsonl", False),
    ("data/sub/train.jsonl", "data/**/*.jsonl", True), ("data/train.jsonl", "data/**/*.jsonl", True),
    ("train.jsonl", "**", True), ("data/a.jsonl", "data/?.jsonl", True), ("data/ab.jsonl", "data/?.jsonl", False)])
def test_globs_keep_star_within_a_folder(path: str, pattern: str, matches: bool) -> None:
    assert glob_match(path, pattern) is matches


def test_the_summary_in_docs_ci_is_the_actions_own(tmp_path: Path) -> None:
    """docs/ci.md's excerpt: a 5-record shard (the last of the cookbook's drone file) added to a
    dataset of its first 98 records."""
    origin, work = tmp_path / "origin", tmp_path / "work"
    (origin / "data").mkdir(parents=True)
    drone = (ROOT / "fixtures" / "good" / "drone_training.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)
    git(origin, "init", "-q")
    (origin / "data" / "train.jsonl").write_text("".join(drone[:98]), encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    (work / "data" / "shard.jsonl").write_text("".join(drone[98:]), encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", "pr")
    done, summary, outputs = run_action(work, model="gpt-4o-mini", max_cost="5")
    tokens = sum(openai_tokens(json.loads(line))[0] for line in drone)
    cost = usd(tokens * 3, GPT_4O_MINI)  # the dataset's 103 examples, OpenAI's auto epochs: 3
    assert done.returncode == 0 and outputs == {"errors": "0", "warnings": "1", "cost": f"{cost:.4f}", "files": "1",
                                                "records": "103", "tokens": str(tokens * 3), "epochs": "3", "steps": "309"}
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    assert f"`cost={cost:.4f}`" in docs and f"`tokens={tokens * 3}`" in docs
    excerpt = docs.split("````markdown\n", 1)[1].split("````", 1)[0]
    assert summary.endswith(excerpt)


# The dataset is the unit of judgement (issue 37): a 143-record dataset of the cookbook's drone
# data (tests/drone.py), and the changes to it a pull request makes.

@pytest.fixture
def dataset_clone(tmp_path: Path) -> Path:
    """origin: main with the 143 records in data/train.jsonl; the clone on branch `pr`."""
    origin, work = tmp_path / "origin", tmp_path / "work"
    (origin / "data").mkdir(parents=True)
    git(origin, "init", "-q")
    (origin / "data" / "train.jsonl").write_text(lines(TRAIN), encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    return work


def add(work: Path, name: str, records: list[dict]) -> None:
    (work / name).write_text(lines(records), encoding="utf-8")
    git(work, "add", ".")
    git(work, "commit", "-q", "-m", name)


def tokens_of(records: list[dict]) -> int:
    return sum(openai_tokens(r)[0] for r in records)


def test_a_valid_shard_passes_and_the_outputs_are_the_datasets(dataset_clone: Path) -> None:
    """On main the 5-record shard was FT401 (5 training records; openai-chat needs at least 10): the
    step failed; and its outputs were the shard's (20 epochs of 5 records)."""
    add(dataset_clone, "data/shard.jsonl", SHARD)
    done, summary, outputs = run_action(dataset_clone, model="gpt-4o-mini")
    assert done.returncode == 0, done.stdout + summary
    assert "FT401" not in done.stdout + summary
    dataset = TRAIN + SHARD  # 148 records: OpenAI's auto epochs 3, batch 1
    tokens = tokens_of(dataset) * auto_epochs(148)
    cost = usd(tokens, GPT_4O_MINI)
    assert outputs == {"errors": "0", "warnings": "1", "cost": f"{cost:.4f}", "files": "1", "records": "148",
                       "tokens": str(tokens), "epochs": "3", "steps": str(148 * 3)}
    before = tokens_of(TRAIN) * 3
    assert "### ftlint diff ✅ the dataset at `origin/main` -> the pull request" in summary
    assert "| records | 143 -> 148 (5 added, 0 removed, 0 changed) |" in summary
    assert f"| tokens per epoch | {tokens_of(TRAIN):,} -> {tokens_of(dataset):,} (+{tokens_of(SHARD):,}) |" in summary
    assert f"| tokens processed | {before:,} -> {tokens:,} (+{tokens - before:,}) |" in summary
    assert "| total steps | 429 -> 444 (+15) |" in summary and "| epochs | 3 -> 3 |" in summary
    assert f"`gpt-4o-mini-2024-07-18`: ${cost:,.2f} for {tokens:,} tokens" in summary
    assert "Dataset: `data/train.jsonl`, `data/shard.jsonl`" in summary


def test_max_cost_fails_on_the_datasets_cost_after_the_change(dataset_clone: Path) -> None:
    """On main the gate judged the shard alone ($0.05 for 20 epochs of 5 records): under a limit
    the run is over, the step passed."""
    add(dataset_clone, "data/shard.jsonl", SHARD)
    cost = usd(tokens_of(TRAIN + SHARD) * 3, GPT_4O_MINI)
    shard_alone = usd(tokens_of(SHARD) * auto_epochs(5), GPT_4O_MINI)
    given = f"{cost - 0.005:.2f}"
    assert shard_alone < float(given) < cost
    done, summary, outputs = run_action(dataset_clone, model="gpt-4o-mini", max_cost=given)
    assert done.returncode == 1 and outputs["cost"] == f"{cost:.4f}"
    assert f"| max-cost | ${given} | ${cost:,.4f} | ❌ the run costs ${cost:,.4f}, over the limit |" in summary
    assert f"| FT701 | error | the run costs ${cost:,.2f}, over the --max-cost of ${float(given):,.2f} |" in summary
    assert f"::error title=ftlint max-cost::the run costs ${cost:,.4f}, over the limit" in done.stdout


def test_a_validation_file_repeating_training_records_is_ft404_and_no_training(dataset_clone: Path) -> None:
    """On main the new valid.jsonl passed without FT404 (the training file had not changed), and its
    diff was a training file's: 0 -> 3 records, "epochs 3 -> 25", a cost."""
    add(dataset_clone, "data/valid.jsonl", [TRAIN[7], TRAIN[20], TRAIN[142]])
    done, summary, outputs = run_action(dataset_clone, model="gpt-4o-mini")
    warnings = [a for a in done.stdout.splitlines() if a.startswith("::warning file=data/valid.jsonl")]
    assert [w.split(",title=")[0] for w in warnings] == [f"::warning file=data/valid.jsonl,line={n},col=1" for n in (1, 2, 3)]
    assert all("FT404" in w for w in warnings) and warnings[0].endswith("also in the training data at data/train.jsonl:8")
    assert done.returncode == 0 and "FT401" not in done.stdout + summary
    assert outputs["records"] == "143" and outputs["cost"] == f"{usd(tokens_of(TRAIN) * 3, GPT_4O_MINI):.4f}"
    training = summary.split("| training | base -> head |", 1)[1].split("\n\n", 1)[0]
    assert "| records | 143 -> 143 (0 added, 0 removed, 0 changed) |" in training and "| epochs | 3 -> 3 |" in training
    validation = summary.split("| validation | base -> head |", 1)[1].split("\n\n", 1)[0]
    assert "| files | 0 -> 1 (1 added, 0 removed, 0 changed) |" in validation
    assert "| records | 0 -> 3 (3 added, 0 removed, 0 changed) |" in validation
    assert "| also in the training data (FT404) | 0 -> 3 |" in validation
    assert "epochs" not in validation and "$" not in validation and "not added to cost" in validation


def test_a_finding_the_change_causes_on_an_unchanged_file_is_said_on_the_change(dataset_clone: Path) -> None:
    """A committed validation file, then a shard that repeats one of its records and one training
    record: the leak and the duplicate are the shard's, though the other records are unchanged."""
    git(dataset_clone, "checkout", "-q", "main")
    add(dataset_clone, "data/valid.jsonl", drone(3, 2000))
    git(dataset_clone, "checkout", "-q", "-b", "leak")
    add(dataset_clone, "data/shard.jsonl", [drone(1, 2001)[0], TRAIN[50]])
    done, summary, _ = run_action(dataset_clone, model="gpt-4o-mini", base="main")
    found = [a for a in done.stdout.splitlines() if a.startswith("::warning file=")]
    assert found == ["::warning file=data/shard.jsonl,line=2,col=1,title=ftlint FT402::exact duplicate of data/train.jsonl:51",
                     "::warning file=data/shard.jsonl,line=1,col=1,title=ftlint FT404::training record also in the validation "
                     "data at data/valid.jsonl:2"]
    validation = summary.split("| validation | base -> head |", 1)[1].split("\n\n", 1)[0]
    assert "| records | 3 -> 3 (0 added, 0 removed, 0 changed) |" in validation
    assert "| also in the training data (FT404) | 0 -> 1 |" in validation


def test_a_change_that_removes_a_file_is_judged_with_the_dataset(dataset_clone: Path) -> None:
    """No file to check, but a dataset that changed: 5 records removed, the run's figures after it.
    On main, "No data file changed" (the step never looked)."""
    git(dataset_clone, "checkout", "-q", "main")
    add(dataset_clone, "data/shard.jsonl", SHARD)
    git(dataset_clone, "checkout", "-q", "-b", "removal")
    git(dataset_clone, "rm", "-q", "data/shard.jsonl")
    git(dataset_clone, "commit", "-q", "-m", "removal")
    done, summary, outputs = run_action(dataset_clone, model="gpt-4o-mini", base="main")
    assert done.returncode == 0 and outputs["files"] == "0" and outputs["records"] == "143"
    assert outputs["cost"] == f"{usd(tokens_of(TRAIN) * 3, GPT_4O_MINI):.4f}"
    assert "| files | 2 -> 1 (0 added, 1 removed, 0 changed) |" in summary
    assert "| records | 148 -> 143 (0 added, 5 removed, 0 changed) |" in summary

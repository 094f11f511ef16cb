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
from test_hosted import openai_tokens, usd

from conftest import ROOT
from ftlint.action import DATA_FILES, INPUTS, NOT_DATA, glob_match

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


def run_action(work: Path, **inputs: str) -> tuple[subprocess.CompletedProcess[str], str, dict[str, str]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    summary, output = work.parent / "summary.md", work.parent / "output.txt"
    env.update({"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(output),
                "INPUT_FAIL_ON": "error", **{f"INPUT_{k.upper()}": v for k, v in inputs.items()}})
    done = subprocess.run([sys.executable, "-m", "ftlint.action"], cwd=work, env=env, capture_output=True, text=True, timeout=300)
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
    assert outputs == {"errors": "0", "warnings": "1", "cost": f"{cost:.4f}", "files": "2"}
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
    """docs/ci.md's excerpt: 13 records added to the first 90 of the cookbook's drone file."""
    origin, work = tmp_path / "origin", tmp_path / "work"
    (origin / "data").mkdir(parents=True)
    drone = (ROOT / "fixtures" / "good" / "drone_training.jsonl").read_text(encoding="utf-8")
    git(origin, "init", "-q")
    (origin / "data" / "train.jsonl").write_text("".join(drone.splitlines(keepends=True)[:90]), encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    commit(work, drone)
    done, summary, outputs = run_action(work, model="gpt-4o-mini", max_cost="5")
    tokens = sum(openai_tokens(json.loads(line))[0] for line in drone.splitlines())
    cost = usd(tokens * 3, GPT_4O_MINI)  # OpenAI's auto epochs for 103 examples: 3
    assert done.returncode == 0 and outputs == {"errors": "0", "warnings": "1", "cost": f"{cost:.4f}", "files": "1"}
    assert f"`cost={cost:.4f}`" in (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    docs = (ROOT / "docs" / "ci.md").read_text(encoding="utf-8")
    excerpt = docs.split("````markdown\n", 1)[1].split("````", 1)[0]
    assert summary.endswith(excerpt)

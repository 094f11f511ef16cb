"""ftlint diff: records added, removed and changed; findings new in HEAD; tokens and cost."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from conftest import run, run_process


def rec(q: str, a: str) -> dict:
    return {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": q}, {"role": "assistant", "content": a}]}


def write(path: Path, records: list[dict]) -> None:
    path.write_text("".join(json.dumps(r) + "\n" for r in records))


@pytest.fixture
def versions(tmp_path: Path) -> tuple[Path, Path]:
    base = [rec(f"question {i}", f"answer {i}") for i in range(12)] + [{"messages": [{"role": "user", "content": "orphan"}]}]
    head = base[2:12]  # records 0 and 1 removed; the FT201 record fixed by removal
    head[3] = rec("question 5", "a better answer 5")  # changed: same prompt, new answer
    head = [head[-1], *head[:-1]]  # moved records are not changes
    head += [rec("question new", "answer new"), rec("another", "one"), {"messages": [{"role": "user", "content": "no answer"}]}]
    write(tmp_path / "base.jsonl", base)
    write(tmp_path / "head.jsonl", head)
    return tmp_path / "base.jsonl", tmp_path / "head.jsonl"


def test_records_and_findings(versions: tuple[Path, Path]) -> None:
    base, head = versions
    r = run("diff", str(base), str(head), "--epochs", "2", "--ignore", "FT401", "-o", "json")
    out = json.loads(r.stdout)
    # base 12 records and a rejected line (the orphan, FT201: in no figure), head 12 and the
    # no-answer line: removed q0, q1 (2); changed q5 (1); added new, another (2)
    assert out["records"] == {"base": 12, "head": 12, "added": 2, "removed": 2, "changed": 1}
    assert [(f["line"], f["code"]) for f in out["new_findings"]] == [(13, "FT201")]
    assert out["fixed_findings"] == 1  # the orphan's FT201
    assert r.exit_code == 1
    b, h = out["estimate"]["base"], out["estimate"]["head"]
    alone = json.loads(run("estimate", str(head), "--epochs", "2", "-o", "json").stdout)
    assert h["tokens_processed"] == alone["tokens_processed"] and h["cost_usd"] == alone["cost_usd"]
    text = run("diff", str(base), str(head), "--epochs", "2", "--ignore", "FT401").stdout
    assert f"{b['tokens']:,} -> {h['tokens']:,}" in text


def test_same_file_is_no_change_and_exit_0(versions: tuple[Path, Path]) -> None:
    base, _ = versions
    out = json.loads(run("diff", str(base), str(base), "-o", "json").stdout)
    assert out["records"] == {"base": 12, "head": 12, "added": 0, "removed": 0, "changed": 0}
    assert out["new_findings"] == [] and out["fixed_findings"] == 0


def test_base_from_a_git_revision(versions: tuple[Path, Path]) -> None:
    base, head = versions
    repo = base.parent
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.com", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=repo, check=True)
    (repo / "train.jsonl").write_text(base.read_text())
    subprocess.run(["git", "add", "train.jsonl"], cwd=repo, check=True)
    subprocess.run(["git", "commit", "-qm", "v1"], cwd=repo, check=True, env=env)
    (repo / "train.jsonl").write_text(head.read_text())
    r = run_process("diff", "HEAD:train.jsonl", "train.jsonl", "--ignore", "FT401", "-o", "json", cwd=repo)
    out = json.loads(r.stdout)
    assert out["base"] == "HEAD:train.jsonl" and out["records"]["changed"] == 1
    assert run_process("diff", "nosuchrev:train.jsonl", "train.jsonl", cwd=repo).exit_code == 2


def _repo(tmp_path: Path, files: dict[str, list[dict]]) -> Path:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.com", "PATH": "/usr/bin:/bin"}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True)
    for name, records in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        write(tmp_path / name, records)
    subprocess.run(["git", "add", "-A"], cwd=tmp_path, check=True)
    subprocess.run(["git", "commit", "-qm", "v1"], cwd=tmp_path, check=True, env=env)
    return tmp_path


def test_rev_compares_each_path_with_its_version_in_one_run(tmp_path: Path) -> None:
    """One run for every changed file (the GitHub Action's); a path starting with '-' is a path
    (on main `REV:-o.jsonl` was refused), and a file named like `REV:PATH` is not the base."""
    records = [rec(f"question {i}", f"answer {i}") for i in range(12)]
    repo = _repo(tmp_path, {"a.jsonl": records, "-o.jsonl": records[:6]})
    write(repo / "a.jsonl", [*records, rec("new", "one")])
    write(repo / "-o.jsonl", [*records[:6], rec("new", "one"), rec("and", "two")])
    (repo / "HEAD:a.jsonl").write_text("")  # a file named as the base spec: not read as the base
    r = run_process("diff", "--rev", "HEAD", "--ignore", "FT401", "-o", "json", "--", "a.jsonl", "-o.jsonl", "new.jsonl",
                    cwd=repo)
    out = json.loads(r.stdout)
    assert [(d["base"], d["head"]) for d in out] == [("HEAD:a.jsonl", "a.jsonl"), ("HEAD:-o.jsonl", "-o.jsonl")]
    assert [d["records"] for d in out] == [{"base": 12, "head": 13, "added": 1, "removed": 0, "changed": 0},
                                           {"base": 6, "head": 8, "added": 2, "removed": 0, "changed": 0}]
    assert r.exit_code == 2 and r.stderr == "ftlint: error: new.jsonl: no such file\n"  # the others still written
    single = run_process("diff", "--ignore", "FT401", "-o", "json", "--", "HEAD:-o.jsonl", "-o.jsonl", cwd=repo)
    assert single.exit_code == 0 and json.loads(single.stdout)["records"]["added"] == 2
    refused = run_process("diff", "--rev=--output=x", "--", "a.jsonl", cwd=repo)
    assert refused.exit_code == 2 and "a revision may not start with '-'" in refused.stderr and not (repo / "x").exists()


def test_diff_takes_the_run_config_as_estimate_does(versions: tuple[Path, Path]) -> None:
    """On main diff had no --run (the GitHub Action gave it one: every diff was a usage error)."""
    base, head = versions
    sft = base.parent / "sft.yaml"
    sft.write_text("model_name_or_path: Qwen/Qwen2.5-0.5B\nnum_train_epochs: 2\nper_device_train_batch_size: 2\n")
    out = json.loads(run("diff", str(base), str(head), "--run", str(sft), "-o", "json").stdout)
    alone = json.loads(run("estimate", str(head), "--run", str(sft), "-o", "json").stdout)
    h = out["estimate"]["head"]
    assert (h["epochs"], h["batch_size"], h["tokens_processed"]) == (2, 2, alone["tokens_processed"])
    assert alone["epochs"] == 2 and alone["batch_size"] == 2

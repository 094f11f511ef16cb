"""The joints (issue 11): one registry, one pipeline, the same answer whichever command asks.
Each test failed before the repair it names."""

from __future__ import annotations

import json
import re
import subprocess
from pathlib import Path

import pytest

from conftest import ROOT, docs_text, run, run_process
from ftlint.engine import pipeline
from ftlint.rules import MODULES, registry


def rec(q: str, a: str, system: str = "Be brief.") -> dict:
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": q}, {"role": "assistant", "content": a}]}


def write(path: Path, records: list[dict | str]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in records))
    return path


def test_every_rule_module_is_in_the_registry_list() -> None:
    """Every module of rules/ that registers a code is loaded (context.py only defines what rules see)."""
    sources = {p.stem: p.read_text() for p in (ROOT / "ftlint" / "rules").glob("*.py") if p.stem != "__init__"}
    modules = {name for name, text in sources.items() if "register(" in text or "@rule(" in text}
    assert modules == set(MODULES)
    assert set(sources) - modules == {"context"}


def test_rules_lists_every_code_the_sources_can_emit() -> None:
    # every "FTnnn" literal in the package's code is a registered code, listed and explained
    emitted = set()
    for path in (ROOT / "ftlint").rglob("*.py"):
        emitted |= set(re.findall(r'"(FT\d{3})"', path.read_text()))
    listing = run("rules").stdout
    listed = set(re.findall(r"^(FT\d{3}) ", listing, re.M))
    assert emitted <= listed == set(registry())
    for code in ("FT106", "FT211", "FT212", "FT213", "FT214", "FT215", "FT216", "FT218", "FT219", "FT220"):
        assert run("rules", code).exit_code == 0  # "unknown code" before: rules/conversation.py was never loaded


def test_every_code_is_in_the_documentation() -> None:
    text = docs_text()
    missing = [code for code in registry() if code not in text]
    assert missing == []


def _dataset(tmp_path: Path, n: int, pad: int = 0) -> Path:
    records: list[dict | str] = [rec(f"question {i} " + "x" * pad, f"answer {i}") for i in range(n)]
    records.append(records[3])  # one exact duplicate (FT402, a warning)
    return write(tmp_path / "data.jsonl", records)


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_severity_is_the_same_by_path_by_stdin_and_for_any_jobs(tmp_path: Path, jobs: str) -> None:
    small = _dataset(tmp_path, 5)
    by_path = json.loads(run("check", str(small), "-j", jobs, "-o", "json").stdout)
    by_stdin = json.loads(run_process("check", "-", "-j", jobs, "-o", "json", input=small.read_bytes()).stdout)
    levels = {(f["code"], f["severity"]) for f in by_path}
    assert levels == {(f["code"], f["severity"]) for f in by_stdin} == {("FT401", "error"), ("FT402", "warning")}


def test_a_duplicate_in_a_large_file_is_a_warning_in_worker_processes(tmp_path: Path) -> None:
    big = _dataset(tmp_path, 9000, pad=500)  # over 4 MB: worker processes by default
    assert big.stat().st_size > pipeline.POOL_MIN_BYTES
    r = run_process("check", str(big), "-o", "json")
    assert r.exit_code == 0, r.stdout[-500:]  # before: FT402 became an error in the workers, exit 1
    assert {(f["code"], f["severity"]) for f in json.loads(r.stdout)} == {("FT402", "warning")}


def test_rejected_lines_are_in_no_figure(tmp_path: Path) -> None:
    good = [rec(f"question number {i} with some words", f"answer {i}") for i in range(81)]
    bad = [{"messages": [{"role": "user", "content": "x"}]}, {"messages": [{"role": "user", "content": "y"}]}]  # FT201: shortest
    path = write(tmp_path / "d.jsonl", [*good[:40], bad[0], *good[40:], bad[1]])
    e = json.loads(run("estimate", str(path), "-e", "1", "-b", "1", "-o", "json").stdout)
    alone = json.loads(run("estimate", str(write(tmp_path / "g.jsonl", good)), "-e", "1", "-b", "1", "-o", "json").stdout)
    assert (e["lines"], e["invalid_lines"], e["records"], e["total_steps"]) == (83, 2, 81, 81)
    for key in ("tokens", "token_stats", "messages", "targets", "tokens_processed", "cost_usd"):
        assert e[key] == alone[key], key
    text = run("estimate", str(path), "-e", "1").stdout
    assert "2 with errors, not counted" in text and re.search(r"records\s+81\b", text)


def test_estimate_plan_and_diff_agree_on_format_limit_and_tokens(tmp_path: Path) -> None:
    long = " ".join(["word"] * 17_000)  # over Cohere's 16,384-token limit
    lines = [{"messages": [{"role": "User", "content": f"q{i}"}, {"role": "Chatbot", "content": "ok"}]} for i in range(3)]
    lines.append({"messages": [{"role": "User", "content": long}, {"role": "Chatbot", "content": "ok"}]})
    path = write(tmp_path / "c.jsonl", lines)
    e = json.loads(run("estimate", str(path), "-e", "1", "-o", "json").stdout)
    p = json.loads(run("plan", str(path), "-e", "1", "-o", "json").stdout)["estimate"]
    d = json.loads(run("diff", str(path), str(path), "-e", "1", "-o", "json").stdout)["estimate"]["head"]
    for other in (p, d):
        assert (other["format"], other["context_limit"], other["tokens"]) == (e["format"], e["context_limit"], e["tokens"])
    assert (e["format"], e["context_limit"], e["records_over_limit"]) == ("cohere-chat", 16_384, 1)


def _git(repo: Path, *args: str) -> None:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.com",
           "PATH": "/usr/bin:/bin", "HOME": str(repo)}
    subprocess.run(["git", *args], cwd=repo, check=True, env=env, capture_output=True)


def test_first_data_pull_request_lists_every_record_as_added(tmp_path: Path) -> None:
    _git(tmp_path, "init", "-q")
    (tmp_path / "README").write_text("x\n")
    _git(tmp_path, "add", "README")
    _git(tmp_path, "commit", "-qm", "init")
    (tmp_path / "data").mkdir()
    write(tmp_path / "data" / "new.jsonl", [rec(f"q{i}", f"a{i}") for i in range(12)])
    r = run_process("diff", "HEAD:data/new.jsonl", "data/new.jsonl", "-o", "json", cwd=tmp_path)
    assert r.exit_code == 0, r.stderr  # before: exit 2, "not a file, and git cannot show it"
    out = json.loads(r.stdout)
    assert out["records"] == {"base": 0, "head": 12, "added": 12, "removed": 0, "changed": 0}
    assert "no such file in that revision" in out["notes"][0]
    _git(tmp_path, "add", "data/new.jsonl")
    _git(tmp_path, "commit", "-qm", "data")
    folder = run_process("diff", "HEAD:data", "data/new.jsonl", cwd=tmp_path)
    assert folder.exit_code == 2 and "is a tree in git, not a file" in folder.stderr
    assert run_process("diff", "nosuchrev:data/new.jsonl", "data/new.jsonl", cwd=tmp_path).exit_code == 2


def test_plan_applies_gates_and_refuses_options_it_would_ignore() -> None:
    path = "fixtures/good/drone_training.jsonl"
    assert run("estimate", path, "-e", "3", "--max-cost", "0.01").exit_code == 1
    gated = run("plan", path, "-e", "3", "--max-cost", "0.01")
    assert gated.exit_code == 1 and "FT701" in gated.stdout  # before: exit 0
    for option in ("--plots", "--schedule"):
        assert run("plan", path, option, *(["cosine"] if option == "--schedule" else [])).exit_code == 2


def test_config_applies_to_every_command(tmp_path: Path) -> None:
    data = write(tmp_path / "train.jsonl", [rec(f"q{i}", f"a{i}") for i in range(12)])
    (tmp_path / "ftlint.toml").write_text('model = "gpt-4o-mini"\n[plan]\ntrials = 4\n[diff]\nepochs = 2\n')
    p = json.loads(run_process("plan", data.name, "-e", "1", "-o", "json", cwd=tmp_path).stdout)
    assert p["estimate"]["model"] == "gpt-4o-mini-2024-07-18" and p["study"]["rounds"][0]["runs"] == 4
    d = json.loads(run_process("diff", data.name, data.name, "-o", "json", cwd=tmp_path).stdout)
    assert d["estimate"]["head"]["model"] == "gpt-4o-mini-2024-07-18" and d["estimate"]["head"]["epochs"] == 2


def test_baseline_reports_the_new_record_not_the_known_one(tmp_path: Path) -> None:
    bad = {"messages": [{"role": "user", "content": "no answer"}]}
    good = [rec(f"q{i}", f"a{i}") for i in range(12)]
    data = write(tmp_path / "d.jsonl", [*good, bad])
    baseline = tmp_path / "known.json"
    run("check", str(data), "-o", "json", "--output-file", str(baseline))
    other = {"messages": [{"role": "user", "content": "another question, no answer either"}]}
    write(data, [other, *good, bad])  # a new record with the same problem, above the known one
    new = json.loads(run("check", str(data), "--baseline", str(baseline), "-o", "json").stdout)
    assert [(f["line"], f["code"]) for f in new] == [(1, "FT201")]  # before: line 14 (the known record) was shown


def test_max_seq_len_truncates_records_for_a_self_hosted_trainer(tmp_path: Path) -> None:
    path = "fixtures/good/drone_training.jsonl"  # records of 739 to 768 tokens
    e = json.loads(run("estimate", path, "--trainer", "hf", "--max-seq-len", "750", "-e", "1", "-o", "json").stdout)
    full = json.loads(run("estimate", path, "--trainer", "hf", "-e", "1", "-o", "json").stdout)
    assert e["truncation"]["max_seq_len"] == 750 and e["truncation"]["records"] > 0
    assert e["tokens"] == full["tokens"] - e["truncation"]["tokens"]
    assert "FT509" in {w["code"] for w in e["warnings"]}
    assert run("estimate", path, "--max-seq-len", "750").exit_code == 2  # before: silently ignored


def test_one_extra_key_does_not_make_a_chat_file_rft(tmp_path: Path) -> None:
    for key, value in (("id", 1), ("metadata", {"source": "x"})):
        path = write(tmp_path / f"{key}.jsonl", [{key: value, **rec(f"q{i}", f"a{i}")} for i in range(12)])
        r = run("check", str(path), "-o", "json")
        found = json.loads(r.stdout)
        # every line is rejected for the unknown key, so none is a training record (FT401)
        assert {(f["code"], f["pointer"]) for f in found} == {("FT103", f"$.{key}"), ("FT401", None)}, found
        e = json.loads(run("estimate", str(path), "-o", "json").stdout)
        assert e["format"] == "openai-chat"
    prompts = write(tmp_path / "rft.jsonl", [{"messages": [{"role": "user", "content": f"q{i}"}], "answer": str(i)} for i in range(12)])
    assert json.loads(run("estimate", str(prompts), "-o", "json").stdout)["format"] == "openai-rft"


def test_alpaca_is_not_detected_as_preference(tmp_path: Path) -> None:
    path = write(tmp_path / "a.jsonl", [{"instruction": f"do {i}", "input": "", "output": f"done {i}"} for i in range(12)])
    e = json.loads(run("estimate", str(path), "-o", "json").stdout)
    assert e["format"] != "openai-preference"


def test_a_training_file_below_the_minimum_fails_a_validation_file_may_be_smaller(tmp_path: Path) -> None:
    train = write(tmp_path / "t.jsonl", [rec(f"q{i}", f"a{i}") for i in range(9)])
    r = run("check", str(train))
    assert r.exit_code == 1 and "FT401 9 training records; openai-chat needs at least 10" in r.stdout
    train = write(tmp_path / "t.jsonl", [rec(f"q{i}", f"a{i}") for i in range(10)])
    val = write(tmp_path / "v.jsonl", [rec("other", "held out")])
    assert run("check", str(train), "--validation", str(val)).exit_code == 0


def test_every_phase_reports_in_order_and_counts_once_on_the_files_it_is_about(tmp_path: Path) -> None:
    """One run through every phase of the engine (engine/phases.py): a broken line (records), a
    duplicate (dataset), a retired model named (model), a format the trainer does not take
    (trainer), a validation record also in the training data (splits). Their findings reach the
    reporter in that order, and each is counted once, on the analysis of the files it is about."""
    from collections import Counter

    from ftlint.api import run_options
    from ftlint.app import analyse_data
    from ftlint.resolve import resolve_run

    shared = {"conversations": [{"from": "human", "value": "c?"}, {"from": "gpt", "value": "d."}]}
    twice = {"conversations": [{"from": "human", "value": "a?"}, {"from": "gpt", "value": "b."}]}
    train = write(tmp_path / "train.jsonl", [twice, twice, shared, "{"])
    valid = write(tmp_path / "valid.jsonl", [shared])
    found: list = []
    options = run_options([str(train)], validation=str(valid), model="gpt-4.1-nano-2025-04-14", trainer="together")
    data = analyse_data(resolve_run(options), found.append)
    assert [d.code for d in found] == ["FT012", "FT402", "FT512", "FT110", "FT404"]
    assert data.validation is not None and data.leaks == 1
    assert data.train.counts == Counter(d.severity for d in found[:4]) == {"error": 3, "warning": 1}
    assert data.validation.counts == {"error": 0, "warning": 1}  # FT404, a warning, on the validation file


def test_estimate_is_frozen() -> None:
    import dataclasses

    from ftlint.app import planned as estimate
    from ftlint.options import PlanOptions
    from ftlint.plan.estimate import DatasetInfo
    from ftlint.plan.figures import DatasetFigures

    e = estimate(DatasetFigures(lines=1, invalid_lines=0, messages=2, records=1, tokens_capped=10), PlanOptions(epochs=1),
                 DatasetInfo((), "m", "o200k_base", None), price=None)
    with pytest.raises(dataclasses.FrozenInstanceError):
        e.schedule = e.schedule  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):  # and each of its groups
        e.schedule.epochs = 2  # type: ignore[misc]


def formats_table() -> str:
    """The README's table of formats, as the registry has them."""
    from ftlint.formats.registry import BY_SHAPE, FORMATS

    rows = ["| format | record rule | detected | for |", "|---|---|---|---|"]
    for fmt in FORMATS.values():
        detected = "yes" if BY_SHAPE.get(fmt.shape) == fmt.name else f"`--format` ({BY_SHAPE.get(fmt.shape)} shape)"
        rows.append(f"| `{fmt.name}` | {fmt.record_rule} | {detected} | {fmt.providers} |")
    return "\n".join(rows) + "\n"


def test_the_documented_formats_table_is_the_registry() -> None:
    assert formats_table() in (ROOT / "docs" / "formats.md").read_text(), "regenerate docs/formats.md's table from tests/commands/test_commands_agree.py:formats_table"
    readme = (ROOT / "README.md").read_text()
    assert f"It knows {len(__import__('ftlint.formats.registry', fromlist=['FORMATS']).FORMATS)} dataset formats" in readme

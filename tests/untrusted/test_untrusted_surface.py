"""Untrusted repositories, second round (issue 24, items 8-10): convert accounts for every line
it reads and drops nothing silently; the Python API refuses what its flags refuse, with
UsageError; `--engine ray` ends on a signal as the local engine does, leaving no process behind.

Real files and real processes throughout: the CLI in a child process for exit codes and
signals, a real local Ray cluster (started by the run itself, as the CLI does without
RAY_ADDRESS), real FIFOs to hold a run in the middle of its judging."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from processes import end, survivors, title, tree

import ftlint
from conftest import FIXTURES, ROOT, run, run_process

GOOD = str(FIXTURES / "good" / "drone_training.jsonl")


def chat(*turns: tuple[str, str]) -> str:
    return json.dumps({"messages": [{"role": role, "content": text} for role, text in turns]})


QA = (("user", "q"), ("assistant", "a"))
TOOL_CALL = json.dumps({"messages": [
    {"role": "user", "content": "time?"},
    {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {"name": "now", "arguments": "{}"}}]},
    {"role": "tool", "tool_call_id": "c1", "content": "noon"}, {"role": "assistant", "content": "Noon."}]})

# the file: three good records, one Nova cannot hold (tool calls), two its rules reject
# (no assistant turn), a broken line (FT001), an array (FT002) and a line with a NUL byte (FT010)
NINE = [chat(*QA), chat(*QA), '{"messages": [', chat(*QA), "[1, 2]", chat(("user", "a"), ("user", "b")),
        '{"messages": "x\x00"}', chat(("user", "c"), ("user", "d")), TOOL_CALL]


def lines_file(path: Path, lines: list[str]) -> Path:
    path.write_bytes(("\n".join(lines) + "\n").encode())
    return path


def summary(stdout: str) -> str:
    """The accounting of a convert's text output: its summary line, before the findings' counts."""
    lines = stdout.strip().splitlines()
    assert lines[-2].startswith("converted "), stdout
    return lines[-2].split("): ", 1)[1]


def accounted(line: str) -> tuple[int, int, int, int]:
    """(lines read, written, left out, blank) from a convert summary."""
    found = re.fullmatch(r"(\d+) lines read: (\d+) records written.*?, (\d+) left out.*, (\d+) blank", line)
    assert found, line
    read, written, left, blank = map(int, found.groups())
    return read, written, left, blank


def test_the_nine_line_file_accounts_for_every_line(tmp_path: Path) -> None:
    data, out = lines_file(tmp_path / "nine.jsonl", NINE), tmp_path / "out.jsonl"
    dropped = run_process("convert", str(data), str(out), "--to", "bedrock-nova", "--drop-invalid")
    assert dropped.exit_code == 0, dropped.stdout + dropped.stderr
    assert summary(dropped.stdout) == ("9 lines read: 3 records written, 6 left out (1 not convertible: FT802; "
                                       "2 rejected: FT201 2; 3 unreadable: FT001 1, FT002 1, FT010 1), 0 blank")
    assert len(out.read_text().splitlines()) == 3
    for code, line in (("FT001", 3), ("FT002", 5), ("FT010", 7), ("FT802", 9)):
        assert re.search(rf"nine\.jsonl:{line}:\d+: {code} ", dropped.stdout), (code, dropped.stdout)

    kept = run_process("convert", str(data), str(out), "--to", "bedrock-nova")
    assert kept.exit_code == 1
    assert summary(kept.stdout) == ("9 lines read: 5 records written (2 rejected, written as they are: FT201 2), "
                                    "4 left out (1 not convertible: FT802; 3 unreadable: FT001 1, FT002 1, FT010 1), 0 blank")
    assert len(out.read_text().splitlines()) == 5
    for result in (dropped, kept):
        read, written, left, blank = accounted(summary(result.stdout))
        assert written + left + blank == read == len(NINE)


def test_blank_lines_and_a_duplicate_key_are_accounted_for(tmp_path: Path) -> None:
    duplicate = '{"messages": [{"role": "user", "content": "first", "content": "second"}, {"role": "assistant", "content": "a"}]}'
    data = lines_file(tmp_path / "d.jsonl", [chat(*QA), "", "   ", duplicate, "\ufeff" + chat(*QA)])
    out = tmp_path / "out.jsonl"
    kept = run_process("convert", str(data), str(out), "--to", "sharegpt")
    assert kept.exit_code == 1  # the duplicate key's first value is lost: an error, as check says (FT013)
    assert "d.jsonl:4:" in kept.stdout and "FT013 duplicate key 'content'" in kept.stdout
    assert "d.jsonl:5:1: FT004" in kept.stdout  # read past, and said
    assert summary(kept.stdout) == "5 lines read: 3 records written (1 rejected, written as they are: FT013 1), 0 left out, 2 blank"
    dropped = run_process("convert", str(data), str(out), "--to", "sharegpt", "--drop-invalid")
    assert dropped.exit_code == 0
    assert summary(dropped.stdout) == "5 lines read: 2 records written, 1 left out (1 rejected: FT013 1), 2 blank"
    assert "second" not in out.read_text() and len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("turns", [
    (("system", "be brief"), ("user", "q"), ("system", "now be long"), ("assistant", "a")),
    (("system", "be brief"), ("system", "and kind"), ("user", "q"), ("assistant", "a")),
], ids=["in-the-middle", "two-at-the-start"])
def test_nova_never_drops_a_second_system_message(tmp_path: Path, turns: tuple[tuple[str, str], ...]) -> None:
    # bedrock-conversation-2024 holds one system list, before the messages: a second system
    # message cannot be placed, and is said (FT802), not written over the first
    data, out = lines_file(tmp_path / "s.jsonl", [chat(*turns), chat(("system", "alone"), *QA)]), tmp_path / "n.jsonl"
    r = run("convert", str(data), str(out), "--to", "bedrock-nova")
    assert r.exit_code == 1
    assert "s.jsonl:1:1: FT802 a system message after the start of the conversation" in r.stdout
    assert summary(r.stdout) == "2 lines read: 1 records written, 1 left out (1 not convertible: FT802), 0 blank"
    written = json.loads(out.read_text())
    assert written["system"] == [{"text": "alone"}]


# ---- the Python API: the flags' rules, as UsageError ------------------------------------------

API_CASES: dict[str, tuple[Callable[[], object], str]] = {
    "batch_size=0": (lambda: ftlint.estimate(GOOD, batch_size=0), "batch_size: 0 is not at least 1"),
    "batch_size=-1": (lambda: ftlint.estimate(GOOD, batch_size=-1), "batch_size: -1 is not at least 1"),
    "epochs=nan": (lambda: ftlint.estimate(GOOD, epochs=float("nan")), "epochs: nan is not a whole number"),
    "warmup_ratio=1.5": (lambda: ftlint.estimate(GOOD, warmup_ratio=1.5), "warmup_ratio: 1.5 is not between 0 and 1"),
    "gates nan": (lambda: ftlint.estimate(GOOD, gates={"max_cost_usd": float("nan")}), "gates.max_cost_usd: nan is not a finite number"),
    "thresholds typo": (lambda: ftlint.estimate(GOOD, thresholds={"max_epoch": 3}), "thresholds: unknown key 'max_epoch'"),
    "trainer": (lambda: ftlint.estimate(GOOD, trainer="deepspeed"), "trainer: 'deepspeed' is not one of 'trl', 'unsloth', 'axolotl'"),
    "check(5)": (lambda: ftlint.check(5), "paths: 5 (int) is not a path or a list of paths"),
    "check([])": (lambda: ftlint.check([]), "paths: none given"),
    "unknown keyword": (lambda: ftlint.check(GOOD, modle="gpt-4o"), "unknown keyword 'modle'; the known ones: "),
    "estimate(summary) typo": (lambda: ftlint.estimate(ftlint.summarise(GOOD), epoch=3), "unknown keyword 'epoch'"),
    "max_depth='x'": (lambda: ftlint.check(GOOD, max_depth="x"), "max_depth: 'x' is not a whole number"),
    "context=1.5": (lambda: ftlint.check(GOOD, context=1.5), "context: 1.5 is not a whole number"),
    "jobs=0": (lambda: ftlint.check(GOOD, jobs=0), "jobs: 0 is not at least 1"),
    "format": (lambda: ftlint.check(GOOD, format="chatml"), "format: 'chatml' is not a format"),
    "dataset_rules='no'": (lambda: ftlint.check(GOOD, dataset_rules="no"), "dataset_rules: 'no' is not true or false"),
    "select": (lambda: ftlint.check(GOOD, select=["X1"]), "select: 'X1' is not a code or code prefix"),
    "merge([1])": (lambda: ftlint.merge([1]), "merge: item 0 (int) is not a Summary"),
    "merge(5)": (lambda: ftlint.merge(5), "merge: int is not a list of Summary objects"),
    "check_records(5)": (lambda: ftlint.check_records(5), "check_records: int is not an iterable of records"),
}


@pytest.mark.parametrize("case", sorted(API_CASES))
def test_the_api_refuses_what_its_flags_refuse_with_usage_error(case: str) -> None:
    call, message = API_CASES[case]
    with pytest.raises(ftlint.UsageError) as raised:
        call()
    assert message in str(raised.value)


@pytest.mark.parametrize(("flag", "key", "keyword", "value", "reason"), [
    ("--batch-size", "batch-size", "batch_size", "0", "0 is not at least 1"),
    ("--epochs", "epochs", "epochs", "nan", "'nan' is not a whole number"),
    ("--warmup-ratio", "warmup-ratio", "warmup_ratio", "2", "2 is not between 0 and 1"),
    ("--max-depth", "max-depth", "max_depth", "1001", "1001 is not at least 1 and at most 1,000"),
])
def test_a_flag_its_config_key_and_its_keyword_refuse_alike(tmp_path: Path, flag: str, key: str, keyword: str, value: str,
                                                            reason: str) -> None:
    by_flag = run("estimate", GOOD, flag, value)
    assert by_flag.exit_code == 2 and reason in by_flag.stderr
    config = tmp_path / "ftlint.toml"
    config.write_text(f'[estimate]\n{key} = "{value}"\n')
    by_config = run("--config", str(config), "estimate", GOOD)
    assert by_config.exit_code == 2 and f"{key} = '{value}': {reason}" in by_config.stderr
    with pytest.raises(ftlint.UsageError, match=re.escape(f"{keyword}: {reason}")):
        ftlint.estimate(GOOD, **{keyword: value})


def test_api_select_takes_codes_as_the_flag_does(tmp_path: Path) -> None:
    # a string is comma-separated codes (it used to be taken letter by letter: 'F' selected everything)
    bad = lines_file(tmp_path / "bad.jsonl", ['{"messages": [', chat(("user", "a"), ("user", "b"))])
    everything = {d.code[:3] for d in ftlint.check(str(bad)).findings}
    assert everything >= {"FT0", "FT2"}
    assert {d.code[:3] for d in ftlint.check(str(bad), select="FT0").findings} == {"FT0"}
    assert {d.code[:3] for d in ftlint.check(bad, ignore="FT0, FT4").findings} == everything - {"FT0", "FT4"}  # a Path too


def test_a_path_that_cannot_be_read_is_an_error_the_caller_sees(tmp_path: Path) -> None:
    missing = str(tmp_path / "missing.jsonl")
    for call in (ftlint.check, ftlint.summarise, ftlint.estimate):
        with pytest.raises(ftlint.UsageError, match=re.escape(f"no path could be read: {missing}: no such file")):
            call(missing)
    # beside readable files: reported as the CLI does (exit 2), the other files checked
    result = ftlint.check([GOOD, missing])
    assert result.io_errors == [f"{missing}: no such file"] and result.failing() and result.records == 103
    merged = ftlint.check(ftlint.merge([ftlint.summarise(GOOD), ftlint.summarise([GOOD, missing])]))
    assert merged.io_errors == [f"{missing}: no such file"] and merged.failing()
    with pytest.raises(ftlint.UsageError, match=re.escape(f"cannot read: {missing}: no such file")):
        ftlint.estimate([GOOD, missing])  # no figures of part of the data, as `ftlint estimate`


# ---- --engine ray: signals as the local engine, nothing left behind -----------------------------

@pytest.fixture
def held(tmp_path: Path) -> Iterator[Path]:
    """A FIFO as the data: the judge opens it and waits for a writer that never comes, so the run
    is certainly in the middle of judging, however fast or slow the machine."""
    fifo = tmp_path / "held.jsonl"
    os.mkfifo(fifo)
    yield fifo


def ray_run(path: Path, moment: str, sig: int) -> tuple[int, str, dict[int, str]]:
    """`ftlint check --engine ray PATH` on a local cluster of its own; `sig` once a process whose
    title holds `moment` is in its tree. (exit code, stderr, every process seen in its tree)."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"} | {"RAY_USAGE_STATS_ENABLED": "0"}
    proc = subprocess.Popen([sys.executable, "-m", "ftlint", "check", "--engine", "ray", str(path)], cwd=ROOT, env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    seen: dict[int, str] = {}
    deadline = time.monotonic() + 180
    try:
        while proc.poll() is None and not any(moment in t for t in seen.values()) and time.monotonic() < deadline:
            seen |= {p: title(p) or seen.get(p, "") for p in tree(proc.pid)}  # a title changes: fork, exec, Ray's own
            time.sleep(0.05)
        assert proc.poll() is None and any(moment in t for t in seen.values()), f"{moment!r} not reached: {seen}"
        proc.send_signal(sig)
        _, err = proc.communicate(timeout=120)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    return proc.returncode, err.decode("utf-8", "replace"), seen


@pytest.mark.xdist_group("ray")  # one Ray cluster at a time on the machine: the tests of Ray run in one worker
@pytest.mark.parametrize(("moment", "sig", "code", "said"), [
    ("Judge", signal.SIGTERM, 143, "terminated"),  # the judge actor is up, and waits on the FIFO
    ("gcs_server", signal.SIGTERM, 143, "terminated"),  # inside ray.init, while Ray's own SIGTERM handler is in place
    ("Judge", signal.SIGINT, 130, "interrupted"),
], ids=["sigterm-judging", "sigterm-starting", "sigint-judging"])
def test_engine_ray_ends_on_a_signal_as_the_local_engine_and_leaves_no_process(held: Path, moment: str, sig: int, code: int,
                                                                               said: str) -> None:
    # as the local engine: 143 or 130 and one line (not 15 after Ray's stack dump), and the
    # cluster the run started shut down with it (not its node agents alive a minute later)
    exit_code, err, seen = ray_run(held, moment, sig)
    try:
        assert exit_code == code and err.strip() == f"ftlint: {said}", err
        assert survivors(seen) == {}
    finally:
        end(seen)

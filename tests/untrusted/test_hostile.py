"""Hostile input: never a crash, never a lost line, never a traceback (issue 7)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run, run_process
from hostile import HOSTILE, OK

CORPUS = FIXTURES / "hostile"


def findings(path: Path | str, *args: str) -> tuple[int, list[tuple[int, str]], dict]:
    r = run("check", str(path), "-o", "json", "--ignore", "FT4", *args)  # dataset-wide codes are not the reader's
    got = [(f["line"], f["code"]) for f in json.loads(r.stdout)]
    return r.exit_code, got, {}


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_input_gives_the_exact_findings(name: str, tmp_path: Path) -> None:
    data, expected = HOSTILE[name]
    path = tmp_path / name
    path.write_bytes(data)
    code, got, _ = findings(path)
    if expected and expected[0][0] is None:  # a truncated stream: the line where it broke varies with zlib
        assert [c for _, c in got] == [c for _, c in expected]
        assert got[0][0] > 1
    else:
        assert got == expected
    assert code == (1 if expected and expected[0][1] != "FT004" else 0)


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_corpus_matches_the_generated_inputs(name: str) -> None:
    path = CORPUS / name
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        CORPUS.mkdir(exist_ok=True)
        path.write_bytes(HOSTILE[name][0])
    assert path.read_bytes() == HOSTILE[name][0]


def test_lines_read_equal_lines_in_file(tmp_path: Path) -> None:
    data = b"\n".join([OK, b"", b"{bad", OK, b"   ", b"[1]", OK]) + b"\n"
    path = tmp_path / "mixed.jsonl"
    path.write_bytes(data)
    r = run("check", str(path))
    n_lines = data.count(b"\n")
    assert f"{n_lines} lines: 3 valid, 4 with errors (2 blank)" in r.stdout


def test_a_300_megabyte_line_is_one_finding_in_bounded_memory(tmp_path: Path) -> None:
    path = tmp_path / "huge.jsonl"
    with open(path, "wb") as fh:
        fh.write(OK + b"\n" + b'{"messages": "')
        block = b"x" * (1024 * 1024)
        for _ in range(300):
            fh.write(block)
        fh.write(b'"}\n' + OK + b"\n")
    script = (
        "import resource, subprocess, sys\n"
        f"p = subprocess.run([sys.executable, '-m', 'ftlint', 'check', {str(path)!r}, '-o', 'json', '--ignore', 'FT4'], capture_output=True)\n"
        "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)\n"
        "sys.stdout.write(p.stdout.decode())\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, cwd=ROOT, timeout=300).stdout.decode()
    peak_kib, report = out.split("\n", 1)
    got = [(f["line"], f["code"]) for f in json.loads(report)]
    assert got == [(2, "FT007")]
    assert int(peak_kib) < 400 * 1024  # the 300 MB line is never held whole (limit: 128 MiB)


def test_directory_missing_and_unreadable_paths(tmp_path: Path) -> None:
    assert run_process("check", str(tmp_path)).exit_code == 2
    missing = run_process("check", str(tmp_path / "none.jsonl"))
    assert missing.exit_code == 2 and missing.stderr.count("\n") == 1


def test_fifo_is_read(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)

    def feed() -> None:
        with open(fifo, "wb") as fh:
            fh.write(OK + b"\n{bad\n")

    writer = threading.Thread(target=feed)
    writer.start()
    r = run_process("check", str(fifo))
    writer.join()
    assert r.exit_code == 1 and ":2:2: FT001" in r.stdout


def test_stdin_closed_mid_line() -> None:
    r = run_process("check", "-", input=OK + b"\n" + OK[:20])
    assert r.exit_code == 1 and "<stdin>:2:" in r.stdout and "FT001" in r.stdout


def test_stdin_closed_at_once() -> None:
    r = subprocess.run([sys.executable, "-m", "ftlint", "check", "-"], stdin=subprocess.DEVNULL, capture_output=True, cwd=ROOT)
    assert r.returncode == 1 and b"FT006" in r.stdout and r.stderr == b""


def test_limits_are_configurable(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"messages": ' + b"[" * 150 + b"]" * 150 + b"}\n")
    assert ("FT014" in [c for _, c in findings(path)[1]])
    assert "FT014" not in [c for _, c in findings(path, "--max-depth", "200")[1]]
    long_line = tmp_path / "long.jsonl"
    long_line.write_bytes(OK + b"\n")
    assert findings(long_line, "--max-line-bytes", "10")[1] == [(1, "FT007")]

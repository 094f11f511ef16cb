"""Results and diagnostics are identical with one process and with several."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ftlint.engine import Settings, analyse
from ftlint.engine import pipeline as engine

GOOD = {"messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Where is my order 12?"},
                     {"role": "assistant", "content": "It ships tomorrow."}]}
BAD_LINES = [b"", b"{bad", b"[1, 2]", b'{"messages": []}', b'{"messages": [{"role": "user", "content": "x"}]}',
             b'{"messages": [{"role": "user", "content": "mail jane@gmail.com"}, {"role": "assistant", "content": "ok"}]}']


def _write(path: Path, n: int, every: int) -> None:
    lines = []
    for i in range(n):
        record = json.loads(json.dumps(GOOD))
        record["messages"][1]["content"] += f" ({i})"
        lines.append(BAD_LINES[i // every % len(BAD_LINES)] if i % every == every - 1 else json.dumps(record).encode())
    path.write_bytes(b"\n".join(lines) + b"\n")


def _run(paths: list[str], jobs: int):  # type: ignore[no-untyped-def]
    found: list = []
    settings = Settings("o200k_base", "gpt-4.1-mini", model_limit=40)
    result = analyse(paths, settings, found.append, jobs=jobs)
    return found, result


def test_one_process_and_several_give_identical_results(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # many small blocks and chunks, so that order across workers matters
    monkeypatch.setattr(engine, "READ_BLOCK", 300)
    monkeypatch.setattr(engine, "CHUNK_LINES", 7)
    chunks = []
    original = engine.chunks
    monkeypatch.setattr(engine, "chunks", lambda *a, **k: (chunks.append(c) or c for c in original(*a, **k)))
    paths = []
    for k, (n, every) in enumerate([(300, 13), (5, 2), (0, 1), (97, 5)]):
        path = tmp_path / f"part{k}.jsonl"
        _write(path, n, every)
        paths.append(str(path))
    paths.append(str(tmp_path / "missing.jsonl"))
    one, r1 = _run(paths, jobs=1)
    many, r3 = _run(paths, jobs=3)
    assert len(one) > 40
    assert len(chunks) > 2 * 30  # both runs cut the 400 records into many chunks
    assert many == one  # same findings, same order
    assert r3.fingerprints().equals(r1.fingerprints())
    assert r3.lengths == r1.lengths and r1.lengths.records > 300
    assert r3.files == r1.files  # per-file lines, valid, invalid, blank, records, messages
    assert r3.counts == r1.counts and r3.io_errors == r1.io_errors == [f"{tmp_path}/missing.jsonl: no such file"]

"""The fixed costs of a check: what a worker process imports, and runs of identical findings."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from pathlib import Path

from conftest import ROOT, run

WORKER_START = """
import json, sys
from ftlint.cli import check  # what the CLI has imported by the time its pool forks
from ftlint.engine.judge import Settings
from ftlint.engine.pipeline import Chunk, _pool, _run_in_process

settings = Settings(encoding="o200k_base", model_name="", today="2026-12-01", bound_tokens=True)
lines = open("fixtures/good/drone_training.jsonl", "rb").read().splitlines()
lines.append(json.dumps({"messages": [{"role": "user", "content": "my key is AKIAIOSFODNN7EXAMPLE"}]}).encode())
pool = _pool(1, settings, ["openai-chat"])
result = pool.submit(_run_in_process, Chunk(0, "x.jsonl", list(enumerate(lines, 1)), "openai-chat", "test")).result()
main = set(sys.modules)
worker = pool.submit(eval, "sorted(__import__('sys').modules)").result()
pool.shutdown()
print(len(result.diagnostics) > 0, sorted(set(worker) - main))
"""


def test_a_worker_imports_nothing_for_its_first_chunk() -> None:
    """The rule modules, the literal scanner, jsonschema-rs (and the e-mail package it imports),
    the compiled schema, ctypes: made once in the main process before the pool forks, not again
    in each worker (measured: 43 modules and 0.06 CPU s a worker before). The chunk holds
    tool calls, a secret and a record the schema rejects, so the rules' lazy paths run."""
    out = subprocess.run([sys.executable, "-c", WORKER_START], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.splitlines()[-1:] == ["True []"], out.stdout + out.stderr


FORMATS = ("text", "json", "sarif", "github", "markdown")
BLANK = "blank line: every line must hold one JSON object"


def _flood(tmp_path: Path) -> tuple[Path, list[tuple[int, str, str]]]:
    """A file of floods: runs of blank lines (empty, and of spaces: another fingerprint), of `{}`, a
    run across chunks (CHUNK_MAX_LINES), runs of one line, records between; and the findings one
    at a time, as (line, code, raw line) made here from the lines themselves."""
    from ftlint.engine.pipeline import CHUNK_MAX_LINES

    good = [json.dumps({"messages": [{"role": "user", "content": f"hi {n}"}, {"role": "assistant", "content": "hello"}]})
            for n in range(3)]
    lines = ["", "", "", good[0], "{}", "{}", "   ", "   ", "", good[1], *[""] * (CHUNK_MAX_LINES + 5_000), "{}", good[2], "",
             "   ", "", *[""] * 300]
    path = tmp_path / "flood.jsonl"
    path.write_text("\n".join(lines) + "\n")
    expected = [(n, "FT005" if not raw.strip() else "FT101", raw) for n, raw in enumerate(lines, 1) if raw not in good]
    return path, expected


def _fingerprint(raw: str) -> str:
    return f"{int.from_bytes(hashlib.sha1(raw.encode()).digest()[:8], 'little'):016x}"


def test_a_flood_of_identical_findings_writes_what_one_finding_at_a_time_writes(tmp_path: Path) -> None:
    """Runs of the same finding travel and are written as runs (engine/merge.py Runs, the
    reporters' `run`); every output format holds the same bytes as when each finding comes on its
    own (a baseline's filter passes them one at a time), with --max-errors cutting a run too, and
    JSON and SARIF list every finding, with the line and fingerprint derived here."""
    path, expected = _flood(tmp_path)
    baseline = tmp_path / "baseline.json"
    baseline.write_text("[]")
    for fmt in FORMATS:
        for limit in ((), ("--max-errors", "7"), ("--max-errors", "25004")):
            runs = run("check", str(path), "-o", fmt, *limit)
            single = run("check", str(path), "-o", fmt, *limit, "--baseline", str(baseline))
            assert runs.exit_code == single.exit_code == 1
            assert runs.stdout == single.stdout, (fmt, limit)
    text = run("check", str(path)).stdout.splitlines()
    assert text[:len(expected)] == [f"{path}:{n}:1: {code} " + (BLANK if code == "FT005" else "missing required key 'messages' ($.messages)")
                                    for n, code, _ in expected]
    found = json.loads(run("check", str(path), "-o", "json").stdout)
    per_line = [(f["line"], f["code"], f["fingerprint"]) for f in found if f["line"]]
    assert per_line == [(n, code, _fingerprint(raw)) for n, code, raw in expected]
    sarif = json.loads(run("check", str(path), "-o", "sarif").stdout)["runs"][0]["results"]
    lines = [r["locations"][0]["physicalLocation"].get("region", {}).get("startLine") for r in sarif]
    assert [n for n in lines if n] == [n for n, _, _ in expected]
    assert [r["partialFingerprints"]["ftlintRecord/v1"] for r in sarif if r["ruleId"] in ("FT005", "FT101")] == \
        [_fingerprint(raw) for _, _, raw in expected]


def test_a_flood_reaches_a_callback_finding_by_finding(tmp_path: Path) -> None:
    """Through the Python API (a callback that takes no runs) each finding of a run is its own Diagnostic."""
    from ftlint import api

    path, expected = _flood(tmp_path)
    seen: list = []
    result = api.check([str(path)], dataset_rules=False, on_finding=seen.append)
    assert [(d.line, d.code, d.fingerprint) for d in seen if d.line] == [(n, c, _fingerprint(raw)) for n, c, raw in expected]
    assert [(d.line, d.code) for d in result.findings if d.line] == [(n, c) for n, c, _ in expected]

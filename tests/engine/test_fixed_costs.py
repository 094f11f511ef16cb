"""The fixed costs of a check: what a worker process imports, and runs of identical findings."""

from __future__ import annotations

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


def _flood(tmp_path: Path) -> tuple[Path, list[tuple[int, str, str, str]], list[str]]:
    """A file of floods: runs of blank lines (empty, and of spaces: another fingerprint), of `{}`,
    of broken JSON, of one valid record, a run across chunks (CHUNK_MAX_LINES), runs of one line,
    records between. Returns it, its findings one at a time as (line, code, message, fingerprint),
    each line's taken from a file of that line alone, and the text lines they make, with the
    summary line of the counts they make last."""
    from ftlint.engine.pipeline import CHUNK_MAX_LINES

    good = [json.dumps({"messages": [{"role": "user", "content": f"hi {n}"}, {"role": "assistant", "content": "hello"}]})
            for n in range(3)]
    lines = ["", "", "", good[0], "{}", "{}", "   ", "   ", "", good[1], *[""] * (CHUNK_MAX_LINES + 5_000), "{}", good[2], "",
             "   ", "", *["{}"] * 700, '{"messages": [', '{"messages": [', *[good[2]] * 3, *["{}"] * 2_000, "",
             *[""] * 300]
    path = tmp_path / "flood.jsonl"
    path.write_text("\n".join(lines) + "\n")
    alone = {}
    for raw in set(lines):
        one = tmp_path / "one.jsonl"
        one.write_text(raw + "\n")
        alone[raw] = [f for f in json.loads(run("check", str(one), "-o", "json").stdout) if f["line"] == 1]
    expected = [(n, f["code"], f["message"], f["fingerprint"]) for n, raw in enumerate(lines, 1) for f in alone[raw]]
    texts = [f"{path}:{n}:{f['col']}: {f['code']} {f['message']}" + (f" ({f['pointer']})" if f["pointer"] else "")
             for n, raw in enumerate(lines, 1) for f in alone[raw]]
    blank = sum(not raw.strip() for raw in lines)
    invalid = len({n for n, *_ in expected})
    summary = (f"checked 1 file (openai-chat), {len(lines):,} lines: {len(lines) - invalid:,} valid, {invalid:,} with errors "
               f"({blank:,} blank)")
    return path, expected, [*texts, summary]


def test_a_flood_of_identical_findings_writes_what_one_finding_at_a_time_writes(tmp_path: Path) -> None:
    """Runs of the same finding travel and are written as runs (engine/merge.py Runs, the
    reporters' `run`), and a repeated rejected line is judged once (pipeline.py _rejection);
    every output format holds the same bytes as when each finding comes on its own (a baseline's
    filter passes them one at a time), with --max-errors cutting a run too; the text, JSON and
    SARIF findings are those of each line checked alone, and the counts are those they make."""
    path, expected, texts = _flood(tmp_path)
    assert len(expected) > 25_000
    baseline = tmp_path / "baseline.json"
    baseline.write_text("[]")
    for fmt in FORMATS:
        for limit in ((), ("--max-errors", "25004")) if fmt != "text" else ((), ("--max-errors", "7"), ("--max-errors", "25004")):
            runs = run("check", str(path), "-o", fmt, *limit)
            single = run("check", str(path), "-o", fmt, *limit, "--baseline", str(baseline))
            assert runs.exit_code == single.exit_code == 1
            assert runs.stdout == single.stdout, (fmt, limit)
    text = run("check", str(path)).stdout.splitlines()
    assert text[:len(expected)] == texts[:-1]
    assert texts[-1] in text
    found = json.loads(run("check", str(path), "-o", "json").stdout)
    assert [(f["line"], f["code"], f["message"], f["fingerprint"]) for f in found if f["line"] and f["code"] != "FT402"] == expected
    sarif = json.loads(run("check", str(path), "-o", "sarif").stdout)["runs"][0]["results"]
    located = [(r["locations"][0]["physicalLocation"]["region"]["startLine"], r["ruleId"], r["partialFingerprints"]["ftlintRecord/v1"])
               for r in sarif if "region" in r["locations"][0]["physicalLocation"] and r["ruleId"] != "FT402"]
    assert located == [(n, code, fp) for n, code, _, fp in expected]


def test_a_flood_reaches_a_callback_finding_by_finding(tmp_path: Path) -> None:
    """Through the Python API (a callback that takes no runs) each finding of a run is its own Diagnostic."""
    from ftlint import api

    path, expected, _ = _flood(tmp_path)
    seen: list = []
    result = api.check([str(path)], dataset_rules=False, on_finding=seen.append)
    assert [(d.line, d.code, d.message, d.fingerprint) for d in seen if d.line and d.code != "FT402"] == expected
    assert [(d.line, d.code) for d in result.findings if d.line and d.code != "FT402"] == [(n, c) for n, c, _, _ in expected]

"""The fixed costs of a check: what a worker process imports, and runs of identical findings."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT

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

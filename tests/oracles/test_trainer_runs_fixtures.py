"""The trainer recordings of fixtures/trainer_runs/ are whole and agree with themselves.

tools/trainer_oracle/record.py ran the real TRL, LLaMA-Factory and axolotl on each case of
fixtures/trainer_runs/cases.yaml (docs/oracles.md) and wrote what they did. These tests read the
recordings only (no torch, no trainer): every case has its config, its data and its recording;
each recording's per-record figures add up to its totals; the corpus exercises every key issue 34
names. A test comparing ftlint's figures with the recordings is another file's business.
"""
from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml

RUNS = Path(__file__).parents[2] / "fixtures" / "trainer_runs"
FOLDER = {"trl": "trl", "llamafactory": "llama-factory", "axolotl": "axolotl"}
EXT = {"trl": ".yaml", "llamafactory": ".yaml", "axolotl": ".yml"}
MODEL_KEY = {"trl": "model_name_or_path", "llamafactory": "model_name_or_path", "axolotl": "base_model"}
FIGURES = {"records_in", "records_kept", "validation_rows", "tokens", "trained_tokens", "packed_rows", "dropped_long",
           "truncated_long", "steps_per_epoch", "total_steps", "warmup_steps", "epochs", "effective_batch"}
VERSIONS = {"trainer", "transformers", "datasets", "torch", "python"}
# The keys and behaviours of issue 34's items 1-4 and 6-10 (item 5 is mistral-finetune's, which
# this corpus does not run): each must be exercised by at least one case
ISSUE_KEYS = {
    "axolotl.sample_packing", "lf.packing",  # 1, 2
    "axolotl.val_set_size", "lf.val_size", "axolotl.split", "lf.max_samples",  # 3
    "lf.train_on_prompt", "lf.mask_history", "axolotl.roles_to_train", "axolotl.excess_length_strategy_truncate",
    "axolotl.excess_length_strategy_drop", "lf.stage_kto", "lf.stage_dpo",  # 4
    "lf.format_assistant", "lf.template.llama3", "axolotl.train_on_eos_turn", "axolotl.train_on_eos_all", "axolotl.train_on_eos_last",  # 6
    "trl.add_eos", "trl.drop_untrained", "trl.training_template_swap", "trl.prompt_completion",  # 7
    "lf.tools_json_string",  # 8
    "axolotl.type_alpaca",  # 9
    "warmup_ratio", "trl.warmup_ratio_transformers5",  # 10
    "lf.template.qwen", "lf.template.qwen3", "lf.template.qwen3_nothink", "axolotl.chat_template.qwen_25",
    "axolotl.chat_template.chatml", "axolotl.train_on_inputs", "trl.packing_bfd", "trl.packing_wrapped",
    "trl.assistant_only_loss", "trl.completion_only_loss", "gradient_accumulation_steps",
}


def corpus() -> dict[str, list[dict[str, Any]]]:
    with open(RUNS / "cases.yaml", encoding="utf-8") as fh:
        return yaml.safe_load(fh)


CASES = [(trainer, case) for trainer, cases in corpus().items() for case in cases]
IDS = [case["case"] for _, case in CASES]
# the cases the trainer refuses: their recordings hold its error and no figures
TRAINED = [(trainer, case) for trainer, case in CASES if not case.get("refuses")]
TRAINED_IDS = [case["case"] for _, case in TRAINED]


def recording(trainer: str, name: str) -> dict[str, Any]:
    with open(RUNS / FOLDER[trainer] / f"{name}.recorded.json", encoding="utf-8") as fh:
        return json.load(fh)


def test_the_corpus_has_forty_cases_and_each_trainer_some() -> None:
    per = {t: len(c) for t, c in corpus().items()}
    assert set(per) == set(FOLDER)
    assert sum(per.values()) >= 40 and min(per.values()) >= 10, per
    assert len(set(IDS)) == len(IDS)


def test_every_issue_key_is_exercised() -> None:
    exercised = {k for _, case in CASES for k in case["keys"]}
    assert exercised >= ISSUE_KEYS, sorted(ISSUE_KEYS - exercised)


@pytest.mark.parametrize(("trainer", "case"), CASES, ids=IDS)
def test_config_data_and_recording_exist_and_name_each_other(trainer: str, case: dict[str, Any]) -> None:
    folder = RUNS / FOLDER[trainer]
    config = folder / f"{case['case']}{EXT[trainer]}"
    assert config.is_file()
    with open(config, encoding="utf-8") as fh:
        keys = yaml.safe_load(fh)
    for data in case["data"]:
        assert (folder / data).is_file(), data
        assert (folder / data).resolve().is_relative_to(folder.resolve())
    rec = recording(trainer, case["case"])
    assert rec["case"] == case["case"] and rec["trainer"] == trainer
    assert rec["config"] == config.name and rec["data"] == case["data"]
    assert rec["model"] == keys[MODEL_KEY[trainer]]
    assert rec["keys"] == case["keys"]
    assert set(rec["versions"]) >= VERSIONS and all(rec["versions"][k] for k in VERSIONS)
    if case.get("refuses"):  # the trainer's error, raised in its own code, and nothing it did not do
        assert rec["figures"] is None and rec["per_record"] == []
        assert set(rec["refusal"]) == {"error", "message", "raised_in"} and rec["refusal"]["message"]
        assert rec["refusal"]["raised_in"].startswith("src/")
    else:
        assert set(rec["figures"]) == FIGURES and "refusal" not in rec


@pytest.mark.parametrize(("trainer", "case"), TRAINED, ids=TRAINED_IDS)
def test_per_record_figures_add_up_to_the_totals(trainer: str, case: dict[str, Any]) -> None:
    rec = recording(trainer, case["case"])
    f, rows = rec["figures"], rec["per_record"]
    assert [r["index"] for r in rows] == list(range(f["records_in"]))
    kept = [r for r in rows if r["kept"]]
    assert all(r["split"] == "train" for r in kept)
    assert all(r["split"] in ("validation", "dropped") for r in rows if not r["kept"])
    assert len(kept) == f["records_kept"]
    assert sum(r["split"] == "validation" for r in rows) == f["validation_rows"]
    assert sum(r["tokens"] for r in kept) == f["tokens"]
    assert sum(r["trained"] for r in kept) == f["trained_tokens"]
    assert sum(r["cut"] > 0 for r in kept) == f["truncated_long"]
    assert sum(r.get("reason") in ("too_long", "emptied_by_cut") for r in rows) == f["dropped_long"]
    assert all(0 <= r["trained"] <= r["tokens"] and r["cut"] >= 0 for r in rows)


@pytest.mark.parametrize(("trainer", "case"), TRAINED, ids=TRAINED_IDS)
def test_step_figures_hold_together(trainer: str, case: dict[str, Any]) -> None:
    f = recording(trainer, case["case"])["figures"]
    # axolotl's own total under sample packing can end inside the first epoch (a03, a05, a08)
    assert f["steps_per_epoch"] >= 1 and f["total_steps"] >= 1
    assert 0 <= f["warmup_steps"] <= f["total_steps"]
    # transformers' loop: as many epochs as it takes to reach the total
    assert (f["epochs"] - 1) * f["steps_per_epoch"] < f["total_steps"] <= f["epochs"] * f["steps_per_epoch"]
    assert f["effective_batch"] >= 1
    assert (f["packed_rows"] is None) or f["packed_rows"] >= 1


def test_committed_data_stays_small() -> None:
    size = sum(p.stat().st_size for p in RUNS.rglob("*") if p.is_file() and "data" in p.parts)
    assert size < 1_000_000, size


def test_sources_name_every_config_and_data_file() -> None:
    sources = (RUNS / "SOURCES.md").read_text(encoding="utf-8")
    for trainer, case in CASES:
        assert f"{case['case']}{EXT[trainer]}" in sources, case["case"]
    for path in RUNS.rglob("*"):
        if path.is_file() and "data" in path.parts:
            assert f"{path.parent.parent.name}/data/{path.name}" in sources, path

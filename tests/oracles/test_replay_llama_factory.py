"""ftlint against the real LLaMA-Factory: every recorded case of fixtures/trainer_runs/llama-factory/
(hiyouga/LLaMA-Factory@ff6d4d1 run on the CPU by tools/trainer_oracle/record.py, docs/oracles.md)
run through ftlint as a user runs it, `ftlint estimate --run CASE.yaml -o json`, and each figure
the trainer recorded compared with ftlint's: records read and kept, validation rows, tokens,
trained tokens, packed rows, dropped and cut records, steps per epoch, total steps, warmup,
epochs, effective batch. Then record by record: each record's tokens, trained tokens and cut, as
ftlint judged it, against the trainer's own (its processors' output for that record).

The recorder runs each config as written, preprocessing_num_workers included: datasets' map runs
the processors in that many processes, one contiguous shard each, and LLaMA-Factory packs each
shard on its own (docs/oracles.md). In one process the packing cases pack otherwise: ONE_PROCESS
holds what the real LLaMA-Factory did with them without the key (their recordings before the
recorder kept it), which ftlint must give for those configs without it."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, run

CASES = FIXTURES / "trainer_runs" / "llama-factory"
NAMES = sorted(p.name.removesuffix(".recorded.json") for p in CASES.glob("*.recorded.json"))
# LLaMA-Factory ff6d4d1's figures for the packing configs without preprocessing_num_workers (one process),
# recorded by tools/trainer_oracle/record.py when it dropped the key (fixtures/trainer_runs at 27669fa)
ONE_PROCESS = {
    "l03_packing": {"records_in": 151, "records_kept": 151, "validation_rows": 0, "tokens": 13365, "trained_tokens": 10727,
                    "packed_rows": 54, "dropped_long": 0, "truncated_long": 19, "steps_per_epoch": 7, "total_steps": 21,
                    "warmup_steps": 3, "epochs": 3, "effective_batch": 8},
    "l16_qwen3_lora_pretrain": {"records_in": 12, "records_kept": 11, "validation_rows": 0, "tokens": 6144, "trained_tokens": 6144,
                                "packed_rows": 3, "dropped_long": 0, "truncated_long": 1, "steps_per_epoch": 1, "total_steps": 3,
                                "warmup_steps": 1, "epochs": 3, "effective_batch": 8},
    "l17_packing_val_size": {"records_in": 151, "records_kept": 120, "validation_rows": 31, "tokens": 11114, "trained_tokens": 9073,
                             "packed_rows": 23, "dropped_long": 0, "truncated_long": 0, "steps_per_epoch": 3, "total_steps": 9,
                             "warmup_steps": 1, "epochs": 3, "effective_batch": 8},
}


def recorded(name: str) -> dict[str, Any]:
    return json.loads((CASES / f"{name}.recorded.json").read_text(encoding="utf-8"))


def figures_of(report: dict[str, Any]) -> dict[str, Any]:
    """ftlint's JSON estimate, named as the recordings name their figures (docs/estimate.md)."""
    cut = report.get("truncation") or {}
    return {
        "records_in": report["lines"],
        "records_kept": report["records"] - cut.get("records_dropped", 0),
        "validation_rows": (report.get("validation") or {}).get("records", 0),
        "tokens": report["tokens"],
        "trained_tokens": report["trainable_tokens"],
        "packed_rows": (report.get("packing") or {}).get("rows"),
        "dropped_long": cut.get("records_dropped", 0),
        "truncated_long": cut.get("records", 0),
        "steps_per_epoch": report["steps_per_epoch"],
        "total_steps": report["total_steps"],
        "warmup_steps": report["warmup_steps"],
        "epochs": report["epochs"],
        "effective_batch": report["effective_batch_size"],
    }


def estimate(config: Path) -> dict[str, Any]:
    r = run("estimate", "--run", str(config), "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def one_process(name: str, tmp_path: Path) -> Path:
    """The case's config without preprocessing_num_workers, beside its data."""
    shutil.copytree(CASES / "data", tmp_path / "data")
    text = (CASES / f"{name}.yaml").read_text(encoding="utf-8")
    kept = [line for line in text.splitlines() if not line.startswith("preprocessing_num_workers:")]
    config = tmp_path / f"{name}.yaml"
    config.write_text("\n".join(kept) + "\n", encoding="utf-8")
    return config


def test_every_llama_factory_case_is_replayed() -> None:
    assert len(NAMES) >= 20 and all((CASES / f"{n}.yaml").is_file() for n in NAMES)


@pytest.mark.parametrize("name", NAMES)
def test_ftlint_prints_the_figures_llama_factory_ran_with(name: str) -> None:
    want = recorded(name)["figures"]
    report = estimate(CASES / f"{name}.yaml")
    got = figures_of(report)
    assert {k: got[k] for k in want} == want
    assert report["tokens_exact"] is True, report["tokens_note"]


@pytest.mark.parametrize("name", sorted(ONE_PROCESS))
def test_packing_packs_each_map_shard_on_its_own(name: str, tmp_path: Path) -> None:
    """preprocessing_num_workers 16 (the recordings): datasets' map splits the rows into 16 contiguous
    shards (as many as there are rows, if fewer), and LLaMA-Factory packs each batch of each on its own;
    without it (one process), each batch of the whole (ONE_PROCESS)."""
    written = estimate(CASES / f"{name}.yaml")
    assert "preprocessing_num_workers 16" in written["packing"]["algorithm"]
    assert recorded(name)["trainer_settings"]["processes_noting_records"] > 1  # the recording was made with workers
    alone = figures_of(estimate(one_process(name, tmp_path)))
    assert alone == ONE_PROCESS[name]
    assert figures_of(written)["packed_rows"] != alone["packed_rows"]


def per_record(config: Path) -> list[tuple[int, int, int]]:
    """Each record as ftlint judged it, in the files' order: (tokens kept, trained kept, tokens cut)."""
    import dataclasses

    import ftlint.app as app
    from ftlint.options import PlanOptions, RunOptions
    from ftlint.resolve import resolve_run
    from ftlint.resolve.run_config import configured

    options, _ = configured(RunOptions(paths=(), run=str(config)), PlanOptions(), {})
    options = dataclasses.replace(options, keep_order=True, jobs=1)
    data = app.analyse_data(resolve_run(options), lambda d: None)
    return [(r.tokens - r.cut, r.trainable - r.cut_trainable, r.cut) for r in data.train.record_rows()]


@pytest.mark.parametrize("name", [n for n in NAMES if recorded(n)["trainer_settings"]["stage"] != "pt"
                                  or not recorded(n)["trainer_settings"]["packing"]])
def test_each_record_is_what_llama_factory_made_of_it(name: str) -> None:
    """Record by record, the processor's output (the recorder's hook on _encode_data_example, the
    cutoff lifted once more for what the cut removed): a total that agrees cannot hide two errors
    that cancel. Pretraining with packing is per block, not per record (the totals test holds it)."""
    mine = per_record(CASES / f"{name}.yaml")
    theirs = [(r["tokens"], r["trained"], r["cut"]) for r in recorded(name)["per_record"]]
    assert len(mine) == len(theirs)
    wrong = [(i, m, t) for i, (m, t) in enumerate(zip(mine, theirs, strict=True)) if m != t]
    assert wrong == []

"""Training-plan arithmetic (issue 4), each case computed by hand in its comment."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import run
from ftlint.estimate import ADVICE_THRESHOLDS, DatasetFigures, Plan, estimate
from ftlint.models import Sourced
from ftlint.trainer import HFSteps, hf_steps, hf_warmup, pack

PRICE = Sourced(5.0, "test", "2026", "V")


def plan_for(records: int, plan: Plan, tokens: int = 1000, lengths: list[int] | None = None, price: Sourced | None = PRICE):  # type: ignore[no-untyped-def]
    data = DatasetFigures(lines=records, invalid_lines=0, messages=2 * records, records=records, targets=records,
                          tokens_in_file=tokens, tokens_capped=tokens, trainable_tokens=tokens // 2)
    return estimate(data, plan, model="m", encoding="o200k_base", context_limit=None, price=price, min_examples=None, lengths=lengths)


def codes(e) -> set[str]:  # type: ignore[no-untyped-def]
    return {w["code"] for w in e.warnings}


def test_hf_steps_with_devices_and_accumulation() -> None:
    # 1000 records, batch 4: 250 batches; 2 devices: 125 each; accumulate 8: ceil(125/8) = 16
    assert hf_steps(1000, 4, 2, 8, drop_last=False) == HFSteps(250, 125, 16)
    e = plan_for(1000, Plan(trainer="hf", epochs=3, batch_size=4, gpus=2, grad_accum=8, warmup_ratio=Fraction("0.1")))
    assert (e.steps_per_epoch, e.total_steps, e.warmup_steps, e.effective_batch_size) == (16, 48, 5, 64)  # ceil(4.8) = 5


def test_hf_drop_last_differs_from_plain_floor() -> None:
    # 100 records, batch 8, drop_last: 12 batches; accumulate 5: ceil(12/5) = 3 updates,
    # where floor(100 / 40) would say 2
    assert hf_steps(100, 8, 1, 5, drop_last=True).updates_per_epoch == 3
    assert plan_for(100, Plan(epochs=1, batch_size=8, grad_accum=5, drop_last=True)).steps_per_epoch == 2
    # transformers <= 4.51 floored the accumulation: 12 // 5 = 2
    assert hf_steps(100, 8, 1, 5, drop_last=True, legacy=True).updates_per_epoch == 2


def test_hf_at_least_one_update_per_epoch() -> None:
    # 3 records, batch 8: one batch; accumulate 4: ceil(1/4) = 1 (legacy: max(0, 1) = 1)
    assert hf_steps(3, 8, 1, 4, drop_last=False).updates_per_epoch == 1
    assert hf_steps(3, 8, 1, 4, drop_last=False, legacy=True).updates_per_epoch == 1
    assert hf_steps(0, 8, 1, 4, drop_last=False).updates_per_epoch == 0


def test_hf_warmup_rounds_in_floating_point_like_transformers() -> None:
    assert 100 * 0.07 == 7.000000000000001
    assert hf_warmup(100, None, 0.07) == 8  # what transformers computes
    assert plan_for(100, Plan(epochs=1, batch_size=1, warmup_ratio=Fraction("0.07"))).warmup_steps == 7  # exact, hosted
    assert plan_for(100, Plan(trainer="hf", epochs=1, batch_size=1, warmup_ratio=Fraction("0.07"))).warmup_steps == 8
    assert hf_warmup(100, 5, 0.07) == 5  # warmup_steps wins


def test_max_steps_overrides_epochs() -> None:
    # 16 updates per epoch (as above); 40 steps: epochs run = ceil(40/16) = 3, 2.5 passes,
    # tokens processed = 1000 x 2.5
    e = plan_for(1000, Plan(trainer="hf", epochs=9, max_steps=40, batch_size=4, gpus=2, grad_accum=8))
    assert (e.total_steps, e.epochs, e.epochs_covered, e.tokens_processed) == (40, 3, 2.5, 2500)
    assert e.cost_usd == pytest.approx(2500 * 5 / 1e6)


def test_packing_best_fit_decreasing() -> None:
    # 3000 is cut to 2048 (952 tokens lost); then 2048 | 1500+500 | 600+400 = 3 rows;
    # perfect packing: ceil(5048 / 2048) = 3
    p = pack([1500, 600, 500, 400, 3000], 2048)
    assert (p.rows, p.lower_bound_rows, p.kept_tokens, p.truncated_records, p.truncated_tokens) == (3, 3, 5048, 1, 952)


def test_packing_happens_per_1000_record_batch() -> None:
    # 1000 records of 1500 then 1000 of 500: packed together they would share rows (1000 rows);
    # TRL packs each map batch of 1000 apart: 1000 rows + 1000/4 = 1250 rows
    assert pack([1500] * 1000 + [500] * 1000, 2048).rows == 1250
    assert pack([1500, 500] * 1000, 2048).rows == 1000


def test_packing_drives_steps() -> None:
    # 100 records, one map batch, longest first: 20 rows hold a cut 2048 each; 20 rows take a
    # 1500 and then a 500 (548 free); the 600s go 3 to a row (7 rows, one with 848 free); the
    # 400s: 2 into that row, then 5 to a fresh row (18 -> 4 rows). 20 + 20 + 7 + 4 = 51 rows.
    lengths = [1500, 600, 500, 400, 3000] * 20
    e = plan_for(100, Plan(trainer="hf", packing=True, max_seq_len=2048, epochs=1, batch_size=4), tokens=sum(lengths), lengths=lengths)
    assert e.packing.rows == 51 and e.sequences == 51
    assert e.steps_per_epoch == 13  # ceil(51 / 4)
    assert e.tokens == 5048 * 20 and "FT509" in codes(e)


def test_budget_buys_whole_epochs() -> None:
    # 1000 tokens per epoch at $5 per 1M = $0.005 an epoch: $0.012 buys 2 epochs
    e = plan_for(100, Plan(epochs=3, batch_size=10, budget_usd=0.012))
    assert e.budget.max_epochs == 2 and e.budget.max_steps == 20
    assert "FT510" in codes(e)
    assert plan_for(100, Plan(epochs=3, batch_size=10, budget_tokens=5000)).budget.max_epochs == 5


def test_self_hosted_time_and_cost() -> None:
    # 1,200,000 tokens x 3 epochs = 3.6M tokens at 1000 tokens/s = 1 hour; 2 GPUs at $3 = $6
    e = plan_for(1000, Plan(epochs=3, batch_size=10, gpus=2, tokens_per_second=1000, gpu_hour_usd=3), tokens=1_200_000)
    assert e.self_hosted.wall_hours == 1.0 and e.self_hosted.compute_cost_usd == 6.0


def test_learning_rate_scaling() -> None:
    # tuned at 32, now 16 x 8 = 128: linear 1e-4 x 4 = 4e-4, square root 1e-4 x 2 = 2e-4
    e = plan_for(5000, Plan(epochs=1, batch_size=16, grad_accum=8, learning_rate=1e-4, reference_batch_size=32))
    assert e.learning_rate.linear == pytest.approx(4e-4) and e.learning_rate.sqrt == pytest.approx(2e-4)
    assert "FT507" in codes(e)
    assert "FT507" not in codes(plan_for(5000, Plan(epochs=1, batch_size=32, learning_rate=1e-4, reference_batch_size=32)))


def test_advice_fires_and_stays_silent() -> None:
    sane = Plan(epochs=2, batch_size=16, warmup_ratio=Fraction("0.05"))
    assert codes(plan_for(5000, sane)) == set()
    assert "FT506" in codes(plan_for(5000, Plan(epochs=5, batch_size=16)))
    assert "FT508" in codes(plan_for(200_000, Plan(epochs=2, batch_size=64)))
    assert "FT508" not in codes(plan_for(200_000, Plan(epochs=1, batch_size=64)))


def test_thresholds_are_configurable() -> None:
    t = dict(ADVICE_THRESHOLDS, min_total_steps=10)
    assert "FT503" in codes(plan_for(156, Plan(epochs=3, batch_size=16)))  # 30 steps
    assert "FT503" not in codes(plan_for(156, Plan(epochs=3, batch_size=16, thresholds=t)))
    cli = json.loads(run("estimate", "fixtures/good/drone_training.jsonl", "-e", "3", "-b", "8", "--min-total-steps", "10", "-o", "json").stdout)
    assert "FT503" not in {w["code"] for w in cli["warnings"]}


def test_cli_packing_and_plots() -> None:
    out = run("estimate", "fixtures/good/drone_training.jsonl", "--trainer", "hf", "--packing", "--max-seq-len", "2048",
              "-e", "1", "-b", "2", "--plots", "--schedule", "cosine", "--warmup-ratio", "0.1")
    assert out.exit_code == 0
    assert "packed rows" in out.stdout and "learning rate (cosine, warmup" in out.stdout and "tokens per record (records per bin)" in out.stdout
    assert run("estimate", "fixtures/good/drone_training.jsonl", "--packing").exit_code == 2  # needs hf + max-seq-len


def test_tuning_study_rounds() -> None:
    out = json.loads(run("plan", "fixtures/good/drone_training.jsonl", "-e", "3", "-b", "1", "--price", "10",
                         "--trials", "12", "--finalists", "3", "-o", "json").stdout)
    s, e = out["study"], out["estimate"]
    # production: 103 steps x 3 = 309; a short run is ceil(30.9) = 31 steps, 31/309 of the tokens
    assert (s["production_steps"], s["rounds"][0]["steps_per_run"]) == (309, 31)
    explore, confirm = s["rounds"]
    assert explore["tokens_per_run"] == round(e["tokens_processed"] * 31 / 309)
    assert explore["steps"] == 12 * 31 and confirm["steps"] == 3 * 309
    assert s["total_steps"] == 12 * 31 + 3 * 309
    assert s["total_cost_usd"] == pytest.approx(e["cost_usd"] * (12 * 31 / 309 + 3), rel=1e-6)
    assert s["cost_in_production_runs"] == round((12 * 31 + 3 * 309) / 309, 3)

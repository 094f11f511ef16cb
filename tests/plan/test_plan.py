"""Training-plan arithmetic (issue 4), each case computed by hand in its comment."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from conftest import FIXTURES, run
from ftlint.app import planned as estimate
from ftlint.models import Sourced
from ftlint.options import PlanOptions as Plan
from ftlint.options import Thresholds
from ftlint.plan.estimate import DatasetInfo
from ftlint.plan.figures import DatasetFigures
from ftlint.trainers import named
from ftlint.trainers.base import RecordRow
from ftlint.trainers.steps import HuggingFace
from ftlint.trainers.trl.packing import pack

PRICE = Sourced(5.0, "test", "2026", "V", unit="usd_per_1m_tokens")


def plan_for(records: int, plan: Plan, tokens: int = 1000, lengths: list[int] | None = None, price: Sourced | None = PRICE,  # type: ignore[no-untyped-def]
             trainer: str | None = None):
    data = DatasetFigures(lines=records, invalid_lines=0, messages=2 * records, records=records, targets=records,
                          tokens_in_file=tokens, tokens_capped=tokens, trainable_tokens=tokens // 2)
    profile = named(trainer) if trainer not in (None, "hosted") else None
    ordered = [RecordRow(n, 0, n // 2, 0, 2, 1, False, 0) for n in lengths] if lengths is not None else None
    return estimate(data, plan, DatasetInfo((), "m", "o200k_base", None, trainer=profile), price=price, ordered=ordered)


def codes(e) -> set[str]:  # type: ignore[no-untyped-def]
    return {d.code for d in e.findings}


def hf(n: int, batch: int, gpus: int, accum: int, drop_last: bool = False, epochs: int = 1, max_steps: int | None = None,
       legacy: bool = False):  # type: ignore[no-untyped-def]
    return HuggingFace(legacy).schedule(n, epochs, batch, accum, gpus, drop_last, max_steps)


def test_hf_steps_with_devices_and_accumulation() -> None:
    # 1000 records, batch 4: 250 batches; 2 devices: 125 each; accumulate 8: ceil(125/8) = 16
    assert hf(1000, 4, 2, 8).steps_per_epoch == 16
    e = plan_for(1000, Plan(epochs=3, batch_size=4, gpus=2, grad_accum=8, warmup_ratio=Fraction("0.1")), trainer="hf")
    assert (e.schedule.steps_per_epoch, e.schedule.total_steps, e.schedule.warmup_steps, e.schedule.effective_batch_size) == (16, 48, 5, 64)  # ceil(4.8) = 5


def test_hf_drop_last_differs_from_plain_floor() -> None:
    # 100 records, batch 8, drop_last: 12 batches; accumulate 5: ceil(12/5) = 3 updates,
    # where floor(100 / 40) would say 2
    assert hf(100, 8, 1, 5, drop_last=True).steps_per_epoch == 3
    assert plan_for(100, Plan(epochs=1, batch_size=8, grad_accum=5, drop_last=True)).schedule.steps_per_epoch == 2
    # transformers <= 4.51 planned floor(12 / 5) = 2 steps an epoch (max_steps = 2 for one epoch),
    # but its loop steps on the partial window too: 3 steps in a whole epoch, so the run stops
    # after 2 of them, two thirds through its only epoch
    legacy = hf(100, 8, 1, 5, drop_last=True, legacy=True)
    assert (legacy.steps_per_epoch, legacy.total_steps, legacy.epochs_run, legacy.epochs_covered) == (3, 2, 1, 0.6667)
    # three epochs: max_steps = 6 = two whole epochs of 3 steps; the third never starts
    legacy = hf(100, 8, 1, 5, drop_last=True, legacy=True, epochs=3)
    assert (legacy.total_steps, legacy.epochs_run) == (6, 2)


def test_hf_at_least_one_update_per_epoch() -> None:
    # 3 records, batch 8: one batch; accumulate 4: ceil(1/4) = 1 (legacy: max(0, 1) = 1)
    assert hf(3, 8, 1, 4).steps_per_epoch == 1
    assert hf(3, 8, 1, 4, legacy=True).steps_per_epoch == 1
    assert hf(0, 8, 1, 4).steps_per_epoch == 0


def test_hf_drop_last_without_a_full_batch_trains_nothing() -> None:
    # 5 records, batch 8, drop_last: the dataloader is empty; transformers raises unless
    # max_steps is given, and then trains 0 steps. Before, ftlint invented one step an epoch.
    s = hf(5, 8, 1, 1, drop_last=True, epochs=3)
    assert (s.steps_per_epoch, s.total_steps, s.sequences_processed) == (0, 0, 0)
    assert "refuses to start" in s.refusal
    e = plan_for(5, Plan(epochs=3, batch_size=8, drop_last=True), trainer="hf")
    assert e.schedule.total_steps == 0 and e.schedule.tokens_processed == 0 and "FT511" in codes(e)
    assert "0 steps" in hf(5, 8, 1, 1, drop_last=True, max_steps=10).refusal
    # 4.51 with grad accum >= 2 asks the empty loader for batches: accelerate before 1.9 then fails
    # (the recorded 4.51.3 + accelerate 1.6.0 runs raised UnboundLocalError in 264 such cases)
    assert "UnboundLocalError" in hf(5, 8, 1, 2, drop_last=True, max_steps=10, legacy=True).refusal
    assert "UnboundLocalError" not in hf(5, 8, 1, 2, drop_last=True, max_steps=10).refusal


def test_hf_sequences_fed_count_dropped_and_repeated_records() -> None:
    # one device, 103 records, batch 8, drop_last: 12 batches of 8 = 96 fed an epoch, not 103
    assert hf(103, 8, 1, 1, drop_last=True, epochs=2).sequences_processed == 192
    # two devices, no drop_last: 13 batches -> 7 per device, every batch filled from the
    # epoch's first records (accelerate's even_batches): 7 x 2 x 8 = 112 fed an epoch
    assert hf(103, 8, 2, 1, epochs=2).sequences_processed == 224
    e = plan_for(103, Plan(epochs=2, batch_size=8, gpus=2), tokens=10_300, trainer="hf")
    assert e.schedule.tokens_processed == 22_400  # 224 sequences x 100 tokens on average


def test_hf_legacy_leaves_batches_unused_when_records_mod_accumulation_is_small() -> None:
    # 4.51 chunks an epoch by N % grad_accum (records, not batches): 81 records, batch 8: 11
    # batches; accumulate 4: updates of 4, 4, then one of 81 % 4 = 1 batch: 9 batches fed in an
    # epoch that goes on (72 records), the last 2 never seen; syncs after batches 4 and 8 only:
    # 2 steps an epoch (4.52+: 3 steps, all 11 batches). The last epoch ends at its last step:
    # the 9th batch is never fed then (2 steps x 4 batches x 8 = 64), as the real 4.51.3 does
    legacy = hf(81, 8, 1, 4, legacy=True, epochs=1)
    assert (legacy.steps_per_epoch, legacy.total_steps, legacy.sequences_processed) == (2, 2, 64)
    two = hf(81, 8, 1, 4, legacy=True, epochs=2)
    assert (two.total_steps, two.sequences_processed) == (4, 72 + 64)
    assert hf(81, 8, 1, 4, epochs=1).steps_per_epoch == 3


def test_hf_warmup_rounds_in_floating_point_like_transformers() -> None:
    assert 100 * 0.07 == 7.000000000000001
    assert HuggingFace().warmup(100, Fraction("0.07"), None) == 8  # what transformers computes
    assert plan_for(100, Plan(epochs=1, batch_size=1, warmup_ratio=Fraction("0.07"))).schedule.warmup_steps == 7  # exact, hosted
    assert plan_for(100, Plan(epochs=1, batch_size=1, warmup_ratio=Fraction("0.07")), trainer="hf").schedule.warmup_steps == 8
    assert HuggingFace().warmup(100, Fraction("0.07"), 5) == 5  # warmup_steps wins


def test_max_steps_overrides_epochs() -> None:
    # 16 updates per epoch (as above); 40 steps: epochs run = ceil(40/16) = 3, 2.5 passes. Each
    # device takes 125 batches of 4 an epoch (250 batches, the last of the 1000 records full):
    # 1,000 fed an epoch; the 8 steps of the third epoch take 8 x 8 batches x 2 devices x 4 = 512
    # records: 2,512 sequences fed, 2,512 tokens at 1 token each on average
    e = plan_for(1000, Plan(epochs=9, max_steps=40, batch_size=4, gpus=2, grad_accum=8), trainer="hf")
    assert (e.schedule.total_steps, e.schedule.epochs, e.schedule.epochs_covered, e.schedule.sequences_processed, e.schedule.tokens_processed) == (40, 3, 2.5, 2512, 2512)
    assert e.cost.cost_usd is None  # a self-hosted run is not priced per token unless --price is given
    priced = plan_for(1000, Plan(epochs=9, max_steps=40, batch_size=64), trainer="hosted")
    # hosted: 16 steps an epoch (15 of 64 and one of 40); 40 steps = 2 epochs + 8 steps of 64 = 2,512
    assert (priced.schedule.sequences_processed, priced.schedule.tokens_processed) == (2512, 2512)
    assert priced.cost.cost_usd == pytest.approx(2512 * 5 / 1e6)


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


@pytest.mark.parametrize("strategy", ["bfd", "bfd_split", "wrapped"])
def test_packing_strategies_make_the_rows_trls_own_packer_made(strategy: str) -> None:
    """fixtures/oracle/trl_pack_dataset.json: trl.data_utils.pack_dataset (huggingface/trl@f2cd577) run on
    2,300 rows of random lengths at seq_length 256 (tools/record_trl_packing.py)."""
    oracle = json.loads((FIXTURES / "oracle" / "trl_pack_dataset.json").read_text(encoding="utf-8"))
    p = pack(oracle["lengths"], oracle["seq_length"], strategy)
    assert (p.rows, p.kept_tokens) == (oracle["packed"][strategy]["rows"], oracle["packed"][strategy]["tokens"])


def test_packing_drives_steps() -> None:
    # 100 records, one map batch, longest first: 20 rows hold a cut 2048 each; 20 rows take a
    # 1500 and then a 500 (548 free); the 600s go 3 to a row (7 rows, one with 848 free); the
    # 400s: 2 into that row, then 5 to a fresh row (18 -> 4 rows). 20 + 20 + 7 + 4 = 51 rows.
    lengths = [1500, 600, 500, 400, 3000] * 20
    e = plan_for(100, Plan(packing=True, max_seq_len=2048, epochs=1, batch_size=4), tokens=sum(lengths), lengths=lengths, trainer="hf")
    assert e.packing.rows == 51 and e.schedule.sequences == 51
    assert e.schedule.steps_per_epoch == 13  # ceil(51 / 4)
    assert e.counts.tokens == 5048 * 20 and "FT509" in codes(e)


def test_the_estimate_holds_out_and_packs_through_the_trainers_one_seam() -> None:
    """A trainer changes what it batches only through Trainer.prepare (issue 34): the estimate of
    LLaMA-Factory's records, given them in order, holds out val_size's share and packs the rest
    itself. Ten records of 100 tokens (50 trained), val_size 0.2: 2 held out whichever the split
    picks (200 tokens), 8 train (800 tokens, 400 trained); greedy_knapsack puts two in a row of
    256 (56 free): 4 rows, 4 steps at batch 1."""
    data = DatasetFigures(lines=10, invalid_lines=0, messages=20, records=10, targets=10, tokens_in_file=1000, tokens_capped=1000,
                          trainable_tokens=500, trainable_tokens_in_file=500)
    info = DatasetInfo(("train.jsonl",), "m", "o200k_base", None, trainer=named("llama-factory"), trainer_keys=(("val_size", 0.2),))
    ordered = [RecordRow(100, 0, 50, 0, 2, 1, False, 0)] * 10
    e = estimate(data, Plan(packing=True, max_seq_len=256, epochs=1, batch_size=1), info, price=None, ordered=ordered)
    assert (e.data.records, e.counts.tokens, e.counts.trainable_tokens, e.data.messages, e.data.targets, e.counts.tokens_in_file) == \
           (8, 800, 400, 16, 8, 800)
    v = e.validation
    assert v is not None and (v.paths, v.lines, v.records, v.tokens) == (["train.jsonl"], 2, 2, 200) and "val_size 0.2" in v.billing_note
    assert e.packing is not None and (e.packing.rows, e.schedule.sequences, e.schedule.steps_per_epoch) == (4, 4, 4)


def test_budget_buys_whole_epochs() -> None:
    # 1000 tokens per epoch at $5 per 1M = $0.005 an epoch: $0.012 buys 2 epochs
    e = plan_for(100, Plan(epochs=3, batch_size=10, budget_usd=0.012))
    assert e.cost.budget.max_epochs == 2 and e.cost.budget.max_steps == 20
    assert "FT510" in codes(e)
    assert plan_for(100, Plan(epochs=3, batch_size=10, budget_tokens=5000)).cost.budget.max_epochs == 5


def test_self_hosted_time_and_cost() -> None:
    # 1,200,000 tokens x 3 epochs = 3.6M tokens at 1000 tokens/s = 1 hour; 2 GPUs at $3 = $6
    e = plan_for(1000, Plan(epochs=3, batch_size=10, gpus=2, tokens_per_second=1000, gpu_hour_usd=3), tokens=1_200_000)
    assert e.cost.self_hosted.wall_hours == 1.0 and e.cost.self_hosted.compute_cost_usd == 6.0


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


def test_preference_pairs_are_not_said_to_be_supervised() -> None:
    """FT506's threshold for preference pairs is 2 epochs, in words of preference runs; TRL trains
    them with its DPOTrainer, and the trainer row says so, not the SFTTrainer."""
    def warnings(*args: str) -> dict[str, str]:
        out = json.loads(run("estimate", *args, "-o", "json").stdout)
        return {w["code"]: w["message"] for w in out["warnings"]} | {"title": out["trainer_title"]}

    pairs = warnings("fixtures/formats/trl-preference/good.jsonl", "--trainer", "trl", "--epochs", "3", "--batch-size", "1")
    assert pairs["FT506"] == "3 epochs: preference (DPO) runs rarely gain past 2; check validation loss per epoch"
    assert "SFT" not in pairs["title"].split("(")[0] and pairs["title"].startswith("TRL DPOTrainer")
    chats = warnings("fixtures/formats/trl-messages/good.jsonl", "--trainer", "trl", "--epochs", "3", "--batch-size", "1")
    assert "FT506" not in chats and chats["title"] == "TRL SFTTrainer (Hugging Face Trainer)"
    assert "supervised runs rarely gain past 3" in warnings("fixtures/good/drone_training.jsonl", "--trainer", "trl",
                                                            "--epochs", "4")["FT506"]  # 103 records: not FT504's few


def test_thresholds_are_configurable() -> None:
    t = Thresholds(min_total_steps=10)
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

"""Training arithmetic against hand-computed values, through the pure function and the CLI."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

from conftest import run
from ftlint.app import planned as estimate
from ftlint.models import Sourced
from ftlint.options import PlanOptions as Plan
from ftlint.plan.estimate import DatasetInfo
from ftlint.plan.figures import DatasetFigures
from ftlint.trainers.steps import auto_batch_size, auto_epochs

PRICE = Sourced(5.0, "test", "2026", "V", unit="usd_per_1m_tokens")


def figures(records: int, tokens: int = 1000) -> DatasetFigures:
    return DatasetFigures(lines=records, invalid_lines=0, messages=3 * records, records=records,
                          targets=records, tokens_in_file=tokens, tokens_capped=tokens, trainable_tokens=tokens // 4)


def run_plan(records: int, plan: Plan, tokens: int = 1000, price: Sourced | None = PRICE, min_examples: int | None = 10):  # type: ignore[no-untyped-def]
    return estimate(figures(records, tokens), plan, DatasetInfo((), "m", "o200k_base", None, min_examples=min_examples), price=price)


def test_partial_last_batch_is_a_step() -> None:
    e = run_plan(810, Plan(epochs=3, batch_size=8))
    # 810 = 101 x 8 + 2: 101 full batches and one of 2
    assert (e.schedule.full_batches, e.schedule.last_batch, e.schedule.steps_per_epoch, e.schedule.total_steps) == (101, 2, 102, 306)


def test_drop_last_floors() -> None:
    e = run_plan(810, Plan(epochs=3, batch_size=8, drop_last=True))
    assert (e.schedule.steps_per_epoch, e.schedule.total_steps) == (101, 303)


def test_effective_batch_multiplies_batch_accumulation_and_gpus() -> None:
    e = run_plan(1000, Plan(epochs=2, batch_size=4, grad_accum=8, gpus=2))
    # 4 x 8 x 2 = 64; 1000 / 64 = 15.625 -> 16 steps per epoch, 32 in total
    assert (e.schedule.effective_batch_size, e.schedule.steps_per_epoch, e.schedule.total_steps) == (64, 16, 32)
    assert (e.schedule.full_batches, e.schedule.last_batch) == (15, 40)


def test_exact_division_has_no_partial_batch() -> None:
    e = run_plan(800, Plan(epochs=1, batch_size=8))
    assert (e.schedule.steps_per_epoch, e.schedule.last_batch) == (100, 0)


def test_warmup_ratio_rounds_up_exactly() -> None:
    # 0.07 x 100 is 7 exactly (binary floats make it 7.000000000000001, which rounds up to 8)
    assert 100 * 0.07 == 7.000000000000001
    e = run_plan(100, Plan(epochs=1, batch_size=1, warmup_ratio=Fraction("0.07")))
    assert e.schedule.warmup_steps == 7
    e = run_plan(31, Plan(epochs=1, batch_size=1, warmup_ratio=Fraction("0.1")))
    assert e.schedule.warmup_steps == 4  # ceil(3.1)


def test_tokens_processed_and_cost() -> None:
    e = run_plan(100, Plan(epochs=4, batch_size=10), tokens=250_000)
    assert e.schedule.tokens_processed == 1_000_000
    assert e.cost.cost_usd == pytest.approx(5.0)
    assert run_plan(100, Plan(epochs=4), price=None).cost.cost_usd is None


@pytest.mark.parametrize(("records", "epochs"), [(1, 25), (5, 20), (33, 3), (34, 3), (8333, 3), (8334, 2), (30000, 1)])
def test_auto_epochs_follows_the_cookbook(records: int, epochs: int) -> None:
    # n=3; if 3n < 100: min(25, 100 // n); elif 3n > 25000: max(1, 25000 // n)
    assert auto_epochs(records) == epochs


@pytest.mark.parametrize(("records", "batch"), [(1, 1), (249, 1), (250, 1), (750, 2), (1000, 2), (10_000, 20), (1_000_000, 256)])
def test_auto_batch_size(records: int, batch: int) -> None:
    assert auto_batch_size(records) == batch


def codes(e) -> set[str]:  # type: ignore[no-untyped-def]
    return {d.code for d in e.findings}


def test_sane_plan_has_no_advice() -> None:
    assert codes(run_plan(5000, Plan(epochs=2, batch_size=16, warmup_ratio=Fraction("0.05")))) == set()


def test_advice_fires_on_the_plans_made_to_trigger_it() -> None:
    assert "FT503" in codes(run_plan(156, Plan(epochs=3, batch_size=16)))  # 30 steps
    assert "FT504" in codes(run_plan(40, Plan(epochs=10, batch_size=1)))
    assert "FT504" in codes(run_plan(5000, Plan(epochs=12, batch_size=16)))
    assert "FT505" in codes(run_plan(120, Plan(epochs=1, batch_size=1, warmup_steps=100)))
    assert "FT502" in codes(run_plan(5, Plan(epochs=1, batch_size=1)))


def test_cli_prints_every_figure_of_the_plan() -> None:
    out = run("estimate", "fixtures/good/drone_training.jsonl", "--epochs", "3", "--batch-size", "8",
              "--grad-accum", "2", "--gpus", "2", "--warmup-ratio", "0.1", "--price", "10", "-o", "json")
    e = json.loads(out.stdout)
    assert out.exit_code == 0
    # 103 records, effective batch 8 x 2 x 2 = 32: 3 full batches and one of 7 -> 4 steps per epoch
    assert (e["effective_batch_size"], e["full_batches"], e["last_batch"]) == (32, 3, 7)
    assert (e["steps_per_epoch"], e["total_steps"], e["warmup_steps"]) == (4, 12, 2)  # ceil(1.2) = 2
    assert e["tokens_processed"] == 3 * e["tokens"]
    assert e["cost_usd"] == pytest.approx(e["tokens_processed"] * 10 / 1e6)
    assert e["price_source"] == "from the command line"
    text = run("estimate", "fixtures/good/drone_training.jsonl", "--epochs", "3", "--batch-size", "8",
               "--grad-accum", "2", "--gpus", "2", "--warmup-ratio", "0.1", "--price", "10").stdout
    assert "= ceil(103 / 32): 3 full batches and one of 7 (a partial last batch)" in text
    assert "= 8 batch x 2 grad-accum x 2 GPUs" in text
    assert "= ceil(0.1 x 12)" in text


def test_estimate_json_contract_keys() -> None:
    e = json.loads(run("estimate", "fixtures/good/openai_chat_basic.jsonl", "-o", "json").stdout)
    required = {"records", "lines", "messages", "targets", "tokens", "trainable_tokens", "effective_batch_size",
                "steps_per_epoch", "total_steps", "warmup_steps", "epochs", "tokens_processed", "cost_usd", "warnings"}
    assert required <= set(e)
    assert all(set(w) == {"code", "message", "severity"} for w in e["warnings"])


def test_every_figure_of_the_estimate_is_a_json_key_once() -> None:
    """The Estimate holds its figures in groups; `-o json` names each once, flat (Estimate.to_dict):
    a figure added to a group is added to the JSON too. Not in it: the findings (its `warnings`), the
    words of a trainer's own steps per epoch (in the text's row) and whether no model was named
    (RunFigures.model_unnamed, for the text's words: the JSON's "model" is "(none named)" then)."""
    import dataclasses

    from ftlint.plan.estimate import JSON_KEYS, Estimate

    hints = {f.name: f.type for f in dataclasses.fields(Estimate)}
    groups = {"data", "counts", "run", "schedule", "cost"}
    assert groups <= set(hints)
    from ftlint.plan import groups as kinds

    held = [f"{g}.{f.name}" for g in sorted(groups) for f in dataclasses.fields(getattr(kinds, hints[g]))]
    held += [name for name in hints if name not in groups]
    assert sorted(JSON_KEYS) == sorted(set(JSON_KEYS)) == sorted(set(held) - {"findings", "schedule.per_epoch_rule", "run.model_unnamed"})
    assert len(dataclasses.fields(Estimate)) <= 25  # issue 36: no flat bag of figures again


def test_estimate_counts_only_readable_records_and_says_so(tmp_path: Path) -> None:
    good = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})
    path = tmp_path / "mixed.jsonl"
    path.write_text(f"{good}\nnot json\n{good}\n")
    e = json.loads(run("estimate", str(path), "-o", "json").stdout)
    assert (e["lines"], e["records"], e["invalid_lines"]) == (3, 2, 1)
    assert "FT501" in {w["code"] for w in e["warnings"]}


def test_warmup_ratio_and_steps_are_exclusive() -> None:
    out = run("estimate", "fixtures/good/openai_chat_basic.jsonl", "--warmup-ratio", "0.1", "--warmup-steps", "5")
    assert out.exit_code == 2
    assert "not both" in out.stderr


def test_gates_fail_with_their_own_codes() -> None:
    path = "fixtures/good/drone_training.jsonl"
    base = json.loads(run("estimate", path, "--epochs", "3", "-o", "json").stdout)  # $1.17, 233,403 tokens, 103 records
    ok = run("estimate", path, "--epochs", "3", "--max-cost", "2", "--max-tokens", "300000", "--min-records", "100")
    assert ok.exit_code == 0
    bad = run("estimate", path, "--epochs", "3", "--max-cost", "1", "--max-tokens", "200000", "--min-records", "104", "-o", "json")
    assert bad.exit_code == 1
    gates = {w["code"]: w for w in json.loads(bad.stdout)["warnings"] if w["severity"] == "error"}
    assert set(gates) == {"FT701", "FT702", "FT703"}
    assert f"${base['cost_usd']:,.2f}" in gates["FT701"]["message"]
    unknown = run("estimate", path, "--epochs", "3", "--max-cost", "1", "--price", "0")
    assert unknown.exit_code == 0  # price 0 is a price: cost $0


def test_advice_fails_only_with_fail_on_warning() -> None:
    path = "fixtures/good/drone_training.jsonl"  # 39 steps: FT503
    assert run("estimate", path, "--epochs", "3", "--batch-size", "8").exit_code == 0
    assert run("estimate", path, "--epochs", "3", "--batch-size", "8", "--fail-on", "warning").exit_code == 1
    # FT513: the default model's last training date is within 60 days of the pinned today
    assert run("estimate", path, "--epochs", "3", "--batch-size", "8", "--fail-on", "warning", "--ignore", "FT503,FT513").exit_code == 0


def test_the_json_estimate_masks_every_name_and_stays_valid_utf8(tmp_path: Path) -> None:
    """issue 35: the validation files' and the run config's names in `estimate -o json` and
    `plan -o json` are masked as the text shows them; a name that is not UTF-8 is valid JSON."""
    import os
    import subprocess
    import sys

    from untrusted import SECRETS

    secret = SECRETS["aws"]
    record = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    train = tmp_path / "train.jsonl"
    train.write_text("".join(json.dumps(record) + "\n" for _ in range(12)))
    (tmp_path / f"val-{secret}.jsonl").write_text(train.read_text())
    (tmp_path / f"run-{secret}.yml").write_text("base_model: x\ndatasets:\n  - path: train.jsonl\n")
    for args in (("estimate", str(train), "--validation", str(tmp_path / f"val-{secret}.jsonl")),
                 ("estimate", "--run", str(tmp_path / f"run-{secret}.yml")), ("plan", "--run", str(tmp_path / f"run-{secret}.yml"))):
        r = run(*args, "-o", "json")
        assert r.exit_code in (0, 1) and json.loads(r.stdout) and secret not in r.stdout, args
    undecodable = os.fsencode(tmp_path) + b"/val-\xff.jsonl"
    with open(undecodable, "w") as fh:
        fh.write(train.read_text())
    p = subprocess.run([sys.executable, "-m", "ftlint", "estimate", train, "--validation", undecodable, "-o", "json"],
                       capture_output=True, timeout=120)
    assert json.loads(p.stdout)["validation"]["paths"][0].endswith("val-\\xff.jsonl"), p.stderr


def test_both_wordings_of_the_cut_say_every_clause_of_it() -> None:
    """The estimate's max length row and FT509 word the same figures (TruncationFigures.clauses):
    3 records cut off 1,234 tokens, 1,000 of them trained, 2 left with none; 1 record dropped with
    5,678 tokens. A source holding braces is said as it is, never read as a template."""
    from dataclasses import replace

    from ftlint.plan.groups import TruncationFigures
    from ftlint.report.past_max import max_length_row
    from ftlint.rules.advice import past_max_words

    t = TruncationFigures(2048, 3, 1234, source="{n} {where} (a config)", trainable_cut=1000, records_emptied=2,
                          records_dropped=1, tokens_dropped=5678)
    e = replace(run_plan(10, Plan(epochs=1, batch_size=1)), truncation=t)
    assert max_length_row(e) == ("max length", "2,048", "{n} {where} (a config); cut keeping the start: 3 records cut (1,234 tokens, "
                                 "1,000 of them trained; 2 left with no trained token); 1 record dropped (5,678 tokens)")
    assert past_max_words(t) == ("3 record(s) longer than max length 2,048 ({n} {where}): 1,234 tokens cut off, 1,000 of them trained; "
                                 "2 record(s) left with no trained token; 1 record(s) longer than max length 2,048 ({n} {where}) "
                                 "dropped: 5,678 tokens not trained")
    one = replace(t, records=1, trainable_cut=0, records_emptied=0, records_dropped=0)
    assert max_length_row(replace(e, truncation=one))[2].endswith(": 1 record cut (1,234 tokens)")  # type: ignore[index]
    assert past_max_words(one) == "1 record(s) longer than max length 2,048 ({n} {where}): 1,234 tokens cut off"
    none = replace(one, records=0)
    assert max_length_row(replace(e, truncation=none))[2].endswith(": no record is past it") and past_max_words(none) == ""  # type: ignore[index]

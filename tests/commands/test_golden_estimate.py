"""`ftlint estimate` byte for byte on the plan's features: a hosted provider's price and minimum,
a run config of each trainer (TRL, axolotl packed with a held-out share and unseeded draws,
LLaMA-Factory packed with val_size, mistral-finetune), a budget, a self-hosted run, scaled
learning rates, a validation file, lines with errors. Each case's text, JSON and markdown are
golden files (fixtures/outputs/estimate/), as tests/commands/test_outputs.py keeps the drone fixture's in
every format (not repeated here), and the notebook's table of two of them through the API.
FTLINT_UPDATE_GOLDENS=1 rewrites them after a deliberate change; then review the diff."""

from __future__ import annotations

import os

import pytest

from conftest import FIXTURES, ROOT, run

GOLDENS = FIXTURES / "outputs" / "estimate"
DRONE = "fixtures/good/drone_training.jsonl"
TOY = "fixtures/oracle/toy_chat_fine_tuning.jsonl"
RUNS = "fixtures/trainer_runs"
CASES = {
    "hosted_price": (TOY, "--model", "gpt-4o-mini", "--epochs", "3"),
    "hosted_minimum": ("fixtures/good/openai_chat_basic.jsonl", "--model", "together/openai/gpt-oss-120b",
                       "--format", "together-conversational"),
    "hosted_evals": (DRONE, "--model", "together/Qwen/Qwen2.5-7B-Instruct", "--validation", TOY, "--n-evals", "2"),
    "user_price": (DRONE, "--price", "2.5", "--epochs", "2", "--grad-accum", "2", "--gpus", "2", "--drop-last"),
    "trl_packing": (f"{RUNS}/trl/data/c4_demo.jsonl", "--run", f"{RUNS}/trl/t11_packing_bfd.yaml"),
    "trl_warmup": (f"{RUNS}/trl/data/c4_demo.jsonl", "--run", f"{RUNS}/trl/t15_warmup_steps_fraction.yaml"),
    "axolotl_packing_val_set_size": ("--run", f"{RUNS}/axolotl/a07_mistral_lora.yml"),
    "axolotl_drop": ("--run", f"{RUNS}/axolotl/a10_excess_drop.yml"),
    "llama_factory_packing_val_size": ("--run", f"{RUNS}/llama-factory/l17_packing_val_size.yaml"),
    "llama_factory_max_samples": ("--run", f"{RUNS}/llama-factory/l05_max_samples.yaml"),
    "mistral_finetune": (TOY, "--run", "fixtures/runs/mistral-finetune/7B.yaml"),
    "budget": (DRONE, "--epochs", "4", "--budget-usd", "1", "--budget-tokens", "250000"),
    "self_hosted": (DRONE, "--trainer", "hf", "--tokens-per-second", "900", "--gpu-hour-usd", "2", "--gpus", "2",
                    "--budget-usd", "0.05"),
    "learning_rate": (DRONE, "--batch-size", "4", "--learning-rate", "1e-5", "--reference-batch-size", "16",
                      "--warmup-ratio", "0.1"),
    "validation": ("fixtures/splits/train.jsonl", "--validation", "fixtures/splits/valid.jsonl", "--epochs", "2"),
    "every_feature": (DRONE, "--trainer", "hf", "--packing", "--max-seq-len", "1024", "--max-steps", "30", "--budget-usd", "5",
                      "--price", "2", "--tokens-per-second", "900", "--gpu-hour-usd", "2", "--learning-rate", "1e-5",
                      "--reference-batch-size", "16"),
    "lines_with_errors": ("fixtures/bad/ft001_invalid_json.jsonl", "--warmup-ratio", "0.1"),
    "plots": (DRONE, "--epochs", "2", "--batch-size", "4", "--warmup-ratio", "0.1", "--plots", "--schedule", "cosine"),
}
FORMATS = {"text": "txt", "json": "json", "markdown": "md"}
# the notebook's tables, through the API (ftlint.estimate's keywords)
NOTEBOOK = {"hosted_price": ((TOY,), {"model": "gpt-4o-mini", "epochs": 3}),
            "every_feature": ((DRONE,), {"trainer": "hf", "packing": True, "max_seq_len": 1024, "max_steps": 30, "budget_usd": 5,
                                         "price": 2, "tokens_per_second": 900, "gpu_hour_usd": 2, "learning_rate": 1e-5,
                                         "reference_batch_size": 16})}


def _golden(name: str, text: str) -> None:
    golden = GOLDENS / name
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        golden.parent.mkdir(exist_ok=True)
        golden.write_text(text, encoding="utf-8")
    assert text == golden.read_text(encoding="utf-8")


@pytest.mark.parametrize("fmt", FORMATS)
@pytest.mark.parametrize("case", CASES)
def test_estimate_is_its_golden(case: str, fmt: str) -> None:
    r = run("estimate", *CASES[case], "-o", fmt)
    assert r.exit_code in (0, 1), r.stderr
    _golden(f"{case}.{FORMATS[fmt]}", r.stdout)


@pytest.mark.parametrize("case", NOTEBOOK)
def test_notebook_table_is_its_golden(case: str) -> None:
    import ftlint

    paths, options = NOTEBOOK[case]
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        html = ftlint.estimate([*paths], **options)._repr_html_()
    finally:
        os.chdir(old)
    _golden(f"{case}.html", html + "\n")

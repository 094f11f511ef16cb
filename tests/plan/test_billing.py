"""What the provider will bill, each figure derived here from the provider's rule as
the project's price reference (prices-2026) states it (written out below), not by calling the code
under test. The dataset's own figures (records, tokens per epoch) are the inputs: records are
counted from the file here, tokens come from the engine (tested token for token elsewhere).

Together (docs.together.ai/docs/fine-tuning-pricing):
    total tokens = n_epochs x training tokens + n_evals x validation tokens
    packing off:   training tokens = dataset_length x max_seq_length
    bill         = max(total tokens x rate / 1M, minimum charge)
    rates (together.ai/pricing, copy of 2026-02-13), USD per 1M tokens, by total parameters:
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from ftlint.models import all_models
from ftlint.trainers.billing import Usage
from ftlint.trainers.together.billing import bill

# the reference's tables, as the pricing page gives them
TOGETHER_BRACKETS = [  # (largest size in billions, SFT LoRA, SFT full, DPO LoRA, DPO full)
    (16, 0.48, 0.54, 1.20, 1.35),
    (69.99, 1.50, 1.65, 3.75, 4.12),  # "17B-69B" (docs: "16.1-69B")
    (100, 2.90, 3.20, 7.25, 8.00),
]
GPT_OSS_120B = (5.00, 12.50, 6.00)  # SFT LoRA, DPO LoRA, minimum charge
QWEN3_235B = (6.00, 15.00)  # no minimum
TOGETHER_OWN = [  # the copy's large and MoE models: (SFT LoRA, DPO LoRA, minimum charge), by the names it gives
    (("deepseek-ai/DeepSeek-R1", "deepseek-ai/DeepSeek-V3", "deepseek-ai/DeepSeek-V3.1"), (10.0, 25.0, 20.0)),
    (("zai-org/GLM-4.6", "zai-org/GLM-4.7"), (9.0, 22.5, 27.0)),
    (tuple(f"moonshotai/Kimi-K2{v}" for v in (".5", "-Thinking", "-Instruct-0905", "-Base")), (15.0, 37.5, 60.0)),
    (("meta-llama/Llama-4-Maverick-17B-128E-Instruct",), (8.0, 20.0, 16.0)),
    (("meta-llama/Llama-4-Scout-17B-16E-Instruct",), (3.0, 7.5, 6.0)),
    (("Qwen/Qwen3-Coder-480B-A35B-Instruct",), (9.0, 22.5, 18.0)),
]

DRONE = FIXTURES / "good" / "drone_training.jsonl"
BASIC = FIXTURES / "good" / "openai_chat_basic.jsonl"  # no tools: gpt-oss's template renders it
LLAMA_8B = "together/meta-llama/Meta-Llama-3.1-8B-Instruct-Reference"
LLAMA_8B_CONTEXT = 131072  # "131K" (togethercomputer/skills supported-models.md), 131,072 in the docs' table
LLAMA_8B_DPO_CONTEXT = 65536  # the docs' table: Context Length (DPO)
LLAMA_8B_MAX_BATCH = 8  # the docs' table: Max Batch Size (SFT), LoRA
GPT_OSS_120B_CONTEXT = 16384  # the docs' table


def records_in(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def estimate(*args: str) -> dict:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stdout + r.stderr
    return json.loads(r.stdout)


def together(*args: str, model: str = LLAMA_8B, path: Path = DRONE, fmt: str = "together-conversational") -> dict:
    return estimate(str(path), "--model", model, "--format", fmt, *args)


def usd(tokens: int, rate: float) -> float:
    return round(tokens * rate / 1_000_000, 6)


def test_a_default_together_job_is_one_epoch_of_the_file_at_the_brackets_rate() -> None:
    e = together()
    tokens = e["tokens"]
    assert e["records"] == records_in(DRONE) == 103 and e["invalid_lines"] == 0
    # n_epochs=1 and batch_size="max" (FineTuning.create); Llama 3.1 8B is in the "up to 16B" bracket, SFT LoRA
    assert (e["epochs"], e["batch_size"]) == (1, LLAMA_8B_MAX_BATCH)
    rows = math.ceil(tokens / LLAMA_8B_CONTEXT)  # packed rows of max_seq_length
    assert e["sequences"] == rows and e["steps_per_epoch"] == math.ceil(rows / LLAMA_8B_MAX_BATCH)
    assert e["bill"]["tokens"] == 1 * tokens + 0 * 0
    assert e["cost_usd"] == usd(tokens, TOGETHER_BRACKETS[0][1])
    b = e["bill"]
    assert (b["rate"], b["method"], b["rate_confidence"], b["rate_date"]) == (0.48, "sft-lora", "C", "2026-02-13")
    assert "together.ai/pricing" in b["rate_source"] and not b["minimum_applied"]


def test_the_text_says_where_the_price_comes_from_and_when() -> None:
    out = run("estimate", str(DRONE), "--model", LLAMA_8B, "--format", "together-conversational").stdout
    cost = next(line for line in out.splitlines() if line.lstrip().startswith("cost "))
    assert "$0.48 / 1M tokens" in cost and "from a dated copy of the provider's page" in cost and "2026-02-13" in cost
    assert "up to 16B bracket" in cost


def test_packing_off_bills_every_example_as_a_row_of_max_seq_length() -> None:
    e = together("--no-packing")
    n = records_in(DRONE)
    billed = 1 * n * LLAMA_8B_CONTEXT  # 103 x 131,072 = 13,500,416
    assert billed == 13_500_416
    assert e["bill"]["training_tokens"] == n * LLAMA_8B_CONTEXT and e["bill"]["tokens"] == billed
    assert e["cost_usd"] == usd(billed, 0.48) == 6.480200  # 13,500,416 x 0.48 / 1M = 6.48019968
    assert e["sequences"] == n and e["steps_per_epoch"] == math.ceil(n / LLAMA_8B_MAX_BATCH) == 13


def test_max_seq_len_is_togethers_max_seq_length_for_the_padded_rows() -> None:
    e = together("--no-packing", "--max-seq-len", "4096")
    assert e["bill"]["tokens"] == records_in(DRONE) * 4096


def test_max_cost_fails_at_the_billed_cost_where_tokens_x_rate_would_pass() -> None:
    # packing off, the bill is $6.48; the file's tokens x rate is about $0.08, under the gate
    args = (str(DRONE), "--model", LLAMA_8B, "--format", "together-conversational", "--max-cost", "5")
    plain = run("estimate", *args)
    assert plain.exit_code == 0, plain.stdout
    r = run("estimate", *args, "--no-packing")
    assert r.exit_code == 1
    assert "FT701 the run costs $6.48, over the --max-cost of $5.00" in r.stdout


def test_evaluations_bill_the_validation_file_each_time(tmp_path: Path) -> None:
    held_out = tmp_path / "valid.jsonl"
    held_out.write_text("".join(DRONE.read_text(encoding="utf-8").splitlines(keepends=True)[:10]), encoding="utf-8")
    none = together("--validation", str(held_out))
    assert none["bill"]["tokens"] == none["tokens"]  # n_evals defaults to 0: the validation file is not billed
    assert "not billed" in none["validation"]["billing_note"]
    e = together("--validation", str(held_out), "--n-evals", "3")
    v = e["validation"]["tokens"]
    assert v > 0 and e["validation"]["billed"]
    assert e["bill"]["tokens"] == 1 * e["tokens"] + 3 * v
    assert e["cost_usd"] == usd(e["tokens"] + 3 * v, 0.48)


def test_a_minimum_charge_is_the_bill_when_the_tokens_cost_less() -> None:
    rate, _, minimum = GPT_OSS_120B
    e = together(model="together/openai/gpt-oss-120b", path=BASIC)
    assert e["tokens"] > 0 and usd(e["tokens"], rate) < minimum
    assert e["cost_usd"] == minimum and e["bill"]["minimum_applied"] and e["bill"]["charge_usd"] == usd(e["tokens"], rate)
    text = run("estimate", str(BASIC), "--model", "together/openai/gpt-oss-120b", "--format", "together-conversational").stdout
    cost = next(line for line in text.splitlines() if line.lstrip().startswith("cost "))
    assert "$6.00" in cost and "the minimum charge" in cost
    # 10 epochs of padded rows cost more than the minimum: the bill is the tokens'
    big = together("--no-packing", "-e", "10", model="together/openai/gpt-oss-120b", path=BASIC)
    billed = 10 * big["records"] * GPT_OSS_120B_CONTEXT  # 10 x 12 x 16,384 = 1,966,080
    assert big["records"] == 12 and big["cost_usd"] == usd(billed, rate) == 9.8304 and not big["bill"]["minimum_applied"]


def test_a_gate_under_the_minimum_charge_fails() -> None:
    args = (str(BASIC), "--model", "together/openai/gpt-oss-120b", "--format", "together-conversational", "--max-cost", "2")
    r = run("estimate", *args)
    assert r.exit_code == 1 and "FT701 the run costs $6.00, over the --max-cost of $2.00" in r.stdout


def test_a_preference_file_is_billed_at_the_dpo_rate_and_the_dpo_context() -> None:
    path = FIXTURES / "formats" / "together-preference" / "good.jsonl"
    e = together(model=LLAMA_8B, path=path, fmt="together-preference")
    assert e["tokens"] > 0 and e["bill"]["method"] == "dpo-lora" and e["cost_usd"] == usd(e["tokens"], TOGETHER_BRACKETS[0][3])
    off = together("--no-packing", model=LLAMA_8B, path=path, fmt="together-preference")
    assert off["bill"]["tokens"] == records_in(path) * LLAMA_8B_DPO_CONTEXT


def test_full_fine_tuning_has_its_own_rate_and_largest_batch() -> None:
    model = "together/meta-llama/Llama-3.3-70B-Instruct-Reference"  # 70B: the 70-100B bracket
    lora, full = together(model=model), together("--full", model=model)
    assert lora["tokens"] > 0 and lora["cost_usd"] == usd(lora["tokens"], TOGETHER_BRACKETS[2][1])
    assert full["cost_usd"] == usd(full["tokens"], TOGETHER_BRACKETS[2][2])
    assert (lora["batch_size"], full["batch_size"]) == (8, 32)  # the docs' table: LoRA 8, full 32


def test_a_lora_only_model_has_no_full_fine_tuning_price() -> None:
    e = together("--full", model="together/openai/gpt-oss-120b")
    assert e["cost_usd"] is None and e["price_note"].startswith("price unknown: pass --price")


def test_the_middle_bracket_and_a_mixture_of_experts_by_total_parameters() -> None:
    qwen = together(model="together/Qwen/Qwen3-32B")
    assert qwen["tokens"] > 0 and qwen["cost_usd"] == usd(qwen["tokens"], TOGETHER_BRACKETS[1][1])
    oss = together(model="together/openai/gpt-oss-20b", path=BASIC)  # 21B total, 3.6B active: billed by the total
    assert oss["tokens"] > 0 and oss["cost_usd"] == usd(oss["tokens"], TOGETHER_BRACKETS[1][1]) and oss["bill"]["rate_confidence"] == "U"


def test_a_model_with_its_own_rate_and_no_minimum() -> None:
    e = together(model="together/Qwen/Qwen3-235B-A22B")
    assert e["tokens"] > 0 and e["cost_usd"] == usd(e["tokens"], QWEN3_235B[0]) and e["bill"]["minimum_usd"] is None
    assert e["batch_size"] == 1  # the docs' table: Max Batch Size 1


def test_price_overrides_the_rate_not_the_minimum() -> None:
    e = together("--price", "1", "--no-packing")
    assert e["cost_usd"] == usd(records_in(DRONE) * LLAMA_8B_CONTEXT, 1.0) and e["price_source"] == "from the command line"
    small = together("--price", "1", model="together/openai/gpt-oss-120b", path=BASIC)
    assert 0 < usd(small["tokens"], 1.0) < GPT_OSS_120B[2] and small["cost_usd"] == GPT_OSS_120B[2]


def test_every_together_model_is_priced_as_its_bracket_or_its_own_rate() -> None:
    """A model of at most 100B: its bracket; a large or MoE model the pricing copy names: its own
    rate and minimum; any other (over 100B, or a vision model without a size): no price at all."""
    own = {"together/openai/gpt-oss-120b": GPT_OSS_120B, "together/Qwen/Qwen3-235B-A22B": (*QWEN3_235B, None)}
    own |= {f"together/{name}": rates for names, rates in TOGETHER_OWN for name in names}
    for model in (m for m in all_models().values() if m.provider == "together"):
        if model.name in own:
            sft, dpo, minimum = own[model.name]
            assert {k: float(v.value) for k, v in model.rates} == {"sft-lora": sft, "dpo-lora": dpo}, model.name
            assert (model.minimum_charge and model.minimum_charge.value) == minimum, model.name
        elif model.parameters is not None and float(model.parameters.value) <= 100:
            row = next(b for b in TOGETHER_BRACKETS if float(model.parameters.value) <= b[0])
            expected = dict(zip(("sft-lora", "sft-full", "dpo-lora", "dpo-full"), row[1:], strict=True))
            assert {k: float(v.value) for k, v in model.rates} == expected, model.name
        else:
            assert model.rates == () and model.price is None, model.name


# Fireworks, Bedrock, Vertex: training tokens x epochs x rate (prices-2026.md)

def test_fireworks_prices_a_preference_job_at_its_dpo_bracket() -> None:
    path = FIXTURES / "formats" / "openai-preference" / "good.jsonl"
    e = estimate(str(path), "--model", "fireworks/llama-v3p1-8b-instruct", "--format", "openai-preference", "-e", "2")
    assert e["tokens"] > 0 and e["cost_usd"] == usd(2 * e["tokens"], 1.00)  # up to 16B: DPO LoRA $1.00 (SFT $0.50)


def test_bedrock_nova_micro_is_tokens_x_epochs_at_a_tenth_of_a_cent_per_thousand() -> None:
    path = FIXTURES / "formats" / "bedrock-nova" / "good.jsonl"
    e = estimate(str(path), "--model", "nova-micro")
    assert e["epochs"] == 2  # Bedrock's epochCount default for Nova
    assert e["tokens"] > 0 and e["cost_usd"] == round(2 * e["tokens"] * 0.001 / 1000, 6)
    assert "$1.95 a month" in e["bill"]["not_in_cost"]


def test_vertex_gemini_2_0_flash_is_three_dollars_per_million() -> None:
    path = FIXTURES / "formats" / "vertex-gemini" / "good.jsonl"
    e = estimate(str(path), "--model", "gemini-2.0-flash", "-e", "2")
    assert e["tokens"] > 0 and e["cost_usd"] == usd(2 * e["tokens"], 3.00) and e["bill"]["rate_confidence"] == "C"


def test_a_price_the_reference_lacks_is_said_once_with_the_billing_rule() -> None:
    out = run("estimate", str(FIXTURES / "formats" / "bedrock-nova" / "good.jsonl"), "--model", "nova-lite").stdout
    assert out.count("price unknown") == 1 and "pass --price" in out and "bills training tokens x epochs" in out


@pytest.mark.parametrize(("args", "said"), [
    (("--model", LLAMA_8B, "--format", "together-conversational", "--n-evals", "2"), "--n-evals needs --validation"),
    (("--model", "gpt-4.1-mini-2025-04-14", "--no-packing"), "--no-packing is a Together job's option"),
    (("--model", "gpt-4.1-mini-2025-04-14", "--full"), "--full is a Together job's option"),
])
def test_together_options_elsewhere_are_a_one_line_usage_error(args: tuple[str, ...], said: str) -> None:
    r = run("estimate", str(DRONE), *args)
    assert r.exit_code == 2 and said in r.stderr and "Traceback" not in r.stderr + r.stdout


def test_the_bill_by_hand() -> None:
    from ftlint.models import Sourced

    rate = Sourced(2.0, "test", "2026", "C", unit="usd_per_1m_tokens")
    minimum = Sourced(1.0, "test", "2026", "C", unit="usd")
    usage = Usage(method="sft-lora", tokens_per_epoch=1000, records=10, epochs=3, processed=3000, processed_rule="",
                  validation_tokens=200, rate=rate, minimum=minimum)
    b = bill("", usage, packing=False, length=512, evals=4)
    # 3 x (10 x 512) + 4 x 200 = 16,160 tokens; x $2 / 1M = $0.03232, under the $1 minimum
    assert (b.training_tokens, b.tokens, b.charge_usd, b.cost_usd, b.minimum_applied) == (5120, 16160, 0.03232, 1.0, True)


def test_a_budget_buys_epochs_of_the_billed_rows() -> None:
    e = together("--no-packing", "--budget-usd", "13")
    per_epoch = records_in(DRONE) * LLAMA_8B_CONTEXT * 0.48 / 1_000_000  # $6.48 an epoch of padded rows
    assert e["budget"]["max_epochs"] == math.floor(13 / per_epoch) == 2

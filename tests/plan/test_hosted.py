"""The worked examples of docs/hosted.md: one hosted provider's job each, on public data nobody
here wrote (fixtures/hosted/SOURCE.md, and the OpenAI cookbook's files), with the job's
parameters as the provider names them given as ftlint flags. Every figure is derived here from
the provider's rule, written out, and compared with `ftlint estimate -o json`:

  tokens     ftlint's token convention (docs/estimate.md) with tiktoken's o200k_base: 3 a record,
             the compact JSON of tools and of a structured system field, 3 + role + what a turn
             says; where the provider's tokenizer is not public (Nova, Gemini) the count is an
             estimate and says so. Fireworks renders with the model's chat template: transformers'
             apply_chat_template on TRL's copy of Qwen 3's template, with Qwen's tokenizer.
  epochs     OpenAI's n_epochs "auto", as the cookbook's Chat_finetuning_data_prep.ipynb does it
             (ftlint/trainers/steps.py): 3, raised to 100 // records (at most 25) when
             records x 3 < 100, lowered to 25,000 // records (at least 1) when above 25,000
  batch      batch_size "auto": about 0.2% of the records, 1 to 256 (Azure's documented rule)
  steps      ceil(records / batch) an epoch, times the epochs
  bill       OpenAI, Azure, Fireworks, Bedrock, Vertex: training tokens x epochs x the rate
             (prices-2026.md; the catalog's rate, date and confidence)
"""

from __future__ import annotations

import json
import math
from pathlib import Path

from conftest import FIXTURES, ROOT, run
from ftlint.tokens import get_encoding

ENC = get_encoding("o200k_base")
HOSTED = FIXTURES / "hosted"
TOY = FIXTURES / "oracle" / "toy_chat_fine_tuning.jsonl"  # the cookbook's 5 examples
DRONE = FIXTURES / "good" / "drone_training.jsonl"  # the cookbook's 103 function-calling examples
FIREWORKS = HOSTED / "fireworks_text2sql_dataset.jsonl"
BEDROCK = HOSTED / "bedrock_nova_dataset.head2.jsonl"
VERTEX = HOSTED / "vertex_patient_1_glucose_examples.jsonl"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def estimate(*args: str) -> dict:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stdout + r.stderr
    return json.loads(r.stdout)


def records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def n(text: object) -> int:
    return len(ENC.encode_ordinary(text)) if isinstance(text, str) else 0


def compact(value: object) -> int:
    return n(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) if value else 0


def said(message: dict) -> int:
    """What an OpenAI-shaped message says: its content and its tool calls' names and arguments."""
    calls = message.get("tool_calls") or []
    return n(message.get("content")) + sum(n(c["function"]["name"]) + n(c["function"]["arguments"]) for c in calls)


def openai_tokens(record: dict) -> tuple[int, int]:
    """(tokens, trainable tokens) of an OpenAI chat record under ftlint's convention."""
    messages = record["messages"]
    total = 3 + compact(record.get("tools")) + sum(3 + n(m["role"]) + said(m) for m in messages)
    return total, sum(said(m) for m in messages if m["role"] == "assistant" and m.get("weight", 1) != 0)


def auto_epochs(count: int) -> int:
    if count * 3 < 100:
        return min(25, 100 // count)
    if count * 3 > 25_000:
        return max(1, 25_000 // count)
    return 3


def auto_batch(count: int) -> int:
    return max(1, min(256, math.floor(count * 0.002 + 0.5)))


def usd(tokens: int, rate_per_1m: float) -> float:
    return round(tokens * rate_per_1m / 1_000_000, 6)


def assert_plan(e: dict, count: int, tokens: int, epochs: int, batch: int, rate: float) -> None:
    steps = math.ceil(count / batch)
    assert (e["records"], e["tokens"], e["epochs"], e["batch_size"]) == (count, tokens, epochs, batch)
    assert (e["steps_per_epoch"], e["total_steps"]) == (steps, steps * epochs)
    assert e["bill"]["tokens"] == e["tokens_processed"] == tokens * epochs
    assert e["bill"]["rate"] == rate and e["cost_usd"] == usd(tokens * epochs, rate)


def refused(path: Path, model: str, trainer: str) -> bool:
    out = run("check", rel(path), "--model", model, "--select", "FT110").stdout
    return "FT110" in out and f"a format {trainer} takes" in out


# OpenAI: the cookbook's toy file as Chat_finetuning_data_prep.ipynb prepares it, the job's
# hyperparameters left "auto" (n_epochs, batch_size); gpt-4o-mini's rate: $3 / 1M (U, catalog)
def test_openai_auto_epochs_on_the_cookbooks_toy_file() -> None:
    rows = records(TOY)
    counts = [openai_tokens(r) for r in rows]
    tokens, trainable = sum(t for t, _ in counts), sum(t for _, t in counts)
    e = estimate(rel(TOY), "--model", "gpt-4o-mini-2024-07-18")
    assert e["trainer"] == "openai" and e["tokens_exact"] and e["trainable_tokens"] == trainable
    assert auto_epochs(len(rows)) == 20 and auto_batch(len(rows)) == 1  # 5 x 3 < 100: 100 // 5
    assert_plan(e, len(rows), tokens, 20, 1, 3.0)
    assert e["context_limit"] == 65536 and max(t for t, _ in counts) < 65536 and e["records_over_limit"] == 0
    assert e["bill"]["rate_confidence"] == "U"
    assert refused(VERTEX, "gpt-4o-mini-2024-07-18", "openai")


def nova_tokens(record: dict) -> tuple[int, int]:
    """A bedrock-conversation-2024 record: its `system` list is a structured system field (its
    compact JSON), each turn 3 + role + its text blocks; the assistant turns train."""
    def text(turn: dict) -> int:
        return sum(n(block.get("text")) for block in turn["content"])

    total = 3 + compact(record.get("system")) + sum(3 + n(m["role"]) + text(m) for m in record["messages"])
    return total, sum(text(m) for m in record["messages"] if m["role"] == "assistant")


# Bedrock: the first two records of aws-samples' Nova Bedrock sample, on Nova Micro with
# hyperParameters {"epochCount": "2", "batchSize": "1"}; Nova Micro's rate $0.001 per 1K tokens
# (prices-2026.md: the AWS ML blog's copy, M-H; the catalog's C), storage said beside the cost
def test_bedrock_nova_micro_bills_tokens_times_epoch_count() -> None:
    rows = records(BEDROCK)
    counts = [nova_tokens(r) for r in rows]
    tokens = sum(t for t, _ in counts)
    e = estimate(rel(BEDROCK), "--model", "nova-micro", "--epochs", "2", "--batch-size", "1")
    assert (e["trainer"], e["format"], e["trainable_tokens"]) == ("bedrock", "bedrock-nova", sum(t for _, t in counts))
    assert not e["tokens_exact"] and "Nova" in e["tokens_note"]  # Nova's tokenizer is not public: an estimate
    assert_plan(e, len(rows), tokens, 2, 1, 0.001 * 1000)
    assert e["bill"]["rate_date"] == "2026-04-16" and "$1.95 a month" in e["bill"]["not_in_cost"]
    assert refused(VERTEX, "nova-micro", "bedrock")


# Vertex: the sample pipeline's Gemini record on Gemini 2.0 Flash, with epochCount 1 (as Google's
# sft_gemini_qa notebook sets epoch_count); $3 / 1M training tokens (prices-2026.md: a
# transcription of the pricing page, M; the catalog's C), billed tokens x epochs
def test_vertex_bills_the_dataset_tokens_times_epoch_count() -> None:
    (row,) = records(VERTEX)
    model_turns = [c for c in row["contents"] if c["role"] == "model"]

    def text(content: dict) -> int:
        return sum(n(part.get("text")) for part in content["parts"])

    # one record per model turn, with every earlier turn and the systemInstruction (its compact JSON)
    tokens = 3 + compact(row["systemInstruction"]) + sum(3 + n(c["role"]) + text(c) for c in row["contents"])
    e = estimate(rel(VERTEX), "--model", "gemini-2.0-flash-001", "--epochs", "1")
    assert len(model_turns) == 1 and e["trainable_tokens"] == text(model_turns[0])
    assert not e["tokens_exact"] and "Gemini" in e["tokens_note"]
    assert e["trainer"] == "vertex" and e["records_over_limit"] == 0
    assert_plan(e, 1, tokens, 1, 1, 3.0)
    # without epochCount Vertex picks the epochs by a rule it does not publish: the cookbook's stands in
    assert estimate(rel(VERTEX), "--model", "gemini-2.0-flash-001")["epochs"] == auto_epochs(1) == 25
    assert refused(BEDROCK, "gemini-2.0-flash-001", "vertex")


# Fireworks: the cookbook's SFT example as its run.sh launches it (qwen3-8b, --epochs 3
# --batch-size 32); rendered with the model's chat template: the oracle is transformers'
# apply_chat_template on TRL's copy of Qwen 3's template with Qwen's tokenizer; $0.50 / 1M up to
# 16B (prices-2026.md's cross-check, the catalog's D)
def test_fireworks_renders_with_the_models_template_and_bills_tokens_times_epochs() -> None:
    from mask_reference import hf_render, hf_tokenizer, template_path

    rows = records(FIREWORKS)
    tokens = sum(len(hf_render(template_path("qwen3.jinja"), "qwen2", r["messages"], None, "", "<|im_end|>")[1]) for r in rows)
    qwen = hf_tokenizer("qwen2")
    answers = sum(len(qwen.encode(m["content"], add_special_tokens=False)) for r in rows for m in r["messages"]
                  if m["role"] == "assistant")
    e = estimate(rel(FIREWORKS), "--model", "fireworks/qwen3-8b", "--epochs", "3", "--batch-size", "32")
    assert (e["trainer"], e["format"], e["tokens_exact"]) == ("fireworks", "fireworks-chat", True)
    assert e["trainable_tokens"] == answers  # what the assistant says; the template's markup around it is not counted
    masked = sum(sum(hf_render(template_path("qwen3_training.jinja"), "qwen2", r["messages"], None, "", "<|im_end|>")[2])
                 for r in rows)
    assert masked - answers == 6 * len(rows)  # the empty <think> block and <|im_end|> of each answer (docs/hosted.md)
    assert_plan(e, len(rows), tokens, 3, 32, 0.50)
    assert (e["steps_per_epoch"], e["total_steps"]) == (4, 12)  # ceil(100 / 32) = 4, x 3
    assert refused(BEDROCK, "fireworks/qwen3-8b", "fireworks")


# Azure: the cookbook's 103 function-calling conversations on Azure's gpt-4o-mini with
# hyperparameters {"n_epochs": 2, "batch_size": 8}; the Global training meter, $3 / 1M (the
# catalog's D, Azure retail prices of 2026-08-11); training tokens x epochs x the rate
def test_azure_bills_the_global_meter_for_tokens_times_n_epochs() -> None:
    rows = records(DRONE)
    counts = [openai_tokens(r) for r in rows]
    tokens = sum(t for t, _ in counts)
    e = estimate(rel(DRONE), "--model", "azure/gpt-4o-mini-2024-07-18", "--epochs", "2", "--batch-size", "8")
    assert (e["trainer"], e["format"], e["tokens_exact"]) == ("azure", "azure-openai-chat", True)
    assert e["trainable_tokens"] == sum(t for _, t in counts)
    assert_plan(e, len(rows), tokens, 2, 8, 3.0)
    assert (e["steps_per_epoch"], e["total_steps"]) == (13, 26)  # ceil(103 / 8) = 13, x 2
    assert (e["bill"]["rate_date"], e["bill"]["rate_confidence"]) == ("2026-08-11", "D")
    assert estimate(rel(DRONE), "--model", "azure/gpt-4o-mini-2024-07-18")["batch_size"] == auto_batch(len(rows)) == 1
    assert refused(VERTEX, "azure/gpt-4o-mini-2024-07-18", "azure")

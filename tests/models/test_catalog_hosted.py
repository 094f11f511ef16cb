"""The catalog where people train (issue 29): every model each hosted provider lists for
fine-tuning, each with a tokenizer and template ftlint knows, every value sourced, prices that
resolve through billing, and an estimate never shown as exact.

The lists below are the providers' own, written out here (not read from the catalog):
Together: togethercomputer/skills references/supported-models.md@b665c74 (2026-06-03);
Azure: MicrosoftDocs/azure-ai-docs articles/foundry/includes/fine-tune-supported-models.md@10fd319;
Bedrock: docs.aws.amazon.com/bedrock/latest/userguide/custom-model-fine-tuning (its text models);
Vertex: the Gemini tuning reference (tuning.md.txt) and open-model-tuning pages;
Fireworks: its managed fine-tuning table and training shapes catalog (the rows read).
"""

from __future__ import annotations

import datetime as dt
import json

import pytest

from conftest import FIXTURES, run
from ftlint.chat import CHAT_TEMPLATES
from ftlint.models import ESTIMATED_TOKENIZERS, all_models, listing
from ftlint.tokens.families import FAMILIES


def ids(text: str) -> list[str]:
    """A provider's list as written: ids separated by white space."""
    return text.split()


TOGETHER = ids("""
Qwen/Qwen3.5-397B-A17B Qwen/Qwen3.5-122B-A10B moonshotai/Kimi-K2.5 moonshotai/Kimi-K2-Thinking
moonshotai/Kimi-K2-Instruct-0905 moonshotai/Kimi-K2-Base zai-org/GLM-5.1 zai-org/GLM-5 zai-org/GLM-4.7 zai-org/GLM-4.6
openai/gpt-oss-120b openai/gpt-oss-20b deepseek-ai/DeepSeek-R1-0528 deepseek-ai/DeepSeek-R1 deepseek-ai/DeepSeek-V3.1
deepseek-ai/DeepSeek-V3-0324 deepseek-ai/DeepSeek-V3 Qwen/Qwen3-235B-A22B Qwen/Qwen3-235B-A22B-Instruct-2507
Qwen/Qwen3-Coder-480B-A35B-Instruct Qwen/Qwen3-Coder-30B-A3B-Instruct meta-llama/Llama-4-Maverick-17B-128E-Instruct
meta-llama/Llama-4-Scout-17B-16E-Instruct meta-llama/Llama-3.3-70B-Instruct-Reference
meta-llama/Meta-Llama-3.1-70B-Instruct-Reference deepseek-ai/DeepSeek-R1-Distill-Llama-70B Qwen/Qwen2.5-72B-Instruct
Qwen/Qwen3.5-27B Qwen/Qwen3.5-9B Qwen/Qwen3.5-35B-A3B Qwen/Qwen3.6-35B-A3B Qwen/Qwen3-32B Qwen/Qwen3-14B Qwen/Qwen3-8B
Qwen/Qwen3-Next-80B-A3B-Instruct Qwen/Qwen3-30B-A3B Qwen/Qwen2.5-32B-Instruct Qwen/Qwen2.5-14B-Instruct
Qwen/Qwen2.5-7B-Instruct meta-llama/Meta-Llama-3.1-8B-Instruct-Reference deepseek-ai/DeepSeek-R1-Distill-Qwen-14B
nvidia/NVIDIA-Nemotron-Nano-9B-v2 google/gemma-4-31B-it google/gemma-4-26B-A4B-it google/gemma-3-27b-it
google/gemma-3-12b-it mistralai/Mixtral-8x7B-Instruct-v0.1 mistralai/Mistral-7B-Instruct-v0.2
Qwen/Qwen3.5-4B Qwen/Qwen3.5-2B Qwen/Qwen3.5-0.8B Qwen/Qwen3-4B Qwen/Qwen3-1.7B Qwen/Qwen3-0.6B
meta-llama/Llama-3.2-3B-Instruct meta-llama/Llama-3.2-1B-Instruct google/gemma-3-4b-it google/gemma-3-1b-it
google/gemma-3-270m-it Qwen/Qwen2.5-3B-Instruct Qwen/Qwen2.5-1.5B-Instruct deepseek-ai/DeepSeek-R1-Distill-Qwen-1.5B
meta-llama/Llama-3.3-70B-131k-Instruct-Reference meta-llama/Meta-Llama-3.1-8B-131k-Instruct-Reference
meta-llama/Meta-Llama-3.1-70B-131k-Instruct-Reference
Qwen/Qwen3-VL-8B-Instruct Qwen/Qwen3-VL-30B-A3B-Instruct Qwen/Qwen3-VL-235B-A22B-Instruct
meta-llama/Llama-4-Maverick-17B-128E-Instruct-VLM meta-llama/Llama-4-Scout-17B-16E-Instruct-VLM
google/gemma-3-4b-it-VLM google/gemma-3-12b-it-VLM google/gemma-3-27b-it-VLM Qwen/Qwen3-Next-80B-A3B-Thinking
""")
AZURE = ids("""gpt-4o-mini-2024-07-18 gpt-4o-2024-08-06 gpt-4.1-2025-04-14 gpt-4.1-mini-2025-04-14 gpt-4.1-nano-2025-04-14
o4-mini-2025-04-16 gpt-5-2025-08-07 Ministral-3B-2411 Qwen-32B Llama-3.3-70B-Instruct gpt-oss-20b""")
BEDROCK = ids("""amazon.nova-2-lite-v1:0:256k amazon.nova-lite-v1:0:300k amazon.nova-micro-v1:0:128k amazon.nova-pro-v1:0:300k
anthropic.claude-3-haiku-20240307-v1:0:200k meta.llama3-1-70b-instruct-v1:0:128k meta.llama3-1-8b-instruct-v1:0:128k
meta.llama3-2-11b-instruct-v1:0:128k meta.llama3-2-1b-instruct-v1:0:128k meta.llama3-2-3b-instruct-v1:0:128k
meta.llama3-2-90b-instruct-v1:0:128k""")  # Nova Canvas and the Titan image/embedding models take no text data
VERTEX = ids("""gemini-3.5-flash-lite gemini-3.5-flash gemini-3.1-flash-lite gemini-2.5-pro google/gemma-3-27b-it
meta/llama3_1@llama-3.1-8b meta/llama3_1@llama-3.1-8b-instruct meta/llama3-2@llama-3.2-1b-instruct
meta/llama3-2@llama-3.2-3b-instruct meta/llama3-3@llama-3.3-70b-instruct qwen/qwen3@qwen3-32b
meta/llama4@llama-4-scout-17b-16e-instruct""")
FIREWORKS = ids("""gemma-4-26b-a4b-it gemma-4-31b-it glm-5p1 kimi-k2p5 qwen3p5-27b qwen3p5-9b kimi-k2-instruct-0905
deepseek-v3p1""")
LISTS = {"together": TOGETHER, "azure": AZURE, "bedrock": BEDROCK, "vertex": VERTEX, "fireworks": FIREWORKS}
HOSTED = tuple(LISTS)
SOURCED = ("context", "price", "min_examples", "last_training_date", "shutdown_date", "status", "parameters", "exact",
           "max_batch", "context_dpo", "minimum_charge", "storage")


def hosted() -> list:
    return [m for m in all_models().values() if m.provider in HOSTED]


@pytest.mark.parametrize("provider", HOSTED)
def test_every_model_the_provider_lists_is_in_the_catalog_under_its_own_id(provider: str) -> None:
    mine = {m.name for m in all_models().values() if m.provider == provider}
    missing = sorted(f"{provider}/{name}" for name in LISTS[provider] if f"{provider}/{name}" not in mine)
    assert not missing
    assert len(mine) >= len(set(LISTS[provider]))
    assert len(TOGETHER) == len(set(TOGETHER)) == 74  # 62 LoRA models, 3 long-context, 8 vision, 1 reasoning


def test_every_value_has_its_source_date_and_confidence() -> None:
    for m in hosted():
        values = [getattr(m, key) for key in SOURCED] + [v for _, v in m.rates]
        for v in (v for v in values if v is not None):
            assert v.source and v.date and v.confidence in "VDCU", (m.name, v)


def test_every_tokenizer_and_template_is_one_ftlint_has_and_an_estimate_never_passes_for_exact() -> None:
    for m in hosted():
        assert m.tokenizer in FAMILIES or m.tokenizer in ESTIMATED_TOKENIZERS, m.name
        assert m.template == "openai" or m.template in CHAT_TEMPLATES, m.name
        if m.tokenizer in ESTIMATED_TOKENIZERS:
            assert not m.tokens_exact and m.encoding == "o200k_base" and m.template == "openai", m.name
        if m.exact is not None and not m.exact.value:
            assert not m.tokens_exact and m.exact.remark, m.name
    families = {m.name.removeprefix("together/"): (m.tokenizer, m.template) for m in hosted() if m.provider == "together"}
    assert families["meta-llama/Llama-3.2-1B-Instruct"] == ("llama3", "llama3.2")  # Meta's 3.2 template, as self-hosted
    # the distills keep their bases' ranks, rendered with DeepSeek's template (compared with
    # transformers over both bases); Kimi, GLM and DeepSeek V3 have no tokenizer here
    for distill, base in (("Qwen-14B", "qwen2"), ("Qwen-1.5B", "qwen2"), ("Llama-70B", "llama3")):
        model = all_models()[f"together/deepseek-ai/DeepSeek-R1-Distill-{distill}"]
        assert (model.tokenizer, model.template, model.tokens_exact) == (base, "deepseek-r1-distill", True)
    assert {families[n][0] for n in ("moonshotai/Kimi-K2.5", "zai-org/GLM-4.6", "deepseek-ai/DeepSeek-V3")} <= set(ESTIMATED_TOKENIZERS)


# Hosted entries that are a checkpoint the self-hosted catalog (hf.toml) also lists, by the
# provider's naming: Together's "-Reference" and "-131k-" Llama models are Meta's Instruct
# checkpoints, its "-VLM" entries the same checkpoints trained on images; Bedrock's Llama 3.2 11B
# and 90B are the Vision-Instruct models; Vertex names the Hugging Face model after "@" (its
# llama-3.1-8b is the base model, which hf.toml does not list). Azure's Qwen-32B names no
# checkpoint (Qwen 2.5 or Qwen 3), so it is not here.
LLAMA = "meta-llama/Llama-"
SAME_CHECKPOINT = [
    *[(f"together/{name}", name) for name in TOGETHER if f"together/{name}" in all_models() and name in all_models()],
    ("together/meta-llama/Meta-Llama-3.1-8B-Instruct-Reference", f"{LLAMA}3.1-8B-Instruct"),
    ("together/meta-llama/Meta-Llama-3.1-8B-131k-Instruct-Reference", f"{LLAMA}3.1-8B-Instruct"),
    ("together/meta-llama/Meta-Llama-3.1-70B-Instruct-Reference", f"{LLAMA}3.1-70B-Instruct"),
    ("together/meta-llama/Meta-Llama-3.1-70B-131k-Instruct-Reference", f"{LLAMA}3.1-70B-Instruct"),
    ("together/meta-llama/Llama-3.3-70B-Instruct-Reference", f"{LLAMA}3.3-70B-Instruct"),
    ("together/meta-llama/Llama-3.3-70B-131k-Instruct-Reference", f"{LLAMA}3.3-70B-Instruct"),
    ("together/meta-llama/Llama-4-Maverick-17B-128E-Instruct-VLM", f"{LLAMA}4-Maverick-17B-128E-Instruct"),
    ("together/meta-llama/Llama-4-Scout-17B-16E-Instruct-VLM", f"{LLAMA}4-Scout-17B-16E-Instruct"),
    *[(f"together/google/gemma-3-{size}-it-VLM", f"google/gemma-3-{size}-it") for size in ("4b", "12b", "27b")],
    ("fireworks/llama-v3p1-8b-instruct", f"{LLAMA}3.1-8B-Instruct"), ("fireworks/llama-v3p1-70b-instruct", f"{LLAMA}3.1-70B-Instruct"),
    ("fireworks/qwen2p5-7b-instruct", "Qwen/Qwen2.5-7B-Instruct"), ("fireworks/qwen3-8b", "Qwen/Qwen3-8B"),
    ("fireworks/qwen3p5-27b", "Qwen/Qwen3.5-27B"),
    ("vertex/google/gemma-3-27b-it", "google/gemma-3-27b-it"),
    ("vertex/meta/llama3_1@llama-3.1-8b-instruct", f"{LLAMA}3.1-8B-Instruct"),
    ("vertex/meta/llama3-2@llama-3.2-1b-instruct", f"{LLAMA}3.2-1B-Instruct"),
    ("vertex/meta/llama3-2@llama-3.2-3b-instruct", f"{LLAMA}3.2-3B-Instruct"),
    ("vertex/meta/llama3-3@llama-3.3-70b-instruct", f"{LLAMA}3.3-70B-Instruct"),
    ("vertex/qwen/qwen3@qwen3-32b", "Qwen/Qwen3-32B"),
    ("vertex/meta/llama4@llama-4-scout-17b-16e-instruct", f"{LLAMA}4-Scout-17B-16E-Instruct"),
    ("bedrock/meta.llama3-1-8b-instruct-v1:0:128k", f"{LLAMA}3.1-8B-Instruct"),
    ("bedrock/meta.llama3-1-70b-instruct-v1:0:128k", f"{LLAMA}3.1-70B-Instruct"),
    ("bedrock/meta.llama3-2-1b-instruct-v1:0:128k", f"{LLAMA}3.2-1B-Instruct"),
    ("bedrock/meta.llama3-2-3b-instruct-v1:0:128k", f"{LLAMA}3.2-3B-Instruct"),
    ("bedrock/meta.llama3-2-11b-instruct-v1:0:128k", f"{LLAMA}3.2-11B-Vision-Instruct"),
    ("bedrock/meta.llama3-2-90b-instruct-v1:0:128k", f"{LLAMA}3.2-90B-Vision-Instruct"),
    ("azure/Llama-3.3-70B-Instruct", f"{LLAMA}3.3-70B-Instruct"), ("azure/gpt-oss-20b", "openai/gpt-oss-20b"),
]


def test_a_hosted_checkpoint_is_counted_as_the_self_hosted_catalog_counts_it() -> None:
    """Same tokenizer, template and exactness as hf.toml's entry for the checkpoint, unless the
    hosted entry's own `exact` note says why not (a vision job: image tokens), or neither can be
    exact (no tokenizer here: the hosted rule above counts it with OpenAI's convention)."""
    models = all_models()
    assert len(SAME_CHECKPOINT) == len(set(SAME_CHECKPOINT)) == 70
    direct = {name for name in TOGETHER if name in models}  # Together's ids that are Hugging Face's
    assert len(direct) == 39 and "Qwen/Qwen3.5-0.8B" in direct and "Qwen/Qwen3.5-9B" not in direct  # 9B: below
    for hosted_id, hf_id in SAME_CHECKPOINT:
        mine, theirs = models[hosted_id], models[hf_id]
        assert theirs.provider == "hf" and mine.tokenizer == theirs.tokenizer, (hosted_id, hf_id)
        if mine.tokenizer in ESTIMATED_TOKENIZERS:
            assert not theirs.tokens_exact and not mine.tokens_exact and mine.template == "openai", hosted_id
        elif (mine.template, mine.tokens_exact) != (theirs.template, theirs.tokens_exact):
            why = mine.exact.remark if mine.exact is not None and not mine.exact.value else ""
            assert "a vision model" in why, (hosted_id, hf_id, mine.template, theirs.template)
    # Qwen 3.5's two templates by size (TRL: "shipped by Qwen3.5-4B and larger", "by Qwen3.5-2B and
    # smaller"), for the sizes hf.toml lists and for those it does not (9B, 122B, 397B)
    qwen35 = [m for m in hosted() if m.tokenizer == "qwen3_5" and "Qwen3.6" not in m.name]
    assert len(qwen35) == 10  # Together's 8 sizes, Fireworks' 27B and 9B
    for m in qwen35:
        assert m.parameters is not None, m.name
        expected = "qwen3.5-nothink" if float(m.parameters.value) <= 2 else "qwen3.5"
        assert (m.template, m.tokens_exact) == (expected, True), m.name


def estimate(*args: str) -> dict:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stdout + r.stderr
    return json.loads(r.stdout)


DRONE = str(FIXTURES / "good" / "drone_training.jsonl")


def test_a_bracket_price_resolves_through_billing_by_hand() -> None:
    """Qwen3-14B on Together: 14B is in the "up to 16B" bracket, $0.48 per 1M SFT LoRA tokens, and
    Together bills epochs x training tokens."""
    e = estimate(DRONE, "--model", "together/Qwen/Qwen3-14B", "--format", "together-conversational", "-e", "3")
    assert e["tokens_exact"] is True and e["tokens"] > 0
    assert e["cost_usd"] == round(3 * e["tokens"] * 0.48 / 1_000_000, 6)


def test_a_large_models_own_rate_and_minimum_charge_resolve_through_billing() -> None:
    """Kimi K2.5: $15 per 1M, at least $60 a job (the pricing copy); the drone file is far under
    the minimum, so the bill is the minimum."""
    e = estimate(DRONE, "--model", "together/moonshotai/Kimi-K2.5", "--format", "together-conversational", "-e", "1")
    assert e["tokens_exact"] is False and 0 < e["tokens"] * 15 / 1_000_000 < 60
    assert e["cost_usd"] == 60.0


def test_fireworks_prices_a_kimi_model_over_300b_at_ten_dollars() -> None:
    path = str(FIXTURES / "formats" / "fireworks-chat" / "good.jsonl")
    e = estimate(path, "--model", "fireworks/kimi-k2p5", "-e", "2")
    assert e["tokens"] > 0 and e["cost_usd"] == round(2 * e["tokens"] * 10.0 / 1_000_000, 6)


@pytest.mark.parametrize("model", ["together/zai-org/GLM-5", "together/Qwen/Qwen3.5-397B-A17B", "vertex/qwen/qwen3@qwen3-32b"])
def test_a_model_without_a_price_says_price_is_needed(model: str) -> None:
    fmt = "openai-chat" if model.startswith("vertex/") else "together-conversational"
    e = estimate(DRONE, "--model", model, "--format", fmt)
    assert e["cost_usd"] is None and "--price" in e["price_note"]
    priced = estimate(DRONE, "--model", model, "--format", fmt, "--price", "2", "-e", "1")
    assert priced["cost_usd"] == round(priced["tokens"] * 2 / 1_000_000, 6)


def test_models_lists_each_provider_and_says_an_estimate_is_one() -> None:
    day = dt.date(2026, 12, 2)
    assert len(listing(None, "together", day).models) >= 74
    text = run("models", "--provider", "together", "--today", "2026-12-02").stdout
    assert "together/moonshotai/Kimi-K2.5" in text and "kimi-k2: not available offline, counted with o200k_base as an estimate" in text


def test_each_providers_default_model_has_a_price_or_says_why_not() -> None:
    """The model a file is priced as when none is named: a price, or the reason there is none,
    with its source, in `ftlint models` and in the estimate's cost row (Bedrock's Nova Lite and
    Vertex's Gemini 3.5 Flash have no training price found)."""
    from ftlint.models import providers

    models = all_models()
    for name, provider in providers().items():
        if provider.default_model:
            m = models[provider.default_model]
            assert m.price is not None or m.rates or (m.unpriced is not None and m.unpriced.source and m.unpriced.date), name
    for fixture, model in (("bedrock-nova", "nova-lite"), ("vertex-gemini", "gemini-3.5-flash")):
        e = json.loads(run("estimate", f"fixtures/formats/{fixture}/good.jsonl", "-o", "json").stdout)
        shown = json.loads(run("models", model, "-o", "json").stdout)["models"][0]
        assert e["cost_usd"] is None and shown["price"] is None
        assert shown["unpriced"]["value"] in e["price_note"] and "was found" in e["price_note"]


def test_vertexs_defaults_are_said_to_stand_in_for_its_unpublished_ones() -> None:
    e = json.loads(run("estimate", "fixtures/formats/vertex-gemini/good.jsonl", "-o", "json").stdout)
    for key in ("epochs", "batch_size"):
        assert e["sources"][key].startswith("a stand-in for vertex's own default, which it does not publish"), e["sources"][key]
    openai = json.loads(run("estimate", "fixtures/good/drone_training.jsonl", "-o", "json").stdout)
    assert "stand-in" not in openai["sources"]["epochs"]  # OpenAI's own auto rule, the cookbook's reading of it


def test_mistrals_fine_tuning_status_is_read_from_its_current_docs() -> None:
    """docs.mistral.ai (read 2026-12-06): the deprecated-features page lists the fine-tuning API
    and fine-tuning (AI Studio or the API) as deprecated with no replacement; the API reference
    still documents the jobs endpoint with invalid_sample_skip_percentage."""
    shown = json.loads(run("models", "--provider", "mistral", "-o", "json").stdout)["deprecated_providers"][0]
    status = shown["status"]
    assert status["date"] == "2026-12-06" and "no longer actively supported" in status["value"]
    assert "invalid_sample_skip_percentage" in status["value"] and "docs.mistral.ai/api/endpoint/fine-tuning" in status["source"]

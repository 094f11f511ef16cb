"""Rendered tokens and the loss mask (issue 15), against transformers' own
apply_chat_template(..., return_assistant_tokens_mask=True) (tests/mask_reference.py).

For each real template (fixtures/templates/trl/: the models' own, as TRL ships them byte for
byte, and TRL's training variants with {% generation %} blocks) and each conversation of
fixtures/chat/mask_corpus.jsonl (system prompts, multi-turn, tool calls, reasoning, non-ASCII),
ftlint's count of rendered tokens and of trainable tokens equals transformers' with an
equivalent tokenizer (the same ranks and added tokens). ftlint gets the template as a user does:
a tokenizer_config.json holding the template, its added tokens, bos and eos.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from ftlint.chat.tally import Tally
from ftlint.options import Loss
from ftlint.tokenizing import TemplatePath
from ftlint.tokens import TokenCounter
from mask_reference import SETUP, corpus, hf_masked, hf_tokenizer, template_path, valid_templates

# the reference's tokenizer family -> ftlint's tokenizer with the same ranks
ENCODING = {"llama3": "llama3", "qwen2": "qwen2", "qwen2.5": "qwen2", "o200k_harmony": "o200k_harmony", "gemma3": "o200k_base",
            "mistral-tekken": "mistral-tekken"}
TODAY = dt.date(2026, 12, 1)
CASES = [(template, case) for case in corpus() for template in valid_templates(case)]


@cache
def config(template: str, folder: Path) -> Path:
    """A tokenizer_config.json as a model repository has it: the template, added tokens, bos, eos."""
    family, bos, eos = SETUP[template]
    added = {str(i): {"content": t.content, "special": True} for i, t in hf_tokenizer(family).added_tokens_decoder.items()}
    path = folder / f"{template}.tokenizer_config.json"
    path.write_text(json.dumps({"chat_template": (template_path(template)).read_text(encoding="utf-8"),
                                "added_tokens_decoder": added, "bos_token": bos or None, "eos_token": eos}))
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("configs")


def ours(template: str, case: dict, folder: Path, assistant_only: bool) -> tuple[int, int]:
    family = SETUP[template][0]
    tally = Tally(TemplatePath(str(config(template, folder))), TokenCounter(ENCODING[family]), TODAY, Loss(assistant_only=assistant_only))
    masked = tally.masked(case["messages"], case.get("tools"))
    return masked.tokens, masked.trained


@pytest.mark.parametrize(("template", "case"), CASES, ids=[f"{t}-{c['id']}" for t, c in CASES])
def test_tokens_and_trainable_tokens_equal_transformers(template: str, case: dict, folder: Path) -> None:
    family, bos, eos = SETUP[template]
    tokens, trainable, _ = hf_masked(template_path(template), family, case["messages"], case.get("tools"), bos, eos)
    assert ours(template, case, folder, assistant_only=True) == (tokens, trainable)
    assert ours(template, case, folder, assistant_only=False) == (tokens, tokens)  # TRL's default: every token
    if "_training" in template:
        assert trainable > 0
    else:
        assert trainable == 0  # the stock templates mark nothing: the empty-mask failure


def test_the_corpus_covers_what_the_issue_names() -> None:
    cases = corpus()
    flat = json.dumps(cases)
    assert any(m["role"] == "system" for c in cases for m in c["messages"])
    assert any(sum(m["role"] == "assistant" for m in c["messages"]) >= 3 for c in cases)
    assert "tool_calls" in flat and "reasoning_content" in flat and "<think>" in flat
    assert {t for c in cases for t in valid_templates(c)} == set(SETUP)


def test_estimate_reports_rendered_and_trainable_tokens(folder: Path, tmp_path: Path) -> None:
    """`estimate -o json` gives the rendered `tokens` and the masked `trainable_tokens`."""
    template = "qwen3_training.jinja"
    cases = [c for c in corpus() if template in valid_templates(c)]
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"messages": c["messages"], **({"tools": c["tools"]} if c.get("tools") else {})}) + "\n"
                            for c in cases))
    family, bos, eos = SETUP[template]
    expected = [hf_masked(template_path(template), family, c["messages"], c.get("tools"), bos, eos)[:2] for c in cases]
    r = run("estimate", str(data), "--format", "trl-messages", "--tokenizer", "qwen2", "--chat-template",
            str(config(template, folder)), "--assistant-only-loss", "-e", "1", "-o", "json")
    e = json.loads(r.stdout)
    assert (e["tokens"], e["trainable_tokens"]) == (sum(t for t, _ in expected), sum(m for _, m in expected))


def test_assistant_only_loss_needs_a_template() -> None:
    r = run("check", str(FIXTURES / "good" / "openai_chat_basic.jsonl"), "--assistant-only-loss")
    assert r.exit_code == 2 and "needs the model's chat template" in r.stderr


PC_TEMPLATES = ["qwen3.jinja", "qwen2_5_training.jinja", "llama3_1.jinja", "gptoss.jinja"]


def hf_prompt_completion(template: str, prompt: list[dict], completion: list[dict]) -> tuple[int, int]:
    """TRL's prompt-completion mask computed with transformers' own tokenizer: the completion starts
    where the tokens of the prompt (with the generation prompt) and of the whole row part."""
    family, bos, eos = SETUP[template]
    tok = hf_tokenizer(family)
    tok.bos_token, tok.eos_token = bos or None, eos
    text = (template_path(template)).read_text(encoding="utf-8")
    head = tok.apply_chat_template(prompt, chat_template=text, tokenize=True, return_dict=True, add_generation_prompt=True)["input_ids"]
    whole = tok.apply_chat_template(prompt + completion, chat_template=text, tokenize=True, return_dict=True)["input_ids"]
    start = next((i for i, (a, b) in enumerate(zip(head, whole, strict=False)) if a != b), min(len(head), len(whole)))
    return len(whole), len(whole) - start


@pytest.mark.parametrize("template", PC_TEMPLATES)
def test_completion_only_loss_equals_trls_prefix_rule(template: str, folder: Path) -> None:
    family = SETUP[template][0]
    tally = Tally(TemplatePath(str(config(template, folder))), TokenCounter(ENCODING[family]), TODAY, Loss())
    for case in corpus():
        if template not in valid_templates(case) or case.get("tools"):
            continue
        messages = case["messages"]
        last_user = max(i for i, m in enumerate(messages) if m["role"] == "user")
        prompt, completion = messages[: last_user + 1], messages[last_user + 1:]
        if not completion:
            continue
        masked = tally.prompt_completion(prompt, completion)
        assert (masked.tokens, masked.trained) == hf_prompt_completion(template, prompt, completion), case["id"]


def test_a_template_without_added_tokens_counts_its_text_and_spells_no_control_token(tmp_path: Path) -> None:
    """A bare --chat-template of the user's, no model named: no text is an added token. Its
    splitter once matched the empty string between every two characters: each counted as a token
    of its own, and FT302 (an error in openai-chat) named "the model's control token " on every line."""
    from ftlint.tokens import get_encoding

    template = tmp_path / "tpl.jinja"
    template.write_text("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}")
    data = tmp_path / "train.jsonl"
    rows = [{"messages": [{"role": "user", "content": f"question {i}"}, {"role": "assistant", "content": "an answer"}]}
            for i in range(3)]
    data.write_text("".join(json.dumps(r) + "\n" for r in rows))
    o200k = get_encoding("o200k_base")
    expected = sum(len(o200k.encode_ordinary("".join(f"<{m['role']}>{m['content']}" for m in r["messages"]))) for r in rows)
    e = json.loads(run("estimate", str(data), "--chat-template", str(template), "--format", "trl-messages", "-o", "json").stdout)
    assert e["tokens"] == expected
    found = json.loads(run("check", str(data), "--chat-template", str(template), "-o", "json").stdout)
    assert not [f for f in found if f["code"] == "FT302"]

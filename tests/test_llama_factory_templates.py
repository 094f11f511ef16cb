"""LLaMA-Factory's templates as ftlint renders them (ftlint/trainers/llama_factory/templates.py,
encode.py) against LLaMA-Factory's own: fixtures/llama_factory/templates.json holds, for every
template ftlint has and a few conversations (one turn, a system prompt and two turns, a thought,
a tool call with its tool prompt and observation, non-Latin text), the tokens of each (prompt,
answer) pair that LLaMA-Factory's encode_multiturn and encode_oneturn made
(tools/record_llama_factory_templates.py, in its environment, with a tokenizer of ftlint's Qwen
ranks and Qwen 3's added tokens). Here the same pairs are made by ftlint and counted with
ftlint's Qwen tokenizer, the template's stop words added to it as LLaMA-Factory adds them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import FIXTURES
from ftlint.chat import CHAT_TEMPLATES, count_rendered
from ftlint.tokens import TokenCounter
from ftlint.trainers.base import Vocab
from ftlint.trainers.llama_factory.encode import multiturn, oneturn
from ftlint.trainers.llama_factory.templates import TEMPLATES

RECORDED = json.loads((FIXTURES / "llama_factory" / "templates.json").read_text(encoding="utf-8"))
LABELS = sorted(RECORDED["templates"])
COUNTER = TokenCounter("qwen2")
QWEN3 = CHAT_TEMPLATES["qwen3-instruct-2507"]


def vocab(name: str) -> Vocab:
    splitter = QWEN3.splitter_with(TEMPLATES[name].stop_words)
    return Vocab(lambda text: count_rendered(text, splitter, COUNTER.count), "", "<|im_end|>", RECORDED["date"])


def made(label: str, key: str) -> dict[str, Any]:
    name, _, flag = label.partition(" ")
    thinking = flag != "enable_thinking=false"
    case = RECORDED["conversations"][key]
    messages = [tuple(m) for m in case["messages"]]
    template, v = TEMPLATES[name], vocab(name)
    pairs = multiturn(template, messages, case["system"], case["tools"], v, thinking, False)
    prompt, answer = oneturn(template, messages, case["system"], case["tools"], v, thinking, False)
    return {"multiturn": [[sum(p.tokens for p in s), sum(p.tokens for p in t)] for s, t in pairs],
            "oneturn": [sum(p.tokens for p in prompt), sum(p.tokens for p in answer)]}


def test_every_template_ftlint_renders_was_recorded() -> None:
    assert {label.partition(" ")[0] for label in LABELS} == set(TEMPLATES)


@pytest.mark.parametrize("label", LABELS)
def test_each_pair_has_llama_factorys_tokens(label: str) -> None:
    for key, want in RECORDED["templates"][label].items():
        if "error" in want:  # LLaMA-Factory fails on it: so does ftlint's renderer, and the row is a finding
            with pytest.raises((ValueError, TypeError, KeyError, AttributeError)):
                made(label, key)
            continue
        assert made(label, key) == want, key

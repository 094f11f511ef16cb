"""LLaMA-Factory's tool formats (src/llamafactory/data/tool_utils.py at ff6d4d1): how a dataset's
`tools` (a JSON string, glaive's column) becomes the text after the system prompt
(ToolUtils.tool_formatter, called by ToolFormatter), and how a function_call turn's JSON becomes
the assistant's text (function_formatter, called by FunctionFormatter in data/formatter.py).
The prompts are its constants, quoted as facts; JSON is written as Python's json.dumps writes it
(ensure_ascii=False, ", " and ": "), which is what LLaMA-Factory calls.

A tool format ftlint does not have (gemma4, glm4, minimax, seed, lfm2, ling) is NotModelled."""

from __future__ import annotations

import json
import re
from collections.abc import Callable

DEFAULT_PROMPT = ("You have access to the following tools:\n{tool_text}Use the following format if using a tool:\n```\n"
                  "Action: tool name (one of [{tool_names}])\nAction Input: the input to the tool, in a JSON format "
                  'representing the kwargs (e.g. ```{{"input": "hello world", "num_beams": 5}}```)\n```\n')
QWEN_PROMPT = ("\n\n# Tools\n\nYou may call one or more functions to assist with the user query.\n\nYou are provided with "
               "function signatures within <tools></tools> XML tags:\n<tools>{tool_text}\n</tools>\n\nFor each function "
               "call, return a json object with function name and arguments within <tool_call></tool_call> XML tags:\n"
               '<tool_call>\n{{"name": <function-name>, "arguments": <args-json-object>}}\n</tool_call>')
LLAMA3_PROMPT = ("Cutting Knowledge Date: December 2023\nToday Date: {date}\n\nYou have access to the following functions. "
                 "To call a function, please respond with JSON for a function call. Respond in the format "
                 '{{"name": function name, "parameters": dictionary of argument name and its value}}. Do not use variables.'
                 "\n\n{tool_text}")
QWEN35_PROMPT = ("\n\n# Tools\n\nYou have access to the following functions:\n\n<tools>{tool_text}\n</tools>\n\nIf you choose "
                 "to call a function ONLY reply in the following format with NO suffix:\n\n<tool_call>\n"
                 "<function=example_function_name>\n<parameter=example_parameter_1>\nvalue_1\n</parameter>\n"
                 "<parameter=example_parameter_2>\nThis is the value for the second parameter\nthat can span\nmultiple "
                 "lines\n</parameter>\n</function>\n</tool_call>\n\n<IMPORTANT>\nReminder:\n- Function calls MUST follow "
                 "the specified format: an inner <function=...></function> block must be nested within "
                 "<tool_call></tool_call> XML tags\n- Required parameters MUST be specified\n- You may provide optional "
                 "reasoning for your function call in natural language BEFORE the function call, but NOT after\n- If there "
                 "is no function call available, answer the question like normal with your current knowledge and do not "
                 "tell the user about function calls\n</IMPORTANT>")


class NotModelled(Exception):
    """A tool format ftlint does not write: the record's figures are LLaMA-Factory's only roughly."""


class Invalid(Exception):
    """Text LLaMA-Factory's formatter fails on ("Invalid JSON format in ..."): its run stops there."""


def dumps(value: object, indent: int | None = None) -> str:
    return json.dumps(value, ensure_ascii=False, indent=indent)


def _wrapped(tool: dict) -> dict:
    return tool if tool.get("type") == "function" else {"type": "function", "function": tool}


def _default_tools(tools: list) -> str:
    """DefaultToolUtils.tool_formatter: each tool's name, description and arguments in words."""
    text, names = "", []
    for tool in tools:
        tool = tool.get("function", "") if tool.get("type") == "function" else tool
        args = ""
        parameters = tool["parameters"]
        for name, param in parameters["properties"].items():
            required = ", required" if name in parameters.get("required", []) else ""
            enum = ", should be one of [{}]".format(", ".join(param["enum"])) if param.get("enum", None) else ""
            items = ", where each item should be {}".format(param["items"].get("type", "")) if param.get("items", None) else ""
            args += f"  - {name} ({param.get('type', '')}{required}): {param.get('description', '')}{enum}{items}\n"
        text += f"> Tool Name: {tool['name']}\nTool Description: {tool.get('description', '')}\nTool Args:\n{args}\n"
        names.append(tool["name"])
    return DEFAULT_PROMPT.format(tool_text=text, tool_names=", ".join(names))


def _qwen35_tools(tools: list) -> str:
    text = "".join("\n" + dumps(t.get("function", t) if t.get("type") == "function" else t) for t in tools)
    return QWEN35_PROMPT.format(tool_text=text)


def _qwen35_calls(calls: list[tuple[str, str]]) -> str:
    texts = []
    for name, arguments in calls:
        text = f"<tool_call>\n<function={name}>"
        for key, value in json.loads(arguments).items():
            text += f"\n<parameter={key}>\n{value if isinstance(value, str) else dumps(value)}\n</parameter>"
        texts.append(text + "\n</function>\n</tool_call>")
    return "\n".join(texts)


def _llama3_calls(calls: list[tuple[str, str]]) -> str:
    made = [{"name": name, "parameters": json.loads(arguments)} for name, arguments in calls]
    return dumps(made[0] if len(made) == 1 else made)


TOOLS: dict[str, Callable[[list, str], str]] = {
    "default": lambda tools, date: _default_tools(tools),
    "qwen": lambda tools, date: QWEN_PROMPT.format(tool_text="".join("\n" + dumps(_wrapped(t)) for t in tools)),
    "qwen3_5": lambda tools, date: _qwen35_tools(tools),
    "llama3": lambda tools, date: LLAMA3_PROMPT.format(date=date, tool_text="".join(dumps(_wrapped(t), 4) + "\n\n" for t in tools)),
    "mistral": lambda tools, date: "[AVAILABLE_TOOLS] " + dumps([_wrapped(t) for t in tools]) + "[/AVAILABLE_TOOLS]",
}
CALLS: dict[str, Callable[[list[tuple[str, str]]], str]] = {
    "default": lambda calls: "\n".join(f"Action: {name}\nAction Input: {arguments}" for name, arguments in calls),
    "qwen": lambda calls: "\n".join(f"<tool_call>\n{dumps({'name': n, 'arguments': json.loads(a)})}\n</tool_call>" for n, a in calls),
    "qwen3_5": _qwen35_calls,
    "llama3": _llama3_calls,
    "mistral": lambda calls: dumps([{"name": n, "arguments": json.loads(a)} for n, a in calls]),
}


def tool_text(tools: str, fmt: str, date: str) -> str:
    """ToolFormatter.apply: the tools column's JSON as the template's tool prompt ("" for an empty list)."""
    if fmt not in TOOLS:
        raise NotModelled(f"LLaMA-Factory's {fmt!r} tool format")
    try:
        found = json.loads(tools)
    except ValueError:
        raise Invalid(f"Invalid JSON format in tool description: {tools[:80]!r}") from None
    try:
        return TOOLS[fmt](found, date) if len(found) != 0 else ""
    except (AttributeError, KeyError, TypeError) as exc:  # a tool that is not an object, or lacks a key the format reads
        raise Invalid(f"a tool LLaMA-Factory's {fmt} tool format cannot write ({type(exc).__name__}: {exc})") from None


def _between(words: tuple[str, str] | None, content: str) -> re.Match[str] | None:
    return re.search(f"{re.escape(words[0])}(.*?){re.escape(words[1])}", content, re.DOTALL) if words else None


def call_text(content: str, fmt: str, thought: tuple[str, str] | None, call_words: tuple[str, str] | None) -> str:
    """FunctionFormatter.apply's text before the slots: the calls (a JSON object or list, maybe
    inside the tool-call words, maybe after a thought) in the tool format. Llama2Template gives
    neither the thought nor the call words."""
    if fmt not in CALLS:
        raise NotModelled(f"LLaMA-Factory's {fmt!r} tool format")
    match = _between(call_words, content)
    if match is None:
        found = _between(thought, content)
        head, body = (found.group(0), content.replace(found.group(0), "")) if found else ("", content)
    else:
        head, body = content.replace(match.group(0), ""), match.group(1)
    try:
        made = json.loads(body)
        made = made if isinstance(made, list) else [made]
        calls = [(c["name"], dumps(c["arguments"])) for c in made]
        return head + CALLS[fmt](calls)
    except ValueError:
        raise Invalid(f"Invalid JSON format in function message: {content[:80]!r}") from None
    except (AttributeError, KeyError, TypeError) as exc:
        raise Invalid(f"a function call LLaMA-Factory cannot read ({type(exc).__name__}: {exc})") from None


__all__ = ["Invalid", "NotModelled", "call_text", "tool_text"]

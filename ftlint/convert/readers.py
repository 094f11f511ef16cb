"""Reading: a record of a source format as a Conversation."""

from __future__ import annotations

import json
from collections.abc import Callable

from ..formats.conversion import MESSAGES
from .conversation import Conversation, Message, arguments, as_dict, as_list


def from_messages(record: dict) -> Conversation:
    messages = []
    for m in as_list(record.get("messages")):
        if not isinstance(m, dict):
            continue
        calls = [{"id": c.get("id"), "name": as_dict(c.get("function")).get("name"), "arguments": arguments(as_dict(c.get("function")).get("arguments"))}
                 for c in as_list(m.get("tool_calls")) if isinstance(c, dict)]
        reasoning = next((m[k] for k in ("reasoning_content", "reasoning", "thinking") if isinstance(m.get(k), str)), None)
        messages.append(Message(str(m.get("role")), m.get("content") if m.get("content") is not None else "", calls,
                                m.get("tool_call_id"), m.get("name"), m.get("weight"), reasoning))
    return Conversation(messages, [t for t in as_list(record.get("tools")) if isinstance(t, dict)] or None)


SHAREGPT_IN = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system",
               "function_call": "assistant", "observation": "tool", "tool": "tool", "chatgpt": "assistant", "model": "assistant"}


def from_sharegpt(record: dict) -> Conversation:
    messages = []
    system = record.get("system")
    if isinstance(system, str) and system:
        messages.append(Message("system", system))
    for turn in as_list(record.get("conversations")):
        if not isinstance(turn, dict):
            continue
        speaker, value = turn.get("from"), turn.get("value")
        role = SHAREGPT_IN.get(str(speaker).lower(), str(speaker))
        if speaker == "function_call":
            try:
                call = json.loads(value) if isinstance(value, str) else {}
            except ValueError:
                call = {}
            calls = call if isinstance(call, list) else [call]
            messages.append(Message("assistant", "", [{"id": None, "name": c.get("name"), "arguments": arguments(c.get("arguments", {}))}
                                                      for c in calls if isinstance(c, dict)], weight=turn.get("weight")))
        else:
            messages.append(Message(role, value if isinstance(value, str) else "", weight=turn.get("weight")))
    tools = record.get("tools")
    if isinstance(tools, str):
        try:
            tools = json.loads(tools)
        except ValueError:
            tools = None
    # LLaMA-Factory writes bare function definitions
    listed = [t if "function" in t else {"type": "function", "function": t} for t in as_list(tools) if isinstance(t, dict)]
    return Conversation(messages, listed or None)


def from_alpaca(record: dict) -> Conversation:
    messages = []
    if isinstance(record.get("system"), str) and record["system"]:
        messages.append(Message("system", record["system"]))
    for pair in as_list(record.get("history")):
        if isinstance(pair, list) and len(pair) == 2:
            messages += [Message("user", pair[0]), Message("assistant", pair[1])]
    prompt = "\n".join(t for t in (record.get("instruction"), record.get("input")) if isinstance(t, str) and t)
    messages += [Message("user", prompt), Message("assistant", record.get("output") or "")]
    return Conversation(messages)


def from_gemini(record: dict) -> Conversation:
    messages = []
    system = record.get("systemInstruction") or record.get("system_instruction")
    if isinstance(system, dict):
        messages.append(Message("system", "".join(str(p.get("text", "")) for p in as_list(system.get("parts")) if isinstance(p, dict))))
    for turn in as_list(record.get("contents")):
        if not isinstance(turn, dict):
            continue
        role = {"model": "assistant", "function": "tool"}.get(str(turn.get("role", "user")), str(turn.get("role", "user")))
        texts, calls = [], []
        for part in as_list(turn.get("parts")):
            if not isinstance(part, dict):
                continue
            if "text" in part:
                texts.append(str(part["text"]))
            elif "functionCall" in part:
                call = as_dict(part["functionCall"])
                calls.append({"id": None, "name": call.get("name"), "arguments": arguments(call.get("args", {}))})
            elif "functionResponse" in part:
                response = as_dict(part["functionResponse"])
                messages.append(Message("tool", arguments(response.get("response")), name=response.get("name")))
        if texts or calls:
            messages.append(Message(role, "".join(texts), calls))
    return Conversation(messages, _from_gemini_tools(record.get("tools")))


def _from_gemini_tools(tools: object) -> list | None:
    out = []
    for tool in tools if isinstance(tools, list) else []:
        for declaration in as_list(tool.get("functionDeclarations")) if isinstance(tool, dict) else []:
            if isinstance(declaration, dict):
                out.append({"type": "function", "function": declaration})
    return out or None


def from_nova(record: dict) -> Conversation:
    messages = []
    system = record.get("system")
    if isinstance(system, list):
        messages.append(Message("system", "".join(str(b.get("text", "")) for b in system if isinstance(b, dict))))
    for turn in as_list(record.get("messages")):
        if not isinstance(turn, dict):
            continue
        texts, reasoning = [], None
        for block in as_list(turn.get("content")):
            if isinstance(block, dict) and "text" in block:
                texts.append(str(block["text"]))
            elif isinstance(block, dict) and "reasoningContent" in block:
                reasoning = as_dict(as_dict(block["reasoningContent"]).get("reasoningText")).get("text")
        messages.append(Message(str(turn.get("role")), "".join(texts), reasoning=reasoning))
    return Conversation(messages)


# by the kind of the format's Conversion
READERS: dict[str, Callable[[dict], Conversation]] = {
    MESSAGES: from_messages, "sharegpt": from_sharegpt, "alpaca": from_alpaca, "gemini": from_gemini, "nova": from_nova,
}

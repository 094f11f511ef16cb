"""Writing: a Conversation in a target format; what the target cannot hold is `lost` (FT801), what
it cannot hold at all raises Unconvertible (FT802)."""

from __future__ import annotations

import json
from collections.abc import Callable

from ..formats.conversion import MESSAGES
from .conversation import Conversation, Conversion, Lost, Message, Unconvertible, plain_text, text_of


def to_messages(conv: Conversation, target: str, how: Conversion, lost: Lost) -> dict:
    out = []
    for i, m in enumerate(conv.messages):
        message: dict = {"role": m.role, "content": m.content}
        if m.tool_calls:
            message["tool_calls"] = [{"id": c["id"] or f"call{i}x{j}", "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}} for j, c in enumerate(m.tool_calls)]
            if message["content"] in ("", None):  # OpenAI writes null beside tool calls; Together and TRL leave it out
                if how.null_content:
                    message["content"] = None
                else:
                    del message["content"]
        if m.role == "tool":
            message["tool_call_id"] = m.tool_call_id or _answered_id(conv.messages, i)
        if m.weight is not None:
            if how.weights and m.role == "assistant" and m.weight in (0, 1):
                message["weight"] = int(m.weight)
            elif m.weight != 1 or (m.role == "assistant" and not how.weights):
                article = "an" if m.role[:1] in "aeio" else "a"  # a user, an assistant
                lost.append((f"$.messages[{i}].weight", f"a weight ({m.weight!r}) on {article} {m.role} message: {target} cannot hold it"))
        if m.reasoning:
            if how.reasoning:
                message[how.reasoning] = m.reasoning
            else:
                lost.append((f"$.messages[{i}]", f"reasoning: {target} has no field for it"))
        out.append(message)
    record: dict = {"messages": out}
    if conv.tools:
        record["tools"] = conv.tools
    return record


def _answered_id(messages: list[Message], index: int) -> str:
    """The id of the tool call a tool result answers, for sources that match them by order."""
    answered = sum(1 for m in messages[:index] if m.role == "tool")
    calls = [(i, j) for i, m in enumerate(messages[:index]) for j, _ in enumerate(m.tool_calls)]
    if answered < len(calls):
        i, j = calls[answered]
        return messages[i].tool_calls[j]["id"] or f"call{i}x{j}"
    return f"call{index}"


def to_sharegpt(conv: Conversation, target: str, how: Conversion, lost: Lost) -> dict:
    turns: list[dict] = []
    role_out = {"system": "system", "user": "human", "assistant": "gpt", "tool": "observation"}
    for i, m in enumerate(conv.messages):
        text = text_of(m, i, lost, "ShareGPT holds text")
        if m.tool_calls:
            if text:
                turns.append({"from": "gpt", "value": text})
            calls = [{"name": c["name"], "arguments": json.loads(c["arguments"]) if _is_json(c["arguments"]) else c["arguments"]}
                     for c in m.tool_calls]
            turns.append({"from": "function_call", "value": json.dumps(calls[0] if len(calls) == 1 else calls, ensure_ascii=False)})
        else:
            turns.append({"from": role_out.get(m.role, m.role), "value": text})
        if m.weight is not None:
            turns[-1]["weight"] = m.weight
        if m.reasoning:
            lost.append((f"$.messages[{i}]", "reasoning: ShareGPT has no field for it"))
    record: dict = {"conversations": turns}
    if conv.tools:
        record["tools"] = json.dumps([t.get("function", t) for t in conv.tools if isinstance(t, dict)], ensure_ascii=False)
    return record


def _is_json(text: str) -> bool:
    try:
        json.loads(text)
    except (ValueError, TypeError):
        return False
    return True


def to_alpaca(conv: Conversation, target: str, how: Conversion, lost: Lost) -> dict:
    messages = list(conv.messages)
    record: dict = {}
    if messages and messages[0].role == "system":
        record["system"] = plain_text(messages.pop(0).content) or ""
    if any(m.tool_calls or m.role not in ("user", "assistant") for m in messages) or conv.tools:
        raise Unconvertible("tool calls, tool results or a second system message: Alpaca has no room for them")
    if len(messages) < 2 or len(messages) % 2 or any(m.role != ("user" if k % 2 == 0 else "assistant") for k, m in enumerate(messages)):
        raise Unconvertible("Alpaca takes user and assistant turns in alternation, ending with the assistant")
    texts = [plain_text(m.content) for m in messages]
    if any(t is None for t in texts):
        raise Unconvertible("an image or other media: Alpaca holds text")
    for i, m in enumerate(messages):
        if m.weight not in (None, 1):
            lost.append((f"$.messages[{i}].weight", "a weight: Alpaca has none"))
        if m.reasoning:
            lost.append((f"$.messages[{i}]", "reasoning: Alpaca has no field for it"))
    record["instruction"], record["input"], record["output"] = texts[-2], "", texts[-1]
    if len(messages) > 2:
        record["history"] = [[texts[k], texts[k + 1]] for k in range(0, len(messages) - 2, 2)]
    return record


def to_gemini(conv: Conversation, target: str, how: Conversion, lost: Lost) -> dict:
    record: dict = {}
    contents = []
    for i, m in enumerate(conv.messages):
        text = text_of(m, i, lost, "write an image as a Gemini fileData part")
        if m.role == "system" and i == 0:
            record["systemInstruction"] = {"parts": [{"text": text}]}
            continue
        if m.weight not in (None, 1):
            lost.append((f"$.messages[{i}].weight", "a weight: Gemini tuning has none"))
        if m.reasoning:
            lost.append((f"$.messages[{i}]", "reasoning: Gemini tuning data has no field for it"))
        if m.role == "tool":
            try:
                response = json.loads(text)
            except ValueError:
                response = {"result": text}
            contents.append({"role": "user", "parts": [{"functionResponse": {"name": m.name or _called(conv.messages, i),
                                                                             "response": response if isinstance(response, dict) else {"result": response}}}]})
            continue
        parts: list[dict] = [{"text": text}] if text else []
        for call in m.tool_calls:
            args = json.loads(call["arguments"]) if _is_json(call["arguments"]) else {"arguments": call["arguments"]}
            parts.append({"functionCall": {"name": call["name"], "args": args}})
        contents.append({"role": "model" if m.role == "assistant" else "user", "parts": parts or [{"text": ""}]})
    record["contents"] = contents
    if conv.tools:
        record["tools"] = [{"functionDeclarations": [t.get("function", t) for t in conv.tools if isinstance(t, dict)]}]
    return record


def _called(messages: list[Message], index: int) -> str:
    for m in reversed(messages[:index]):
        if m.tool_calls:
            return str(m.tool_calls[0]["name"])
    return "tool"


def to_nova(conv: Conversation, target: str, how: Conversion, lost: Lost) -> dict:
    record: dict = {"schemaVersion": "bedrock-conversation-2024"}
    messages = []
    for i, m in enumerate(conv.messages):
        text = text_of(m, i, lost, "Nova takes images from S3")
        if m.role == "system" and i == 0:
            record["system"] = [{"text": text}]
            continue
        if m.role == "system":  # bedrock-conversation-2024's one system list comes before every message
            raise Unconvertible("a system message after the start of the conversation: bedrock-conversation-2024 holds "
                                "one system prompt, before the messages")
        if m.tool_calls or m.role == "tool":
            raise Unconvertible("tool calls: ftlint writes bedrock-conversation-2024 without tool use (Nova 1 takes none)")
        if m.weight not in (None, 1):
            lost.append((f"$.messages[{i}].weight", "a weight: Nova has none"))
        content: list[dict] = []
        if m.reasoning:
            content.append({"reasoningContent": {"reasoningText": {"text": m.reasoning}}})
        content.append({"text": text})
        messages.append({"role": m.role, "content": content})
    record["messages"] = messages
    return record


# by the kind of the target's Conversion; each is given the target's name (for what it says) and its Conversion
WRITERS: dict[str, Callable[[Conversation, str, Conversion, Lost], dict]] = {
    MESSAGES: to_messages, "sharegpt": to_sharegpt, "alpaca": to_alpaca, "gemini": to_gemini, "nova": to_nova,
}

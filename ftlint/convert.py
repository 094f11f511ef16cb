"""`ftlint convert`: between the chat-like formats, as carefully as the checker reads them.

Every record goes through one common conversation (system text, messages with role, text or
parts, tool calls, tool results, weight, reasoning; tools) and is written in the target's
shape. What the target cannot hold (a tool call into Alpaca, a weight into TRL messages, an image
into ShareGPT, reasoning into Gemini) is a finding (FT801, the record is still written with the
rest) and never dropped silently; a converted record the target's own rules reject is reported
with the target's codes, and `--drop-invalid` leaves it out. Output is written to a temporary
file and renamed into place, never over an input. Every line read is accounted for (Tally):
written, left out (and why), or blank.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

MESSAGES_FORMATS = ("openai-chat", "azure-openai-chat", "fireworks-chat", "together-conversational", "mistral-chat", "trl-messages")
TARGETS = (*MESSAGES_FORMATS, "sharegpt", "alpaca", "vertex-gemini", "bedrock-nova")
# what each messages format keeps of a message (its schema's keys)
WEIGHTED = ("openai-chat", "azure-openai-chat", "fireworks-chat", "together-conversational", "mistral-chat")
REASONING = {"together-conversational": "reasoning_content", "fireworks-chat": "reasoning_content", "trl-messages": "reasoning_content"}


class Unconvertible(Exception):
    """The record cannot be written in the target format at all (Alpaca has no room for it)."""


@dataclass
class Message:
    role: str  # system, user, assistant, tool
    content: object = ""  # text, or parts (OpenAI-style: {"type": "text"|"image_url", ...})
    tool_calls: list[dict] = field(default_factory=list)  # [{"id", "name", "arguments": JSON text}]
    tool_call_id: str | None = None
    name: str | None = None  # a tool result's function name, where the source says it
    weight: float | None = None
    reasoning: str | None = None


@dataclass
class Conversation:
    messages: list[Message]
    tools: list | None = None  # OpenAI-style tool definitions


Lost = list[tuple[str, str]]  # (JSON path in the source record, what the target cannot hold)


def _text(content: object) -> str | None:
    """Content as plain text, or None when it holds more than text (an image)."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for part in content:
            if isinstance(part, dict) and part.get("type", "text") == "text" and isinstance(part.get("text"), str):
                texts.append(part["text"])
            else:
                return None
        return "".join(texts)
    return "" if content is None else None


def _list(value: object) -> list:
    return value if isinstance(value, list) else []


def _dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def _text_of(m: Message, i: int, lost: Lost, why: str) -> str:
    """A message's text; media parts it holds are left out, and said (`why`: what the target takes)."""
    text = _text(m.content)
    if text is not None:
        return text
    lost.append((f"$.messages[{i}].content", f"an image or other media: {why}"))
    parts = m.content if isinstance(m.content, list) else []
    return _text([p for p in parts if isinstance(p, dict) and p.get("type", "text") == "text"]) or ""


def _arguments(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


# --- reading: a record of a source format as a Conversation ------------------------------------

def from_messages(record: dict) -> Conversation:
    messages = []
    for m in _list(record.get("messages")):
        if not isinstance(m, dict):
            continue
        calls = [{"id": c.get("id"), "name": _dict(c.get("function")).get("name"), "arguments": _arguments(_dict(c.get("function")).get("arguments"))}
                 for c in _list(m.get("tool_calls")) if isinstance(c, dict)]
        reasoning = next((m[k] for k in ("reasoning_content", "reasoning", "thinking") if isinstance(m.get(k), str)), None)
        messages.append(Message(str(m.get("role")), m.get("content") if m.get("content") is not None else "", calls,
                                m.get("tool_call_id"), m.get("name"), m.get("weight"), reasoning))
    return Conversation(messages, [t for t in _list(record.get("tools")) if isinstance(t, dict)] or None)


SHAREGPT_IN = {"human": "user", "user": "user", "gpt": "assistant", "assistant": "assistant", "system": "system",
               "function_call": "assistant", "observation": "tool", "tool": "tool", "chatgpt": "assistant", "model": "assistant"}


def from_sharegpt(record: dict) -> Conversation:
    messages = []
    system = record.get("system")
    if isinstance(system, str) and system:
        messages.append(Message("system", system))
    for turn in _list(record.get("conversations")):
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
            messages.append(Message("assistant", "", [{"id": None, "name": c.get("name"), "arguments": _arguments(c.get("arguments", {}))}
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
    listed = [t if "function" in t else {"type": "function", "function": t} for t in _list(tools) if isinstance(t, dict)]
    return Conversation(messages, listed or None)


def from_alpaca(record: dict) -> Conversation:
    messages = []
    if isinstance(record.get("system"), str) and record["system"]:
        messages.append(Message("system", record["system"]))
    for pair in _list(record.get("history")):
        if isinstance(pair, list) and len(pair) == 2:
            messages += [Message("user", pair[0]), Message("assistant", pair[1])]
    prompt = "\n".join(t for t in (record.get("instruction"), record.get("input")) if isinstance(t, str) and t)
    messages += [Message("user", prompt), Message("assistant", record.get("output") or "")]
    return Conversation(messages)


def from_gemini(record: dict) -> Conversation:
    messages = []
    system = record.get("systemInstruction") or record.get("system_instruction")
    if isinstance(system, dict):
        messages.append(Message("system", "".join(str(p.get("text", "")) for p in _list(system.get("parts")) if isinstance(p, dict))))
    for turn in _list(record.get("contents")):
        if not isinstance(turn, dict):
            continue
        role = {"model": "assistant", "function": "tool"}.get(str(turn.get("role", "user")), str(turn.get("role", "user")))
        texts, calls = [], []
        for part in _list(turn.get("parts")):
            if not isinstance(part, dict):
                continue
            if "text" in part:
                texts.append(str(part["text"]))
            elif "functionCall" in part:
                call = _dict(part["functionCall"])
                calls.append({"id": None, "name": call.get("name"), "arguments": _arguments(call.get("args", {}))})
            elif "functionResponse" in part:
                response = _dict(part["functionResponse"])
                messages.append(Message("tool", _arguments(response.get("response")), name=response.get("name")))
        if texts or calls:
            messages.append(Message(role, "".join(texts), calls))
    return Conversation(messages, _from_gemini_tools(record.get("tools")))


def _from_gemini_tools(tools: object) -> list | None:
    out = []
    for tool in tools if isinstance(tools, list) else []:
        for declaration in _list(tool.get("functionDeclarations")) if isinstance(tool, dict) else []:
            if isinstance(declaration, dict):
                out.append({"type": "function", "function": declaration})
    return out or None


def from_nova(record: dict) -> Conversation:
    messages = []
    system = record.get("system")
    if isinstance(system, list):
        messages.append(Message("system", "".join(str(b.get("text", "")) for b in system if isinstance(b, dict))))
    for turn in _list(record.get("messages")):
        if not isinstance(turn, dict):
            continue
        texts, reasoning = [], None
        for block in _list(turn.get("content")):
            if isinstance(block, dict) and "text" in block:
                texts.append(str(block["text"]))
            elif isinstance(block, dict) and "reasoningContent" in block:
                reasoning = _dict(_dict(block["reasoningContent"]).get("reasoningText")).get("text")
        messages.append(Message(str(turn.get("role")), "".join(texts), reasoning=reasoning))
    return Conversation(messages)


READERS: dict[str, Callable[[dict], Conversation]] = {
    **dict.fromkeys(MESSAGES_FORMATS, from_messages), "sharegpt": from_sharegpt, "alpaca": from_alpaca,
    "vertex-gemini": from_gemini, "bedrock-nova": from_nova,
}


# --- writing: a Conversation in a target format ----------------------------------------------

def to_messages(conv: Conversation, target: str, lost: Lost) -> dict:
    out = []
    for i, m in enumerate(conv.messages):
        message: dict = {"role": m.role, "content": m.content}
        if m.tool_calls:
            message["tool_calls"] = [{"id": c["id"] or f"call{i}x{j}", "type": "function",
                                      "function": {"name": c["name"], "arguments": c["arguments"]}} for j, c in enumerate(m.tool_calls)]
            if message["content"] in ("", None):  # OpenAI writes null beside tool calls; Together and TRL leave it out
                if target in WEIGHTED and target != "together-conversational":
                    message["content"] = None
                else:
                    del message["content"]
        if m.role == "tool":
            message["tool_call_id"] = m.tool_call_id or _answered_id(conv.messages, i)
        if m.weight is not None:
            if target in WEIGHTED and m.role == "assistant" and m.weight in (0, 1):
                message["weight"] = int(m.weight)
            elif m.weight != 1 or (m.role == "assistant" and target not in WEIGHTED):
                article = "an" if m.role[:1] in "aeio" else "a"  # a user, an assistant
                lost.append((f"$.messages[{i}].weight", f"a weight ({m.weight!r}) on {article} {m.role} message: {target} cannot hold it"))
        if m.reasoning:
            key = REASONING.get(target)
            if key:
                message[key] = m.reasoning
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


def to_sharegpt(conv: Conversation, target: str, lost: Lost) -> dict:
    turns: list[dict] = []
    role_out = {"system": "system", "user": "human", "assistant": "gpt", "tool": "observation"}
    for i, m in enumerate(conv.messages):
        text = _text_of(m, i, lost, "ShareGPT holds text")
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


def to_alpaca(conv: Conversation, target: str, lost: Lost) -> dict:
    messages = list(conv.messages)
    record: dict = {}
    if messages and messages[0].role == "system":
        record["system"] = _text(messages.pop(0).content) or ""
    if any(m.tool_calls or m.role not in ("user", "assistant") for m in messages) or conv.tools:
        raise Unconvertible("tool calls, tool results or a second system message: Alpaca has no room for them")
    if len(messages) < 2 or len(messages) % 2 or any(m.role != ("user" if k % 2 == 0 else "assistant") for k, m in enumerate(messages)):
        raise Unconvertible("Alpaca takes user and assistant turns in alternation, ending with the assistant")
    texts = [_text(m.content) for m in messages]
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


def to_gemini(conv: Conversation, target: str, lost: Lost) -> dict:
    record: dict = {}
    contents = []
    for i, m in enumerate(conv.messages):
        text = _text_of(m, i, lost, "write an image as a Gemini fileData part")
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


def to_nova(conv: Conversation, target: str, lost: Lost) -> dict:
    record: dict = {"schemaVersion": "bedrock-conversation-2024"}
    messages = []
    for i, m in enumerate(conv.messages):
        text = _text_of(m, i, lost, "Nova takes images from S3")
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


WRITERS: dict[str, Callable[[Conversation, str, Lost], dict]] = {
    **dict.fromkeys(MESSAGES_FORMATS, to_messages), "sharegpt": to_sharegpt, "alpaca": to_alpaca,
    "vertex-gemini": to_gemini, "bedrock-nova": to_nova,
}


@dataclass
class Converted:
    number: int  # the source line (or row)
    record: dict | None  # None: not convertible, or rejected by the target with --drop-invalid
    lost: Lost
    rejected: list[tuple[str, str, str]]  # (code, message, path) of the target's errors
    failure: str | None = None


# what each reader takes from a record and from a message; anything else is not carried (FT801)
READ_TOP = {**dict.fromkeys(MESSAGES_FORMATS, ("messages", "tools")), "sharegpt": ("conversations", "system", "tools"),
            "alpaca": ("instruction", "input", "output", "system", "history"),
            "vertex-gemini": ("contents", "systemInstruction", "system_instruction", "tools"),
            "bedrock-nova": ("schemaVersion", "system", "messages")}
READ_MESSAGE = ("role", "content", "tool_calls", "tool_call_id", "name", "weight", "reasoning_content", "reasoning", "thinking")


def _not_carried(record: dict, source: str) -> Lost:
    lost = [(f"$.{key}", f"'{key}' is not carried into the converted record") for key in record if key not in READ_TOP[source]]
    if source in MESSAGES_FORMATS:
        for i, message in enumerate(_list(record.get("messages"))):
            if isinstance(message, dict):
                lost += [(f"$.messages[{i}].{key}", f"message key '{key}' is not carried") for key in message
                         if key not in READ_MESSAGE or (key == "name" and message.get("role") != "tool")]
    return lost


def convert_record(record: dict, source: str, target: str) -> tuple[dict | None, Lost, str | None]:
    lost: Lost = _not_carried(record, source)
    try:
        return WRITERS[target](READERS[source](record), target, lost), lost, None
    except Unconvertible as exc:
        return None, lost, str(exc)


def convert_lines(lines: Iterator[tuple[int, dict]], source: str, target: str) -> Iterator[Converted]:
    """Each source record converted, with what was lost and the target's own errors on it."""
    from .diagnostics import ERROR
    from .engine.judge import record_findings
    from .formats.registry import FORMATS
    from .rules import severity
    from .tokens import TokenCounter

    fmt, counter = FORMATS[target], TokenCounter("o200k_base")
    for number, record in lines:
        converted, lost, failure = convert_record(record, source, target)
        rejected = []
        if converted is not None:
            for code, hit in record_findings(fmt, converted, counter):
                if severity(code, fmt.severities) == ERROR:
                    rejected.append((code, hit.message, hit.pointer or ""))
        yield Converted(number, converted, lost, rejected, failure)


@dataclass
class Tally:
    """What became of each line read: written, left out, or blank; the three add up to the lines
    read, and the summary names each class with its codes. A rejected record (the target's rules,
    or the source line's own error, a duplicate key) is written unless --drop-invalid leaves it
    out; an unreadable line or a record the target cannot hold is never written."""

    dropping: bool  # --drop-invalid
    lines: int = 0
    written: int = 0
    blank: int = 0
    unconvertible: int = 0  # FT802
    rejected: Counter[str] = field(default_factory=Counter)  # records by their first error's code
    unreadable: Counter[str] = field(default_factory=Counter)  # lines by the code that says why they hold no record

    @property
    def left_out(self) -> int:
        return self.unconvertible + sum(self.unreadable.values()) + (sum(self.rejected.values()) if self.dropping else 0)

    @property
    def failing(self) -> bool:
        """Exit 1: a line that is not a clean record, and no --drop-invalid to say leave it out."""
        return not self.dropping and bool(self.unconvertible or self.rejected or self.unreadable)

    def summary(self) -> str:
        rejected = sum(self.rejected.values())
        why = [f"{self.unconvertible:,} not convertible: FT802"] if self.unconvertible else []
        if rejected and self.dropping:
            why.append(f"{rejected:,} rejected: {_by_code(self.rejected)}")
        if self.unreadable:
            why.append(f"{sum(self.unreadable.values()):,} unreadable: {_by_code(self.unreadable)}")
        kept = f" ({rejected:,} rejected, written as they are: {_by_code(self.rejected)})" if rejected and not self.dropping else ""
        return (f"{self.lines:,} lines read: {self.written:,} records written{kept}, {self.left_out:,} left out"
                + (f" ({'; '.join(why)})" if why else "") + f", {self.blank:,} blank")


def _by_code(counts: Counter[str]) -> str:
    return ", ".join(f"{code} {n:,}" for code, n in sorted(counts.items()))

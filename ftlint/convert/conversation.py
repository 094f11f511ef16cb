"""The one conversation every converted record passes through (system text, messages with role,
text or parts, tool calls, tool results, weight, reasoning; tools), and the small readings of a
record's values both sides share. Which format is read or written how is the format's own fact
(formats/conversion.py Conversion, declared in the registry), handed down by convert/__init__.py."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..formats.conversion import Conversion as Conversion


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


def plain_text(content: object) -> str | None:
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


def as_list(value: object) -> list:
    return value if isinstance(value, list) else []


def as_dict(value: object) -> dict:
    return value if isinstance(value, dict) else {}


def text_of(m: Message, i: int, lost: Lost, why: str) -> str:
    """A message's text; media parts it holds are left out, and said (`why`: what the target takes)."""
    text = plain_text(m.content)
    if text is not None:
        return text
    lost.append((f"$.messages[{i}].content", f"an image or other media: {why}"))
    parts = m.content if isinstance(m.content, list) else []
    return plain_text([p for p in parts if isinstance(p, dict) and p.get("type", "text") == "text"]) or ""


def arguments(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


__all__ = ["Conversation", "Conversion", "Lost", "Message", "Unconvertible", "arguments", "as_dict", "as_list", "plain_text", "text_of"]

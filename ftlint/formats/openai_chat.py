"""OpenAI supervised chat fine-tuning: one conversation per line.

Record rule: one line is one training example; every assistant message without weight 0 is a
target inside it (the conversation is not split). Billed tokens are all tokens of the example.

Token convention (OpenAI does not publish the exact one; this follows OpenAI's cookbook and
extends it to what the cookbook leaves out):
  per example   3 (priming the reply)
                + tokens of the compact JSON of `tools` and of `functions`, if present
  per message   3 + tokens(role) + tokens(content) + [tokens(name) + 1]
                + per tool call: tokens(function name) + tokens(arguments)
                + tokens(tool_call_id) + tokens(function_call name + arguments) + tokens(refusal)
  content       a string, or the sum of its text/refusal parts; an image part counts 85 tokens
                (the fixed cost of a low-detail image; higher detail costs more)
Trainable tokens: content, tool calls and refusal of the target assistant messages.
"""

from __future__ import annotations

import re

import orjson

from ..diagnostics import json_path
from ..rules import REGISTRY
from ..rules import openai_chat as chat_rules
from ..schemas import schema_findings
from ..tokens import TokenCounter
from . import LineFigures, RecordFigures

TOKENS_PER_EXAMPLE = 3
TOKENS_PER_MESSAGE = 3
TOKENS_PER_NAME = 1
TOKENS_PER_IMAGE = 85

# Spelled like a special token of OpenAI's or a common chat template's tokenizer: <|endoftext|>,
# <|im_start|>, <|eot_id|>, ...
SPECIAL_TOKEN_TEXT = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>")

RULES = [r for r in REGISTRY.values() if r.check is not None and r.check.__module__ == chat_rules.__name__]


class OpenAIChat:
    """OpenAI's chat format, and providers that take it as it is (Azure, Mistral, Fireworks)."""

    schema = "openai-chat"
    shape = "messages"
    also_shapes: tuple[str, ...] = ()
    token_limit: int | None = None  # the model's limit applies
    record_rule = "1 line = 1 record; every assistant message without weight 0 is a target (the conversation is not split)"
    documented = True
    turns_key = "messages"

    def __init__(self, name: str = "openai-chat", title: str = "OpenAI supervised chat fine-tuning (messages)",
                 providers: str = "OpenAI: gpt-4.1, gpt-4.1-mini, gpt-4.1-nano, gpt-4o, gpt-4o-mini, gpt-3.5-turbo",
                 min_examples: int | None = 10, bom_ok: bool = False, notes: str = "",
                 checks: tuple = (), record_rule: str | None = None) -> None:
        self.name, self.title, self.providers = name, title, providers
        self.min_examples, self.bom_ok, self.notes, self.checks = min_examples, bom_ok, notes, checks
        if record_rule:
            self.record_rule = record_rule

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        messages = record.get("messages")
        return [(i, m) for i, m in enumerate(messages) if isinstance(m, dict)] if isinstance(messages, list) else []

    def findings(self, record: dict, compact: bytes | None = None) -> list[tuple[str, str, str | None]]:
        out: list[tuple[str, str, str | None]] = list(schema_findings(self.schema, record))
        compact = orjson.dumps(record) if compact is None else compact
        for rule in RULES:
            if rule.applies(compact):
                out.extend((rule.code, hit.message, hit.pointer) for hit in rule.check(record))  # type: ignore[misc]
        for check in self.checks:
            out.extend(check(record, self))
        return out

    def prompt(self, record: dict) -> object:
        messages = record.get("messages")
        if not isinstance(messages, list):
            return record
        context = []
        for message in messages:
            if isinstance(message, dict) and chat_rules.is_target(message):
                break
            context.append(message)
        return [context, record.get("tools")]

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures:
        specials: list[str] = []
        tokens = TOKENS_PER_EXAMPLE
        for key in ("tools", "functions"):
            if record.get(key):
                tokens += counter.count(orjson.dumps(record[key]).decode())
        trainable = targets = n_messages = 0
        messages = record.get("messages")
        for i, message in enumerate(messages if isinstance(messages, list) else ()):
            if not isinstance(message, dict):
                continue
            n_messages += 1
            body = _body_tokens(message, i, counter, specials)
            tokens += TOKENS_PER_MESSAGE + _count(message.get("role"), counter) + body
            tokens += _count(message.get("tool_call_id"), counter)
            if isinstance(message.get("name"), str):
                tokens += counter.count(message["name"]) + TOKENS_PER_NAME
            if chat_rules.is_target(message):
                targets += 1
                trainable += body
        return LineFigures([RecordFigures(n_messages, targets, tokens, trainable)], n_messages, specials)


def _count(value: object, counter: TokenCounter) -> int:
    return counter.count(value) if isinstance(value, str) else 0


def _text(value: object, pointer: list, counter: TokenCounter, specials: list[str]) -> int:
    if not isinstance(value, str):
        return 0
    if "<|" in value and SPECIAL_TOKEN_TEXT.search(value):
        specials.append(json_path(pointer))
    return counter.count(value)


def _body_tokens(message: dict, i: int, counter: TokenCounter, specials: list[str]) -> int:
    """Tokens of what the message says: content, tool calls, refusal."""
    n = 0
    content = message.get("content")
    if isinstance(content, str):
        n += _text(content, ["messages", i, "content"], counter, specials)
    elif isinstance(content, list):
        for j, part in enumerate(content):
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "image_url":
                n += TOKENS_PER_IMAGE
            elif kind in ("text", "refusal"):
                n += _text(part.get(kind), ["messages", i, "content", j, kind], counter, specials)
    n += _text(message.get("refusal"), ["messages", i, "refusal"], counter, specials)
    calls = message.get("tool_calls")
    functions = [c.get("function") for c in calls if isinstance(c, dict)] if isinstance(calls, list) else []
    functions.append(message.get("function_call"))
    for function in functions:
        if isinstance(function, dict):
            n += _count(function.get("name"), counter) + _count(function.get("arguments"), counter)
    return n


FORMAT = OpenAIChat()

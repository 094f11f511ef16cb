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

import orjson

from ..literals import present as literals_in
from ..rules import REGISTRY
from ..rules import openai_chat as chat_rules
from ..schemas import schema_findings
from ..tokens import TokenCounter
from . import LineFigures, RecordFigures
from .generic import TOKENS_PER_RECORD, TOKENS_PER_TURN, Counting

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

    def findings(self, record: dict, present: frozenset[bytes] | None = None) -> list[tuple[str, str, str | None]]:
        out: list[tuple[str, str, str | None]] = list(schema_findings(self.schema, record))
        if present is None:
            present = literals_in(orjson.dumps(record))
        for rule in RULES:
            if rule.applies(present):
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
        c = Counting(counter)
        count = counter.count
        tokens = TOKENS_PER_RECORD + c.json(record.get("tools")) + c.json(record.get("functions"))
        trainable = targets = turns = 0
        messages = record.get("messages")
        for message in messages if isinstance(messages, list) else ():
            if not isinstance(message, dict):
                continue
            turns += 1
            role, content = message.get("role"), message.get("content")
            if len(message) == 2 and type(role) is str and type(content) is str:
                # the common message, {"role": ..., "content": "..."}: Counting.turn's result
                # without its general walk
                body = count(content)
                tokens += TOKENS_PER_TURN + count(role) + body
            else:
                total, body = c.turn(message)
                tokens += total
            if role == "assistant" and chat_rules.is_target(message):
                targets += 1
                trainable += body
        return LineFigures([RecordFigures(turns, targets, tokens, trainable)], turns)

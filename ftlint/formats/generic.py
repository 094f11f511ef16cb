"""Configurable formats: most providers' formats are variations on a few shapes.

ChatFormat    a list of turns (messages, contents) with roles; which turns are targets, which
              roles must alternate, which start and end, and whether a conversation expands
              into one record per target (each with all earlier turns as its context).
FieldsFormat  named fields (text; prompt and completion; TRL preference and unpaired rows).
PreferenceFormat  OpenAI-style DPO rows: input messages, one preferred and one non-preferred output.

Token convention for turns (all formats): 3 per turn + tokens of the role, the text, tool calls
and a name (+1), 3 to prime each record, and the compact JSON of tool definitions and of a
system field. Images count 85 tokens. Counts use tiktoken; for non-OpenAI models they estimate.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import orjson

from ..diagnostics import json_path, strings
from ..literals import want
from ..schemas import schema_findings
from ..tokens import TokenCounter
from . import LineFigures, RecordFigures

TOKENS_PER_RECORD = 3
TOKENS_PER_TURN = 3
TOKENS_PER_IMAGE = 85
# Spelled like a special token of OpenAI's or a common chat template's tokenizer: <|endoftext|>,
# <|im_start|>, <|eot_id|>, ...
SPECIAL_TOKEN_TEXT = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>")
MEDIA_KEYS = ("image", "image_url", "inlineData", "fileData", "video")
STRUCTURED_KEYS = ("functionCall", "functionResponse", "toolUse", "toolResult", "reasoningContent")

Finding = tuple[str, str, "str | None"]


class Counting:
    """Counts tokens of turns: what each part of a record costs under the convention above."""

    __slots__ = ("count",)

    def __init__(self, counter: TokenCounter) -> None:
        self.count = counter.count

    def text(self, value: object) -> int:
        return self.count(value) if isinstance(value, str) else 0

    def json(self, value: object) -> int:
        return self.count(orjson.dumps(value).decode()) if value else 0

    def content(self, content: object) -> int:
        """A string, or a list of parts: typed parts ({"type": "text", "text": ...}), untyped
        blocks ({"text": ...}, {"image": ...}), or Gemini parts."""
        if isinstance(content, str):
            return self.count(content)
        if not isinstance(content, list):
            return 0
        n = 0
        for part in content:
            if not isinstance(part, dict):
                continue
            kind = part.get("type")
            if kind == "text" or kind == "refusal":
                n += self.text(part.get(kind))
            elif kind in MEDIA_KEYS or any(k in part for k in MEDIA_KEYS):
                n += TOKENS_PER_IMAGE
            elif "text" in part:
                n += self.text(part["text"])
            else:
                n += sum(self.json(part[k]) for k in STRUCTURED_KEYS if k in part)
        return n

    def body(self, turn: dict) -> int:
        """What a turn says: content or parts, tool calls, a refusal."""
        content = turn.get("content")
        n = self.content(content if content is not None or "content" in turn else turn.get("parts"))
        if "refusal" in turn:
            n += self.text(turn["refusal"])
        calls = turn.get("tool_calls")
        if calls and isinstance(calls, list):
            for call in calls:
                if isinstance(call, dict):
                    n += self.function(call.get("function"))
        if "function_call" in turn:
            n += self.function(turn["function_call"])
        return n

    def function(self, function: object) -> int:
        if not isinstance(function, dict):
            return 0
        arguments = function.get("arguments")
        n = self.text(function.get("name"))
        return n + (self.count(arguments) if isinstance(arguments, str) else self.json(arguments))

    def turn(self, turn: dict) -> tuple[int, int]:
        """(all tokens of the turn with its overhead, tokens of what it says)."""
        body = self.body(turn)
        total = TOKENS_PER_TURN + self.text(turn.get("role")) + body
        if "tool_call_id" in turn:
            total += self.text(turn["tool_call_id"])
        name = turn.get("name")
        if isinstance(name, str):
            total += self.count(name) + 1
        return total, body


want((b"<|",))


def special_token_pointers(record: dict, present: frozenset[bytes]) -> list[str]:
    """JSON paths of the record's strings spelled like a special token (FT302); `present` is
    the set of literals found in the record (ftlint.literals.present)."""
    if b"<|" not in present:
        return []
    return [json_path(path) for path, text in strings(record) if "<|" in text and SPECIAL_TOKEN_TEXT.search(text)]


@dataclass
class FormatBase:
    name: str
    title: str
    providers: str
    record_rule: str
    schema: str
    shape: str  # detection family: records of this shape suit this format
    also_shapes: tuple[str, ...] = ()  # other shapes the format accepts (not detected as it)
    min_examples: int | None = None
    documented: bool = True  # False: the record rule is ftlint's conservative reading
    notes: str = ""
    bom_ok: bool = False  # the provider asks for a UTF-8 byte-order mark (Azure)
    token_limit: int | None = None  # the provider's tokens per example, when the format fixes it
    checks: tuple[Callable[[dict, FormatBase], Iterator[Finding]], ...] = ()

    def findings(self, record: dict, present: frozenset[bytes] | None = None) -> list[Finding]:
        out: list[Finding] = list(schema_findings(self.schema, record))
        for check in self.checks:
            out.extend(check(record, self))
        return out

    def prompt(self, record: dict) -> object:
        return record

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures:
        raise NotImplementedError


@dataclass
class ChatFormat(FormatBase):
    turns_key: str = "messages"
    target_roles: tuple[str, ...] = ("assistant",)
    targets: str = "roles"  # "roles" (weight 0 excluded), "all" (loss on every token), "none" (RFT)
    expansion: str = "none"  # "none", "per-target", "per-target-if-tools"
    alternate: tuple[str, ...] = ()  # these roles must alternate (others are ignored)
    first_role: str | None = None
    last_role: str | None = None
    system_key: str | None = None  # a top-level system field counted with every record
    extra_fields_counted: tuple[str, ...] = ("tools", "functions")

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        turns = record.get(self.turns_key)
        return [(i, t) for i, t in enumerate(turns) if isinstance(t, dict)] if isinstance(turns, list) else []

    def is_target(self, turn: dict) -> bool:
        role = turn.get("role")
        return isinstance(role, str) and role.lower() in self.target_roles and turn.get("weight", 1) != 0

    def prompt(self, record: dict) -> object:
        context = []
        for _, turn in self.turns(record):
            if self.is_target(turn):
                break
            context.append(turn)
        return [context, record.get("tools"), record.get(self.system_key) if self.system_key else None]

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures:
        c = Counting(counter)
        base = TOKENS_PER_RECORD + sum(c.json(record.get(k)) for k in self.extra_fields_counted)
        if self.system_key:
            system = record.get(self.system_key)
            base += c.text(system) if isinstance(system, str) else c.json(system)
        turns = self.turns(record)
        sizes = [(i, t, *c.turn(t)) for i, t in turns]
        expand = self.expansion == "per-target" or (self.expansion == "per-target-if-tools" and bool(record.get("tools")))
        if expand:
            records, running = [], base
            for k, (_, turn, total, body) in enumerate(sizes):
                running += total
                if self.is_target(turn):
                    records.append(RecordFigures(k + 1, 1, running, body))
            if not records:  # no target: the conversation is still one (useless) record
                records = [RecordFigures(len(sizes), 0, running, 0)]
        else:
            tokens = base + sum(s[2] for s in sizes)
            if self.targets == "all":
                targets, trainable = len(sizes), tokens
            elif self.targets == "none":
                targets, trainable = 0, 0
            else:
                chosen = [s for s in sizes if self.is_target(s[1])]
                targets, trainable = len(chosen), sum(s[3] for s in chosen)
            records = [RecordFigures(len(sizes), targets, tokens, trainable)]
        return LineFigures(records, len(sizes))


@dataclass
class FieldsFormat(FormatBase):
    """Named fields. `inputs` are context, `outputs` carry the loss (for text: the whole text)."""

    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ("text",)
    shared_prompt: bool = False  # preference rows: prompt + chosen, prompt + rejected

    def prompt(self, record: dict) -> object:
        return [record.get(k) for k in self.inputs] or record

    def _field(self, c: Counting, value: object) -> tuple[int, int]:
        if isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]:
            sizes = [c.turn(t) for t in value if isinstance(t, dict)]
            return sum(s[0] for s in sizes), sum(s[1] for s in sizes)
        n = c.content(value)
        return n, n

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures:
        c = Counting(counter)
        context = sum(self._field(c, record.get(k))[0] for k in self.inputs)
        outputs = [self._field(c, record.get(k)) for k in self.outputs]
        tokens = context + sum(o[0] for o in outputs)
        trainable = sum(o[1] for o in outputs)
        messages = sum(len(record[k]) for k in (*self.inputs, *self.outputs) if isinstance(record.get(k), list)
                       and record[k] and isinstance(record[k][0], dict) and "role" in record[k][0])
        return LineFigures([RecordFigures(messages, len(self.outputs) if self.outputs != ("text",) else 1, tokens, trainable)],
                           messages)


@dataclass
class PreferenceFormat(FormatBase):
    """OpenAI-style DPO: the input conversation and two outputs, one pair per line."""

    alternate: tuple[str, ...] = ()

    def prompt(self, record: dict) -> object:
        return record.get("input")

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures:
        c = Counting(counter)
        given = record.get("input")
        given = given if isinstance(given, dict) else {}
        tokens = TOKENS_PER_RECORD + c.json(given.get("tools"))
        messages = given.get("messages")
        messages = messages if isinstance(messages, list) else []
        n = 0
        for turn in messages:
            if isinstance(turn, dict):
                tokens += c.turn(turn)[0]
                n += 1
        trainable = 0
        for key in ("preferred_output", "non_preferred_output"):
            outputs = record.get(key)
            for turn in outputs if isinstance(outputs, list) else []:
                if isinstance(turn, dict):
                    total, body = c.turn(turn)
                    tokens += total
                    trainable += body
                    n += 1
        return LineFigures([RecordFigures(n, 1, tokens, trainable)], n)


# ---- shape of a record, for detection and for flagging lines of another format

OPENAI_CHAT_KEYS = {"messages", "tools", "parallel_tool_calls", "functions"}


COHERE_ROLES = frozenset({"System", "User", "Chatbot", "chatbot"})


def shape(record: dict) -> str:
    """The family of formats a record belongs to, from its keys and turns. Runs on every
    record: membership tests only, no sets built."""
    if "input" in record:
        return "preference-openai"
    if "chosen" in record and "rejected" in record:
        return "preference-trl"
    pair = "prompt" in record and "completion" in record
    if pair and "label" in record:
        return "unpaired"
    if "contents" in record:
        return "contents"
    if "schemaVersion" in record:
        return "nova"
    messages = record.get("messages")
    if isinstance(messages, list):
        return _chat_shape(messages)
    if "messages" in record:
        return "messages"
    if pair:
        prompt = record["prompt"]
        if isinstance(prompt, list) and prompt and isinstance(prompt[0], dict):
            return "prompt-completion-conversational" if "role" in prompt[0] else "prompt-completion-multimodal"
        return "prompt-completion"
    if "text" in record:
        return "text"
    return "unknown"


def _chat_shape(messages: list) -> str:
    turns = [m for m in messages if isinstance(m, dict)]
    for m in turns:
        role = m.get("role")
        if isinstance(role, str) and role in COHERE_ROLES:
            return "cohere"
    for m in turns:
        content = m.get("content")
        if isinstance(content, list) and content and isinstance(content[0], dict) and "type" not in content[0]:
            return "nova"
    return "messages"


@dataclass
class Detection:
    name: str
    reason: str
    counts: dict[str, int] = field(default_factory=dict)

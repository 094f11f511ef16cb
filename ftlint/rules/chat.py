"""Content rules of chat formats (FT2xx): what a schema cannot say.

FT201 and FT203 apply to every format of turns (and FT203 to text fields too); the others are
OpenAI's chat format's, and apply to the formats that take it as it is (family "openai"); the
tool-call and image rules also to the formats whose provider takes OpenAI's tool calls and image
parts (Together's: their registry entries demand OPENAI_PARTS). The others apply to the formats
that demand them (Format.demands), and a finding names the provider or trainer by its format's label.
Every rule reads the record defensively: the schema reports wrong types, so a rule simply skips
what it cannot read.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

import orjson

from ..diagnostics import ERROR, WARNING, Hit, json_path
from ..formats import Format
from ..formats.base import CALLS_ANSWERED, CALLS_XOR_CONTENT, CONTENT_OR_CALLS, OPENAI_PARTS
from ..formats.chat import ChatFormat
from ..formats.fields import FieldsFormat
from . import RUNS, Fused, Silent, check, register, rule

if TYPE_CHECKING:
    from .context import RecordContext


def openai(fmt: Format) -> bool:
    return fmt.family == "openai"


def openai_messages(fmt: Format) -> bool:
    """OpenAI's messages, tool calls and image parts: OpenAI's formats and those that demand them (Together's)."""
    return openai(fmt) or OPENAI_PARTS in fmt.demands


def role_targets(fmt: Format) -> bool:
    """Formats of turns whose targets are turns of some roles (not all tokens, not none)."""
    return fmt.kind == "chat" and getattr(fmt, "targets", "") == "roles"


def texts(fmt: Format) -> bool:
    return fmt.kind in ("chat", "fields")


def _messages(record: dict) -> list[tuple[int, dict]]:
    messages = record.get("messages")
    if not isinstance(messages, list):
        return []
    return [(i, m) for i, m in enumerate(messages) if isinstance(m, dict)]


def is_target(message: dict) -> bool:
    """An assistant message that carries loss: OpenAI trains on every assistant message
    unless it has weight 0."""
    return message.get("role") == "assistant" and message.get("weight", 1) != 0


def trains(record: dict, turns: list[dict]) -> bool:
    """FT201 silent (the fused walk's): some turn an assistant message without weight 0 (is_target,
    spelled out: the walk calls it on every record)."""
    for turn in turns:  # noqa: SIM110 - any() over a generator costs a frame a record
        if turn["role"] == "assistant" and turn.get("weight", 1) != 0:
            return True
    return False


def _tool_calls(message: dict) -> list[tuple[int, dict]]:
    calls = message.get("tool_calls")
    if not isinstance(calls, list):
        return []
    return [(j, c) for j, c in enumerate(calls) if isinstance(c, dict)]


@rule("FT201", "no-trainable-target", scope=role_targets, fused=Fused({"messages": lambda fmt: trains, "turns": lambda fmt: trains}))
def no_target(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """The example has no turn to train on (an assistant message, a Chatbot or model turn).

    Checks that at least one turn of the format's target role has no weight or weight 1.
    Why: providers train only on those turns; an example without one (or with every such turn
    at weight 0) teaches nothing, is billed anyway, and is rejected.
    Example: {"messages": [{"role": "user", "content": "hi"}]}
    """
    fmt = ctx.fmt
    turns = fmt.turns(record)
    if not turns or not isinstance(fmt, ChatFormat) or fmt.answers_apart(record):
        return
    roles = " or ".join(fmt.target_roles)
    word = "message" if fmt.turns_path() == ("messages",) else "turn"
    where = json_path(list(fmt.turns_path()))
    if not any(isinstance(t.get("role"), str) and t["role"].lower() in fmt.target_roles for _, t in turns):
        yield Hit(f"no {roles} {word}: the example has nothing to train on", where)
    elif not any(fmt.is_target(t) for _, t in turns):
        yield Hit(f"every {roles} {word} has weight 0: the example has nothing to train on", where)


@rule("FT202", "orphan-tool-message", scope=openai_messages, needs=(b'"role":"tool"',), fused=RUNS)
def orphan_tool_message(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A tool message answers no earlier tool call.

    Checks that each tool message's tool_call_id names the id of a tool call made by an
    earlier assistant message of the same example.
    Why: OpenAI rejects a tool result that follows no matching call; a mismatched id usually
    means messages were reordered or ids rewritten.
    Example: assistant calls id "call_1", then {"role": "tool", "tool_call_id": "call_2", ...}
    """
    seen: set[str] = set()
    for i, message in _messages(record):
        role = message.get("role")
        if role == "assistant":
            for _, call in _tool_calls(message):
                if isinstance(call.get("id"), str):
                    seen.add(call["id"])
        elif role == "tool":
            call_id = message.get("tool_call_id")
            if isinstance(call_id, str) and call_id not in seen:
                where = "no earlier tool call" if not seen else "no earlier tool call with that id"
                yield Hit(
                    f"tool message answers tool_call_id '{call_id}', but there is {where}",
                    json_path(["messages", i, "tool_call_id"]),
                )


def _calls(turn: dict) -> bool:
    return bool(turn.get("tool_calls") or turn.get("function_call"))


def filled(turn: dict) -> bool:
    """FT203 silent on a turn: no text of its content (or parts) empty or white space, or it makes a call."""
    content = turn.get("content") if "content" in turn else turn.get("parts")
    if isinstance(content, str):
        if content and not content[0].isspace() and not content[-1].isspace():
            return True  # the common case, decided without stripping the text
        return bool(content.strip()) or _calls(turn)
    if not isinstance(content, list) or _calls(turn):
        return True
    for part in content:
        if isinstance(part, dict):
            text = part.get("text")
            if isinstance(text, str) and part.get("type", "text") == "text" and not text.strip():
                return False
    return True


def _all_filled(record: dict, turns: list[dict]) -> bool:
    for turn in turns:
        content = turn.get("content")
        if type(content) is str and content and not content[0].isspace() and not content[-1].isspace():
            continue  # filled's common case, without calling it: the walk asks of every message
        if not filled(turn):
            return False
    return True


def _fields_filled(fmt: Format) -> Silent:
    keys = (*fmt.inputs, *fmt.outputs) if isinstance(fmt, FieldsFormat) else ()

    def silent(record: dict, turns: list[dict]) -> bool:
        for key in keys:
            value = record.get(key)
            if isinstance(value, str) and not value.strip():
                return False
        return True

    return silent


@rule("FT203", "empty-content", scope=texts,
      fused=Fused({"messages": lambda fmt: _all_filled, "turns": lambda fmt: _all_filled, "fields": _fields_filled}))
def empty_content(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A message's content (or a text field) is empty or only white space.

    Checks string content and every text part of each turn, and the text fields of prompt,
    completion and text formats. A turn whose content is empty but which makes tool calls is fine.
    Why: an empty user or system turn carries nothing; an empty assistant target trains the
    model to answer with nothing. Providers reject empty messages.
    Example: {"role": "assistant", "content": "  "}
    """
    fmt = ctx.fmt
    if isinstance(fmt, FieldsFormat):
        for key in (*fmt.inputs, *fmt.outputs):
            value = record.get(key)
            if isinstance(value, str) and not value.strip():
                yield Hit(f"{key} is {'empty' if not value else 'only white space'}", json_path([key]))
        return
    prefix = list(fmt.turns_path())
    for i, turn in fmt.turns(record):
        if filled(turn):
            continue
        key = "content" if "content" in turn else "parts"
        content = turn.get(key)
        if isinstance(content, str):
            pieces = [(content, [*prefix, i, key])]
        elif isinstance(content, list):
            pieces = [(p["text"], [*prefix, i, key, j, "text"]) for j, p in enumerate(content)
                      if isinstance(p, dict) and isinstance(p.get("text"), str) and p.get("type", "text") == "text"]
        else:
            continue
        for text, where in pieces:
            if not text.strip():
                what = "content" if key == "content" else "text"
                yield Hit(f"{turn.get('role', 'turn')} {what} is {'empty' if not text else 'only white space'}", json_path(where))


def answered(message: dict) -> bool:
    """FT204 silent on a message: not an assistant's, or with content, a call or a refusal."""
    return (message.get("content", message.get("text")) is not None or message.get("role") != "assistant"
            or bool(message.get("tool_calls") or message.get("function_call") or message.get("refusal")))


def _all_answered(record: dict, turns: list[dict]) -> bool:
    for turn in turns:  # noqa: SIM110 - as trains
        if turn.get("content") is None and not answered(turn):  # content: answered's common case, without calling it
            return False
    return True


@rule("FT204", "assistant-without-content", scope=lambda fmt: openai(fmt) or CONTENT_OR_CALLS in fmt.demands,
      fused=Fused({"messages": lambda fmt: _all_answered}))
def assistant_without_content(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """An assistant message has no content, no tool calls and no function call.

    Why: OpenAI requires content unless the message makes a tool call (or a legacy function
    call); such a message is rejected. So does mistral-common's validator in mistral-finetune
    ("Assistant message must have either content or tool_calls": InvalidAssistantMessageException).
    Example: {"role": "assistant", "content": null}
    """
    for i, message in _messages(record):
        if not answered(message):
            yield Hit("assistant message has no content and makes no tool call", json_path(["messages", i]))


@rule("FT205", "tool-arguments-not-json", WARNING, scope=openai_messages, needs=(b'"tool_calls"', b'"function_call"'), fused=RUNS)
def tool_arguments_not_json(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A tool call's arguments string does not parse as a JSON object.

    Why: the model learns to emit exactly these arguments; arguments that do not parse teach
    it to produce calls your code cannot execute.
    Example: "arguments": "{'altitude': 100}"  (single quotes)
    """
    for i, message in _messages(record):
        calls = [(["tool_calls", j, "function"], c.get("function")) for j, c in _tool_calls(message)]
        if isinstance(message.get("function_call"), dict):
            calls.append((["function_call"], message["function_call"]))
        for where, function in calls:
            if not isinstance(function, dict) or not isinstance(function.get("arguments"), str):
                continue
            try:
                parsed = orjson.loads(function["arguments"])
            except orjson.JSONDecodeError as exc:
                yield Hit(f"arguments are not valid JSON: {exc.msg}", json_path(["messages", i, *where, "arguments"]))
                continue
            if not isinstance(parsed, dict):
                yield Hit("arguments are JSON but not an object", json_path(["messages", i, *where, "arguments"]))


@rule("FT206", "duplicate-tool-call-id", WARNING, scope=openai_messages, needs=(b'"tool_calls"',), fused=RUNS)
def duplicate_tool_call_id(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """Two tool calls in one example share an id.

    Why: tool results are matched to calls by id; with duplicates, a result may be paired with
    the wrong call.
    Example: two calls both with "id": "call_1" in one example
    """
    seen: dict[str, str] = {}
    for i, message in _messages(record):
        for j, call in _tool_calls(message):
            call_id = call.get("id")
            if not isinstance(call_id, str):
                continue
            pointer = json_path(["messages", i, "tool_calls", j, "id"])
            if call_id in seen:
                yield Hit(f"tool call id '{call_id}' is used already at {seen[call_id]}", pointer)
            else:
                seen[call_id] = pointer


def _defined_functions(record: dict) -> set[str] | None:
    names: set[str] = set()
    defined = False
    tools, functions = record.get("tools"), record.get("functions")
    for tool in tools if isinstance(tools, list) else ():
        if isinstance(tool, dict) and isinstance(tool.get("function"), dict):
            defined = True
            if isinstance(tool["function"].get("name"), str):
                names.add(tool["function"]["name"])
    for function in functions if isinstance(functions, list) else ():
        if isinstance(function, dict):
            defined = True
            if isinstance(function.get("name"), str):
                names.add(function["name"])
    return names if defined else None


@rule("FT207", "undefined-tool", WARNING, scope=openai_messages, needs=(b'"tools"', b'"functions"'), fused=RUNS)
def undefined_tool(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A tool call names a function the example's tools do not define.

    Only checked when the example has "tools" (or legacy "functions").
    Why: the model learns to call a function it was never shown; at inference it will call
    functions that do not exist.
    Example: tools define "land_drone"; the assistant calls "land_dron".
    """
    names = _defined_functions(record)
    if names is None:
        return
    for i, message in _messages(record):
        for j, call in _tool_calls(message):
            function = call.get("function")
            if isinstance(function, dict) and isinstance(function.get("name"), str) and function["name"] not in names:
                yield Hit(
                    f"calls '{function['name']}', which the example's tools do not define",
                    json_path(["messages", i, "tool_calls", j, "function", "name"]),
                )


@rule("FT208", "untrained-tail", WARNING, scope=openai_messages,
      fused=Fused({"messages": lambda fmt: lambda record, turns: is_target(turns[-1])}))
def untrained_tail(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """Messages after the last trained assistant message.

    Why: nothing after the last target carries loss, yet those tokens are billed every epoch.
    Often a sign of a conversation cut in the wrong place.
    Example: [..., {"role": "assistant", ...}, {"role": "user", "content": "thanks"}]
    """
    messages = _messages(record)
    for k in range(len(messages) - 1, -1, -1):
        if is_target(messages[k][1]):
            break
    else:
        return
    tail = [i for i, _ in messages[k + 1 :]]
    if tail:
        n = len(tail)
        yield Hit(
            f"{n} message{'s' if n > 1 else ''} after the last trained assistant message: billed, never trained on",
            json_path(["messages", tail[0]]),
        )


MAX_IMAGES = 10


@rule("FT217", "too-many-images", scope=openai_messages, needs=(b'"image_url"',), fused=RUNS)
def too_many_images(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """An example holds more than 10 images.

    Why: OpenAI's vision fine-tuning takes at most 10 images per example (Azure's table says 64,
    its troubleshooting text 10; ftlint checks the stricter figure). Together rejects more than
    10 too (MAX_IMAGES_PER_EXAMPLE in its SDK's together/constants.py, together==1.6.0, and
    docs.together.ai/docs/fine-tuning/vision, read 2026-12-01), counting a preference pair's input.
    """
    images = 0
    for _, message in ctx.fmt.turns(record):
        content = message.get("content")
        if isinstance(content, list):
            images += sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")
    if images > MAX_IMAGES:
        provider = "OpenAI" if openai(ctx.fmt) else ctx.fmt.label
        yield Hit(f"{images} images in one example; {provider} takes at most {MAX_IMAGES}", json_path(list(ctx.fmt.turns_path())))


register("FT225", "content-and-tool-calls", ERROR, """
    An assistant message has both content and tool calls, where the trainer takes one or the other.

    Why: mistral-finetune rejects the example ("Assistant message must have either content or
    tool_calls, but not both": mistral-common's MistralRequestValidatorV3, finetuning mode, which
    mistral-finetune's build_instruct_sample runs). Split the text and the call into two messages
    or drop the text.
    Example: {"role": "assistant", "content": "Let me check.", "tool_calls": [...]}
""")

register("FT226", "tool-calls-unanswered", ERROR, """
    An assistant's tool calls are not all answered by tool messages before the conversation goes on.

    Why: mistral-finetune rejects the example ("Not the same number of function calls and
    responses": mistral-common's validator in finetuning mode): each call needs its tool message,
    in order, before the next user or assistant message. A last assistant message may end on
    its calls. (A tool message that answers no call is FT202.)
    Example: assistant calls two tools, one tool message answers, then the assistant speaks.
""")


@check("record", "FT225", scope=lambda fmt: CALLS_XOR_CONTENT in fmt.demands, needs=(b'"tool_calls"',))
def content_and_tool_calls(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    for i, message in _messages(record):
        if message.get("role") == "assistant" and message.get("tool_calls") and message.get("content", message.get("text")):
            yield Hit(f"assistant message has both content and tool calls: {ctx.fmt.label} takes one or the other",
                      json_path(["messages", i]))


@check("record", "FT202", "FT226", scope=lambda fmt: CALLS_ANSWERED in fmt.demands, needs=(b'"tool_calls"', b'"role":"tool"'))
def tool_call_sequence(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """Mistral matches tool messages to calls by count and order, not by id."""
    owed, caller = 0, 0
    for i, message in _messages(record):
        role = message.get("role")
        if role == "tool":
            if owed == 0:
                yield Hit("tool message answers no pending tool call", json_path(["messages", i]), code="FT202")
            else:
                owed -= 1
            continue
        if owed and role in ("user", "assistant", "system"):
            yield Hit(f"{owed} tool call{'s' if owed > 1 else ''} of message {caller} not answered before this {role} message",
                      json_path(["messages", i]), code="FT226")
            owed = 0
        if role == "assistant":
            calls = message.get("tool_calls")
            owed, caller = (len(calls), i) if isinstance(calls, list) else (0, i)

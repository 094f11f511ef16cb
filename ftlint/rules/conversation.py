"""Conversation rules shared by the configurable formats (ftlint/formats/generic.py).

Each check takes the record and its format and yields (code, message, JSON path). They read
defensively: the schema reports wrong types, so a check skips what it cannot read.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

from ..diagnostics import ERROR, WARNING, as_list, json_path
from . import register

register("FT106", "other-format-line", ERROR, """
    The line has the shape of another dataset format than the file's.

    The file's format is given with --format or detected from its first records; a line of
    another shape (say, prompt/completion in a messages file) is flagged with the format it
    looks like. Why: providers take one format per file and reject the others.
""")

register("FT211", "roles-not-alternating", ERROR, """
    Two turns in a row have the same role where the format needs them to alternate.

    Which roles must alternate depends on the format: user and assistant for Bedrock and
    Together, user and model for Gemini. Why: the provider rejects the record.
    Example: [{"role": "user", ...}, {"role": "user", ...}, {"role": "assistant", ...}]
""")

register("FT212", "wrong-first-turn", ERROR, """
    The conversation starts with the wrong role (Bedrock: user first).

    Why: the provider rejects the record.
""")

register("FT213", "wrong-last-turn", ERROR, """
    The conversation ends with the wrong role (Bedrock: the assistant answers last).

    Why: the provider rejects the record, or nothing after the last answer is trained on.
""")

register("FT214", "reserved-string", ERROR, """
    Text contains a string Amazon Nova reserves: User:, Bot:, Assistant:, System:, <image>, <video> or [EOS].

    Why: AWS documents that a prompt holding one of them makes the customization job fail.
""")

register("FT215", "tool-call-id-format", ERROR, """
    A tool-call id is not 9 letters and digits, as Mistral requires.

    Why: Mistral's fine-tuning API rejects other ids (OpenAI-style "call_abc123" ids must be
    rewritten).
""")

register("FT216", "media-outside-user-turn", ERROR, """
    An image or video block sits in an assistant turn (Nova takes media in user turns only).
""")

register("FT218", "rft-last-turn-not-user", WARNING, """
    A reinforcement fine-tuning prompt does not end with a user message.

    Why: Azure OpenAI documents that the final message must have the user role; the model
    answers that message while it trains.
""")

register("FT219", "weight-not-integer", ERROR, """
    A weight is written as a float (1.0) where the provider wants the integer 0 or 1 (Together).
""")

register("FT220", "missing-user-turn", ERROR, """
    The conversation has no user turn (Cohere needs at least one User and one Chatbot turn).
""")

NOVA_RESERVED = ("User:", "Bot:", "Assistant:", "System:", "<image>", "<video>", "[EOS]")
MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


def has_target(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    turns = fmt.turns(record)
    if not turns:
        return
    roles = " or ".join(fmt.target_roles)
    if not any(isinstance(t.get("role"), str) and t["role"].lower() in fmt.target_roles for _, t in turns):
        yield "FT201", f"no {roles} turn: the example has nothing to train on", json_path([fmt.turns_key])
    elif not any(fmt.is_target(t) for _, t in turns):
        yield "FT201", f"every {roles} turn has weight 0: the example has nothing to train on", json_path([fmt.turns_key])


def alternation(record: dict, fmt, prefix: list | None = None, turns: list | None = None) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    where = prefix if prefix is not None else [fmt.turns_key]
    items = turns if turns is not None else fmt.turns(record)
    previous = None
    for i, turn in items:
        role = turn.get("role")
        if not isinstance(role, str) or role.lower() not in fmt.alternate:
            continue
        if role.lower() == previous:
            yield "FT211", f"two {role} turns in a row: {' and '.join(fmt.alternate)} turns must alternate", json_path([*where, i, "role"])
        previous = role.lower()


def first_and_last(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    turns = [(i, t) for i, t in fmt.turns(record) if t.get("role") != "system"]
    if not turns:
        return
    first_i, first = turns[0]
    last_i, last = turns[-1]
    if fmt.first_role and str(first.get("role", "")).lower() != fmt.first_role:
        yield "FT212", f"the conversation starts with {first.get('role')!r}; {fmt.name} needs {fmt.first_role!r} first", json_path([fmt.turns_key, first_i, "role"])
    if fmt.last_role and str(last.get("role", "")).lower() != fmt.last_role:
        yield "FT213", f"the conversation ends with {last.get('role')!r}; {fmt.name} needs {fmt.last_role!r} last", json_path([fmt.turns_key, last_i, "role"])


def empty_text(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    for i, turn in fmt.turns(record):
        if turn.get("tool_calls"):
            continue
        content = turn.get("content", turn.get("parts"))
        pieces = [(content, [fmt.turns_key, i, "content"])] if isinstance(content, str) else [
            (p.get("text"), [fmt.turns_key, i, "content" if "content" in turn else "parts", j, "text"])
            for j, p in enumerate(content if isinstance(content, list) else []) if isinstance(p, dict) and "text" in p]
        for text, where in pieces:
            if isinstance(text, str) and not text.strip():
                yield "FT203", f"{turn.get('role', 'turn')} text is {'empty' if not text else 'only white space'}", json_path(where)


def empty_fields(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    """Empty strings in the fields of text and prompt/completion formats."""
    for key in (*fmt.inputs, *fmt.outputs):
        value = record.get(key)
        if isinstance(value, str) and not value.strip():
            yield "FT203", f"{key} is {'empty' if not value else 'only white space'}", json_path([key])


def nova_reserved(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    blocks = [(["system", j], b) for j, b in enumerate(as_list(record.get("system"))) if isinstance(b, dict)]
    for i, turn in fmt.turns(record):
        blocks += [([fmt.turns_key, i, "content", j], b) for j, b in enumerate(as_list(turn.get("content"))) if isinstance(b, dict)]
    for where, block in blocks:
        text = block.get("text")
        if isinstance(text, str):
            found = [s for s in NOVA_RESERVED if s in text]
            if found:
                yield "FT214", f"text holds the reserved string {found[0]!r}", json_path([*where, "text"])


def nova_media(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    for i, turn in fmt.turns(record):
        if turn.get("role") == "assistant":
            for j, block in enumerate(as_list(turn.get("content"))):
                if isinstance(block, dict) and ("image" in block or "video" in block):
                    yield "FT216", "media in an assistant turn: Nova takes images and videos in user turns only", json_path([fmt.turns_key, i, "content", j])


def mistral_ids(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    for i, turn in fmt.turns(record):
        for j, call in enumerate(as_list(turn.get("tool_calls"))):
            if isinstance(call, dict) and isinstance(call.get("id"), str) and not MISTRAL_ID.match(call["id"]):
                yield "FT215", f"tool-call id {call['id']!r} is not 9 letters and digits", json_path([fmt.turns_key, i, "tool_calls", j, "id"])
        if isinstance(turn.get("tool_call_id"), str) and not MISTRAL_ID.match(turn["tool_call_id"]):
            yield "FT215", f"tool_call_id {turn['tool_call_id']!r} is not 9 letters and digits", json_path([fmt.turns_key, i, "tool_call_id"])


def rft_last_user(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    turns = fmt.turns(record)
    if turns and turns[-1][1].get("role") != "user":
        i, turn = turns[-1]
        yield "FT218", f"the prompt ends with {turn.get('role')!r}; it should end with the user message the model answers", json_path([fmt.turns_key, i])


def integer_weights(record: dict, fmt, prefix: list | None = None, turns: list | None = None) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    where = prefix if prefix is not None else [fmt.turns_key]
    items = turns if turns is not None else fmt.turns(record)
    for i, turn in items:
        if isinstance(turn.get("weight"), float):
            yield "FT219", f"weight {turn['weight']!r} is a float; write 0 or 1", json_path([*where, i, "weight"])


def needs_user(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    turns = fmt.turns(record)
    if turns and not any(str(t.get("role", "")).lower() == "user" for _, t in turns):
        yield "FT220", "no user turn", json_path([fmt.turns_key])


def preference_input(record: dict, fmt) -> Iterator[tuple]:  # type: ignore[no-untyped-def]
    """Alternation and weights inside a preference row's input messages."""
    given = record.get("input")
    messages = given.get("messages") if isinstance(given, dict) else None
    if not isinstance(messages, list):
        return
    turns = [(i, m) for i, m in enumerate(messages) if isinstance(m, dict)]
    if fmt.alternate:
        yield from alternation(record, fmt, prefix=["input", "messages"], turns=turns)
    yield from integer_weights(record, fmt, prefix=["input", "messages"], turns=turns)

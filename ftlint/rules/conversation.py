"""Conversation rules of the providers' formats (FT211-FT220): roles that must alternate,
first and last turns, reserved strings, media, tool-call ids, weights. Each is scoped to the
formats whose provider decides it: by the format's shape and roles, its name, or what it demands
(Format.demands, declared in the registry); a finding names the provider by its format's label.
They read defensively: the schema reports wrong types, so a check skips what it cannot read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, as_list, json_path
from ..formats import Format
from ..formats.base import (
    CALL_IDS,
    CALL_IDS_OR_LAST_NULL,
    INPUT_BEFORE_ANSWER,
    INTEGER_WEIGHTS,
    ONE_SYSTEM_PROMPT,
    USER_IMAGES,
    USER_OPENS_SAMPLE,
)
from ..formats.chat import ChatFormat
from ..formats.fields import PreferenceFormat
from . import RUNS, Fused, Silent, check, register
from .parts import images_in

if TYPE_CHECKING:
    from .context import RecordContext


def named(*names: str) -> Callable[[Format], bool]:
    """Scope: the formats of these names (a provider's decision)."""
    chosen = frozenset(names)
    return lambda fmt: fmt.name in chosen


def demanding(*demands: str) -> Callable[[Format], bool]:
    """Scope: the formats that demand any of these (Format.demands: their provider's or trainer's rule)."""
    return lambda fmt: not fmt.demands.isdisjoint(demands)

register("FT211", "roles-not-alternating", ERROR, """
    Two turns in a row have the same role where the format needs them to alternate.

    Which roles must alternate depends on the format: user and assistant for Bedrock, user and
    model for Gemini. Together rejects any two messages in a row with the same role, two system
    messages or two tool results included ("After the optional system message, conversation roles
    must alternate": _check_message_role in its SDK's together/utils/files.py, together==1.6.0 and
    together-py 2.x). Why: the provider rejects the record.
    Example: [{"role": "user", ...}, {"role": "user", ...}, {"role": "assistant", ...}]
""")

register("FT212", "wrong-first-turn", ERROR, """
    The conversation starts with the wrong role (Bedrock: user first).

    Why: the provider rejects the record.
""")

register("FT213", "wrong-last-turn", ERROR, """
    The conversation ends with the wrong role (Bedrock: the assistant answers last; a Together
    preference pair's input must not end with the assistant).

    Why: the provider rejects the record, or nothing after the last answer is trained on.
""")

register("FT214", "reserved-string", ERROR, """
    Text contains a string Amazon Nova reserves: User:, Bot:, Assistant:, System:, <image>, <video> or [EOS].

    Why: AWS documents that a prompt holding one of them makes the customization job fail.
""")

register("FT215", "tool-call-id-format", ERROR, """
    A tool-call id is not 9 letters and digits, as Mistral requires (its API, and mistral-common's
    validator, which mistral-finetune runs: "null" is accepted for the last message's calls only).

    Why: Mistral's fine-tuning API rejects other ids (OpenAI-style "call_abc123" ids must be
    rewritten).
""")

register("FT216", "media-outside-user-turn", ERROR, """
    An image or video sits outside a user turn: Nova and Llama 3.2 on Bedrock take media in user
    turns only (docs.aws.amazon.com/bedrock/latest/userguide/model-customization-prepare); Together
    images in user messages only ("only user messages can contain images": its SDK's
    together/utils/files.py, together==1.6.0; docs.together.ai/docs/fine-tuning/vision).

    Why: the provider rejects the record.
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

register("FT223", "part-not-supported", ERROR, """
    A part of a kind the named model's tuning rejects (Gemini 2.5: functionCall parts).

    Only with --model: the catalog says which kinds of part a model's tuning rejects
    (`unsupported_parts`, with its source). Gemini 2.5 Flash tuning fails on function-call parts
    ("unsupported modality [function call]"), where Gemini 2.0 Flash tuned the same data
    (github.com/googleapis/python-aiplatform/issues/6127, 2025-11-14, a user's report).
    Why: the tuning job fails at its start.
""")

register("FT224", "several-system-prompts", ERROR, """
    More than one system prompt in an example (mistral-finetune: a second system message, or a
    system_prompt key beside a system message).

    Why: mistral-finetune rejects it (MessageFormatError in build_instruct_sample,
    finetune/data/tokenize.py at 1943535): every system message becomes the one system prompt,
    wherever it stands, so there can be only one.
    Example: [{"role": "system", ...}, {"role": "user", ...}, {"role": "system", ...}, ...]
""")

NOVA_RESERVED = ("User:", "Bot:", "Assistant:", "System:", "<image>", "<video>", "[EOS]")
MISTRAL_ID = re.compile(r"^[a-zA-Z0-9]{9}$")


def _alternating(fmt: Format) -> Silent:
    """FT211 silent: no two alternating roles in a row (with `adjacent`, another role between them breaks the run)."""
    alternate, adjacent = getattr(fmt, "alternate", ()), bool(getattr(fmt, "adjacent", False))

    def silent(record: dict, turns: list[dict]) -> bool:
        previous: str | None = None
        for turn in turns:
            lower = turn["role"].lower()
            if lower in alternate:
                if lower == previous:
                    return False
                previous = lower
            elif adjacent:
                previous = None
        return True

    return silent


@check("record", "FT211", scope=lambda fmt: bool(getattr(fmt, "alternate", ())), fused=Fused({"messages": _alternating}, runs=True))
def alternation(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    if not isinstance(fmt, (ChatFormat, PreferenceFormat)):
        return
    alternate, adjacent = fmt.alternate, fmt.adjacent
    previous = None
    for i, turn in fmt.turns(record):
        role = turn.get("role", getattr(fmt, "default_role", None))
        if not isinstance(role, str) or role.lower() not in alternate:
            if adjacent:
                previous = None
            continue
        if role.lower() == previous:
            rule = ("no two turns in a row may have the same role" if adjacent
                    else f"{' and '.join(alternate)} turns must alternate")
            yield Hit(f"two {role} turns in a row: {rule}", json_path([*fmt.turns_path(), i, getattr(fmt, "role_key", "role")]))
        previous = role.lower()


def _ends(fmt: Format) -> bool:
    return bool(getattr(fmt, "first_role", None) or getattr(fmt, "last_role", None))


def _ending(fmt: Format) -> Silent:
    """FT212, FT213 silent: the first and last turns but system have the format's roles."""
    first_role, last_role = getattr(fmt, "first_role", None), getattr(fmt, "last_role", None)

    def silent(record: dict, turns: list[dict]) -> bool:
        roles = [turn["role"] for turn in turns if turn["role"] != "system"]
        return not roles or ((not first_role or roles[0].lower() == first_role)
                             and (not last_role or roles[-1].lower() == last_role))

    return silent


@check("record", "FT212", "FT213", scope=_ends, fused=Fused({"messages": _ending}, runs=True))
def first_and_last(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    turns = [(i, t) for i, t in fmt.turns(record) if t.get("role") != "system"]
    if not turns or not isinstance(fmt, ChatFormat):
        return
    first_i, first = turns[0]
    last_i, last = turns[-1]
    first_role, last_role = fmt.first_role, fmt.last_role
    if first_role and str(first.get("role", "")).lower() != first_role:
        yield Hit(f"the conversation starts with {first.get('role')!r}; {fmt.name} needs {first_role!r} first",
                  json_path([*fmt.turns_path(), first_i, getattr(fmt, "role_key", "role")]), code="FT212")
    if last_role and str(last.get("role", "")).lower() != last_role:
        yield Hit(f"the conversation ends with {last.get('role')!r}; {fmt.name} needs {last_role!r} last",
                  json_path([*fmt.turns_path(), last_i, getattr(fmt, "role_key", "role")]), code="FT213")


@check("record", "FT214", scope=named("bedrock-nova", "bedrock-nova-dpo"), needs=[s.encode() for s in NOVA_RESERVED])
def nova_reserved(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    blocks = [(["system", j], b) for j, b in enumerate(as_list(record.get("system"))) if isinstance(b, dict)]
    for i, turn in ctx.fmt.turns(record):
        blocks += [(["messages", i, "content", j], b) for j, b in enumerate(as_list(turn.get("content"))) if isinstance(b, dict)]
    for where, block in blocks:
        text = block.get("text")
        if isinstance(text, str):
            found = [s for s in NOVA_RESERVED if s in text]
            if found:
                yield Hit(f"text holds the reserved string {found[0]!r}", json_path([*where, "text"]))


@check("record", "FT216", scope=named("bedrock-nova", "bedrock-converse", "bedrock-nova-dpo"))
def nova_media(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    who = "Llama 3.2 on Bedrock takes images" if ctx.fmt.name == "bedrock-converse" else "Nova takes images and videos"
    for i, turn in ctx.fmt.turns(record):
        if turn.get("role") == "assistant":
            blocks = [(["content", j], b) for j, b in enumerate(as_list(turn.get("content")))]
            for k, candidate in enumerate(as_list(turn.get("candidates"))):
                if isinstance(candidate, dict):
                    blocks += [(["candidates", k, "content", j], b) for j, b in enumerate(as_list(candidate.get("content")))]
            for where, block in blocks:
                if isinstance(block, dict) and ("image" in block or "video" in block):
                    yield Hit(f"media in an assistant turn: {who} in user turns only", json_path(["messages", i, *where]))


@check("record", "FT215", scope=demanding(CALL_IDS, CALL_IDS_OR_LAST_NULL), needs=(b'"tool_calls"', b'"tool_call_id"'), fused=RUNS)
def mistral_ids(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    turns = ctx.fmt.turns(record)
    last = turns[-1][0] if turns else -1
    for i, turn in turns:
        for j, call in enumerate(as_list(turn.get("tool_calls"))):
            if not isinstance(call, dict) or not isinstance(call.get("id"), str) or MISTRAL_ID.match(call["id"]):
                continue
            if call["id"] == "null" and CALL_IDS_OR_LAST_NULL in ctx.fmt.demands:
                if i != last:  # mistral-common: only the last message's calls may go without an id
                    yield Hit("tool-call id 'null' is allowed only in the last message",
                              json_path(["messages", i, "tool_calls", j, "id"]))
                continue
            yield Hit(f"tool-call id {call['id']!r} is not 9 letters and digits", json_path(["messages", i, "tool_calls", j, "id"]))
        if isinstance(turn.get("tool_call_id"), str) and not MISTRAL_ID.match(turn["tool_call_id"]):
            yield Hit(f"tool_call_id {turn['tool_call_id']!r} is not 9 letters and digits", json_path(["messages", i, "tool_call_id"]))


@check("record", "FT218", scope=named("openai-rft"))
def rft_last_user(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    turns = ctx.fmt.turns(record)
    if turns and turns[-1][1].get("role") != "user":
        i, turn = turns[-1]
        yield Hit(f"the prompt ends with {turn.get('role')!r}; it should end with the user message the model answers",
                  json_path(["messages", i]))


@check("record", "FT219", scope=demanding(INTEGER_WEIGHTS), needs=(b'"weight"',), fused=RUNS)
def integer_weights(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    for i, turn in fmt.turns(record):
        if isinstance(turn.get("weight"), float):
            yield Hit(f"weight {turn['weight']!r} is a float; write 0 or 1", json_path([*fmt.turns_path(), i, "weight"]))


@check("record", "FT220", scope=named("cohere-chat"))
def needs_user(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    turns = ctx.fmt.turns(record)
    if turns and not any(str(t.get("role", "")).lower() == "user" for _, t in turns):
        yield Hit("no user turn", json_path(list(ctx.fmt.turns_path())))


@check("record", "FT216", scope=demanding(USER_IMAGES), needs=(b'"image_url"',), fused=RUNS)
def images_in_user_turns(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """Only user messages may hold images ("only user messages can contain images":
    _check_message_content in together/utils/files.py, together==1.6.0)."""
    fmt = ctx.fmt
    for i, turn in fmt.turns(record):
        if turn.get("role") != "user" and images_in(turn.get("content")):
            yield Hit(f"an image in the {turn.get('role')} message: {fmt.label} takes images in user messages only",
                      json_path([*fmt.turns_path(), i, "content"]))


@check("record", "FT213", scope=demanding(INPUT_BEFORE_ANSWER))
def input_ends_before_the_answer(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A preference pair's input must not end with an assistant message ("The last message in the
    input conversation must not be from the assistant": validate_preference_openai in
    together/utils/files.py, together==1.6.0): the outputs are the answer to it."""
    turns = ctx.fmt.turns(record)
    if turns and turns[-1][1].get("role") == "assistant":
        yield Hit("the input ends with an assistant message; the preferred and non-preferred outputs must answer "
                  "the last user turn", json_path([*ctx.fmt.turns_path(), turns[-1][0], "role"]))


@check("record", "FT223", scope=named("vertex-gemini"), needs=(b'"functionCall"', b'"functionResponse"'))
def parts_the_model_rejects(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    model = ctx.model
    if model is None or model.unsupported_parts is None:
        return
    fmt = ctx.fmt
    for i, turn in fmt.turns(record):
        for j, part in enumerate(as_list(turn.get("parts"))):
            if isinstance(part, dict):
                for key in sorted(k for k in part if model.rejects_part(k)):
                    yield Hit(f"a {key} part: {model.name} tuning rejects it (reported: {model.unsupported_parts.source})",
                              json_path([*fmt.turns_path(), i, "parts", j, key]))


@check("record", "FT224", "FT212", scope=demanding(ONE_SYSTEM_PROMPT, USER_OPENS_SAMPLE))
def sample_structure(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    turns = fmt.turns(record)
    if ONE_SYSTEM_PROMPT in fmt.demands:
        yield from _one_system_prompt(record, turns, fmt.label)
    if USER_OPENS_SAMPLE in fmt.demands:
        yield from _sample_openings(turns, bool(record.get("tools")), fmt.label)


def _one_system_prompt(record: dict, turns: list[tuple[int, dict]], label: str) -> Iterator[Hit]:
    """FT224: the system_prompt key or one system message, not both, nor two messages."""
    systems = [i for i, t in turns if t.get("role") == "system"]
    if isinstance(record.get("system_prompt"), str) and systems:
        yield Hit(f"a system message beside the system_prompt key: {label} takes one system prompt",
                  json_path(["messages", systems[0]]), code="FT224")
    elif len(systems) > 1:
        yield Hit(f"{len(systems)} system messages: {label} takes one system prompt",
                  json_path(["messages", systems[1]]), code="FT224")


def _sample_openings(turns: list[tuple[int, dict]], tools: bool, label: str) -> Iterator[Hit]:
    """FT212: each sample the trainer cuts (a tool conversation after each answer) opens with a user message."""
    rest = [(i, t) for i, t in turns if t.get("role") != "system"]
    if tools and rest and rest[0][1].get("role") == "assistant" and len(rest) > 1:
        # dynamic_chunk_fn_call (finetune/data/dataset.py) cuts a tool conversation after each
        # assistant turn: the cut after this first turn is a lone assistant message, which the
        # validator rejects when training reads it (validate_data.py does not chunk, so it passes)
        yield Hit(f"a tool conversation starting with an assistant message: {label}'s chunking makes a sample "
                  "of that message alone, and training fails on it", json_path(["messages", rest[0][0], "role"]), code="FT212")
    elif len(rest) == 1 and rest[0][1].get("role") not in ("user", None):
        i, turn = rest[0]
        yield Hit(f"the conversation is one {turn.get('role')} message (after the system prompt); {label} "
                  "needs a user message before it", json_path(["messages", i, "role"]), code="FT212")

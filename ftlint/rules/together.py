"""Together's own rules (FT108, FT216, FT221, FT222, FT213 for preference pairs), as Together has
them in December 2026.

Sources, each read 2026-12-01: docs.together.ai/docs/fine-tuning/data-preparation, /function-calling,
/reasoning, /vision and /preference-tuning; the SDK's file checker, together/utils/files.py of
together==1.6.0 (its v1 SDK, which mirrors the server's rules and runs in ftlint's tests as an
oracle: tests/test_provider_oracles.py). Where the docs allow what the v1 checker rejects (tools,
tool calls without content, the tool role, reasoning fields), ftlint follows the docs, and the
README's table of disagreements lists each case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, json_path
from ..formats import Format
from . import check, register

if TYPE_CHECKING:
    from ..engine.judge import RecordContext


def together(fmt: Format) -> bool:
    return fmt.family == "together" and fmt.kind in ("chat", "preference")


# The message keys Together documents; any other key is not read (the SDK checks role, content
# and weight only, and renders messages with the model's chat template).
MESSAGE_KEYS = frozenset({"role", "content", "weight", "tool_calls", "tool_call_id", "reasoning", "reasoning_content"})
# Top-level keys of OpenAI's format that Together does not document: the schema lets them through
# (files written for OpenAI carry them), and FT108 says they are not read.
IGNORED_TOP = ("parallel_tool_calls",)

register("FT108", "ignored-key", WARNING, """
    A key the provider neither documents nor reads (Together: a message's name, refusal,
    thinking, ...; OpenAI's top-level parallel_tool_calls).

    Together documents role, content, weight, tool_calls and reasoning / reasoning_content on
    messages (docs.together.ai/docs/fine-tuning/data-preparation, read 2026-12-01); its checker
    does not look at other keys, so the job runs and the value is silently not trained on. A
    reasoning trace under "thinking" is the usual case: Together reads "reasoning" or
    "reasoning_content". tool_call_id is accepted as OpenAI writes it.
    Why: what you meant to train is dropped without a word.
    Example: {"role": "assistant", "content": "42", "thinking": "6 x 7"}
""")

register("FT221", "mixed-content-kinds", ERROR, """
    Some messages of a conversation have string content and others a list of parts.

    Why: Together rejects the example ("Messages in the conversation must be either all in
    multimodal or all in text-only format": validate_messages in together/utils/files.py,
    together==1.6.0). Write every message's content as parts once one message has an image.
    Example: user content [{"type": "text", ...}, {"type": "image_url", ...}], assistant content "Red."
""")

register("FT222", "trained-image-turn", ERROR, """
    A message holding an image has a weight other than 0.

    Why: Together rejects it ("Messages with images cannot have non-zero weights":
    validate_messages in together/utils/files.py, together==1.6.0; the vision guide,
    docs.together.ai/docs/fine-tuning/vision, read 2026-12-01). Leave the weight out or set 0.
    Example: {"role": "user", "content": [..., {"type": "image_url", ...}], "weight": 1}
""")


def _images(content: object) -> int:
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")


@check("record", "FT108", scope=together)
def ignored_keys(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    for key in IGNORED_TOP:
        if key in record:
            yield Hit(f"'{key}' is OpenAI's; Together does not read it", json_path([key]))
    where = [(list(fmt.turns_path()), fmt.turns(record))]
    for key in ("preferred_output", "non_preferred_output"):
        outputs = record.get(key)
        if isinstance(outputs, list):
            where.append(([key], [(j, m) for j, m in enumerate(outputs) if isinstance(m, dict)]))
    for prefix, turns in where:
        for i, turn in turns:
            for key in sorted(k for k in turn if k not in MESSAGE_KEYS):
                hint = "; Together reads reasoning traces from 'reasoning' or 'reasoning_content'" if key == "thinking" else ""
                yield Hit(f"message key '{key}' is not read by Together: its value is not trained on{hint}",
                          json_path([*prefix, i, key]))


@check("record", "FT216", scope=together, needs=(b'"image_url"',))
def images_in_user_turns(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """Only user messages may hold images ("only user messages can contain images":
    _check_message_content in together/utils/files.py, together==1.6.0)."""
    fmt = ctx.fmt
    for i, turn in fmt.turns(record):
        if turn.get("role") != "user" and _images(turn.get("content")):
            yield Hit(f"an image in the {turn.get('role')} message: Together takes images in user messages only",
                      json_path([*fmt.turns_path(), i, "content"]))


@check("record", "FT221", "FT222", scope=together)
def content_kinds(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    first: tuple[int, bool] | None = None
    for i, turn in fmt.turns(record):
        content = turn.get("content")
        if not isinstance(content, (str, list)):
            continue  # a tool call without content, or a wrong type (the schema's)
        parts = isinstance(content, list)
        if first is None:
            first = (i, parts)
        elif parts != first[1]:
            kinds = ("a list of parts", "a string") if first[1] else ("a string", "a list of parts")
            yield Hit(f"content is {kinds[1]} here but {kinds[0]} at message {first[0]}: Together needs every message "
                      "in one form", json_path([*fmt.turns_path(), i, "content"]), code="FT221")
            first = (i, parts)
        weight = turn.get("weight")
        if parts and _images(content) and weight is not None and weight != 0:
            yield Hit(f"a message with an image has weight {weight!r}: Together trains no image message; "
                      "leave the weight out or set 0", json_path([*fmt.turns_path(), i, "weight"]), code="FT222")


@check("record", "FT213", scope=lambda fmt: together(fmt) and fmt.kind == "preference")
def input_ends_before_the_answer(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """A preference pair's input must not end with an assistant message ("The last message in the
    input conversation must not be from the assistant": validate_preference_openai in
    together/utils/files.py, together==1.6.0): the outputs are the answer to it."""
    turns = ctx.fmt.turns(record)
    if turns and turns[-1][1].get("role") == "assistant":
        yield Hit("the input ends with an assistant message; the preferred and non-preferred outputs must answer "
                  "the last user turn", json_path([*ctx.fmt.turns_path(), turns[-1][0], "role"]))

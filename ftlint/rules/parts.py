"""The content parts of a conversation's messages (FT221, FT222): one form for every message, no
image message trained, where a format's provider demands it (ONE_CONTENT_FORM: Together's, as
Together has them in December 2026; it is the only provider that does). Together's other decisions
sit with the codes they share with other providers (FT108, FT211, FT213, FT216, FT217: rules/
schema.py, conversation.py and chat.py) and in its formats' schemas, severities and read keys
(formats/registry.py).

Sources, each read 2026-12-01: docs.together.ai/docs/fine-tuning/data-preparation, /function-calling,
/reasoning, /vision and /preference-tuning; the SDK's file checker, together/utils/files.py of
together==1.6.0 (its v1 SDK, which mirrors the server's rules and runs in ftlint's tests as an
oracle: tests/oracles/test_provider_oracles.py). Where the docs allow what the v1 checker rejects (tools,
tool calls without content, the tool role, reasoning fields), ftlint follows the docs, and the
README's table of disagreements lists each case.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, Hit, json_path
from ..formats import Format
from ..formats.base import ONE_CONTENT_FORM
from . import Fused, check, register

if TYPE_CHECKING:
    from .context import RecordContext


def one_content_form(fmt: Format) -> bool:
    """The formats whose provider demands every message's content in one form, and no image message trained (Together's)."""
    return ONE_CONTENT_FORM in fmt.demands


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


def images_in(content: object) -> int:
    """How many image parts a message's content holds."""
    if not isinstance(content, list):
        return 0
    return sum(1 for part in content if isinstance(part, dict) and part.get("type") == "image_url")


def one_form(record: dict, turns: list[dict]) -> bool:
    """FT221, FT222 silent: every content a string, or every one a list of parts; no image part in
    a message of a weight other than 0."""
    form: bool | None = None
    for turn in turns:
        content = turn.get("content")
        kind = type(content)
        if kind is not str and kind is not list:
            continue
        parts = kind is list
        if form is None:
            form = parts
        elif parts != form:
            return False
        if parts and (weight := turn.get("weight")) is not None and weight != 0 and images_in(content):
            return False
    return True


@check("record", "FT221", "FT222", scope=one_content_form, fused=Fused({"messages": lambda fmt: one_form}, runs=True))
def content_kinds(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    if one_form(record, [turn for _, turn in fmt.turns(record)]):
        return
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
            yield Hit(f"content is {kinds[1]} here but {kinds[0]} at message {first[0]}: {fmt.label} needs every message "
                      "in one form", json_path([*fmt.turns_path(), i, "content"]), code="FT221")
            first = (i, parts)
        weight = turn.get("weight")
        if parts and images_in(content) and weight is not None and weight != 0:
            yield Hit(f"a message with an image has weight {weight!r}: {fmt.label} trains no image message; "
                      "leave the weight out or set 0", json_path([*fmt.turns_path(), i, "weight"]), code="FT222")

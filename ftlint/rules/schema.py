"""Structure codes (FT1xx): the format's JSON Schema (schemas/*.schema.json), and the shape gate.

The schema check turns jsonschema's errors into findings (ftlint/schemas.py explains them for
people). The shape gate runs before every other record check: a line of another format's shape
is reported once (FT106) and not checked further, as its format's rules would only add noise.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, Hit
from ..schemas import schema_findings
from . import check, register

if TYPE_CHECKING:
    from ..engine.judge import RecordContext

register("FT101", "missing-key", ERROR, """
    A key the format requires is missing.

    Why: the provider rejects the record. For OpenAI chat, every line needs "messages", every
    message a "role", system/user/tool messages a "content", tool messages a "tool_call_id". For
    Gemini, every turn of a multi-turn example needs a "role" (a single-turn example may leave it
    out: the user's turn then).
    Example: {"messages": [{"role": "user"}]}  -> missing required key 'content'
""")

register("FT102", "wrong-type", ERROR, """
    A value has the wrong JSON type.

    Why: the provider rejects the record. Content is a string or a list of parts, never a
    number; tool-call arguments are a JSON *string*, not an object.
    Example: {"role": "user", "content": 42}
""")

register("FT103", "unknown-key", ERROR, """
    A key the format does not define.

    Why: OpenAI rejects unknown keys in training examples, and a typo ("contnet") means the
    value you meant is not trained on. 'weight' is reported here when it sits on a message
    other than an assistant message.
    Example: {"role": "user", "content": "hi", "weigth": 1}
""")

register("FT104", "value-not-allowed", ERROR, """
    A value is not one the format allows (an unknown role, a weight other than 0 or 1).

    Why: the provider rejects the record.
    Example: {"role": "bot", ...} or {"role": "assistant", "weight": 0.5, ...}
""")

register("FT105", "constraint", ERROR, """
    A value breaks a constraint of the format (an empty list, a name that does not match its
    pattern, too many items).

    Why: the provider rejects the record.
    Example: {"messages": []}  -> must not be empty
""")

register("FT106", "other-format-line", ERROR, """
    The line has the shape of another dataset format than the file's.

    The file's format is given with --format or detected from its first records; a line of
    another shape (say, prompt/completion in a messages file) is flagged with the format it
    looks like, and not checked further. Why: providers take one format per file and reject
    the others.
""")


@check("record", "FT101", "FT102", "FT103", "FT104", "FT105")
def schema(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    for code, message, pointer in schema_findings(ctx.fmt.schema, record):
        yield Hit(message, pointer, code=code)


@check("record", "FT106", gate=True)
def other_shape(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    from ..formats.registry import BY_SHAPE, FORMATS
    from ..formats.shape import shape

    fmt = ctx.fmt
    found = shape(record)
    if found == "unknown" or found == fmt.shape or found in fmt.also_shapes:
        return
    like = BY_SHAPE[found]
    yield Hit(f"line has the shape of {like} ({FORMATS[like].title}); the file is {fmt.name}")

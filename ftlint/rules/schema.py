"""Structure codes (FT1xx), emitted from the format's JSON Schema (schemas/*.schema.json)."""

from ..diagnostics import ERROR
from . import register

register("FT101", "missing-key", ERROR, """
    A key the format requires is missing.

    Why: the provider rejects the record. For OpenAI chat, every line needs "messages", every
    message a "role", system/user/tool messages a "content", tool messages a "tool_call_id".
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

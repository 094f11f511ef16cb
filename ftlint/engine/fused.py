"""The fused clean-record pass (issue 28): one walk over a parsed record proves it clean, or the
record goes the full path.

The full path (LineJudge._judge) runs the shape gate, the figures and every record check one after
another, each walking the record again; most records of a real file are clean. One walk over the
messages (or the turns, or the fields) proves most of those checks silent at once. The pass returns
the line's figures, computed by the very function the full path calls (so they are the same by
construction), once it has shown that every check the full path would run is silent but those it
runs as they are (below); else it returns None and the line goes the full path as if the pass did
not exist.

How each check's silence is shown, for a record the parser found nothing wrong with (PROVES, and
the walk of the format's kind, WALKS):
  schema (FT101-FT105)        jsonschema-rs's is_valid: schema_findings yields nothing then
  over_limit (FT301, FT303)   no record over the limit (a byte bound over it asks for an exact count)
  special_token_text (FT302)  no "<|" in the record's JSON, and no chat template's control tokens
  template_failed, loss_mask, dropped (FT230, FT238, FT231, FT233-FT235)   no chat template: the
                              figures carry no rendering or failure to read
  past_max (FT236, FT240)     no record that the trainer's max length drops or cuts trained tokens off
  the walk of OpenAI's messages shape ("messages": OpenAI's, Azure's, Mistral's, Fireworks',
  Together's, TRL's, Bedrock's Claude and RFT formats):
    other_shape (FT106)       none of the keys shape() reads before "messages", no Cohere role, no
                              part without a type, no "candidates" on the last message: shape() is
                              "messages", the format's shape
    no_target (FT201)         a message of role "assistant" without weight 0
    empty_content (FT203)     no content or text part empty or white space, but beside a tool call
    assistant_without_content (FT204)  every assistant message has content or a tool (function) call
    untrained_tail (FT208)    the last message is an assistant message without weight 0
    and the provider's own rules, where the format has them (Together's, Mistral's, Bedrock's):
    ignored_keys (FT108)      every top-level and message key one the provider reads, a weight only on
                              the roles it weights, no preference outputs
    content_kinds (FT221, FT222)  every message's content a string, or every one a list of parts; no
                              message with an image part and a weight other than 0
    alternation (FT211)       no two alternating roles in a row (with `adjacent`, another role between
                              them breaks the run)
    first_and_last (FT212, FT213)  the first and last messages but system have the format's roles
  the walk of ShareGPT's turns ("turns", read as messages by ShareGPT.turns): FT201, FT203 as above
  the walk of fields ("fields": Alpaca, prompt-completion, text, TRL's fields): FT203, each field
The checks in RUNS are run as they are, last, where the literals they need occur (as the full path
runs them): tool calls, images, secrets and the like are a few records in a hundred. Their hits are
the line's: every other check proved silent, the full path would make the same hits in the same
order (the judge's order of checks), and a record with an e-mail is not scanned twice. The shape
gate of the formats whose walk does not prove it runs first, as it does on the full path; its hit
sends the line the full path, which stops there too.

A check the judge would run that is in none of the lists (a rule added since, a format's own) turns
the pass off for the format: `fused_pass` compares each, by function and codes, and so does a test.
Off as well: --mapping, a chat template, and `Settings.fused`
False (the environment's FTLINT_FUSED=0), which the differential test (tests/oracles/test_fused.py) and
users comparing the two paths use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..formats.chat import ChatFormat, ShareGPT
from ..formats.fields import FieldsFormat
from ..formats.shape import COHERE_ROLES, MS_SWIFT_KEYS, MS_SWIFT_ROLES
from ..rules.secrets import CODES as SECRET_CODES
from ..rules.together import images_in

if TYPE_CHECKING:
    from ..diagnostics import Hit
    from ..formats import Format, LineFigures
    from ..rules import Check
    from ..rules.context import RecordContext

PROVES: dict[str, tuple[str, ...]] = {
    "ftlint.rules.schema.schema": ("FT101", "FT102", "FT103", "FT104", "FT105"),
    "ftlint.rules.tokens.over_limit": ("FT301", "FT303"),
    "ftlint.rules.tokens.special_token_text": ("FT302",),
    "ftlint.rules.tokens.template_failed": ("FT230", "FT238"),
    "ftlint.rules.template.loss_mask": ("FT231", "FT233", "FT235"),
    "ftlint.rules.template.past_max": ("FT236", "FT240"),
    "ftlint.rules.template.dropped": ("FT234",),
}
# what the walk proves, by the kind of format (the messages of OpenAI's shape, ShareGPT's turns, fields)
WALKS: dict[str, dict[str, tuple[str, ...]]] = {
    "messages": {"ftlint.rules.schema.other_shape": ("FT106",), "ftlint.rules.chat.no_target": ("FT201",),
                 "ftlint.rules.chat.empty_content": ("FT203",), "ftlint.rules.chat.assistant_without_content": ("FT204",),
                 "ftlint.rules.chat.untrained_tail": ("FT208",), "ftlint.rules.schema.ignored_keys": ("FT108",),
                 "ftlint.rules.together.content_kinds": ("FT221", "FT222"),
                 "ftlint.rules.conversation.alternation": ("FT211",),
                 "ftlint.rules.conversation.first_and_last": ("FT212", "FT213")},
    "turns": {"ftlint.rules.chat.no_target": ("FT201",), "ftlint.rules.chat.empty_content": ("FT203",)},
    "fields": {"ftlint.rules.chat.empty_content": ("FT203",)},
}
RUNS: dict[str, tuple[str, ...]] = {
    "ftlint.rules.schema.other_shape": ("FT106",),  # where the walk does not prove it: run first, as the gate it is
    "ftlint.rules.secrets.secrets": SECRET_CODES,
    "ftlint.rules.chat.orphan_tool_message": ("FT202",),
    "ftlint.rules.chat.tool_arguments_not_json": ("FT205",),
    "ftlint.rules.chat.duplicate_tool_call_id": ("FT206",),
    "ftlint.rules.chat.undefined_tool": ("FT207",),
    "ftlint.rules.chat.too_many_images": ("FT217",),
    "ftlint.rules.conversation.mistral_ids": ("FT215",),
    "ftlint.rules.conversation.integer_weights": ("FT219",),
    "ftlint.rules.conversation.images_in_user_turns": ("FT216",),
    "ftlint.rules.media.media_read": ("FT250", "FT251", "FT252", "FT253"),
    "ftlint.rules.media.media_accepted": ("FT254",),
    "ftlint.rules.media.image_cut": ("FT350",),
    "ftlint.rules.media.media_not_counted": ("FT351",),
    # where the walk does not prove them (another walk's formats): run on each record
    "ftlint.rules.schema.ignored_keys": ("FT108",),
    "ftlint.rules.together.content_kinds": ("FT221", "FT222"),
    "ftlint.rules.conversation.alternation": ("FT211",),
    "ftlint.rules.conversation.first_and_last": ("FT212", "FT213"),
}
# the keys shape() tests before it reads "messages": a record with none of them is of a messages shape
SHAPE_KEYS = frozenset({"preferred_output", "non_preferred_output", "input", "conversations", "instruction", "chosen",
                        "prompt", "contents", "schemaVersion", "responses_create_params", "reward_model", *MS_SWIFT_KEYS})


def name_of(check: Check) -> str:
    return f"{check.func.__module__}.{check.func.__qualname__}"


def uncovered(checks: list[Check], walk: str) -> list[str]:
    """The checks the pass neither proves silent nor runs (by function and codes): any turns it off."""
    known = {**RUNS, **PROVES, **WALKS[walk]}
    return [name_of(c) for c in checks if known.get(name_of(c)) != c.codes]


def walk_of(fmt: Format) -> str | None:
    """Which walk suits the format: OpenAI's messages shape, turns of another shape (ShareGPT), fields."""
    if isinstance(fmt, ChatFormat):
        if type(fmt).is_target is not ChatFormat.is_target or "assistant" not in fmt.target_roles:
            return None
        if fmt.shape == "messages" and fmt.turns_key == "messages" and type(fmt).turns is ChatFormat.turns:
            return "messages"
        return "turns" if type(fmt).turns is ShareGPT.turns else None
    return "fields" if isinstance(fmt, FieldsFormat) else None


class FusedPass:
    """One format's pass: call it with a record and its context (the literals found in it)."""

    def __init__(self, fmt: Format, walk: str, gates: list[Check], checks: list[Check],
                 figures: Callable[[dict], LineFigures], cut_label: str = "") -> None:
        from ..schemas import fast_validator

        walked = WALKS[walk]
        names = {name_of(c) for c in (*gates, *checks)}
        self.fmt, self.kind = fmt, walk
        self.fields = (*fmt.inputs, *fmt.outputs) if isinstance(fmt, FieldsFormat) else ()
        self.is_valid = fast_validator(fmt.schema).is_valid if "ftlint.rules.schema.schema" in names else None
        self.gate = "ftlint.rules.schema.other_shape" in names and "ftlint.rules.schema.other_shape" in walked
        self.target = "ftlint.rules.chat.no_target" in names
        self.tail = "ftlint.rules.chat.untrained_tail" in names
        self.empty = "ftlint.rules.chat.empty_content" in names
        self.bare = "ftlint.rules.chat.assistant_without_content" in names
        self.over = "ftlint.rules.tokens.over_limit" in names
        self.specials = "ftlint.rules.tokens.special_token_text" in names
        self.cut = bool(cut_label) and "ftlint.rules.template.past_max" in names
        proved = names & walked.keys()  # the provider's own rules the walk proves (empty, unless the format has them)
        keys = "ftlint.rules.schema.ignored_keys" in proved
        self.reads_top: frozenset[str] = fmt.reads_top if keys else frozenset()
        self.reads_message: frozenset[str] = fmt.reads_message if keys else frozenset()
        self.weight_roles = fmt.weight_roles if keys else ()
        self.kinds = "ftlint.rules.together.content_kinds" in proved
        self.alternate: tuple[str, ...] = getattr(fmt, "alternate", ()) if "ftlint.rules.conversation.alternation" in proved else ()
        self.adjacent = bool(getattr(fmt, "adjacent", False))
        ends = "ftlint.rules.conversation.first_and_last" in proved
        self.first_role: str | None = getattr(fmt, "first_role", None) if ends else None
        self.last_role: str | None = getattr(fmt, "last_role", None) if ends else None
        self.gates = [c for c in gates if name_of(c) not in walked]  # the shape gate, where the walk does not prove it
        self.runs = [c for c in checks if name_of(c) in RUNS and name_of(c) not in walked]
        self.figures = figures

    def __call__(self, record: dict, ctx: RecordContext, hits: list[tuple[str, Hit]]) -> LineFigures | None:
        """The line's figures, its run checks' hits added to `hits`; or None, `hits` untouched."""
        for gate in self.gates:
            for _ in gate.func(record, ctx):
                return None
        if not self.walk(record):
            return None
        if self.is_valid is not None and not self.is_valid(record):
            return None
        present = ctx.present
        if self.specials and b"<|" in present:
            return None
        figures = self.figures(record)
        if figures.failure or figures.rendered is not None or figures.system_dropped:
            return None
        if self.cut:
            for r in figures.records:
                if r.dropped or r.cut_trainable:
                    return None
        limit = ctx.limit
        if self.over and limit is not None:
            for r in figures.records:
                if r.tokens > limit:
                    return None
        ctx.figures = figures
        for c in self.runs:  # in the judge's order: with the others silent, their hits are the line's, in order
            if c.needs and present.isdisjoint(c.needs):
                continue
            first = c.codes[0]
            for hit in c.func(record, ctx):
                hits.append((hit.code or first, hit))
        return figures

    def walk(self, record: dict) -> bool:
        """Whether the record shows the shape gate (messages) and the per-turn or per-field rules silent (above)."""
        if self.kind == "fields":
            for key in self.fields:
                value = record.get(key)
                if isinstance(value, str) and not value.strip():
                    return False
            return True
        if self.kind == "turns":
            return self.turns([turn for _, turn in self.fmt.turns(record)])
        if self.gate and not record.keys().isdisjoint(SHAPE_KEYS):
            return False
        if self.reads_top and not self.reads_top.issuperset(record):
            return False  # FT108: a top-level key the provider does not read
        if self.reads_message and ("preferred_output" in record or "non_preferred_output" in record):
            return False  # FT108 reads their messages' keys too
        return self.turns(record.get("messages"))

    def turns(self, messages: object) -> bool:
        if type(messages) is not list or not messages:
            return False
        trained = False
        reads, weight_roles, kinds, alternate = self.reads_message, self.weight_roles, self.kinds, self.alternate
        form: bool | None = None  # FT221: whether the first message with content holds it as parts
        previous: str | None = None  # FT211: the last alternating role seen
        first: str | None = None  # FT212, FT213: the first and last roles but system
        last: str | None = None
        for m in messages:
            if type(m) is not dict:
                return False
            role, content = m.get("role"), m.get("content")
            if type(role) is not str or role in COHERE_ROLES or role in MS_SWIFT_ROLES or "loss" in m:
                return False  # shape(): Cohere's roles, ms-swift's agent roles and per-message loss are other shapes
            if reads and (not reads.issuperset(m) or (weight_roles and "weight" in m and role not in weight_roles)):
                return False  # FT108: every key read, and a weight only where the provider reads it
            if kinds and (type(content) is str or type(content) is list):  # FT221, FT222
                parts = type(content) is list
                if form is None:
                    form = parts
                elif parts != form:
                    return False
                if parts and (weight := m.get("weight")) is not None and weight != 0 and images_in(content):
                    return False
            if alternate:  # FT211
                lower = role.lower()
                if lower in alternate:
                    if lower == previous:
                        return False
                    previous = lower
                elif self.adjacent:
                    previous = None
            if role != "system":
                if first is None:
                    first = role
                last = role
            if type(content) is str:
                if (not content or content[0].isspace() or content[-1].isspace()) and self.empty and not content.strip() \
                        and not (m.get("tool_calls") or m.get("function_call")):
                    return False
            elif content is None:
                if "content" not in m and "parts" in m:
                    return False  # FT203 reads the parts then
                if self.bare and role == "assistant" and not (m.get("tool_calls") or m.get("function_call")):
                    return False
            elif type(content) is list:
                if content and type(content[0]) is dict and "type" not in content[0]:
                    return False  # shape() reads such parts as Nova's
                if self.empty and not (m.get("tool_calls") or m.get("function_call")):
                    for part in content:
                        if type(part) is dict:
                            text = part.get("text")
                            if type(text) is str and part.get("type", "text") == "text" and not text.strip():
                                return False
            else:
                return False
            if role == "assistant" and m.get("weight", 1) != 0:
                trained = True
        if first is not None:  # FT212, FT213
            if self.first_role and first.lower() != self.first_role:
                return False
            if self.last_role and last is not None and last.lower() != self.last_role:
                return False
        end = messages[-1]
        if self.gate and "candidates" in end:
            return False
        if self.target and not trained:
            return False
        return not self.tail or (end.get("role") == "assistant" and end.get("weight", 1) != 0)


def fused_pass(fmt: Format, gates: list[Check], checks: list[Check], ctx: RecordContext, fused: bool, plain: bool,
               figures: Callable[[dict], LineFigures]) -> FusedPass | None:
    """The format's pass, where it covers the run: `plain` says no --mapping and no chat template; a
    walk suits the format; every check the judge would run is proved or run."""
    if not fused or not plain or ctx.control_tokens is not None:
        return None
    walk = walk_of(fmt)
    if walk is None or uncovered([*gates, *checks], walk):
        return None
    return FusedPass(fmt, walk, gates, checks, figures, ctx.cut_label)

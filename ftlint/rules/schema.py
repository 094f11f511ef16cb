"""Structure codes (FT1xx): the format's JSON Schema (schemas/*.schema.json), and the shape gate.

The schema check turns jsonschema's errors into findings (ftlint/schemas.py explains them for
people). The shape gate runs before every other record check: a line of another format's shape
is reported once (FT106) and not checked further, as its format's rules would only add noise.
With --mapping, the columns the mapping reads are checked first, on the record as read (FT109).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING, Protocol

from ..diagnostics import ERROR, WARNING, Hit, json_path
from ..formats.base import LABEL_PER_STEP, TOOL_SCHEMAS
from ..formats.shape import COHERE_ROLES, MS_SWIFT_KEYS, MS_SWIFT_ROLES
from ..schemas import schema_findings
from . import VALID, Fused, Silent, check, register

if TYPE_CHECKING:
    from ..formats import Format
    from .context import RecordContext

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


@check("record", "FT101", "FT102", "FT103", "FT104", "FT105", fused=Fused(fact=VALID))
def schema(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    for code, message, pointer in schema_findings(ctx.fmt.schema, record):
        yield Hit(message, pointer, code=code)


# the keys shape() tests before it reads "messages": a record with none of them is of a messages shape
SHAPE_KEYS = frozenset({"preferred_output", "non_preferred_output", "input", "conversations", "instruction", "chosen",
                        "prompt", "contents", "schemaVersion", "responses_create_params", "reward_model", *MS_SWIFT_KEYS})

OTHER_ROLES = COHERE_ROLES | MS_SWIFT_ROLES


def _of_messages(record: dict, turns: list[dict]) -> bool:
    """FT106 silent on a record of a messages format: none of the keys shape() reads before "messages",
    no Cohere or ms-swift role, no per-message loss, no part without a type (Nova's), no "candidates"
    on the last message: shape() is "messages", the format's shape."""
    if not record.keys().isdisjoint(SHAPE_KEYS) or "candidates" in turns[-1]:
        return False
    for m in turns:
        if m["role"] in OTHER_ROLES or "loss" in m:
            return False
        content = m.get("content")
        if type(content) is list and content and type(content[0]) is dict and "type" not in content[0]:
            return False
    return True


# where no walk proves it (another shape's turns, fields), the pass runs it first, as the gate it is
@check("record", "FT106", gate=True, fused=Fused({"messages": lambda fmt: _of_messages}, runs=True))
def other_shape(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    from ..formats.registry import BY_SHAPE, FORMATS
    from ..formats.shape import shape

    fmt = ctx.fmt
    found = shape(record)
    if found == "prompt-only" and "prompt" in getattr(fmt, "inputs", ()):
        return  # a prompt without its completion: the format's schema says what is missing (FT101)
    if found == "unknown" or found == fmt.shape or found in fmt.also_shapes:
        return
    like = BY_SHAPE[found]
    yield Hit(f"line has the shape of {like} ({FORMATS[like].title}); the file is {fmt.name}")


register("FT108", "ignored-key", WARNING, """
    A key the provider neither documents nor reads: the job runs, and the value is silently not
    trained on.

    Each format lists the keys its provider reads (`ftlint formats NAME`); a key its schema lets
    through beside them is reported here. Together reads role, content, weight, tool_calls,
    tool_call_id and reasoning / reasoning_content on messages (docs.together.ai/docs/fine-tuning/
    data-preparation, read 2026-12-01): a message's name, refusal or thinking, and OpenAI's
    top-level parallel_tool_calls, are not read (a reasoning trace under "thinking" is the usual
    case: Together reads "reasoning"). mistral-finetune reads messages, tools, available_tools,
    system_prompt and only_last at the top, and a weight on assistant messages only
    (finetune/data/tokenize.py, mistralai/mistral-finetune at 1943535); an "id" or "source" column
    is carried along unread.
    Why: what you meant to train is dropped without a word.
    Example: {"role": "assistant", "content": "42", "thinking": "6 x 7"}
""", per="file")


def _reads_keys(fmt: Format) -> bool:
    return bool(fmt.reads_top or fmt.reads_message)


def _keys_read(fmt: Format) -> Silent:
    """FT108 silent: every top-level and message key one the provider reads, a weight only on the
    roles it weights, no preference outputs (their messages' keys are read too)."""
    top, message, weight_roles = fmt.reads_top, fmt.reads_message, fmt.weight_roles

    def silent(record: dict, turns: list[dict]) -> bool:
        if top and not top.issuperset(record):
            return False
        if not message:
            return True
        if "preferred_output" in record or "non_preferred_output" in record:
            return False
        for m in turns:
            if not message.issuperset(m) or (weight_roles and "weight" in m and m["role"] not in weight_roles):
                return False
        return True

    return silent


@check("record", "FT108", scope=_reads_keys, fused=Fused({"messages": _keys_read}, runs=True))
def ignored_keys(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    fmt = ctx.fmt
    provider = fmt.providers.split(":")[0].split(" (")[0]
    if fmt.reads_top:
        for key in sorted(k for k in record if k not in fmt.reads_top):
            yield Hit(f"'{key}' is not read by {provider}: it does not reach training", json_path([key]))
    if not fmt.reads_message:
        return
    where = [(list(fmt.turns_path()), fmt.turns(record))]
    for key in ("preferred_output", "non_preferred_output"):
        outputs = record.get(key)
        if isinstance(outputs, list):
            where.append(([key], [(j, m) for j, m in enumerate(outputs) if isinstance(m, dict)]))
    for prefix, turns in where:
        for i, turn in turns:
            for key in sorted(turn):
                if key not in fmt.reads_message:
                    hint = "; it reads reasoning traces from 'reasoning' or 'reasoning_content'" if key == "thinking" else ""
                    yield Hit(f"message key '{key}' is not read by {provider}: its value is not trained on{hint}",
                              json_path([*prefix, i, key]))
                elif key == "weight" and fmt.weight_roles and turn.get("role") not in fmt.weight_roles:
                    yield Hit(f"a weight on a {turn.get('role')} message is not read by {provider}: only "
                              f"{' and '.join(fmt.weight_roles)} messages are weighted", json_path([*prefix, i, key]))


@check("record", "FT105", scope=lambda fmt: TOOL_SCHEMAS in fmt.demands, needs=(b'"parameters"',))
def tool_parameters_schema(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """mistral-common checks each tool's parameters as a JSON Schema (Draft 7) before training
    (InvalidToolSchemaException); a schema that is not one fails the example."""
    from jsonschema import Draft7Validator
    from jsonschema.exceptions import SchemaError

    for key in ("tools", "available_tools"):
        tools = record.get(key)
        for j, tool in enumerate(tools if isinstance(tools, list) else ()):  # another type is the schema's finding
            function = tool.get("function") if isinstance(tool, dict) else None
            parameters = function.get("parameters") if isinstance(function, dict) else None
            if not isinstance(parameters, dict):
                continue
            try:
                Draft7Validator.check_schema(parameters)
            except SchemaError as exc:
                yield Hit(f"parameters are not a valid JSON Schema: {exc.message[:120]}",
                          json_path([key, j, "function", "parameters", *exc.path]))


@check("record", "FT105", scope=lambda fmt: LABEL_PER_STEP in fmt.demands)
def one_label_per_step(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    """TRL's stepwise supervision labels each step: as many labels as completions."""
    steps, labels = record.get("completions"), record.get("labels")
    if isinstance(steps, list) and isinstance(labels, list) and steps and labels and len(steps) != len(labels):
        yield Hit(f"{len(labels)} label{'s' if len(labels) != 1 else ''} for {len(steps)} steps: {ctx.fmt.label} needs one label per step",
                  json_path(["labels"]))


register("FT109", "mapped-column-missing", ERROR, """
    A column the trainer's mapping (--mapping: LLaMA-Factory's dataset_info.json) names is not in
    the record.

    Why: LLaMA-Factory reads the dataset through that mapping; a record without the column has
    no prompt, answer or conversation to train on (or the dataset fails to load). The finding
    names the record's own column and the part the mapping reads from it.
    Example: "columns": {"response": "answer"} on a record that has "output"
""", kind="mapping")


class ColumnMapping(Protocol):
    """What the mapping's check reads of a trainer's mapping (ftlint.mapping.Mapping)."""

    @property
    def name(self) -> str: ...

    def missing(self, record: dict) -> list[tuple[str, str]]: ...


@check("mapping", "FT109")
def mapped_column_missing(record: dict, mapping: ColumnMapping) -> Iterator[Hit]:
    for canonical, column in mapping.missing(record):
        yield Hit(f"the mapping {mapping.name} reads the {canonical} from column '{column}', which this record lacks", json_path([column]))

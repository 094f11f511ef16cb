"""Load the JSON Schema files and turn jsonschema's errors into ftlint findings.

Speed: every record first meets jsonschema-rs (a compiled validator, tens of microseconds per
record); only a record it rejects goes through python-jsonschema, whose error tree explains the
failure. On valid data that is hundreds of times faster than python-jsonschema alone.

The schema files live in `schemas/` at the top of the repository; an installed wheel carries
them as `ftlint/schemas/`. Messages are rewritten for people: "missing required key
'content'", "expected string, got number", "unknown key 'foo'"; a `oneOf` failure is followed
into the branch whose type matches the value, so the finding names the real problem.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from functools import cache
from importlib import resources
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .diagnostics import json_path, short_json

if TYPE_CHECKING:  # python-jsonschema is imported only to explain a rejected record (60 ms saved at start)
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError

_TYPE_NAMES = {
    str: "string",
    bool: "boolean",
    int: "integer",
    float: "number",
    list: "array",
    dict: "object",
    type(None): "null",
}

# code by jsonschema keyword
SCHEMA_CODES = {
    "required": "FT101",
    "type": "FT102",
    "additionalProperties": "FT103",
    "enum": "FT104",
    "const": "FT104",
}
DEFAULT_SCHEMA_CODE = "FT105"


def schema_dir() -> Path:
    packaged = resources.files("ftlint").joinpath("schemas")
    if packaged.is_dir():
        return Path(str(packaged))
    return Path(__file__).resolve().parent.parent / "schemas"


@cache
def load_schema(name: str) -> dict:
    with open(schema_dir() / f"{name}.schema.json", encoding="utf-8") as fh:
        return json.load(fh)


@cache
def fast_validator(name: str) -> Any:
    import jsonschema_rs

    return jsonschema_rs.validator_for(load_schema(name))


@cache
def validator(name: str) -> Draft202012Validator:
    from jsonschema import Draft202012Validator

    schema = load_schema(name)
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema)


def schema_findings(name: str, instance: object) -> Iterator[tuple[str, str, str]]:
    """Yield (code, message, JSON path) for every schema violation of `instance`."""
    if fast_validator(name).is_valid(instance):
        return
    for error in validator(name).iter_errors(instance):
        yield from _explain(error)


def _type_name(value: object) -> str:
    return _TYPE_NAMES.get(type(value), type(value).__name__)



def _explain(error: ValidationError) -> Iterator[tuple[str, str, str]]:
    path = list(error.absolute_path)
    keyword = str(error.validator)
    if keyword in ("oneOf", "anyOf"):
        yield from _explain_alternatives(error)
        return
    if keyword == "allOf" or (keyword == "if" and error.context):
        for sub in error.context or ():
            yield from _explain(sub)
        return
    code = SCHEMA_CODES.get(keyword, DEFAULT_SCHEMA_CODE)
    value = error.instance
    expected = error.validator_value
    if keyword == "required":
        missing = error.message.split("'")[1] if "'" in error.message else "?"
        yield code, f"missing required key '{missing}'", json_path([*path, missing])
    elif keyword == "additionalProperties":
        allowed = set((error.schema or {}).get("properties", {}))
        for key in sorted(k for k in value if k not in allowed):
            yield code, _unknown_key_message(key, value), json_path([*path, key])
    elif keyword == "type":
        want = " or ".join(expected) if isinstance(expected, list) else expected
        yield code, f"expected {want}, got {_type_name(value)}", json_path(path)
    elif keyword == "enum":
        options = ", ".join(short_json(v) for v in expected)
        key = f"{path[-1]} " if path and isinstance(path[-1], str) else ""
        yield code, f"{key}{short_json(value)} is not allowed; expected one of {options}", json_path(path)
    elif keyword == "const":
        yield code, f"expected {short_json(expected)}, got {short_json(value)}", json_path(path)
    elif keyword == "minItems":
        what = "must not be empty" if expected == 1 else f"must have at least {expected} items"
        yield code, what, json_path(path)
    elif keyword == "maxItems":
        yield code, f"must have at most {expected} items, has {len(value)}", json_path(path)
    elif keyword == "pattern":
        yield code, f"{short_json(value)} does not match the pattern {expected}", json_path(path)
    elif keyword == "not" and isinstance(expected, dict) and list(expected) == ["required"] and isinstance(value, dict):
        # "then": {"not": {"required": [KEY]}}: a key another key excludes (Nova's candidates replace content)
        present = [k for k in expected["required"] if k in value]
        others = sorted(k for k in value if k not in present)
        with_ = f" beside {', '.join(repr(k) for k in others)}" if others else ""
        yield "FT103", f"key {', '.join(repr(k) for k in present)} is not allowed{with_}", json_path([*path, *present[:1]])
    else:
        yield code, error.message, json_path(path)


def _unknown_key_message(key: str, obj: dict) -> str:
    if key == "weight" and obj.get("role") not in (None, "assistant"):
        return "'weight' is allowed only on assistant messages"
    return f"unknown key '{key}'"


def _explain_alternatives(error: ValidationError) -> Iterator[tuple[str, str, str]]:
    """A oneOf/anyOf failure: if exactly one branch accepts the value's type, the problem lies
    inside that branch; otherwise the value has none of the accepted types."""
    by_branch: dict[int, list[ValidationError]] = {}
    for sub in error.context or ():
        by_branch.setdefault(int(sub.schema_path[0]), []).append(sub)
    branches = error.validator_value
    value = error.instance
    matching = [i for i, branch in enumerate(branches) if _type_matches(branch, value)]
    if len(matching) == 1 and by_branch.get(matching[0]):
        for sub in by_branch[matching[0]]:
            yield from _explain(sub)
        return
    kinds = [_branch_type(b) for b in branches]
    want = " or ".join(k for k in dict.fromkeys(kinds) if k)
    yield "FT102", f"expected {want}, got {_type_name(value)}", json_path(list(error.absolute_path))


def _branch_type(branch: dict) -> str:
    kind = branch.get("type")
    if isinstance(kind, list):
        return " or ".join(kind)
    if kind == "array" and "items" in branch:
        return "array of parts"
    return kind or "object"


def _type_matches(branch: dict, value: object) -> bool:
    kind = branch.get("type")
    if kind is None:
        return isinstance(value, dict)
    kinds = kind if isinstance(kind, list) else [kind]
    name = _type_name(value)
    return name in kinds or (name == "integer" and "number" in kinds)

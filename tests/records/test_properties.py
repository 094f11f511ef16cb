"""Property-based tests: arbitrary bytes and JSON never raise; line numbers stay in the file;
N valid records always count N. A fixed example budget keeps CI bounded."""

from __future__ import annotations

import json
import os
from pathlib import Path

from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from ftlint.diagnostics import Diagnostic
from ftlint.engine import Settings, analyse
from ftlint.engine.judge import record_findings
from ftlint.formats import get_format
from ftlint.formats.registry import BY_SHAPE, FORMATS
from ftlint.formats.shape import detect, shape
from ftlint.parse import parse_line
from ftlint.read import read_lines
from ftlint.rules import secrets
from ftlint.rules.tokens import SPECIAL_TOKEN_TEXT
from ftlint.tokens import TokenCounter

SCHEMAS = Path(__file__).resolve().parents[2] / "schemas"


def _property_names(schema: object) -> set[str]:
    if isinstance(schema, list):
        return set().union(*map(_property_names, schema)) if schema else set()
    if not isinstance(schema, dict):
        return set()
    names = set(schema["properties"]) if isinstance(schema.get("properties"), dict) else set()
    return names.union(*map(_property_names, schema.values()))


BUDGET = settings(max_examples=int(os.environ.get("FTLINT_HYPOTHESIS_EXAMPLES", "150")), deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
SETTINGS = Settings("o200k_base", "gpt-4.1-mini", model_limit=65536)
COUNTER = TokenCounter("o200k_base")

json_values = st.recursive(
    st.none() | st.booleans() | st.integers(-(2**63), 2**63 - 1) | st.floats(allow_nan=False, allow_infinity=False) | st.text(max_size=30),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4),
    max_leaves=25,
)
roles = st.sampled_from(["system", "user", "assistant", "tool", "function", "bot", "Chatbot", 3, None]) | json_values  # lists and objects too: a role that is not hashable once crashed detection
messages = st.fixed_dictionaries(
    {"role": roles},
    optional={"content": json_values | st.text(max_size=40), "weight": json_values, "name": json_values,
              "tool_calls": json_values, "tool_call_id": json_values},
)
records = st.fixed_dictionaries({}, optional={"messages": st.lists(messages, max_size=5) | json_values,
                                              "tools": json_values, "extra": json_values})


def _check(path: Path) -> tuple[list[Diagnostic], object]:
    found: list[Diagnostic] = []
    return found, analyse([str(path)], SETTINGS, found.append)


@BUDGET
@given(st.binary(max_size=400))
def test_arbitrary_bytes_never_raise_and_lines_stay_in_the_file(tmp_path_factory, data: bytes) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("b") / "data.jsonl"
    path.write_bytes(data)
    found, result = _check(path)
    n_lines = len(list(read_lines(str(path))))
    assert result.lines == n_lines  # type: ignore[attr-defined]
    assert all(0 <= d.line <= n_lines for d in found)
    if data[:2] not in (b"\xff\xfe", b"\xfe\xff") and not data.startswith(b"\x1f\x8b"):
        expected = data.count(b"\n") + (0 if data.endswith(b"\n") or not data else 1)
        assert n_lines == expected or any(d.code in ("FT008",) for d in found)


@BUDGET
@given(json_values)
def test_arbitrary_json_values_never_raise(value: object) -> None:
    raw = json.dumps(value).encode()
    line = parse_line(1, raw)
    if line.value is not None:
        fmt = get_format("openai-chat")
        record_findings(fmt, line.value, COUNTER, 65536)
        fmt.figures(line.value, COUNTER)
        list(secrets.scan(line.value))


@BUDGET
@given(records)
def test_arbitrary_records_never_raise_in_detection_rules_figures_or_secrets(record: dict) -> None:
    assert shape(record) in BY_SHAPE or shape(record) == "unknown"
    detect([record])
    for name in FORMATS:
        fmt = get_format(name)
        for code, hit in record_findings(fmt, record, COUNTER, 1000):
            assert code.startswith("FT") and hit.message and (hit.pointer is None or hit.pointer.startswith("$"))
        figures = fmt.figures(record, COUNTER)
        assert all(r.tokens >= 0 and 0 <= r.trainable <= r.tokens for r in figures.records)
    list(secrets.scan(record))


# every property name the format schemas know, and role words of every provider: records of
# any format's shape, nested the way formats nest, with the wrong types in the wrong places
SCHEMA_KEYS = sorted({key for path in SCHEMAS.glob("*.schema.json") if not path.name.startswith("ftlint-")
                      for key in _property_names(json.loads(path.read_text()))})
assert {"messages", "contents", "preferred_output", "chosen", "schemaVersion", "tool_calls"} <= set(SCHEMA_KEYS)
ROLE_WORDS = ["system", "user", "assistant", "tool", "function", "developer", "model", "Chatbot", "User", "System"]
schema_like = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=12) | st.sampled_from(ROLE_WORDS),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.sampled_from(SCHEMA_KEYS) | st.text(max_size=4), inner, max_size=5),
    max_leaves=30,
)


@BUDGET
@given(st.dictionaries(st.sampled_from(SCHEMA_KEYS), schema_like, max_size=5))
# found by hypothesis: mistral-finetune's tool-schema rule iterated a boolean available_tools (an internal error)
@example({"available_tools": True, "parameters": 0, "messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]})
def test_records_of_any_format_shape_never_raise(record: dict) -> None:
    test_arbitrary_records_never_raise_in_detection_rules_figures_or_secrets.hypothesis.inner_test(record)  # type: ignore[attr-defined]


# text OpenAI's validation accepts: none spelled like a special token (FT302, an error in openai-chat)
_PLAIN = st.text(min_size=1, max_size=50).filter(lambda t: bool(t.strip()) and not SPECIAL_TOKEN_TEXT.search(t))


@BUDGET
@given(st.lists(st.tuples(_PLAIN, _PLAIN), min_size=1, max_size=30))
def test_n_valid_records_count_n(tmp_path_factory, pairs: list[tuple[str, str]]) -> None:  # type: ignore[no-untyped-def]
    path = tmp_path_factory.mktemp("n") / "data.jsonl"
    lines = [json.dumps({"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": a}]}) for q, a in pairs]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    found, result = _check(path)
    assert result.records == len(pairs)  # type: ignore[attr-defined]
    assert result.fingerprints().height == len(pairs)  # type: ignore[attr-defined]
    assert result.lines == len(pairs)  # type: ignore[attr-defined]
    assert not [d for d in found if d.code < "FT200"]  # no file, JSON or schema findings


# JSON text written by hand, so that objects may repeat a key: keys and strings with colons, brackets
# and escaped colons inside, spaces or none after a colon
_KEYS = st.sampled_from(['"a"', '"b"', '"a:b"', '"\\u003a"', '":"', '"\\u003A{"'])
_SCALARS = st.sampled_from(["1", '"x"', '"[{:"', '"\\u003a\\u003a"', '"\\\\u003a"', "null", '"\\n"'])
_TEXTS = st.recursive(_SCALARS, lambda inner: st.lists(inner, max_size=3).map(lambda xs: "[" + ",".join(xs) + "]")
                      | st.lists(st.tuples(_KEYS, st.sampled_from([":", ": "]), inner), max_size=3).map(
                          lambda kvs: "{" + ",".join(k + c + v for k, c, v in kvs) + "}"), max_leaves=12)


def _depth(value: object) -> int:
    children = list(value.values()) if isinstance(value, dict) else value if isinstance(value, list) else None
    return 0 if children is None else 1 + max(map(_depth, children), default=0)


@BUDGET
@given(st.lists(st.tuples(_KEYS, _TEXTS), min_size=1, max_size=3), st.integers(1, 4))
def test_the_parsers_cheap_tests_hide_no_deep_line_and_no_duplicate_key(pairs: list, max_depth: int) -> None:
    """parse_line decides from byte counts whether a line may be too deep or repeat a key, and
    only then looks: against the standard library's parse (every object's keys in order) and a
    recursive depth, a line is too deep exactly when it is, and has a duplicate key exactly when one
    object repeats a key (the first such key, as the slow path reports it)."""
    from ftlint.parse import DuplicateKey, TooDeep

    raw = ("{" + ",".join(f"{k}:{v}" for k, v in pairs) + "}").encode()
    repeated: list[str] = []

    def hook(items: list[tuple[str, object]]) -> dict:
        keys = [k for k, _ in items]
        repeated.extend(k for i, k in enumerate(keys) if k in keys[:i])
        return dict(items)

    value = json.loads(raw, object_pairs_hook=hook)
    facts = parse_line(1, raw, max_depth).facts
    if _depth(value) > max_depth:
        assert facts == [TooDeep(max_depth)]
    elif repeated:
        assert len(facts) == 1 and isinstance(facts[0], DuplicateKey) and facts[0].key == repeated[0]
    else:
        assert facts == []

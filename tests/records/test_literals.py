"""The one-pass literal scan must find exactly what one `in` test per literal finds: every rule
gate, secret trigger and the special-token warning depend on it."""

from __future__ import annotations

import orjson
from hypothesis import given, settings
from hypothesis import strategies as st

from ftlint import literals
from ftlint.rules import registry

registry()
WANTED = tuple(literals._WANTED)
# text made of pieces of the wanted literals, so that matches, overlaps and near misses are common
PIECES = st.sampled_from([w[:k] for w in WANTED for k in range(1, len(w) + 1)] + [b" ", b"x", b"\\", b'"'])


def test_the_checks_declare_their_literals() -> None:
    for literal in (b"AKIA", b"@", b"<|", b'"tool_calls"'):
        assert literal in WANTED


@settings(max_examples=300, deadline=None)
@given(st.lists(PIECES, max_size=60))
def test_present_equals_one_search_per_literal(pieces: list[bytes]) -> None:
    data = b"".join(pieces)
    assert literals.present(data) == {w for w in WANTED if w in data}


def test_overlapping_literals_are_all_found() -> None:
    # '"tool_calls"' and '"tool_call_id"' start at the same place in neither; "sk-" sits inside
    # "task-": both must be reported where they overlap other literals
    data = orjson.dumps({"m": "ask-me xoxb-1 ghp_ a@b"})
    assert {b"sk-", b"xox", b"ghp_", b"@"} <= literals.present(data)

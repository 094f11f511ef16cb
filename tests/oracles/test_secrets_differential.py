"""The secrets scan that looks only where its literals are (issue 28) finds what the scan before it
found: the same codes, messages, JSON paths, in the same order, on hypothesis-generated records,
every fixture line and the hostile corpus.

The oracle is the scan as it was before issue 28 (ftlint 7d11116, rules/secrets.py `scan`,
diagnostics.strings), written out here: every string and key of the record walked with its path,
every pattern whose literal the string holds run over the whole string. Only the patterns
(redact.KINDS), the literal pass (literals.present) and what a match says (`message_of`: which
look-alikes are rejected, and the words) are shared: they are the definition of a finding, not the
search being tested.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES
from ftlint.diagnostics import json_path
from ftlint.literals import present as literals_in
from ftlint.parse import compact_json
from ftlint.redact import KINDS, triggered
from ftlint.rules.secrets import CODE_OF, CODES, message_of, scan
from hostile import HOSTILE

# ---- the oracle: the scan before issue 28 -------------------------------------------------------


def old_strings(value: object) -> Iterator[tuple[list, str, bool]]:
    stack: list[tuple[list, object]] = [([], value)]
    while stack:
        path, node = stack.pop()
        if isinstance(node, str):
            yield path, node, False
        elif isinstance(node, dict):
            items = list(node.items())
            stack.extend(([*path, k], v) for k, v in reversed(items))
            yield from (([*path, k], k, True) for k, _ in items)
        elif isinstance(node, list):
            stack.extend(([*path, i], v) for i, v in reversed(list(enumerate(node))))


def old_scan(record: object, codes: frozenset[str] | None = None) -> list[tuple[str, str, str]]:
    found = triggered(literals_in(compact_json(record)))
    kinds = [(CODE_OF[KINDS[i].family], KINDS[i]) for i in sorted(found)]
    kinds = [(code, kind) for code, kind in kinds if codes is None or code in codes]
    out = []
    for path, text, is_key in old_strings(record) if kinds else ():
        for code, kind in kinds:
            if not any(lit in text for lit in kind.literals):
                continue
            for match in kind.pattern.finditer(text):
                message = message_of(code, kind.name, match)
                if message:
                    out.append((code, message + (" (in a key)" if is_key else ""), json_path(path)))
                    break
    return out


def same(record: object, codes: frozenset[str] | None = None) -> list[tuple[str, str, str]]:
    new = list(scan(record, codes))  # type: ignore[arg-type]  # any JSON value, as the oracle walks
    assert new == old_scan(record, codes)
    assert list(scan(record, codes, literals_in(compact_json(record)))) == new  # type: ignore[arg-type]
    return new


# ---- generated records --------------------------------------------------------------------------

# each kind's secrets, look-alikes the rules reject, and pieces that cut or join them
FRAGMENTS = [
    "AKIAIOSFODNN7EXAMPLE", "ASIAY34FZKBOKMUTVV7A", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "github_pat_11ABCDEFG0123456789_abcdefghij",
    "glpat-abcdefghij0123456789", "xoxb-1234567890-abcdefghij", "sk_live_abcdefghijklmnopqrstuv", "rk_live_abcdefghijklmnopqrstuv",
    "sk-ant-api03-abcdefghijklmnopqrstuvwxyz", "sk-proj-Xq7bR2mN9vK4T3BlbkFJZx9cV2bN5mL8kJ3", "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4",
    "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "hf_abcdefghijklmnopqrstuvwxyzABCDEF", "eyJhbGciOiJIUzI1.eyJzdWIiOiIxMjM0.SflKxwRJSMeKKF2QT4fwpMeJf36",
    "-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA0Z3VS5JJcds3xfn/ygWyF8PbnGy0AHB7", "-----BEGIN PRIVATE KEY-----", "PRIVATE KEY",
    "postgres://admin:s3cr3t-Pa55@db.internal:5432/prod", "mysql://user:<password>@host/db", "redis://:hunter22@cache:6379",
    "https://user@github.com/x", "https://shop.acme-bikes.com/orders/8812?ref=mail", "https://img.example.com/1.jpg", "://", "a://b:c@d",
    "x+y://u:p@h", "averyveryverylongschemename12://u:pw1234@h", "jane.doe@gmail.com", "a@example.com", "ops@db.test", "user:pass@host.io",
    "@gmail.com", "first.last+tag@mail.co.uk", "+33 6 12 34 56 78", "+1 415-555-0132", "(555) 123-4567", "(555)123-4567", "+1", "+12",
    "a+1 555 123 4567", "_+44 20 7946 0958", "((((", "++", "(((555) 123-4567", "1234567890123", "ISBN 978-3-16-148410-0",
    "sk-short", "sk-learn-pipeline-v2-final-model-x", " ", "\n", "\\", '"', "\u2028", "é", "日本語", "😀", "\x00", ":", "/", "@", "+", "(", "-",
]
text = st.lists(st.one_of(st.sampled_from(FRAGMENTS), st.text(alphabet="ab09 +(@:/.-_\n", max_size=6),
                          st.text(max_size=4)), max_size=8).map("".join)
json_value = st.recursive(
    st.one_of(text, st.integers(-5, 5), st.booleans(), st.none(), st.floats(allow_nan=False, allow_infinity=False)),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(text, inner, max_size=4),
    max_leaves=12,
)
record = st.dictionaries(text, json_value, max_size=5)


@settings(max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(record)
def test_generated_records_give_the_same_findings(rec: dict) -> None:
    same(rec)


@settings(max_examples=200, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(record, st.sets(st.sampled_from(CODES)))
def test_the_codes_asked_for_limit_both_alike(rec: dict, codes: set[str]) -> None:
    same(rec, frozenset(codes))


def test_a_hit_after_a_rejected_match_in_the_same_string_is_found_alike() -> None:
    # the first URL's password is a placeholder and the first "phone" too short: each scan goes on
    # to the next match in the same string, from where the rejected one ended
    rec = {"messages": [{"role": "user", "content": "mysql://u:<password>@h then pg://u:hunter22@h; +1 2 then +44 20 7946 0958"}]}
    assert [code for code, _, _ in same(rec)] == ["FT603", "FT605"]


def test_a_match_inside_a_rejected_one_is_not_looked_for() -> None:
    # finditer goes on from a match's end: the second URL's scheme is the first one's host, so
    # neither scan reports it (the first URL's password is a placeholder)
    rec = {"text": "pg://u:changeme@hostab://u:pw2345@h"}
    assert same(rec) == []


def test_a_long_text_with_many_of_one_literal_gives_the_same_findings() -> None:
    rec = {"code": "f(x) " * 5000 + "+1 415-555-0132 " + "(" * 3000 + "see https://u:pw9876@h.io/" + "a" * 20_000}
    assert [code for code, _, _ in same(rec)] == ["FT603", "FT605"]


# ---- every fixture line and the hostile corpus --------------------------------------------------


def _values(data: bytes) -> Iterator[object]:
    for raw in data.splitlines():
        try:
            value = json.loads(raw)
        except (ValueError, RecursionError):
            continue  # a line no scan sees: the reader reports it
        if isinstance(value, dict | list):
            yield value


def test_every_fixture_line_gives_the_same_findings() -> None:
    paths = sorted(FIXTURES.rglob("*.jsonl"))
    assert len(paths) > 200
    values = [v for path in paths for v in _values(path.read_bytes())]
    hits = sum(len(same(value)) for value in values)
    assert hits > 0  # the fixtures do hold secrets (fixtures/bad/): the comparison is not of empty lists


def test_the_hostile_corpus_gives_the_same_findings() -> None:
    for name, (data, _) in sorted(HOSTILE.items()):
        if name.endswith(".gz"):
            try:
                data = gzip.decompress(data)
            except EOFError:
                continue  # cut short on purpose: nothing to scan
        for value in _values(data):
            same(value)

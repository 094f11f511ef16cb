"""The fused clean-record pass (ftlint/engine/fused.py, issue 28) against the full path: the same
lines judged with the pass on and off (Settings.fused) give the same findings, field by field and
in order, and the same figures (the file summary, the token-count histogram, the fingerprint rows,
the records deferred to the exact recount, the ordered token counts). Over every JSONL fixture,
the hostile corpus, fake secrets of every kind, and generated chat records with the oddities the
pass must send the full path (white space at the edges, empty content, roles out of order, tool
calls, weights, names, non-Latin text, URLs, e-mails, keys, text near the token limit). And the
pass is taken: on the benchmark's own records nearly every line goes through it, so a pass that
silently stopped being used fails here; a record check it does not know turns it off."""

from __future__ import annotations

import dataclasses
import random
import re
import sys
from collections.abc import Iterator

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from untrusted import SECRETS

from conftest import FIXTURES, ROOT
from ftlint.diagnostics import Hit
from ftlint.engine.judge import LineJudge, Settings
from ftlint.engine.pipeline import Chunk, ChunkResult, Worker
from ftlint.engine.result import Columns, FileSummary, Lengths
from ftlint.formats import get_format
from ftlint.options import Loss
from ftlint.parse import parse_line
from ftlint.rules import Check, Fused, check, checks, register
from ftlint.selection import Selection
from ftlint.tokens import ByteBound
from hostile import HOSTILE

sys.path.insert(0, str(ROOT / "benchmarks"))
from generate import record as bench_record

# the formats of OpenAI's messages shape that dominate real data: each must have the pass
WITH_PASS = ("openai-chat", "azure-openai-chat", "fireworks-chat", "mistral-chat", "together-conversational", "trl-messages")
# ... and those of other shapes it covers: ShareGPT's turns, the formats of fields
OTHERS = ("bedrock-claude", "bedrock-rft", "sharegpt", "alpaca", "prompt-completion", "together-instruction",
          "trl-prompt-completion", "text", "trl-preference", "trl-prompt-only", "trl-unpaired")
FIELDS = ("alpaca", "prompt-completion", "together-instruction", "trl-prompt-completion", "text", "trl-preference",
          "trl-prompt-only", "trl-unpaired")
TODAY = "2026-12-01"
CHECK = Settings(encoding="o200k_base", model_name="", today=TODAY, bound_tokens=True)  # `ftlint check`
RUNS = {
    "check": CHECK,
    "estimate": dataclasses.replace(CHECK, bound_tokens=False, content_fingerprints=False, keep_order=True),  # exact, cut
    "small-limit": dataclasses.replace(CHECK, context=60),  # FT301 and the deferred exact recount
    "selected": dataclasses.replace(CHECK, selection=Selection(ignore=("FT203", "FT208", "FT6"))),
    "axolotl": dataclasses.replace(CHECK, trains_targets=True, loss=Loss(max_seq_len=300, past_max="drop")),  # drops
    "max-seq-len": dataclasses.replace(CHECK, loss=Loss(max_seq_len=120)),  # FT236: trained tokens cut off
}


_WORKERS: dict[tuple[Settings, bool], Worker] = {}


def _judge(lines: list[bytes], fmt: str, base: Settings, fused: bool) -> ChunkResult:
    # one worker per settings, as one process judges chunk after chunk (its tokenizer loaded once)
    worker = _WORKERS.get((base, fused))
    if worker is None:
        worker = _WORKERS[(base, fused)] = Worker(dataclasses.replace(base, fused=fused))
    return worker.run(Chunk(0, "data.jsonl", list(enumerate(lines, 1)), fmt, "test", last=True))


def _same(lines: list[bytes], fmt: str, base: Settings = CHECK) -> None:
    on, off = _judge(lines, fmt, base, True), _judge(lines, fmt, base, False)
    assert on.diagnostics == off.diagnostics
    assert dataclasses.asdict(on.summary) == dataclasses.asdict(off.summary)
    assert on.lengths == off.lengths
    assert on.columns == off.columns
    assert on.deferred == off.deferred
    assert on.ordered == off.ordered


def test_the_chat_formats_that_dominate_real_data_have_the_pass() -> None:
    for name in (*WITH_PASS, *OTHERS):
        assert _pass_of(name, CHECK) is not None, name
        assert _pass_of(name, RUNS["estimate"]) is not None, name
    assert _pass_of("openai-chat", dataclasses.replace(CHECK, fused=False)) is None
    assert _pass_of("openai-chat", dataclasses.replace(CHECK, template="qwen2.5")) is None


def _pass_of(name: str, base: Settings) -> object:
    fmt = get_format(name)
    return LineJudge(fmt, ByteBound("o200k_base"), base, FileSummary("x", format=name), Columns(), 0, exact=lambda: None).fused


JSONL = sorted(p for p in FIXTURES.rglob("*.jsonl") if p.stat().st_size < 2_000_000)


@pytest.mark.parametrize("fmt", (*WITH_PASS, *OTHERS))
def test_every_fixture_is_judged_the_same_on_both_paths(fmt: str) -> None:
    lines = [line for path in JSONL for line in path.read_bytes().split(b"\n")]
    _same(lines, fmt)


@pytest.mark.parametrize("run", sorted(RUNS))
def test_every_fixture_the_same_under_other_settings(run: str) -> None:
    lines = [line for path in JSONL for line in path.read_bytes().split(b"\n")]
    for fmt in ("openai-chat", "trl-messages", "together-conversational", "sharegpt", "alpaca"):
        _same(lines, fmt, RUNS[run])


def test_the_hostile_corpus_and_fake_secrets_are_judged_the_same() -> None:
    lines = [line for data, _ in HOSTILE.values() for line in data.split(b"\n")]
    for secret in SECRETS.values():
        for where in ("user", "assistant", "system"):
            messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
            messages.insert(0 if where == "system" else 1 if where == "user" else 2,
                            {"role": where, "content": f"use {secret} now"})
            if where == "user":
                messages.append({"role": "assistant", "content": "done"})
            lines.append(orjson.dumps({"messages": messages}))
        lines.append(orjson.dumps({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}],
                                   "tools": [{"type": "function", "function": {"name": secret, "parameters": {}}}]}))
    for fmt in (*WITH_PASS, *OTHERS):
        _same(lines, fmt)


# generated records: chat messages with the oddities each proof must catch
TEXTS = st.sampled_from(["hello", "", " ", "  padded ", "\tlead", "trail\n", "日本語のテキスト", "Привет, мир",
                         "mail jane.doe@gmail.com now", "see https://example.com/a.png", "call +44 20 7946 0958",
                         "key AKIAZ7Q4W2E8R6T1Y3U5 here", "spelled <|im_end|> token", "x" * 3000, "(parens) and + plus",
                         "a://b:c@d", "\u00a0nbsp\u00a0"])
ROLES = st.sampled_from(["user", "assistant", "system", "tool", "developer", "User", "Chatbot", "bot", 7])


@st.composite
def messages(draw: st.DrawFn) -> dict:
    message: dict = {"role": draw(ROLES)}
    content = draw(st.one_of(TEXTS, st.none(), st.lists(st.fixed_dictionaries(
        {"type": st.sampled_from(["text", "image_url", "refusal"]), "text": TEXTS}), max_size=3),
        st.lists(st.fixed_dictionaries({"text": TEXTS}), min_size=1, max_size=2), st.integers(0, 3)))
    if draw(st.booleans()) or content is not None:
        message["content"] = content
    if draw(st.integers(0, 4)) == 0:
        message["weight"] = draw(st.sampled_from([0, 1, 0.5, True]))
    if draw(st.integers(0, 4)) == 0:
        message["name"] = draw(st.sampled_from(["alice", "bob smith", ""]))
    if draw(st.integers(0, 3)) == 0:
        calls = draw(st.lists(st.fixed_dictionaries({
            "id": st.sampled_from(["call_1", "call_2"]), "type": st.just("function"),
            "function": st.fixed_dictionaries({"name": st.sampled_from(["get_weather", "nope"]),
                                               "arguments": st.sampled_from(['{"city": "Paris"}', "{bad", "[1]"])})}),
            max_size=2))
        message["tool_calls"] = calls
    if draw(st.integers(0, 5)) == 0:
        message["tool_call_id"] = draw(st.sampled_from(["call_1", "call_3"]))
    if draw(st.integers(0, 8)) == 0:
        message[draw(st.sampled_from(["parts", "text", "refusal", "candidates", "thinking", "reasoning"]))] = draw(TEXTS)
    return message


@st.composite
def records(draw: st.DrawFn) -> dict:
    record: dict = {"messages": draw(st.lists(messages(), max_size=6))}
    if draw(st.integers(0, 3)) == 0:
        record["tools"] = [{"type": "function", "function": {"name": "get_weather", "parameters": {"type": "object"}}}]
    if draw(st.integers(0, 6)) == 0:
        record[draw(st.sampled_from(["prompt", "input", "chosen", "contents", "schemaVersion", "id", "weight",
                                     "parallel_tool_calls", "system"]))] = draw(st.sampled_from(["x", 1, True, {"a": 1}]))
    if draw(st.integers(0, 10)) == 0:
        record["messages"] = draw(st.sampled_from(["text", None, [], ["a"]]))
    return record


@settings(max_examples=100, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(records(), min_size=1, max_size=8), st.sampled_from(WITH_PASS), st.sampled_from(sorted(RUNS)))
def test_generated_records_are_judged_the_same(batch: list[dict], fmt: str, run: str) -> None:
    _same([orjson.dumps(r) for r in batch], fmt, RUNS[run])


IMAGE = {"type": "image_url", "image_url": {"url": "data:image/png;base64,iVBORw0KGgo="}}


@st.composite
def provider_records(draw: st.DrawFn) -> dict:
    """Conversations Together's and Bedrock's own rules accept (system first or not, user and
    assistant in turn, one content form), then a few of the faults those rules catch: a role
    twice in a row or another between, a conversation that starts or ends with the wrong role, a
    role in capitals, content in both forms, an image on a trained message, keys the provider
    does not read (on a message or the record)."""
    parts = draw(st.booleans())

    def content(text: str) -> object:
        return [{"type": "text", "text": text}] if parts else text

    messages: list[dict] = [{"role": "system", "content": content("be brief")}] if draw(st.booleans()) else []
    for i in range(draw(st.integers(1, 5))):
        messages.append({"role": ("user", "assistant")[i % 2], "content": content(draw(st.sampled_from(["hi", "ok", "日本語"])))})
    record: dict = {"messages": messages}
    for _ in range(draw(st.integers(0, 2))):
        at = draw(st.integers(0, len(messages) - 1))
        fault = draw(st.sampled_from(["repeat", "between", "first", "last", "case", "form", "image", "weight", "key", "top"]))
        if fault == "repeat":
            messages.insert(at, dict(messages[at]))
        elif fault in ("between", "first", "last"):
            role = draw(st.sampled_from(["system", "user", "assistant", "tool", "developer"]))
            messages.insert({"between": at, "first": 0, "last": len(messages)}[fault], {"role": role, "content": content("x")})
        elif fault == "case":
            messages[at]["role"] = messages[at]["role"].upper()
        elif fault == "form":
            text = messages[at]["content"]
            messages[at]["content"] = text[0]["text"] if isinstance(text, list) else [{"type": "text", "text": text}]
        elif fault == "image":
            messages[at]["content"] = [IMAGE, {"type": "text", "text": "what is it?"}] if draw(st.booleans()) else [IMAGE]
            messages[at]["weight"] = draw(st.sampled_from([0, 1, None, True, 0.0, 2]))
        elif fault == "weight":
            messages[at]["weight"] = draw(st.sampled_from([0, 1]))
        elif fault == "key":
            messages[at][draw(st.sampled_from(["name", "thinking", "reasoning", "reasoning_content", "text", "tool_call_id"]))] = "y"
        else:
            record[draw(st.sampled_from(["id", "weight", "tools", "parallel_tool_calls", "preferred_output",
                                         "non_preferred_output", "system"]))] = draw(st.sampled_from([1, [], True]))
    return record


@settings(max_examples=100, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(provider_records(), min_size=1, max_size=8), st.sampled_from(("together-conversational", "bedrock-claude",
                                                                             "openai-chat")), st.sampled_from(sorted(RUNS)))
def test_generated_provider_records_are_judged_the_same(batch: list[dict], fmt: str, run: str) -> None:
    _same([orjson.dumps(r) for r in batch], fmt, RUNS[run])


def _m(role: str, content: object = "hi", **extra: object) -> dict:
    return {"role": role, "content": content, **extra}


TEXT = [{"type": "text", "text": "hi"}]
# (format, record, the code its own rule finds: "" for none) the walk must fail each record with a code
PROVIDER_CASES = [
    ("together-conversational", {"messages": [_m("system"), _m("user"), _m("assistant")]}, ""),
    ("together-conversational", {"messages": [_m("user"), _m("assistant", reasoning="r")], "weight": 1}, ""),
    ("together-conversational", {"messages": [_m("user", [IMAGE, *TEXT], weight=0), _m("assistant", TEXT)]}, ""),
    ("together-conversational", {"messages": [_m("user"), _m("developer"), _m("user"), _m("assistant")]}, ""),  # a reset
    ("together-conversational", {"messages": [_m("user"), _m("user"), _m("assistant")]}, "FT211"),
    ("together-conversational", {"messages": [_m("system"), _m("system"), _m("user"), _m("assistant")]}, "FT211"),
    ("together-conversational", {"messages": [_m("user"), _m("Assistant"), _m("assistant")]}, "FT211"),
    ("together-conversational", {"messages": [_m("system"), _m("assistant"), _m("user"), _m("assistant")]}, "FT212"),
    ("together-conversational", {"messages": [_m("user"), _m("assistant", TEXT)]}, "FT221"),
    ("together-conversational", {"messages": [_m("user", [IMAGE], weight=1), _m("assistant", TEXT)]}, "FT222"),
    ("together-conversational", {"messages": [_m("user", name="bob"), _m("assistant")]}, "FT108"),
    ("together-conversational", {"messages": [_m("user"), _m("assistant")], "id": 7}, "FT108"),
    ("bedrock-claude", {"messages": [_m("user"), _m("assistant")], "system": "be brief"}, ""),
    ("bedrock-claude", {"messages": [_m("user"), _m("user"), _m("assistant")]}, "FT211"),
    ("bedrock-claude", {"messages": [_m("user"), _m("assistant"), _m("user")]}, "FT213"),
]


@pytest.mark.parametrize(("fmt", "record", "code"), PROVIDER_CASES)
def test_the_walk_fails_each_record_a_provider_rule_it_proves_finds_fault_with(fmt: str, record: dict, code: str) -> None:
    """Each provider rule the messages walk proves silent, broken on its own: the rule finds it
    (run for real), the walk sends the record the full path, and both paths agree; the clean
    records beside them pass the walk (the proofs are not vacuous)."""
    judge = LineJudge(get_format(fmt), ByteBound("o200k_base"), CHECK, FileSummary("x", format=fmt), Columns(), 0,
                      exact=lambda: None)
    assert judge.fused is not None
    proved = [c for c in judge.checks if _walked(c, "messages") and not c.gate]
    found = [hit.code or c.codes[0] for c in proved for hit in c.func(record, judge.context)]
    assert found == ([code] if code else []), found
    assert judge.fused.walk(record) is not bool(code)
    _same([orjson.dumps(record)], fmt)


@st.composite
def field_records(draw: st.DrawFn) -> dict:
    """Records of fields (and ShareGPT's turns), each value a text with its oddities or another type."""
    keys = draw(st.lists(st.sampled_from(["prompt", "completion", "instruction", "input", "output", "text", "chosen",
                                          "rejected", "label", "system", "history", "messages", "id"]), max_size=5))
    record: dict = {key: draw(st.one_of(TEXTS, st.none(), st.integers(0, 2), st.just([]))) for key in keys}
    if draw(st.integers(0, 3)) == 0:
        record["conversations"] = draw(st.lists(st.fixed_dictionaries({
            "from": st.sampled_from(["human", "gpt", "system", "GPT", "observation", "bot", 3]),
            "value": st.one_of(TEXTS, st.none())}, optional={"weight": st.sampled_from([0, 1, 0.0, None])}), max_size=4))
    return record


@settings(max_examples=100, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.one_of(field_records(), records()), min_size=1, max_size=8), st.sampled_from(("sharegpt", *FIELDS)),
       st.sampled_from(sorted(RUNS)))
def test_generated_records_of_fields_and_turns_are_judged_the_same(batch: list[dict], fmt: str, run: str) -> None:
    _same([orjson.dumps(r) for r in batch], fmt, RUNS[run])


def _bench_lines(n: int) -> list[bytes]:
    rng = random.Random(7)
    return [orjson.dumps(bench_record(rng, i)) for i in range(n)]


def test_the_pass_is_taken_on_the_benchmarks_records() -> None:
    """Nearly every line of the benchmark's realistic data goes through the pass (the rest: records
    whose byte bound passes the limit, and the like), and it proves clean nearly every line the full
    path finds nothing on, in a format where some are not clean (Together's reads no 'name' or
    parallel_tool_calls: FT108); the two paths agree on all of them."""
    lines = _bench_lines(1500)
    for name in ("openai-chat", "together-conversational"):
        _same(lines, name)
        on, off = (LineJudge(get_format(name), ByteBound("o200k_base"), dataclasses.replace(CHECK, fused=fused),
                             FileSummary("x", format=name), Columns(), 0, exact=lambda: None, lengths=Lengths(), deferred=[])
                   for fused in (True, False))
        taken, found, fused = 0, 0, on.fused
        assert fused is not None and off.fused is None

        def counting(record: dict, ctx: object, hits: list, fused: object = fused) -> object:
            nonlocal taken, found
            before = len(hits)
            figures = fused(record, ctx, hits)  # type: ignore[operator]
            taken += figures is not None
            found += figures is not None and len(hits) > before  # a check it runs found something
            return figures

        on.fused = counting  # type: ignore[assignment]
        clean = 0
        for number, raw in enumerate(lines, 1):
            on(parse_line(number, raw), raw)
            clean += not off(parse_line(number, raw), raw)
        assert (taken - found) / clean > 0.95, (name, taken, found, clean)
        if name == "openai-chat":
            assert taken / len(lines) > 0.95, taken


def test_a_record_check_the_pass_does_not_know_turns_it_off() -> None:
    assert _pass_of("openai-chat", CHECK) is not None
    register("FT999", "fused-test-rule", "warning", "A check the fused pass has never heard of (a test's).")

    @check("record", "FT999", scope=lambda fmt: fmt.name == "openai-chat")
    def newcomer(record: dict, ctx: object) -> Iterator[Hit]:
        yield from ()

    from ftlint import rules

    try:
        assert any(c.func is newcomer for c in checks("record"))
        assert _pass_of("openai-chat", CHECK) is None
        assert _pass_of("azure-openai-chat", CHECK) is not None  # out of its scope: not a check azure's judge runs
        # ... unless it is not run at all: off for the file, the judge does not run it, and the pass stays
        assert _pass_of("openai-chat", dataclasses.replace(CHECK, selection=Selection(ignore=("FT999",)))) is not None
    finally:
        rules._CHECKS[:] = [c for c in rules._CHECKS if c.func is not newcomer]
        del rules._RULES["FT999"]
    assert _pass_of("openai-chat", CHECK) is not None


def _walked(c: Check, kind: str) -> bool:
    return c.fused is not None and kind in (c.fused.walks or {})


def test_a_check_whose_declaration_leaves_out_the_walk_turns_it_off() -> None:
    """A check proved by a walk's predicate whose declaration came to lack the format's walk is no
    longer covered there, and still is where it declares one."""
    from ftlint import rules

    checks("record")  # the registry loaded, whatever ran before
    index, old = next((i, c) for i, c in enumerate(rules._CHECKS) if c.func.__name__ == "empty_content")
    assert old.fused is not None and old.fused.walks is not None
    rules._CHECKS[index] = dataclasses.replace(old, fused=Fused({"fields": old.fused.walks["fields"]}))
    try:
        assert _pass_of("openai-chat", CHECK) is None
        assert _pass_of(FIELDS[0], CHECK) is not None
    finally:
        rules._CHECKS[index] = old
    assert _pass_of("openai-chat", CHECK) is not None


def test_the_pass_names_no_rule_and_no_code() -> None:
    """What the engine needs of a check is the check's declaration (rules/): the pass, the judge's
    recount and the phases (the dataset's minimum: Check.whole; the leaks: the split checks' hits)
    name no code and no rule of their own, so a rule changed is changed once."""
    for path in sorted((ROOT / "ftlint" / "engine").glob("*.py")):
        source = path.read_text()
        assert not re.findall(r"[\"']FT\d{3}[\"']|ftlint\.rules\.\w+\.\w+", source), path.name
    assert not re.findall(r"FT\d{3}", (ROOT / "ftlint" / "engine" / "fused.py").read_text())


def test_a_declaration_of_a_fact_the_pass_does_not_establish_is_refused() -> None:
    checks("record")  # FT201 registered, so that the declaration is what is refused
    with pytest.raises(ValueError, match="unknown facts or walks"):
        check("record", "FT201", fused=Fused(fact="short"))(lambda record, ctx: iter(()))



SHAPES = [{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "candidates": []}]},
          {"messages": [{"role": "Chatbot", "content": "a"}, {"role": "assistant", "content": "b"}]},
          {"messages": [{"role": "user", "content": [{"text": "a"}]}, {"role": "assistant", "content": "b"}]},
          {"messages": [{"role": "user", "parts": " "}, {"role": "assistant", "content": "b"}]},
          {"messages": [{"role": "user", "parts": [{"text": ""}]}, {"role": "assistant", "content": "b"}]},
          {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": None, "refusal": ""}]},
          *({"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], key: value}
            for key, value in [("input", {}), ("prompt", "p"), ("completion", "c"), ("conversations", []), ("contents", []),
                               ("schemaVersion", "x"), ("instruction", "i"), ("chosen", "c"), ("preferred_output", [])])]


@settings(max_examples=200, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(records(), field_records(), provider_records(), st.sampled_from(SHAPES)), st.sampled_from((*WITH_PASS, *OTHERS)))
def test_what_the_walk_proves_silent_is_silent(record: dict, fmt: str) -> None:
    """The walk alone (before the schema, which rejects most odd records anyway): a record it
    passes gives no hit from any check whose silence it proves for the format's kind (the shape
    gate only for OpenAI's messages), each run as the full path runs it."""
    _walk_proves(record, fmt)


@settings(max_examples=300, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(provider_records(), st.sampled_from(("together-conversational", "bedrock-claude")))
def test_what_the_walk_proves_silent_is_silent_on_provider_records(record: dict, fmt: str) -> None:
    """As above, over the conversations a provider's own rules (FT108, FT211-FT213, FT221, FT222)
    find fault with, and those they pass."""
    _walk_proves(record, fmt)


def _walk_proves(record: dict, fmt: str) -> None:
    judge = LineJudge(get_format(fmt), ByteBound("o200k_base"), CHECK, FileSummary("x", format=fmt), Columns(), 0,
                      exact=lambda: None)
    assert judge.fused is not None
    if judge.fused.walk(record):
        for c in (*judge.gates, *judge.checks):
            if _walked(c, judge.fused.kind):
                assert list(c.func(record, judge.context)) == [], c.func.__name__


@settings(max_examples=150, derandomize=True, deadline=None, database=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.one_of(records(), provider_records()), st.sampled_from(("together-conversational", "bedrock-claude", "cohere-chat",
                                                                  "trl-messages", "openai-chat")))
def test_the_common_message_counts_as_the_general_walk_counts_it(record: dict, fmt: str) -> None:
    """The figures count a message of just a role and a string content directly (formats/chat.py);
    the same record with a key no count reads added to every message goes the general walk
    (Counting.turn) and must give the same figures, exact and by the byte bound."""
    from ftlint.tokens import TokenCounter

    messages = record.get("messages")
    if not isinstance(messages, list):
        return
    walked = {**record, "messages": [{**m, "x-unread": 1} if isinstance(m, dict) else m for m in messages]}
    form = get_format(fmt)
    for counter in (ByteBound("o200k_base"), TokenCounter("o200k_base")):
        assert form.figures(record, counter) == form.figures(walked, counter)

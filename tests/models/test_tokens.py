"""Token counts: the shipped rank files, checked, and counts derived independently."""

from __future__ import annotations

import base64
import gzip
import hashlib
import json
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from ftlint import tokens
from ftlint.tokens import TokenCounter, TokenizerError, get_encoding, load_ranks


def test_shipped_rank_files_match_tiktokens_pinned_hashes() -> None:
    # the sums tiktoken itself pins in tiktoken_ext/openai_public.py
    pinned = {
        "cl100k_base": "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7",
        "o200k_base": "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d",
    }
    root = Path(tokens.__file__).parent.parent / "tokenizers"
    for name, digest in pinned.items():
        data = gzip.decompress((root / f"{name}.tiktoken.gz").read_bytes())
        assert hashlib.sha256(data).hexdigest() == digest


def test_ranks_parse_line_by_line() -> None:
    # the loader takes a rank from its position when the file lists 0, 1, 2, ...; read each
    # line's own rank here instead, as tiktoken's loader does
    root = Path(tokens.__file__).parent.parent / "tokenizers"
    shipped = [f for f in tokens.FAMILIES.values() if f.shipped]
    assert {f.name for f in shipped} == {"o200k_base", "cl100k_base", "qwen2", "mistral-tekken"}
    sums = dict(reversed(line.split()) for line in (root / "SHA256SUMS").read_text().splitlines() if line.strip())
    for family in shipped:
        data = gzip.decompress((root / str(family.shipped)).read_bytes())
        assert sums[str(family.shipped).removesuffix(".gz")] == family.sha256  # the file humans read agrees
        by_line = {base64.b64decode(tok): int(rank) for tok, rank in (line.split() for line in data.splitlines() if line)}
        assert load_ranks(family.name) == by_line


def test_token_length_agrees_with_encode_ordinary() -> None:
    # ftlint counts from tiktoken's buffer of ranks; the count must be that of encode_ordinary,
    # special-token spellings and all
    texts = ["", "hello world", "<|endoftext|> and <|im_start|>", "naïve café 日本語 🙂", "a" * 5000, "x\ud800y"]
    for name in tokens.ENCODINGS:
        length = tokens.token_length(name)
        encoding = get_encoding(name)
        for text in texts:
            assert length(text) == len(encoding.encode_ordinary(text)), (name, text[:20])
    counter = TokenCounter("o200k_base")
    assert [counter.count(t) for t in texts * 2] == [len(get_encoding("o200k_base").encode_ordinary(t)) for t in texts * 2]


def test_known_token_ids() -> None:
    # published ids: "hello world" is [15339, 1917] in cl100k_base and [24912, 2375] in o200k_base
    assert get_encoding("cl100k_base").encode_ordinary("hello world") == [15339, 1917]
    assert get_encoding("o200k_base").encode_ordinary("hello world") == [24912, 2375]


def test_corrupt_rank_file_is_refused(monkeypatch: pytest.MonkeyPatch) -> None:
    import dataclasses

    wrong = dataclasses.replace(tokens.FAMILIES["cl100k_base"], sha256="0" * 64)
    monkeypatch.setitem(tokens.FAMILIES, "cl100k_base", wrong)
    with pytest.raises(TokenizerError, match="not the expected one"):
        load_ranks("cl100k_base")


def test_special_token_text_is_counted_as_text() -> None:
    counter = TokenCounter("o200k_base")
    text = "end<|endoftext|>"
    assert counter.count(text) == len(get_encoding("o200k_base").encode_ordinary(text)) > 2


def test_cached_counts_equal_fresh_counts() -> None:
    counter = TokenCounter("cl100k_base")
    long = "a long system prompt " * 50
    assert counter.count(long) == counter.count(long) == len(get_encoding("cl100k_base").encode_ordinary(long))


def test_toy_dataset_matches_the_cookbook_oracle() -> None:
    oracle = json.loads((FIXTURES / "oracle" / "toy_chat_fine_tuning.expected.json").read_text())
    path = "fixtures/oracle/toy_chat_fine_tuning.jsonl"
    full = json.loads(run("estimate", path, "--model", "gpt-3.5-turbo", "-o", "json").stdout)
    assert full["tokens"] == oracle["by_max_tokens_per_example"]["16385"]["billing_tokens"] == 8242
    assert full["epochs"] == oracle["epochs_default"] == 20
    assert full["tokens_processed"] == oracle["by_max_tokens_per_example"]["16385"]["charged_tokens"]
    assert full["trainable_tokens"] == sum(e["assistant_tokens"] for e in oracle["per_example"])
    assert full["messages"] == sum(e["n_messages"] for e in oracle["per_example"])
    capped = json.loads(run("estimate", path, "--model", "gpt-3.5-turbo", "--context", "4096", "-o", "json").stdout)
    assert capped["tokens"] == oracle["by_max_tokens_per_example"]["4096"]["billing_tokens"] == 4306
    assert capped["tokens_processed"] == oracle["by_max_tokens_per_example"]["4096"]["charged_tokens"] == 86120
    assert capped["records_over_limit"] == oracle["by_max_tokens_per_example"]["4096"]["n_too_long"] == 1
    stats = oracle["distributions_numpy_default_linear"]["num_total_tokens_per_example"]
    assert (full["token_stats"]["min"], full["token_stats"]["max"]) == (stats["min"], stats["max"])
    assert full["token_stats"]["mean"] == stats["mean"]


def _independent_count(record: dict, enc) -> tuple[int, int]:  # type: ignore[no-untyped-def]
    """The documented convention, written out again from the README, using tiktoken directly."""
    def n(text: object) -> int:
        return len(enc.encode_ordinary(text)) if isinstance(text, str) else 0

    total = 3
    for key in ("tools", "functions"):
        if record.get(key):
            total += n(json.dumps(record[key], separators=(",", ":"), ensure_ascii=False))
    trainable = 0
    for m in record["messages"]:
        body = 0
        content = m.get("content")
        if isinstance(content, str):
            body += n(content)
        elif isinstance(content, list):
            for part in content:
                body += 85 if part["type"] == "image_url" else n(part.get(part["type"]))
        for call in m.get("tool_calls") or []:
            body += n(call["function"]["name"]) + n(call["function"]["arguments"])
        if m.get("function_call"):
            body += n(m["function_call"]["name"]) + n(m["function_call"]["arguments"])
        body += n(m.get("refusal"))
        total += 3 + n(m["role"]) + body + n(m.get("tool_call_id"))
        if "name" in m:
            total += n(m["name"]) + 1
        if m["role"] == "assistant" and m.get("weight", 1) == 1:
            trainable += body
    return total, trainable


@pytest.mark.parametrize("name", ["drone_training.jsonl", "openai_chat_basic.jsonl", "openai_chat_tools.jsonl",
                                  "openai_chat_legacy_functions.jsonl", "openai_chat_vision.jsonl"])
def test_tokens_per_fixture_derived_independently(name: str) -> None:
    enc = get_encoding("o200k_base")
    records = [json.loads(line) for line in (FIXTURES / "good" / name).read_text(encoding="utf-8").splitlines()]
    expected = [_independent_count(r, enc) for r in records]
    out = json.loads(run("estimate", f"fixtures/good/{name}", "-o", "json").stdout)
    assert out["tokens"] == sum(t for t, _ in expected)
    assert out["trainable_tokens"] == sum(t for _, t in expected)
    assert out["records"] == len(records)
    assert out["messages"] == sum(len(r["messages"]) for r in records)
    assert out["targets"] == sum(1 for r in records for m in r["messages"] if m["role"] == "assistant" and m.get("weight", 1) == 1)


def test_model_chooses_the_encoding() -> None:
    path = "fixtures/good/openai_chat_basic.jsonl"
    o200k = json.loads(run("estimate", path, "-o", "json").stdout)
    cl100k = json.loads(run("estimate", path, "--model", "davinci-002", "-o", "json").stdout)
    assert (o200k["encoding"], cl100k["encoding"]) == ("o200k_base", "cl100k_base")
    assert o200k["tokens"] != cl100k["tokens"]  # the Japanese line tokenises differently


def test_the_count_cache_is_bounded() -> None:
    # every string is remembered, but the cache's cost (characters plus a per-entry overhead)
    # stays under CACHE_MAX_COST: memory stays flat on a file of unique texts, long or short
    counter = TokenCounter("o200k_base")
    counter.CACHE_MAX_COST = 2_000
    for i in range(500):
        counter.count(f"unique text number {i} " * 3)
        counter.count(f"id{i}")
    assert 0 < counter._cache_cost <= 2_000
    assert sum(len(t) + counter.ENTRY_COST for t in counter._cache) == counter._cache_cost
    assert len(counter._cache) <= 2_000 // counter.ENTRY_COST


@pytest.mark.parametrize("family", ["o200k_base", "cl100k_base", "qwen2", "mistral-tekken"])
def test_the_byte_bound_is_never_below_the_exact_count(family: str) -> None:
    """check decides FT301 with ByteBound and counts exactly only where the bound reaches the
    limit: the bound must hold for every text of every family (each byte-level BPE token spells
    at least one byte). Texts: eight scripts, code, emoji, combining marks, lone surrogates."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ftlint.tokens import ByteBound, TokenCounter

    exact, bound = TokenCounter(family), ByteBound(family)
    corpus = ["Hello, world!", "Réponds en français : « très bien ».", "非常感谢你的帮助。", "Привет, как дела?", "مرحبا بالعالم",
              "नमस्ते दुनिया", "こんにちは世界", "안녕하세요", "def f(x):\n    return x ** 2\n", "🙏🏽👩‍👩‍👧", "e\u0301\u0344 Å", "\ud800 alone",
              "<|endoftext|> <|im_start|>", " " * 300, "a" * 5000]
    for text in corpus:
        assert bound.count(text) >= exact.count(text), text

    @settings(max_examples=300, deadline=None)
    @given(st.text(max_size=200))
    def holds(text: str) -> None:
        assert bound.count(text) >= exact.count(text)

    holds()


def test_check_loads_no_tokenizer_when_no_record_comes_near_the_limit(tmp_path: Path) -> None:
    """The same findings with and without the bound, and FT301 found exactly (the bound is only a
    first pass)."""
    small = FIXTURES / "good" / "openai_chat_basic.jsonl"
    big = tmp_path / "big.jsonl"
    big.write_text(json.dumps({"messages": [{"role": "user", "content": "word " * 70_000}, {"role": "assistant", "content": "ok"}]}) + "\n"
                   + json.dumps({"messages": [{"role": "user", "content": "é" * 40_000}, {"role": "assistant", "content": "ok"}]}) + "\n")
    out = run("check", str(big), "--ignore", "FT4").stdout
    assert ":1:1: FT301 example has 70," in out and ":2:1: FT301" not in out  # 80,000 bytes but fewer tokens than the limit
    assert run("check", str(small)).stdout == run("check", str(small), "--context", "1000000").stdout


def test_exact_counts_deferred_to_the_main_process_find_what_counting_everywhere_finds(tmp_path: Path) -> None:
    """check's workers leave the records whose byte bound reaches the limit to the main process,
    which counts them exactly: FT301 lands on the same lines, with the same message and in the
    same order among the line's other findings, as when every record is counted exactly, with
    one process or a pool (the file is over 4 MB: a pool of two)."""
    from ftlint import api

    over = {"messages": [{"role": "user", "content": "word " * 70_000}, {"role": "assistant", "content": " "}]}  # FT301 + FT203
    under = {"messages": [{"role": "user", "content": "é" * 40_000}, {"role": "assistant", "content": "ok"}]}  # 80 KB, few tokens
    plain = {"messages": [{"role": "user", "content": "a question " * 100}, {"role": "assistant", "content": "an answer"}]}
    lines = [json.dumps(plain)] * 4_000
    for at in (4, 1_500, 1_501, 3_999):
        lines[at] = json.dumps(over)
    for at in (10, 2_000):
        lines[at] = json.dumps(under)
    path = tmp_path / "long.jsonl"
    path.write_text("\n".join(lines) + "\n")
    assert path.stat().st_size > 4 * 1024 * 1024
    exact = api.check([str(path)], dataset_rules=False)  # every record counted exactly, in one process
    expected = [(d.line, d.code, d.message) for d in exact.findings]
    assert [(n, c) for n, c, _ in expected if c == "FT301"] == [(5, "FT301"), (1_501, "FT301"), (1_502, "FT301"), (4_000, "FT301")]
    for jobs in ("1", "2"):
        out = run("check", str(path), "--jobs", jobs, "--ignore", "FT4").stdout
        shown = [line.split(": ", 1) for line in out.splitlines() if line.startswith(str(path))]
        got = [(int(where.split(":")[1]), rest.split(" ", 1)[0], rest.split(" ", 1)[1].rsplit(" ($", 1)[0]) for where, rest in shown]
        assert got == expected, jobs


def test_a_limit_that_rejects_the_record_is_counted_in_the_worker() -> None:
    """Deferring FT301 to the main process would come too late where FT301 is an error: the
    line's verdict (valid or rejected, in the figures or not) is made in the worker. There the
    record is counted at once; as a warning it is deferred, with no finding yet."""
    import dataclasses

    from ftlint.engine.judge import LineJudge, Settings
    from ftlint.engine.result import Columns, FileSummary
    from ftlint.formats import get_format
    from ftlint.parse import parse_line
    from ftlint.tokens import ByteBound

    raw = json.dumps({"messages": [{"role": "user", "content": "word " * 70_000}, {"role": "assistant", "content": "ok"}]}).encode()
    settings = Settings(encoding="o200k_base", model_name="", today="2026-12-01", bound_tokens=True)
    for severities, codes, deferred_lines, invalid in (({}, [], [1], 0), ({"FT301": "error"}, ["FT301"], [], 1)):
        fmt = dataclasses.replace(get_format("openai-chat"), severities=severities)
        summary, deferred = FileSummary("x.jsonl", format=fmt.name), []
        judge = LineJudge(fmt, ByteBound("o200k_base"), settings, summary, Columns(), 0, exact=lambda: TokenCounter("o200k_base"),
                          deferred=deferred)
        found = judge(parse_line(1, raw))
        assert [d.code for d in found] == codes and [n for n, _, _ in deferred] == deferred_lines and summary.invalid == invalid


def test_a_chunks_judge_is_freed_at_once_with_its_deferred_records() -> None:
    """A judge in a reference cycle lives until a full garbage collection, and with it the long
    records deferred to the main process (measured: 78 MiB held at the end of a 168 MB check).
    Freed by reference counting alone, it goes as soon as its chunk is done."""
    import gc
    import weakref

    from ftlint.engine.judge import LineJudge, Settings
    from ftlint.engine.result import Columns, FileSummary
    from ftlint.formats import get_format
    from ftlint.parse import parse_line
    from ftlint.tokens import ByteBound

    raw = json.dumps({"messages": [{"role": "user", "content": "word " * 70_000}, {"role": "assistant", "content": "ok"}]}).encode()
    settings = Settings(encoding="o200k_base", model_name="", today="2026-12-01", bound_tokens=True)
    fmt = get_format("openai-chat")
    deferred: list = []
    judge = LineJudge(fmt, ByteBound("o200k_base"), settings, FileSummary("x.jsonl", format=fmt.name), Columns(), 0,
                      exact=lambda: TokenCounter("o200k_base"), deferred=deferred)
    judge(parse_line(1, raw))
    assert len(deferred) == 1
    gone = weakref.ref(judge)
    gc.disable()
    try:
        del judge
        assert gone() is None
    finally:
        gc.enable()


WORD_FAMILIES = ["o200k_base", "o200k_harmony", "cl100k_base", "qwen2", "mistral-tekken"]


@pytest.mark.parametrize("family", sorted({"o200k_base", "cl100k_base", "qwen2", "mistral-tekken"}))
def test_each_whole_word_list_holds_only_tokens_of_its_vocabulary(family: str) -> None:
    """The one thing WordBound's proof needs of a list: " " + word is a token of the family's
    vocabulary, and the word is `[A-Z]?[a-z]+` (a whole piece after a space in every family's
    split pattern). Read from the shipped file and the ranks line by line, not through the
    loaders; and the tool that writes the lists writes this one again, byte for byte."""
    import importlib.util
    import re

    root = Path(tokens.__file__).parent.parent / "tokenizers"
    words = gzip.decompress((root / f"{family}.words.gz").read_bytes()).decode("ascii").split("\n")
    assert words[-1] == "" and len(words) > 10_000
    ranks = {base64.b64decode(tok): int(rank) for tok, rank in
             (line.split() for line in gzip.decompress((root / f"{family}.tiktoken.gz").read_bytes()).splitlines() if line)}
    for word in words[:-1]:
        assert re.fullmatch(r"[A-Z]?[a-z]+", word) and ranks[b" " + word.encode()] < 50_000, word
    spec = importlib.util.spec_from_file_location("word_tokens", Path(__file__).parents[2] / "tools" / "word_tokens.py")
    assert spec is not None and spec.loader is not None
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    assert gzip.decompress((root / f"{family}.words.gz").read_bytes()) == tool.words_of(ranks) + b"\n"


def test_a_word_list_is_used_only_with_its_pinned_hash() -> None:
    """The lists are checked on load as the rank files are: the pins agree with SHA256SUMS and the
    shipped files, and a list with one word added (a word that is not one token would break the
    bound) is not used, so the bound falls back to bytes."""
    from ftlint.tokens.words import WORD_SHA256, whole_words, words_of

    root = Path(tokens.__file__).parent.parent / "tokenizers"
    sums = dict(reversed(line.split()) for line in (root / "SHA256SUMS").read_text().splitlines() if line.strip())
    for family, digest in WORD_SHA256.items():
        data = gzip.decompress((root / f"{family}.words.gz").read_bytes())
        assert sums[f"{family}.words"] == digest == hashlib.sha256(data).hexdigest()
        assert words_of(family, data) == whole_words(family) and len(whole_words(family)) > 10_000
        assert words_of(family, data + b"Supercalifragilistic\n") == frozenset()


def _fixture_strings() -> list[str]:
    """Every string of every JSONL fixture: real records of many providers and languages."""
    from ftlint.diagnostics import strings

    found: set[str] = set()
    for path in sorted(FIXTURES.rglob("*.jsonl")):
        for line in path.read_bytes().splitlines():
            try:
                value = json.loads(line)
            except (ValueError, UnicodeDecodeError, RecursionError):
                continue
            if isinstance(value, dict):
                found.update(text for _, text in strings(value))
    return sorted(found)


@pytest.mark.parametrize("family", WORD_FAMILIES)
def test_the_whole_word_bound_is_never_below_the_exact_count(family: str) -> None:
    """check skips the exact count of a record WordBound keeps within its limit, so WordBound must
    hold for every text: on every string of the fixtures, and on hypothesis' texts made of the
    list's words, capitals, contractions ('s 'Re 'LL), apostrophes, marks, digits, punctuation
    and every kind of white space between them, and past LONG_TEXT (counted in segments)."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ftlint.tokens import LONG_TEXT, WordBound
    from ftlint.tokens.words import whole_words

    exact, bound, byte_bound = TokenCounter(family), WordBound(family), tokens.ByteBound(family)
    listed = sorted(whole_words(family))
    assert len(listed) > 10_000
    texts = _fixture_strings()
    assert len(texts) > 1_000
    for text in texts:
        assert bound.count(text) >= exact.count(text), text
        assert bound.count(text) <= byte_bound.count(text)
    prose = " ".join(listed[i * 7919 % len(listed)] for i in range(LONG_TEXT // 5))  # past LONG_TEXT: segments
    assert len(prose) > LONG_TEXT and exact.count(prose) <= bound.count(prose) < len(prose) // 3
    glue = st.sampled_from([" ", " ", "  ", "", "\n", "\t", "\u00a0", "\u3000", ".", ",", "'", "’", "-", "/", "1", "\r\n"])
    odd = st.sampled_from(["'s", "'S", "'re", "'Re", "'RE", "'ll", "'LL", "'ve", "'t", "'d", "'m", "A", "ABC", "aB", "é", "\u0301",
                           "ß", "İ", "日本", "ﬁ", "x2", "_", "😀"])
    word = st.sampled_from(listed)
    piece = st.one_of(word, word, word.map(str.upper), word.map(str.capitalize), odd, st.text(max_size=3))

    @settings(max_examples=400, deadline=None)
    @given(st.lists(st.tuples(piece, glue), max_size=40))
    def holds(parts: list[tuple[str, str]]) -> None:
        text = "".join(p + g for p, g in parts)
        assert bound.count(text) >= exact.count(text)

    holds()


def test_a_long_prose_record_under_the_limit_is_never_counted_exactly() -> None:
    """80 KB of English is over the byte bound's 65,536 but far under by whole words: no exact
    count (the tokenizer would raise here) and nothing deferred; a record of 70,000 one-token words
    is over by either bound and is still deferred, for its exact count in the message."""
    from ftlint.engine.judge import LineJudge, Settings
    from ftlint.engine.result import Columns, FileSummary
    from ftlint.formats import get_format
    from ftlint.parse import parse_line
    from ftlint.tokens import ByteBound

    def no_tokenizer() -> TokenCounter:
        raise AssertionError("the tokenizer was loaded")

    prose = ("The model learns to answer the question about the training data in one sentence. " * 1_000)
    assert len(prose) > 80_000
    settings = Settings(encoding="o200k_base", model_name="", today="2026-12-01", bound_tokens=True)
    fmt = get_format("openai-chat")
    for content, deferred_lines in ((prose, []), ("word " * 70_000, [2])):
        summary, deferred = FileSummary("x.jsonl", format=fmt.name), []
        judge = LineJudge(fmt, ByteBound("o200k_base"), settings, summary, Columns(), 0, exact=no_tokenizer, deferred=deferred)
        raw = json.dumps({"messages": [{"role": "user", "content": content}, {"role": "assistant", "content": "ok"}]}).encode()
        assert judge(parse_line(2, raw)) == []
        assert [n for n, _, _ in deferred] == deferred_lines
    assert TokenCounter("o200k_base").count(prose) < 20_000  # the oracle: far under the limit

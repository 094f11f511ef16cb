"""check's proofs for a record near its limit (engine/bounds.py) against the exact count, with the
real tokenizers: the pieces a text is counted in add up to tiktoken's count of the whole text, and
FT301's findings (and the figures its message prints) are the exact path's, at the limit, one
under it and one over it, whether the main process settles the record or the worker does."""

from __future__ import annotations

import json
import unicodedata
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ftlint.diagnostics import Diagnostic
from ftlint.engine.bounds import exactly
from ftlint.engine.judge import LineJudge, Recounter, Settings
from ftlint.engine.result import Columns, FileSummary
from ftlint.formats import get_format
from ftlint.parse import parse_line
from ftlint.tokens import FAMILIES, ByteBound, TokenCounter, get_encoding, normalises_nfc
from ftlint.tokens.cuts import pieces

# every character Python or a tokenizer takes for white space, and what sits next to it in text
SPACES = [" ", " ", " ", "  ", "\n", "\n\n", "\t", "\r\n", "\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\u00a0", "\u1680", "\u2000",
          "\u2009", "\u200a", "\u2028", "\u2029", "\u202f", "\u205f", "\u3000", "\u180e", "\u200b", ""]
BITS = ["the", "model", "Training", "DATA", "don't", "it's", "'s", "'LL", "'re", "x2", "1234567", "3.14", "(a)", "...", "!?",
        "//", "/*", "#", "é", "e\u0301", "\u0301", "ﬁ", "İ", "ß", "日本語", "。", "，", "한국어", "Привет", "مرحبا", "😀", "\ud83d",
        "<|endoftext|>", "_", "-", "'", "’", '"']


def _texts(bits: list[str]) -> st.SearchStrategy[str]:
    return st.lists(st.tuples(st.one_of(st.sampled_from(bits), st.text(max_size=4)), st.sampled_from(SPACES)), max_size=60).map(
        lambda parts: "".join(bit + space for bit, space in parts))


TEXT = _texts(BITS)
JSON_TEXT = _texts([bit for bit in BITS if bit != "\ud83d"])  # a lone surrogate is no JSON a line can hold


def _oracle(family: str) -> object:
    """tiktoken's own count of a whole text, normalised first where the family normalises."""
    encoding, nfc = get_encoding(family), normalises_nfc(family)
    return lambda text: len(encoding.encode_ordinary(unicodedata.normalize("NFC", text) if nfc else text))


@pytest.mark.parametrize("family", sorted(FAMILIES))
def test_a_texts_pieces_count_to_the_whole_text(family: str) -> None:
    """Cut wherever the rule allows (pieces of a few characters), the pieces' counts add up to
    tiktoken's count of the text: every kind of white space before and after a space, marks,
    contractions, digits, scripts, a lone surrogate."""
    whole, counter = _oracle(family), TokenCounter(family)

    @settings(max_examples=300, deadline=None)
    @given(TEXT, st.integers(2, 40))
    def holds(text: str, size: int) -> None:
        parts = pieces(text, size)
        assert "".join(parts) == text
        assert sum(map(counter.count, parts)) == whole(text)  # type: ignore[operator]

    holds()


def _findings(fmt_name: str, value: dict, limit: int, family: str, mode: str) -> list[Diagnostic]:
    """One record's findings under --context `limit`: "exact" (every text counted, as estimate
    does), or check's byte bound with the record settled in the main process ("main") or in the
    worker ("worker")."""
    fmt = get_format(fmt_name)
    bound = mode != "exact"
    run = Settings(encoding=family, model_name="", today="2026-12-01", context=limit, format_name=fmt_name, bound_tokens=bound)
    summary, deferred = FileSummary("x.jsonl", format=fmt.name), []
    exact = TokenCounter(family)
    counter = ByteBound(family) if bound else exact
    judge = LineJudge(fmt, counter, run, summary, Columns(), 0, exact=(lambda: exact) if bound else None,
                      deferred=deferred if mode == "main" else None)
    found = judge(parse_line(1, json.dumps(value).encode()))
    if deferred:
        found += Recounter(run).findings(summary, deferred)
    return sorted(found)


def _record(text: str, repeat: int, system: str) -> dict:
    return {"messages": [{"role": "system", "content": system}, {"role": "user", "content": text * repeat},
                         {"role": "assistant", "content": text}]}


@pytest.mark.parametrize("family", ["o200k_base", "qwen2", "cl100k_base"])
def test_ft301_is_found_exactly_where_the_exact_count_finds_it(family: str) -> None:
    """Records of many pieces (a text said over and over, past a piece's 8,192 characters): at
    the exact count's limit and one either side, and at a limit between the count and the byte
    bound (where counting a part settles it), check's findings are the exact path's, settled in
    the main process or in the worker; FT301's message prints the exact count."""
    fmt = get_format("openai-chat")
    exact = TokenCounter(family)

    @settings(max_examples=15, deadline=None)
    @given(JSON_TEXT.filter(lambda t: len(t.strip()) > 3), st.integers(300, 3000), st.sampled_from(["Be brief.", "日本語で", "x"]),
           st.floats(0, 1))
    def holds(text: str, repeat: int, system: str, between: float) -> None:
        value = _record(text, min(repeat, 60_000 // len(text) + 2), system)
        tokens = fmt.figures(value, exact).records[0].tokens
        bytes_bound = fmt.figures(value, ByteBound(family)).records[0].tokens
        for limit in (tokens - 1, tokens, tokens + 1, tokens + int(between * (bytes_bound - tokens))):
            expected = _findings("openai-chat", value, limit, family, "exact")
            assert [d.code for d in expected if d.code == "FT301"] == (["FT301"] if limit < tokens else [])
            for mode in ("main", "worker"):
                assert _findings("openai-chat", value, limit, family, mode) == expected, (mode, limit, tokens)

    holds()


def test_a_line_of_several_training_records_is_counted_whole() -> None:
    """A format that makes one training record per target (Cohere's): each record's FT301 as the
    exact count finds it, one either side of the longest record's count."""
    fmt = get_format("cohere-chat")
    exact = TokenCounter("o200k_base")
    turn = "Plenty of words about the training data, said again and again. " * 400
    value = {"messages": [{"role": "User", "content": turn}, {"role": "Chatbot", "content": "Fine."},
                          {"role": "User", "content": turn}, {"role": "Chatbot", "content": "Done."}]}
    counts = [r.tokens for r in fmt.figures(value, exact).records]
    assert len(counts) == 2
    for limit in (counts[0] - 1, counts[0], counts[1] - 1, counts[1], counts[1] + 1):
        expected = _findings("cohere-chat", value, limit, "o200k_base", "exact")
        assert len(expected) == sum(limit < n for n in counts)
        for mode in ("main", "worker"):
            assert _findings("cohere-chat", value, limit, "o200k_base", mode) == expected


@pytest.mark.parametrize("family", ["o200k_base", "qwen2"])
def test_the_figures_are_exact_over_the_limit_and_a_bound_within_it(family: str) -> None:
    """exactly(): over the limit, the figures the tokenizer makes of the record (the same numbers,
    each text counted once); within it, a bound of them no higher than the limit."""
    fmt, exact = get_format("openai-chat"), TokenCounter(family)
    value = _record("Counting the pieces of a long record until its limit is decided. ", 1_500, "Be brief.")
    truth = fmt.figures(value, exact).records[0]
    over = exactly(fmt, value, truth.tokens - 1, TokenCounter(family)).records[0]
    assert (over.tokens, over.trainable, over.messages, over.targets) == (truth.tokens, truth.trainable, truth.messages,
                                                                          truth.targets)
    for limit in (truth.tokens, truth.tokens + 1, truth.tokens * 3):
        assert truth.tokens <= exactly(fmt, value, limit, TokenCounter(family)).records[0].tokens <= limit


def test_workers_forked_after_a_near_limit_record_settle_it_as_the_main_process_does(tmp_path: Path) -> None:
    """A file whose first chunks hold a record the whole-word bound leaves at its limit: the
    tokenizer is loaded before the workers fork and they settle such records themselves. The
    findings are those of one process settling them (--jobs 1), line for line."""
    from ftlint.engine.bounds import needs_exact
    from ftlint.engine.pipeline import CHUNK_BYTES, analyse, file_chunks
    from ftlint.read import READ_BLOCK, each_line, read_runs

    near = _record("Counting the pieces of a long record until its limit is decided, again. ", 900, "Be brief.")
    short = {"messages": [{"role": "user", "content": "hi there " * 40}, {"role": "assistant", "content": "ok"}]}
    exact = TokenCounter("o200k_base").count(near["messages"][1]["content"])
    lines, size = [], 0
    while size < 3 * CHUNK_BYTES:
        line = json.dumps(near if len(lines) % 40 == 3 else short)
        lines.append(line)
        size += len(line) + 1
    path = tmp_path / "data.jsonl"
    path.write_text("\n".join(lines) + "\n")
    run = Settings(encoding="o200k_base", model_name="", today="2026-12-01", context=exact + 20, bound_tokens=True)
    first = list(file_chunks(0, str(path), read_runs(str(path), run.limits.max_line_bytes, READ_BLOCK), run))[:2]
    assert needs_exact([(chunk.format, each_line(chunk.items)) for chunk in first], "o200k_base", lambda fmt: run.limit_for(fmt)[0],
                       run.limits.max_depth)
    found: dict[int, list[Diagnostic]] = {}
    for jobs in (1, 2):
        found[jobs] = []
        analyse([str(path)], run, found[jobs].append, jobs=jobs)
    over = [d.line for d in found[1] if d.code == "FT301"]
    assert over == [n + 1 for n in range(len(lines)) if n % 40 == 3] and found[2] == found[1]

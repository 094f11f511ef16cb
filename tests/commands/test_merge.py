"""Mergeable results and the Python API: shards merged give what one run gives.

The oracles: one run of the CLI's engine over all the files (findings, per-file counts,
estimate figures), polars' own quantiles and sums for the token-length distribution, and the
records' token counts re-derived one by one."""

from __future__ import annotations

import dataclasses
import itertools
import json
import random
import re
from pathlib import Path

import polars as pl
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import ftlint
from conftest import FIXTURES, ROOT
from ftlint.engine import Settings, analyse
from ftlint.engine.ray import pieces
from ftlint.engine.result import Analysis, Lengths
from ftlint.read import LineBlock, read_runs, read_window

SHARDS = sorted(str(p) for p in (FIXTURES / "shards").iterdir() if not p.name.endswith(".md"))


@settings(max_examples=200, deadline=None)
@given(st.lists(st.integers(0, 5000), min_size=1, max_size=300), st.integers(1, 6000), st.integers(1, 6000))
def test_the_length_distribution_gives_polars_figures_exactly(tokens: list[int], limit: int, cut: int) -> None:
    lengths = Lengths()
    for t in tokens:
        lengths.add(t)
    s = pl.Series(tokens)
    assert lengths.records == len(tokens)
    assert lengths.stats() == {"min": s.min(), "p50": s.quantile(0.5, "nearest"), "p90": s.quantile(0.9, "nearest"),
                               "max": s.max(), "mean": round(s.mean(), 1)}  # type: ignore[arg-type]
    assert lengths.total() == s.sum()
    assert lengths.total(limit) == s.clip(upper_bound=limit).sum()
    assert lengths.over(limit) == (s > limit).sum()
    # merged halves are the whole
    a, b = Lengths(), Lengths()
    for i, t in enumerate(tokens):
        (a if i % 2 else b).add(t)
    a.merge(b)
    assert a == lengths
    assert lengths.in_range(cut // 2, cut) == ((s >= cut // 2) & (s < cut)).sum()


def _lines(items: object) -> list[tuple[int, object]]:
    out: list[tuple[int, object]] = []
    for number, item in items:  # type: ignore[attr-defined]
        if isinstance(item, LineBlock):
            out += list(enumerate(item.lines(), number))
        else:
            out.append((number, item))
    return out


WINDOW_FILES = [*SHARDS, *(str(p) for p in sorted((FIXTURES / "hostile").iterdir()) if p.is_file()),
                str(FIXTURES / "good" / "openai_chat_crlf.jsonl"), str(ROOT / "benchmarks" / "generate.py")]


@pytest.mark.parametrize("path", WINDOW_FILES, ids=lambda p: Path(p).name)
@pytest.mark.parametrize("range_bytes", [1, 7, 300, 4096])
def test_byte_ranges_read_the_lines_the_whole_file_has(path: str, range_bytes: int) -> None:
    whole = _lines(read_runs(path))
    cut = pieces([path], Settings("o200k_base", ""), range_bytes)
    assert cut[-1].last and not any(p.last for p in cut[:-1])
    got: list[tuple[int, object]] = []
    for piece in cut:
        if piece.start < 0:  # compressed, a container, UTF-16: one piece
            assert len(cut) == 1
            got = _lines(read_runs(path))
            continue
        got += _lines(read_window(path, piece.start, piece.end, len(got) + 1))
    assert got == whole
    if range_bytes == 1 and cut[0].start == 0 and whole:
        assert len(cut) == len(whole)  # cut at every line start: a piece per line


def _one_run(paths: list[str]) -> tuple[list, Analysis]:
    found: list = []
    return found, analyse(paths, Settings("o200k_base", ""), found.append, jobs=1)


def test_merged_shards_equal_one_run_finding_by_finding() -> None:
    whole = ftlint.check(SHARDS)
    codes = whole.by_code
    assert codes["FT402"] == 14 and codes["FT403"] == 1  # duplicates across shards are found...
    assert any(d.code == "FT402" and "shard-001" in d.path and "shard-000.jsonl:5" in d.message for d in whole.findings)
    for split in (1, 2, 3):  # ... however the files are cut into shards
        parts = [ftlint.summarise(SHARDS[:split]), ftlint.summarise(SHARDS[split:])]
        merged = ftlint.check(ftlint.merge(parts))
        assert merged.findings == whole.findings
        assert merged.files == whole.files
    # one shard's own summary finds no cross-shard duplicate, the merge does
    alone = ftlint.check(ftlint.summarise(SHARDS[1:2]))
    assert not [d for d in alone.findings if d.code.startswith("FT40")]


def test_merged_estimates_equal_one_run_and_are_recomputed_not_summed() -> None:
    options = {"epochs": 3, "batch_size": 4, "warmup_ratio": 0.1}
    whole = ftlint.estimate(SHARDS, **options)
    parts = [ftlint.summarise(p) for p in SHARDS]
    merged = ftlint.estimate(ftlint.merge(parts), **options)
    assert dataclasses.asdict(merged) == dataclasses.asdict(whole)
    # independently: steps from the merged records, not the shards' steps summed
    per_shard = [ftlint.estimate(p, **options) for p in SHARDS]
    records = sum(e.data.records for e in per_shard)
    assert whole.data.records == records == 41 + 52 + 10 + 12 + 3  # valid lines of each shard (fixtures/shards)
    assert whole.schedule.steps_per_epoch == -(-records // 4) == 30
    assert sum(e.schedule.steps_per_epoch for e in per_shard) == 11 + 13 + 3 + 3 + 1 != 30  # summing the shards' would be wrong
    assert whole.schedule.total_steps == 30 * 3 and whole.schedule.warmup_steps == 9
    assert whole.counts.tokens == sum(e.counts.tokens for e in per_shard)


def test_token_quantiles_of_merged_shards_are_the_records_own() -> None:
    parts = [ftlint.summarise(p, keep_order=True) for p in SHARDS]
    merged = ftlint.merge(parts)
    tokens = sorted(merged.analysis.record_tokens())
    n = len(tokens)
    stats = ftlint.estimate(merged, epochs=1).counts.token_stats
    assert stats["min"] == tokens[0] and stats["max"] == tokens[-1]
    assert stats["p50"] == tokens[int(0.5 * (n - 1) + 0.5)] and stats["p90"] == tokens[int(0.9 * (n - 1) + 0.5)]
    # the trainer reads the files, and cuts them at its max length as they are read
    trl = ftlint.merge([ftlint.summarise(p, keep_order=True, trainer="hf", max_seq_len=2048) for p in SHARDS])
    packed = ftlint.estimate(trl, epochs=1, packing=True, batch_size=2)
    assert packed == ftlint.estimate(SHARDS, epochs=1, trainer="hf", max_seq_len=2048, packing=True, batch_size=2)


def test_summaries_of_other_options_do_not_merge() -> None:
    with pytest.raises(ftlint.UsageError, match="different options"):
        ftlint.merge([ftlint.summarise(SHARDS[0]), ftlint.summarise(SHARDS[1], context=100)])
    with pytest.raises(ftlint.UsageError, match="keep_order"):
        ftlint.estimate(ftlint.summarise(SHARDS[0], trainer="hf"), max_seq_len=512, packing=True)


def test_check_records_finds_what_the_file_of_them_finds(tmp_path: Path) -> None:
    path = FIXTURES / "bad" / "ft101_missing_key.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    from_file = ftlint.check(str(path))
    from_memory = ftlint.check_records(records, name=str(path))
    assert from_memory.findings == from_file.findings and from_file.errors == 8  # FT101 x5, FT103 x2, FT401
    with pytest.raises(ftlint.UsageError, match="record 2 is not a JSON object"):
        ftlint.check_records([{"a": 1}, [1, 2]])  # type: ignore[list-item]


def test_the_readme_python_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    section = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    code = re.search(r"```python\n(.*?)```", section, re.S)
    assert code, "docs/api.md has a python block"
    monkeypatch.chdir(ROOT)
    printed: list[str] = []
    namespace: dict = {"print": lambda *a, **k: printed.append(" ".join(map(str, a)))}
    exec(compile(code.group(1), "docs/api.md", "exec"), namespace)
    shown = "\n".join(printed)
    expected = re.search(r"```text\n(.*?)```", section, re.S)
    assert expected and shown.strip() == expected.group(1).strip()


def test_random_cuts_of_one_file_merge_exactly(tmp_path: Path) -> None:
    """The Ray engine's merge of byte ranges, without Ray: ranges judged apart, merged in order."""
    from ftlint.engine.pipeline import Merger, Worker
    from ftlint.engine.ray import count_lines, judge_piece

    rng = random.Random(7)
    path = tmp_path / "mixed.jsonl"
    good = (FIXTURES / "good" / "drone_training.jsonl").read_text().splitlines()
    lines = [rng.choice([*good, "", "{bad", '{"messages": []}']) for _ in range(200)]
    path.write_text("\n".join(lines), encoding="utf-8")  # no final newline
    settings = Settings("o200k_base", "")
    want, whole = _one_run([str(path)])
    for range_bytes in (997, 20_000, 10**9):
        got: list = []
        result = Analysis()
        merger, worker = Merger(result, settings, got.append), Worker(settings)
        number, chosen = 1, None
        for piece in pieces([str(path)], settings, range_bytes):
            lines_in, found = count_lines(piece, settings)
            chosen = found or chosen
            parts, error = judge_piece(worker, piece, number, chosen)
            assert not error
            for part in parts:
                merger.add(part)
            number += lines_in
        merger.close()
        assert got == want
        assert result.files == whole.files and result.lengths == whole.lengths
        assert result.fingerprints().equals(whole.fingerprints())
    assert list(itertools.islice(want, 1))  # there are findings to compare

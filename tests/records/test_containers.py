"""Parquet, Arrow (files and datasets.save_to_disk folders) and top-level JSON arrays read as
JSONL (issue 16): the same findings, located by row, and the same figures."""

from __future__ import annotations

import json
import re
from pathlib import Path

import polars as pl
import pytest

from conftest import FIXTURES, element_lines, run

DRONE = FIXTURES / "good" / "drone_training.jsonl"
BAD = [{"messages": [{"role": "user", "content": "hi"}]},  # FT201 on row 2 (no assistant message)
       {"messages": [{"role": "user", "content": "Capital of Peru?"}, {"role": "assistant", "content": "Lima."}]}]


def rows(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def containers(records: list[dict], folder: Path) -> dict[str, Path]:
    frame = pl.DataFrame(records, infer_schema_length=None)
    out = {"parquet": folder / "data.parquet", "arrow": folder / "data.arrow", "json": folder / "data.json",
           "save_to_disk": folder / "saved"}
    frame.write_parquet(out["parquet"])
    frame.write_ipc(out["arrow"])
    out["json"].write_text(json.dumps(records, indent=2, ensure_ascii=False))
    out["save_to_disk"].mkdir()
    half = frame.height // 2
    for i, part in enumerate((frame.slice(0, half), frame.slice(half))):
        part.write_ipc_stream(out["save_to_disk"] / f"data-0000{i}-of-00002.arrow")
    (out["save_to_disk"] / "state.json").write_text(json.dumps(
        {"_data_files": [{"filename": f"data-0000{i}-of-00002.arrow"} for i in range(2)]}))
    return out


def figures(path: Path) -> tuple:
    e = json.loads(run("estimate", str(path), "-o", "json").stdout)
    return e["lines"], e["records"], e["tokens"], e["trainable_tokens"], e["format"]


@pytest.mark.parametrize("kind", ["parquet", "arrow", "json", "save_to_disk"])
def test_a_container_has_the_figures_of_its_jsonl(kind: str, tmp_path: Path) -> None:
    """Rows with differing message keys (tool calls without content): a column's struct gives
    every row every key, null where absent; nulls are read as absent, as trainers read them."""
    path = containers(rows(DRONE), tmp_path)[kind]
    assert figures(path) == figures(DRONE)
    assert run("check", str(path)).exit_code == 0


@pytest.mark.parametrize("kind", ["parquet", "json", "save_to_disk"])
def test_findings_are_located_by_row(kind: str, tmp_path: Path) -> None:
    """A table's row is its line; a JSON array's element is on the line it starts on in the file
    (where an editor and a GitHub annotation land), its number beside it."""
    path = containers(BAD * 6, tmp_path)[kind]
    out = run("check", str(path), "--ignore", "FT4").stdout
    located = [line.split(": ")[0] for line in out.splitlines() if ": FT201 " in line]
    rows_of = [1, 3, 5, 7, 9, 11]
    lines = [element_lines(path.read_text())[n - 1] for n in rows_of] if kind == "json" else rows_of
    assert [int(loc.split(":")[-2]) for loc in located] == lines
    if kind == "json":
        assert lines != rows_of and all(f"(element {n}, $.messages)" in out for n in rows_of)
        found = json.loads(run("check", str(path), "--ignore", "FT4", "-o", "json").stdout)
        assert [(f["line"], f["element"]) for f in found if f["code"] == "FT201"] == list(zip(lines, rows_of, strict=True))


def test_a_json_array_loses_nothing(tmp_path: Path) -> None:
    """A broken element, an element that is not an object, text after the array: each is a
    finding, never a dropped line; each on the line it is on."""
    path = tmp_path / "a.json"
    path.write_text('[\n  {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]},\n'
                    '  "just a string",\n  {"messages": [}\n]\n')
    out = run("check", str(path), "--ignore", "FT4").stdout
    assert ":3:1: FT002 " in out and "(element 2)" in out and re.search(r":4:\d+: FT001 .*\(element 3\)", out)
    trailing = tmp_path / "b.json"
    trailing.write_text('[{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}]\n{"x": 1}\n')
    assert ":2:1: " in run("check", str(trailing), "--ignore", "FT4").stdout  # the text after the array, on its line
    one_line = tmp_path / "c.json"  # every element on line 1: their numbers tell them apart
    one_line.write_text(json.dumps(BAD * 2))
    found = json.loads(run("check", str(one_line), "--ignore", "FT4", "-o", "json").stdout)
    assert [(f["line"], f["element"]) for f in found] == [(1, 1), (1, 3)]


def test_a_json_arrays_duplicates_and_leaks_name_lines_and_elements(tmp_path: Path) -> None:
    record = BAD[1]
    train, valid = tmp_path / "train.json", tmp_path / "valid.json"
    train.write_text(json.dumps([record, BAD[0] | {"x": 1}, record], indent=2))
    valid.write_text(json.dumps([{"messages": [{"role": "user", "content": "other"}, {"role": "assistant", "content": "a"}]},
                                 record], indent=2))
    starts, held_out = element_lines(train.read_text()), element_lines(valid.read_text())
    out = run("check", str(train), "--validation", str(valid), "--select", "FT402,FT404").stdout
    assert f"train.json:{starts[2]}:1: FT402 exact duplicate of {train}:{starts[0]} (element 1) (element 3)" in out
    assert f"valid.json:{held_out[1]}:1: FT404 validation record also in the training data at {train}:{starts[0]} (element 1)" in out


def test_a_jsonl_file_whose_first_line_is_an_array_stays_jsonl(tmp_path: Path) -> None:
    path = tmp_path / "d.jsonl"
    path.write_text('[1, 2]\n{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}\n')
    out = run("check", str(path), "--ignore", "FT4").stdout
    assert ":1:1: FT002 " in out and "2 lines" in out


def test_a_broken_parquet_file_is_a_one_line_error(tmp_path: Path) -> None:
    path = tmp_path / "x.parquet"
    path.write_bytes(b"PAR1 this is not really parquet")
    r = run("check", str(path))
    assert r.exit_code == 2 and "cannot read it as parquet" in r.stderr and "Traceback" not in r.stderr


def test_zstd_files_read_like_gzip_and_their_damage_is_ft009(tmp_path: Path) -> None:
    import zstandard

    source = DRONE.read_bytes()
    half = len(source) // 2
    cut = source.index(b"\n", half) + 1
    whole = zstandard.ZstdCompressor().compress(source[:cut]) + zstandard.ZstdCompressor().compress(source[cut:])  # two frames
    path = tmp_path / "d.jsonl.zst"
    path.write_bytes(whole)
    assert figures(path) == figures(DRONE)
    truncated = tmp_path / "t.jsonl.zst"
    truncated.write_bytes(whole[: len(whole) - 40])
    out = run("check", str(truncated)).stdout
    assert "FT009 read failed: zstd stream is truncated" in out


def _slow_lines(path: Path) -> list[dict]:
    """The rows as Python reads them from polars, nulls dropped from every object, as JSON: the
    reference the NDJSON blocks polars writes must equal."""
    from ftlint.read.tables import row_line

    return [json.loads(row_line(row)) for row in pl.read_parquet(path).iter_rows(named=True)]


def _fast_lines(path: Path) -> list[dict]:
    from ftlint.read.tables import table_lines

    return [json.loads(line) for block in table_lines("parquet", str(path)) for line in block.splitlines()]


KEYS = ["role", "content", "weight", "é", 'a"b', "x{", ":null", "tool calls", "a\\b"]
TEXTS = ['":null', ',"weight":null', '{"role":null,', "x{", "\\", '"', "plain", "", "\n\t\u2028", "ünï"]


def test_rows_written_by_polars_equal_rows_read_in_python(tmp_path: Path) -> None:
    """Parquet rows reach the checker as JSON lines polars writes (a block of rows at a time, no
    Python object per value), with every null member of an object removed, as the slow path does.
    Where a null cannot be removed safely (a key with an escape or an unusual character, the
    text '":null' inside a string), that block goes the slow way: the lines are the same either way."""
    from hypothesis import given, settings
    from hypothesis import strategies as st

    text = st.one_of(st.sampled_from(TEXTS), st.text(max_size=8)) | st.none()
    message = st.fixed_dictionaries({k: text for k in KEYS[:2]}, optional={k: text for k in KEYS[2:]})
    row = st.fixed_dictionaries({"messages": st.lists(message, max_size=4) | st.none(), "id": st.integers(-5, 5) | st.none(),
                                 "score": st.floats() | st.none(), "tags": st.lists(text, max_size=3),
                                 "weights": st.lists(st.floats() | st.none(), max_size=3)})

    @settings(max_examples=60, deadline=None)
    @given(st.lists(row, min_size=1, max_size=30))
    def same(records: list[dict]) -> None:
        path = tmp_path / "rows.parquet"
        pl.DataFrame(records, infer_schema_length=None).write_parquet(path)
        assert _fast_lines(path) == _slow_lines(path)

    same()
    # a whole file's worth, in several blocks: chat rows with weights on some messages only
    many = [{"conversations": [{"from": "human", "value": f"q{i}"}, {"from": "gpt", "value": f"a{i}", **({"weight": 1.0} if i % 3 else {})}],
             "system": None if i % 2 else "be brief"} for i in range(3_000)]
    path = tmp_path / "many.parquet"
    pl.DataFrame(many, infer_schema_length=None).write_parquet(path)
    fast = _fast_lines(path)
    assert fast == _slow_lines(path) and fast[0] == {"conversations": [{"from": "human", "value": "q0"}, {"from": "gpt", "value": "a0"}],
                                                     "system": "be brief"}


def test_columns_polars_would_write_otherwise_take_the_slow_path(tmp_path: Path) -> None:
    """Bytes, dates and decimals are not JSON: they are written as the slow path writes them
    (base64, ISO text), whatever polars' own JSON would say."""
    import datetime as dt

    path = tmp_path / "typed.parquet"
    pl.DataFrame({"text": ["hi", None], "blob": [b"\x00\x01", b"x"], "day": [dt.date(2026, 12, 1), None]}).write_parquet(path)
    assert _fast_lines(path) == [{"text": "hi", "blob": "AAE=", "day": "2026-12-01"}, {"blob": "eA=="}]

"""Dataset-wide findings: duplicates across files, near-duplicates, validation leakage."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import run


def rec(q: str, a: str) -> str:
    return json.dumps({"messages": [{"role": "user", "content": q}, {"role": "assistant", "content": a}]})


def findings(*args: str) -> list[tuple[str, int, str, str]]:
    out = json.loads(run("check", *args, "-o", "json", "--ignore", "FT401").stdout)
    return [(Path(f["path"]).name, f["line"], f["code"], f["message"]) for f in out]


def test_duplicates_across_files_name_the_first_occurrence(tmp_path: Path) -> None:
    a, b = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    a.write_text("\n".join([rec("q1", "a1"), rec("q2", "a2")]) + "\n")
    b.write_text("\n".join([rec("q3", "a3"), rec("q2", "a2"), rec("Q1", "a1 "), rec("q1", "a1")]) + "\n")
    got = findings(str(a), str(b))
    assert [(f, ln, c) for f, ln, c, _ in got] == [("b.jsonl", 2, "FT402"), ("b.jsonl", 3, "FT403"), ("b.jsonl", 4, "FT402")]
    assert got[0][3].endswith("a.jsonl:2") and got[2][3].endswith("a.jsonl:1")


def test_key_order_and_spacing_do_not_hide_a_duplicate(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text("\n".join([
        '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello there"}]}',
        '{"messages":[{"content":"hi","role":"user"},{"content":"Hello there","role":"assistant"}]}',  # keys reordered
        '{"messages": [{"role": "user", "content": "HI"}, {"role": "assistant", "content": "Hello\\nthere"}]}',
        '{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello, there"}]}',  # a comma: not near
    ]) + "\n")
    got = findings(str(data))
    assert [(ln, c) for _, ln, c, _ in got] == [(2, "FT402"), (3, "FT403")]
    assert all(m.endswith("d.jsonl:1") for *_, m in got)


def test_validation_leakage_and_figures(tmp_path: Path) -> None:
    train, val = tmp_path / "train.jsonl", tmp_path / "val.jsonl"
    train.write_text("".join(rec(f"q{i}", f"a{i}") + "\n" for i in range(20)))
    val.write_text("\n".join([rec("fresh", "new"), rec("Q3", "A3"), rec("q7", "a7")]) + "\n")
    got = findings(str(train), "--validation", str(val))
    assert [(f, ln, c) for f, ln, c, _ in got] == [("val.jsonl", 2, "FT404"), ("val.jsonl", 3, "FT404")]
    assert got[0][3].endswith("train.jsonl:4")
    text = run("check", str(train), "--validation", str(val)).stdout
    assert "checked 2 files (openai-chat), 23 lines" in text
    e = json.loads(run("estimate", str(train), "--validation", str(val), "--epochs", "2", "-o", "json").stdout)
    assert e["records"] == 20 and e["validation"]["records"] == 3 and e["validation"]["records_in_training"] == 2
    alone = json.loads(run("estimate", str(train), "--epochs", "2", "-o", "json").stdout)
    assert e["tokens_processed"] == alone["tokens_processed"] and e["validation"]["billed"] is False


def test_validation_is_never_also_a_training_path(tmp_path: Path) -> None:
    """check judges a file given both ways once, as validation (a glob or a hook passes it among
    the training files); estimate, whose figures are the training files', refuses it."""
    path = tmp_path / "t.jsonl"
    path.write_text(rec("q", "a") + "\n")
    both = run("check", str(path), "--validation", str(path))
    assert both.exit_code == 0 and "checked 1 file (openai-chat), 1 line" in both.stdout and "FT404" not in both.stdout
    assert run("estimate", str(path), "--validation", str(path)).exit_code == 2


@settings(max_examples=150, deadline=None)
@given(st.lists(st.tuples(st.integers(0, 2), st.integers(0, 6), st.integers(0, 5)), max_size=60),
       st.lists(st.tuples(st.integers(0, 6), st.integers(0, 5)), max_size=20))
def test_few_rows_in_python_and_many_in_polars_find_the_same(train: list[tuple[int, int, int]],
                                                             held_out: list[tuple[int, int]]) -> None:
    """The two searches behind FT402/FT403/FT404 (Python for a small input, polars past
    CHUNK_ROWS lines) agree on data with many collisions."""
    from array import array

    import polars as pl

    from ftlint.dataset import PRINT_COLUMNS, DatasetView, _duplicates_of_frame, _duplicates_of_rows, leaked

    def columns(rows: list[tuple[int, int, int]]) -> dict[str, array]:
        rows = sorted(set(rows))  # (file, line, content): one row per line, in file and line order
        seen: set[tuple[int, int]] = set()
        rows = [r for r in rows if (r[0], r[1]) not in seen and not seen.add((r[0], r[1]))]  # type: ignore[func-returns-value]
        cols = {c: array("q") for c in PRINT_COLUMNS}
        for file, line, content in rows:
            for c, v in zip(PRINT_COLUMNS, (file, line + 1, 1, content, content // 2, 0), strict=True):
                cols[c].append(v)  # near: two contents share each near fingerprint
        return cols

    def frame(cols: dict[str, array]) -> pl.DataFrame:
        return pl.DataFrame({c: pl.Series(c, v, dtype=pl.Int64) for c, v in cols.items()})

    t = columns(train)
    v = columns([(0, line, content) for line, content in held_out])
    assert list(_duplicates_of_rows(t)) == list(_duplicates_of_frame(frame(t)))
    small = list(leaked(DatasetView(None, ["a"], t), DatasetView(None, ["b"], v)))
    large = list(leaked(DatasetView(frame(t), ["a"]), DatasetView(frame(v), ["b"])))
    assert small == large

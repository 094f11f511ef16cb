"""The reader: exact line numbers, every bad line a finding, nothing held whole."""

from __future__ import annotations

import gzip
import json
import os
import re
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from conftest import ROOT, run
from ftlint.read import InputError, Line, LineBlock, read_lines, read_raw, read_runs
from ftlint.rules import registry
from ftlint.rules.file import line_hits

OK = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})


def write(tmp_path: Path, data: bytes, name: str = "data.jsonl") -> str:
    path = tmp_path / name
    path.write_bytes(data)
    return str(path)


def codes(path: str, **kw: int) -> list[tuple[int, list[str]]]:
    return [(ln.number, [code for code, _ in line_hits(ln)]) for ln in read_lines(path, **kw)]


def test_line_numbers_are_physical_lines(tmp_path: Path) -> None:
    data = f"{OK}\n\n{OK}\r\nnot json\n{OK}".encode()  # no final newline
    lines = list(read_lines(write(tmp_path, data)))
    assert [ln.number for ln in lines] == [1, 2, 3, 4, 5]
    assert [ln.value is not None for ln in lines] == [True, False, True, False, True]
    assert [code for code, _ in line_hits(lines[1])] == ["FT005"]
    assert [code for code, _ in line_hits(lines[3])] == ["FT001"]


def test_crlf_is_accepted(tmp_path: Path) -> None:
    assert codes(write(tmp_path, f"{OK}\r\n{OK}\r\n".encode())) == [(1, []), (2, [])]


def test_bom_is_a_warning_and_the_line_still_parses(tmp_path: Path) -> None:
    lines = list(read_lines(write(tmp_path, b"\xef\xbb\xbf" + OK.encode() + b"\n")))
    assert lines[0].value is not None
    assert [code for code, _ in line_hits(lines[0])] == ["FT004"]
    assert registry()["FT004"].severity == "warning"


def test_invalid_utf8_names_the_byte_offset(tmp_path: Path) -> None:
    raw = b'{"messages": "caf\xe9"}\n'
    (line,) = read_lines(write(tmp_path, raw))
    ((code, problem),) = line_hits(line)
    assert code == "FT003"
    assert "byte offset 17" in problem.message and "0xe9" in problem.message
    assert problem.col == 18


def test_utf16_file_is_one_clear_error(tmp_path: Path) -> None:
    path = write(tmp_path, (OK + "\n").encode("utf-16"))
    assert codes(path) == [(1, ["FT008"])]


def test_gzip_is_read_transparently_even_without_gz_suffix(tmp_path: Path) -> None:
    packed = gzip.compress(f"{OK}\n{OK}\n".encode())
    assert codes(write(tmp_path, packed, "a.jsonl.gz")) == [(1, []), (2, [])]
    assert codes(write(tmp_path, packed, "b.jsonl")) == [(1, []), (2, [])]


def test_truncated_gzip_is_a_finding_not_a_crash(tmp_path: Path) -> None:
    packed = gzip.compress((OK + "\n").encode() * 2000)
    result = codes(write(tmp_path, packed[: len(packed) // 2], "cut.jsonl.gz"))
    assert result[-1][1] == ["FT009"]
    assert all(c == [] for _, c in result[:-1])


def test_line_over_the_limit_is_skipped_with_bounded_memory(tmp_path: Path) -> None:
    big = b'{"messages": "' + b"x" * 5000 + b'"}'
    path = write(tmp_path, OK.encode() + b"\n" + big + b"\n" + OK.encode() + b"\n")
    result = list(read_lines(path, max_line_bytes=1000))
    assert [ln.number for ln in result] == [1, 2, 3]
    assert [code for code, _ in line_hits(result[1])] == ["FT007"]
    assert f"{len(big):,} bytes" in line_hits(result[1])[0][1].message
    assert result[2].value is not None


def test_missing_path_and_directory_raise_input_error(tmp_path: Path) -> None:
    with pytest.raises(InputError, match="no such file"):
        list(read_lines(str(tmp_path / "nope.jsonl")))
    with pytest.raises(InputError, match="is a directory"):
        list(read_lines(str(tmp_path)))


def test_unreadable_file_is_exit_2(tmp_path: Path) -> None:
    """Root reads any file; as root the check runs without the capabilities that let it
    (setpriv, from util-linux), so file permissions apply as they do for a user."""
    import shutil
    import subprocess
    import sys

    path = write(tmp_path, b"{}\n")
    os.chmod(path, 0)
    if os.geteuid() != 0:
        with pytest.raises(InputError, match="permission denied"):
            list(read_lines(path))
        return
    if not shutil.which("setpriv"):
        pytest.skip("setpriv (util-linux) is needed to drop root's override of file permissions")
    r = subprocess.run(["setpriv", "--bounding-set", "-dac_override,-dac_read_search", sys.executable, "-m", "ftlint",
                        "check", path], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2, r.stderr
    assert r.stderr.strip() == f"ftlint: error: {path}: permission denied"


def test_stdin_is_read_with_dash() -> None:
    result = run("check", "-", input=(OK + "\n" + "{bad\n").encode())
    assert result.exit_code == 1
    assert "<stdin>:2:2: FT001 invalid JSON" in result.stdout


def test_input_file_is_never_modified(tmp_path: Path) -> None:
    data = b"\xef\xbb\xbf" + OK.encode() + b"\r\n\n{bad"
    path = write(tmp_path, data)
    before = os.stat(path).st_mtime_ns
    run("check", path)
    run("estimate", path)
    assert Path(path).read_bytes() == data
    assert os.stat(path).st_mtime_ns == before


def _expanded(items) -> list[tuple[int, object]]:  # type: ignore[no-untyped-def]
    out: list[tuple[int, object]] = []
    for number, item in items:
        if isinstance(item, LineBlock):
            out.extend(enumerate(item.lines(), number))
        elif isinstance(item, Line):
            out.append((number, [(code, hit.message) for code, hit in line_hits(item)]))
        else:
            out.append((number, item))
    return out


PIECES = st.sampled_from([b"a", b"bc", b"\n", b"\r", b"\r\n", b"\n\n", b'{"k": 1}', b"\xff", b"\x00", b"\xef\xbb\xbf", b"x" * 9])


@settings(max_examples=400, deadline=None)
@given(st.lists(PIECES, max_size=40), st.sampled_from([4, 5, 8, 64]), st.integers(0, 3))
def test_block_reader_yields_the_lines_of_the_line_reader(pieces: list[bytes], block: int, extra: int) -> None:
    # the block reader (whole lines per read, tiny blocks here so that lines, CRLF pairs and
    # over-long lines straddle reads) must number, split and judge every line as the line
    # reader does
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "d.jsonl")
        Path(path).write_bytes(b"".join(pieces))
        limit = block + extra
        assert _expanded(read_runs(path, limit, block_bytes=block)) == _expanded(read_raw(path, limit))


def test_block_reader_reads_gzip_and_a_line_over_the_limit_across_blocks(tmp_path: Path) -> None:
    lines = [OK.encode()] * 50 + [b'{"x": "' + b"y" * 5000 + b'"}'] + [OK.encode()] * 3
    path = tmp_path / "d.jsonl.gz"
    path.write_bytes(gzip.compress(b"\r\n".join(lines)))  # CRLF and no final line end
    got = _expanded(read_runs(str(path), 4096, block_bytes=1024))
    assert got == _expanded(read_raw(str(path), 4096))
    assert len(got) == 54 and got[50][1][0][0] == "FT007" and "5,010 bytes" in got[50][1][0][1]


def test_the_reader_and_the_parser_name_no_code() -> None:
    """They report facts (read/, parse.py); the rule module that documents FT001-FT014 words them
    (rules/file.py), so a code and its words are in one place. Nor do they import the rules or
    the engine, which are built on them."""
    import ast

    sources = [*(ROOT / "ftlint" / "read").glob("*.py"), ROOT / "ftlint" / "parse.py"]
    assert len(sources) > 5
    for path in sources:
        text = path.read_text()
        assert re.findall(r"FT\d{3}", text) == [], path
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, ast.ImportFrom):
                base = "." * node.level + (f"{node.module}." if node.module else "")
                named = [base + alias.name for alias in node.names]
            elif isinstance(node, ast.Import):
                named = [alias.name for alias in node.names]
            else:
                continue
            assert not [n for n in named if re.match(r"(ftlint\.|\.+)(rules|engine)\b", n)], (path, named)


def test_every_fact_is_said_by_the_code_that_documents_it() -> None:
    from typing import get_args

    from ftlint import parse as p
    from ftlint.rules.file import LINE_CODES

    facts = [(p.Bom(), "FT004"), (p.BLANK, "FT005"), (p.Nul(3), "FT010"), (p.NotJson(b'{"a": x}', "unexpected character", 6, 128), "FT001"),
             (p.NotObject([1]), "FT002"), (p.TooDeep(128), "FT014"), (p.DuplicateKey("a", 1), "FT013"),
             (p.TooLong(9, 5), "FT007"), (p.Utf16(), "FT008"), (p.Broken("x", False), "FT009"),
             *((p.BadArray(f), "FT001") for f in get_args(p.ArrayFault))]
    said = line_hits(Line(2, None, [fact for fact, _ in facts], 0))
    assert [code for code, _ in said] == [code for _, code in facts]
    assert all(hit.message for _, hit in said)
    assert {code for code, _ in said} | {"FT003", "FT011", "FT012"} == set(LINE_CODES)
    assert {registry()[code].kind for code in LINE_CODES} == {"line"}

"""Untrusted repositories, second round (issue 24, items 2, 3 and 6): compressed files decompress
a bounded step at a time, a save_to_disk folder reads nothing outside itself, and a JSON array is
read to its end with every JSONL rule applied to each element. Real files, real processes; the
bombs run under an address-space cap, their peak memory measured."""

from __future__ import annotations

import gzip
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import polars as pl
import pytest
from untrusted import SECRETS, run_limited

from conftest import FIXTURES, ROOT, element_lines, run

OK = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
OK_LINE = json.dumps(OK).encode()
CAP_MIB = 512  # ftlint checks a JSONL file in about 40 MiB; a bomb decompressed whole needs gigabytes
GIB = 1 << 30
WRAPPER = b'{"messages": ""}'  # the bombs' long line, less its content
RUN = 64 << 20  # one compressed run of 'x': the bombs repeat it


def findings(out: str) -> list[tuple[int, str]]:
    """(line, code) of each finding; a JSON array's element's by its number (its "line" is the line it starts on)."""
    return [(f.get("element", f["line"]), f["code"]) for f in json.loads(out)]


def check_limited(path: Path, *args: str, timeout: float = 240) -> tuple[int, list[dict], str, int]:
    code, out, err, peak = run_limited(["check", str(path), "-o", "json", "--ignore", "FT4", *args],
                                       memory_mib=CAP_MIB, timeout=timeout, cwd=str(ROOT))
    return code, (json.loads(out) if out.strip() else []), err, peak


# --- compressed files -------------------------------------------------------------------------

def _zstd_run() -> bytes:
    """One zstd frame of RUN bytes of 'x' (a few kilobytes: zstd writes them as RLE blocks)."""
    import zstandard

    compressor = zstandard.ZstdCompressor(level=1).compressobj()
    piece = b"x" * (1 << 20)
    return b"".join(compressor.compress(piece) for _ in range(RUN >> 20)) + compressor.flush()


def test_a_zstd_bomb_is_decompressed_in_bounded_memory(tmp_path: Path) -> None:
    """3 GiB of one line in 100 KB: each read asked for a block and got the whole file's output."""
    import zstandard

    frame = zstandard.ZstdCompressor(level=1).compress
    path = tmp_path / "bomb.jsonl.zst"
    path.write_bytes(frame(OK_LINE + b'\n{"messages": "') + _zstd_run() * (3 * GIB // RUN) + frame(b'"}\n' + OK_LINE + b"\n"))
    assert path.stat().st_size < 200_000
    code, found, err, peak = check_limited(path)
    assert (code, err) == (1, "")
    assert [(f["line"], f["code"]) for f in found] == [(2, "FT007")]
    assert f"line is {3 * GIB + len(WRAPPER):,} bytes" in found[0]["message"]
    assert peak < 300, peak  # the 128 MiB line limit, and one block


def test_a_gzip_bomb_is_decompressed_in_bounded_memory(tmp_path: Path) -> None:
    """The standard library's gzip reader is bounded (each read passes its size to zlib as
    max_length): 1 GiB of one line from 1 MB, under a cap half its size."""
    member = gzip.compress(b"x" * RUN, compresslevel=9, mtime=0)  # members concatenated are one gzip stream
    path = tmp_path / "bomb.jsonl.gz"
    path.write_bytes(gzip.compress(OK_LINE + b'\n{"messages": "', mtime=0) + member * (GIB // RUN)
                     + gzip.compress(b'"}\n' + OK_LINE + b"\n", mtime=0))
    code, found, err, peak = check_limited(path)
    assert (code, err) == (1, "")
    assert [(f["line"], f["code"]) for f in found] == [(2, "FT007")]
    assert f"line is {GIB + len(WRAPPER):,} bytes" in found[0]["message"]
    assert peak < 300, peak


def _skippable(content: bytes, magic: int = 0x184D2A50) -> bytes:
    """A zstd skippable frame (RFC 8878 3.1.2): magic, content size, content."""
    return struct.pack("<II", magic, len(content)) + content


def test_a_zstd_file_that_starts_with_a_skippable_frame_is_read(tmp_path: Path) -> None:
    """pzstd's layout: a skippable frame holding the next frame's size, then the frames. It was
    read as plain text (binary findings, no record checked)."""
    import zstandard

    source = FIXTURES / "good" / "drone_training.jsonl"
    data = source.read_bytes()
    frame = zstandard.ZstdCompressor().compress(data + OK_LINE[:-1] + b"\n")  # the last record broken: FT001
    path = tmp_path / "p.jsonl.zst"
    path.write_bytes(_skippable(struct.pack("<I", len(frame))) + frame + _skippable(b"trailer", 0x184D2A5F))
    lines = data.count(b"\n") + 1
    r = run("check", str(path), "-o", "json", "--ignore", "FT4")
    assert findings(r.stdout) == [(lines, "FT001")]
    assert json.loads(run("estimate", str(path), "-o", "json").stdout)["lines"] == lines
    cut = tmp_path / "cut.jsonl.zst"
    cut.write_bytes(path.read_bytes()[: 20 + len(frame) // 2])
    assert [c for _, c in findings(run("check", str(cut), "-o", "json", "--ignore", "FT4").stdout)][-1:] == ["FT009"]


# --- save_to_disk folders --------------------------------------------------------------------

OUTSIDE_SECRET = "OUTSIDE-7f3a9c"  # in the outside file's column name and values: never in any output


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    target = tmp_path / "outside" / "x.arrow"
    target.parent.mkdir()
    pl.DataFrame({f"col_{OUTSIDE_SECRET}": [OUTSIDE_SECRET] * 3}).write_ipc_stream(target)
    return target


def saved(tmp_path: Path, state: object | None, shard: bool = True) -> Path:
    folder = tmp_path / "saved"
    folder.mkdir()
    if shard:
        pl.DataFrame([OK] * 3).write_ipc_stream(folder / "data-00000-of-00001.arrow")
    if state is not None:
        (folder / "state.json").write_text(state if isinstance(state, str) else json.dumps(state))
    return folder


def listing(*names: object) -> dict:
    return {"_data_files": [{"filename": n} for n in names], "_fingerprint": "f", "_split": None}


def check_folder(folder: Path) -> tuple[int, str, str]:
    """The CLI in a child process, from the folder's parent (paths shown relative); a run that
    blocks (on a FIFO) fails at the timeout."""
    p = subprocess.run([sys.executable, "-m", "ftlint", "check", folder.name, "--ignore", "FT4"], capture_output=True, cwd=folder.parent,
                       timeout=60, env={**os.environ, "PYTHONPATH": str(ROOT)})
    return p.returncode, p.stdout.decode(), p.stderr.decode()


OUTSIDE = "is outside the folder saved (symbolic links followed); a save_to_disk folder's files lie inside it"


def _build(case: str, tmp_path: Path, outside: Path) -> tuple[Path, str]:
    """A hostile folder and the one error line it must give."""
    where = 'saved/state.json: _data_files[0].filename'
    if case == "dotdot":
        return saved(tmp_path, listing("../outside/x.arrow")), f'{where} "../outside/x.arrow" {OUTSIDE}'
    if case == "dotdot_missing":  # the same words whether the outside path exists or not
        return saved(tmp_path, listing("../outside/none.arrow")), f'{where} "../outside/none.arrow" {OUTSIDE}'
    if case == "absolute":
        return saved(tmp_path, listing("/etc/passwd")), f'{where} "/etc/passwd" {OUTSIDE}'
    if case == "absolute_missing":
        return saved(tmp_path, listing("/etc/none.arrow")), f'{where} "/etc/none.arrow" {OUTSIDE}'
    if case == "symlinked_shard":
        folder = saved(tmp_path, listing("link.arrow"))
        (folder / "link.arrow").symlink_to(outside)
        return folder, f'{where} "link.arrow" {OUTSIDE}'
    if case == "symlinked_folder":
        folder = saved(tmp_path, listing("sub/x.arrow"))
        (folder / "sub").symlink_to(outside.parent)
        return folder, f'{where} "sub/x.arrow" {OUTSIDE}'
    if case == "glob_symlink":  # no state.json: the *.arrow files, under the same rules
        folder = saved(tmp_path, None, shard=False)
        (folder / "a.arrow").symlink_to(outside)
        return folder, f'saved: data file "a.arrow" {OUTSIDE}'
    if case == "filename_number":
        return saved(tmp_path, listing(5)), f"{where} is 5, expected the name of a file in the folder"
    if case == "filename_null":
        return saved(tmp_path, listing(None)), f"{where} is null, expected the name of a file in the folder"
    if case == "filename_missing":
        return (saved(tmp_path, {"_data_files": [{"name": "x"}]}),
                f'{where} is missing ({{"name": "x"}}), expected the name of a file in the folder')
    if case == "deep_state":
        return (saved(tmp_path, '{"_data_files": ' + "[" * 100_000 + "]" * 100_000 + "}"),
                "saved/state.json: not valid JSON (depth limit exceeded); datasets.save_to_disk writes a JSON object")
    if case == "fifo_shard":
        folder = saved(tmp_path, listing("pipe.arrow"))
        os.mkfifo(folder / "pipe.arrow")
        return folder, f'{where} "pipe.arrow": not a regular file (a FIFO, a device or a folder); expected an Arrow file'
    if case == "fifo_state":
        folder = saved(tmp_path, None)
        os.mkfifo(folder / "state.json")
        return folder, "save_to_disk state file saved/state.json: a FIFO, not a regular file"
    if case == "dev_zero_state":
        folder = saved(tmp_path, None)
        (folder / "state.json").symlink_to("/dev/zero")
        return folder, f"saved: state.json {OUTSIDE}"
    raise AssertionError(case)


CASES = ["dotdot", "dotdot_missing", "absolute", "absolute_missing", "symlinked_shard", "symlinked_folder", "glob_symlink", "filename_number",
         "filename_null", "filename_missing", "deep_state", "fifo_shard", "fifo_state", "dev_zero_state"]


@pytest.mark.parametrize("case", CASES)
def test_a_hostile_save_to_disk_folder_is_one_line_error(case: str, tmp_path: Path, outside: Path) -> None:
    """Before: the outside file was read and its columns and values judged (and quoted), a FIFO
    hung the run, a number or null was a TypeError, deep nesting a RecursionError, and a missing
    key or an unreadable state.json fell back to reading whatever *.arrow files the folder held."""
    folder, message = _build(case, tmp_path, outside)
    code, out, err = check_folder(folder)
    assert (code, err) == (2, f"ftlint: error: {message}\n"), (out, err)
    assert OUTSIDE_SECRET not in out + err and "root:" not in out + err  # nor /etc/passwd's


def test_links_that_stay_in_the_folder_are_followed_and_one_that_leaves_is_refused(tmp_path: Path, outside: Path) -> None:
    """A shard in a subfolder and a symlink to a shard beside it are read (datasets joins the
    names to the folder as paths); one more symlink, to a file outside, and the folder is refused."""
    folder = saved(tmp_path, listing("data-00000-of-00001.arrow", "parts/b.arrow", "again.arrow"))
    (folder / "parts").mkdir()
    pl.DataFrame([OK] * 2).write_ipc_stream(folder / "parts" / "b.arrow")
    (folder / "again.arrow").symlink_to("data-00000-of-00001.arrow")
    code, out, err = check_folder(folder)
    assert (code, err) == (0, "") and "8 lines: 8 valid" in out
    (folder / "state.json").write_text(json.dumps(listing("data-00000-of-00001.arrow", "parts/b.arrow", "out.arrow")))
    (folder / "out.arrow").symlink_to(outside)
    code, out, err = check_folder(folder)
    assert (code, err) == (2, f'ftlint: error: saved/state.json: _data_files[2].filename "out.arrow" {OUTSIDE}\n')
    assert OUTSIDE_SECRET not in out + err


# --- JSON arrays -----------------------------------------------------------------------------

GOOD = json.dumps(OK, indent=2)  # as json.dump(records, f, indent=2) writes each element


def array(elements: list[str], close: str = "\n]\n") -> str:
    return "[\n" + ",\n".join(elements) + close


def check_array(tmp_path: Path, text: str | bytes, *args: str) -> tuple[list[tuple[int, str]], str, str]:
    path = tmp_path / "data.json"
    path.write_bytes(text.encode() if isinstance(text, str) else text)
    r = run("check", str(path), "-o", "json", "--ignore", "FT4", *args)
    text_out = run("check", str(path), "--ignore", "FT4", *args).stdout
    return findings(r.stdout), r.stdout, text_out.splitlines()[-2]


def test_a_json_array_is_read_past_a_broken_element(tmp_path: Path) -> None:
    """`[3 good, {"messages": "\\ud800"}, 9 good]`: the read used to end at the fourth element,
    and the nine after it were never checked (no schema, no secrets scan)."""
    secret = {"messages": [{"role": "user", "content": f"my key is {SECRETS['github']}"}, {"role": "assistant", "content": "ok"}]}
    elements = [GOOD] * 3 + ['{"messages": "\\ud800"}'] + [GOOD] * 5 + [json.dumps(secret, indent=2)] + [GOOD] * 3
    found, out, summary = check_array(tmp_path, array(elements))
    assert summary == "checked 1 file (openai-chat), 13 lines: 11 valid, 2 with errors (0 blank)"
    assert found[0] == (4, "FT001") and "lone UTF-16 surrogate" in json.loads(out)[0]["message"]
    assert json.loads(out)[0]["line"] == 2 + 3 * GOOD.count("\n") + 3  # where the fourth element starts in the file
    assert [line for line, code in found if code.startswith("FT6")] == [10]
    assert SECRETS["github"] not in out


ELEMENT_CASES = {
    # name: (the fourth element, its findings (line 4), extra arguments)
    "integer_over_64_bits": ('{"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b"}], '
                             '"weight": 123456789012345678901234567890}', [(4, "FT103")], ()),
    "nesting_1000": ('{"messages": ' + "[" * 1000 + "]" * 1000 + "}", [(4, "FT014")], ()),
    "nan": ('{"messages": NaN}', [(4, "FT001")], ()),
    "duplicate_key": ('{"messages": [{"role": "user", "content": "a", "content": "b"}, {"role": "assistant", "content": "c"}]}',
                      [(4, "FT013")], ()),
    "over_max_line_bytes": (json.dumps({"messages": [{"role": "user", "content": "x" * 5000},
                                                     {"role": "assistant", "content": "y"}]}, indent=2), [(4, "FT007")],
                            ("--max-line-bytes", "4096")),
    "raw_newline_in_string": ('{"messages": [{"role": "user", "content": "line one\nline two"}]}', [(4, "FT001")], ()),
}


@pytest.mark.parametrize("case", sorted(ELEMENT_CASES))
def test_an_element_is_judged_by_the_jsonl_rules_and_the_read_goes_on(case: str, tmp_path: Path) -> None:
    """Before: a number over 64 bits or deep nesting ended the read (FT009), NaN became null,
    a duplicate key was no finding, --max-line-bytes did not apply, and a raw line break in a
    string was read as a space."""
    element, expected, args = ELEMENT_CASES[case]
    found, out, summary = check_array(tmp_path, array([GOOD] * 3 + [element] + [GOOD] * 9), *args)
    assert found == expected, out
    if "\n" not in element:  # the same findings as the element on a JSONL file's fourth line
        jsonl = tmp_path / "data.jsonl"
        jsonl.write_bytes(b"\n".join([OK_LINE] * 3 + [element.encode()] + [OK_LINE] * 9) + b"\n")
        assert findings(run("check", str(jsonl), "-o", "json", "--ignore", "FT4", *args).stdout) == expected
    assert summary.startswith("checked 1 file (openai-chat), 13 lines: 12 valid, 1 with errors")
    if case == "nan":
        assert "NaN is not a JSON number" in out
    if case == "over_max_line_bytes":
        assert "element is " in out and "over the 4,096-byte limit" in out


def test_what_breaks_the_array_itself_is_a_finding_after_its_last_element(tmp_path: Path) -> None:
    """A trailing comma was accepted silently; text after the closing bracket, an empty element
    and a missing bracket are each a finding, and no element is lost. A UTF-16 array is FT008."""
    found, out, _ = check_array(tmp_path, array([GOOD] * 3, close=",\n]\n"))
    assert found == [(4, "FT001")] and "trailing comma" in out
    found, out, _ = check_array(tmp_path, array([GOOD] * 3) + '{"messages": []}\n')
    assert found == [(4, "FT001")] and "text after the array's closing bracket" in out
    found, out, summary = check_array(tmp_path, "[" + GOOD + ",," + GOOD + "]")
    assert found == [(2, "FT001")] and "empty element" in out and "3 lines" in summary
    found, out, _ = check_array(tmp_path, "[" + GOOD + ", " + GOOD)
    assert found == [(3, "FT001")] and "ends before the array's closing bracket" in out
    assert check_array(tmp_path, array([GOOD] * 3).encode("utf-16-le"))[0] == [(1, "FT008")]  # as a UTF-16 JSONL file


def test_a_300_megabyte_unterminated_string_is_one_finding_in_bounded_memory(tmp_path: Path) -> None:
    """It was parsed again on every block: quadratic (120 s and 1.2 GB, unfinished). Now the
    scanner passes over each block once; memory is the 128 MiB element limit and one block."""
    path = tmp_path / "huge.json"
    with open(path, "wb") as fh:
        fh.write(b"[" + GOOD.encode() + b',\n{"messages": "')
        block = b"x" * (1 << 20)
        for _ in range(300):
            fh.write(block)
    code, found, err, peak = check_limited(path, timeout=120)
    assert (code, err) == (1, "")
    assert [(f["line"], f["element"], f["code"]) for f in found] == [(2 + GOOD.count("\n"), 2, "FT007")]
    assert f"element is {(300 << 20) + len(WRAPPER) - 2:,} bytes" in found[0]["message"]  # no closing '"}'
    assert peak < 128 + 150, peak


def test_block_boundaries_do_not_change_the_elements(tmp_path: Path) -> None:
    """The scanner keeps its state across blocks: read in blocks of a few bytes (so strings,
    escapes, brackets and separators straddle them), an array yields what it yields read whole,
    and a valid array's elements are what the json module reads."""
    from array import array as array_of

    from hypothesis import given, settings
    from hypothesis import strategies as st

    from ftlint.read.json_array import JsonArray
    from ftlint.rules.file import line_hits

    def items(data: bytes, block: int, limit: int = 1 << 20) -> list[object]:
        path = tmp_path / "a.json"
        path.write_bytes(data)
        starts = array_of("q")
        with open(path, "rb") as fh:
            found = [(n, item if isinstance(item, bytes) else [(code, hit.message) for code, hit in line_hits(item)])
                     for n, item in JsonArray(fh).items(limit, block, starts)]  # type: ignore[arg-type]
        assert len(starts) == len(found)  # a first line for every item
        return [*found, list(starts)]

    leaf = st.none() | st.booleans() | st.integers() | st.text(alphabet='ab"\\\n{}[],é\u2028', max_size=6)
    value = st.recursive(leaf, lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3),
                         max_leaves=12)
    noise = st.sampled_from([b"[", b"]", b"{", b"}", b",", b'"', b"\\", b" ", b"\n", b"1", b'"a"', b"\\\""])

    @settings(max_examples=300, deadline=None)
    @given(st.lists(value, max_size=6), st.sampled_from([None, 2]), st.booleans(), st.lists(noise, max_size=12), st.integers(1, 7))
    def same(values: list, indent: int | None, ascii: bool, junk: list[bytes], block: int) -> None:
        data = json.dumps(values, indent=indent, ensure_ascii=ascii).encode()
        whole = items(data, 1 << 20)
        assert [json.loads(item) for _, item in whole[:-1]] == values  # type: ignore[misc]
        assert whole[-1] == element_lines(data.decode()) if values else True  # each element's first line, as json reads it
        assert items(data, block) == whole
        broken = data[:-1] + b"".join(junk)  # invalid: the same items whatever the blocks
        assert items(broken, block) == items(broken, 1 << 20)
        assert items(broken, block, limit=8) == items(broken, 1 << 20, limit=8)

    same()

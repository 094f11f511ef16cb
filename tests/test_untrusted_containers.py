"""Untrusted repositories, second round (issue 24, items 2, 3 and 6): compressed files decompress
a bounded step at a time, and a save_to_disk folder reads nothing outside itself. Real files, real
processes; the bombs run under an address-space cap, their peak memory measured."""

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
from untrusted import run_limited

from conftest import FIXTURES, ROOT, run

OK = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
OK_LINE = json.dumps(OK).encode()
CAP_MIB = 512  # ftlint checks a JSONL file in about 40 MiB; a bomb decompressed whole needs gigabytes
GIB = 1 << 30
WRAPPER = b'{"messages": ""}'  # the bombs' long line, less its content
RUN = 64 << 20  # one compressed run of 'x': the bombs repeat it


def findings(out: str) -> list[tuple[int, str]]:
    return [(f["line"], f["code"]) for f in json.loads(out)]


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

"""Untrusted repositories, second round (issue 24, items 2, 3 and 6): compressed files decompress
a bounded step at a time. Real files, real processes; the bombs run under an address-space cap,
their peak memory measured."""

from __future__ import annotations

import gzip
import json
import struct
from pathlib import Path

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

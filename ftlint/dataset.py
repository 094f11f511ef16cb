"""Dataset-wide findings, computed once over the fingerprint rows of the valid lines (polars).

Each record carries two 64-bit fingerprints, made in the workers:
  exact  the record's compact JSON with sorted keys (key order and white space outside strings
         do not matter, so two lines that parse to the same object match)
  near   the same text lower-cased (ASCII) with all white space removed (spaces, and the escaped
         \\n, \\t, \\r): records that differ only in case or white space match
Both are the first 8 bytes of a SHA-1 (hardware-accelerated in OpenSSL: about 1 GB/s, twice
blake2b). Collisions of 64-bit hashes are negligible below billions of records.
"""

from __future__ import annotations

import re
from hashlib import sha1
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    import polars as pl



def fingerprint(data: bytes) -> int:
    """A 64-bit signed fingerprint (it fits a polars Int64 column)."""
    return int.from_bytes(sha1(data).digest()[:8], "little", signed=True)


_ESCAPED_SPACE = re.compile(rb"\\[ntr]")  # one pass for the three escapes (three replaces cost 2x)
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def near_form(compact: bytes) -> bytes:
    """The text the near fingerprint hashes: lower case, no white space. One `translate` pass
    lowers ASCII letters and drops spaces; compact JSON holds no other raw white space
    (newlines and tabs inside strings are escaped), and the escapes \\n, \\t, \\r go in one
    regex pass, only in records with a backslash at all."""
    text = compact.translate(_ASCII_LOWER, b" ")
    return _ESCAPED_SPACE.sub(b"", text) if b"\\" in text else text


def fingerprints(compact: bytes) -> tuple[int, int]:
    """(exact, near) fingerprints of a record's compact JSON (sorted keys)."""
    return fingerprint(compact), fingerprint(near_form(compact))


def hex_fingerprint(value: int) -> str:
    """A fingerprint as 16 hex digits, as findings carry it."""
    return f"{value & 0xFFFF_FFFF_FFFF_FFFF:016x}"


Row = tuple[int, int, str]  # (file index, line, fingerprint of the record as hex)


def duplicate_pairs(frame: pl.DataFrame) -> Iterator[tuple[str, str, Row, tuple[int, int]]]:
    """(code, what, the later record, (file, line) of its first occurrence): FT402 for a record
    identical to an earlier one, FT403 for one that differs from an earlier one only in case or
    white space. The first occurrence is never reported. In file and line order."""
    import polars as pl

    frame = frame.unique(subset=["file", "line"], keep="first", maintain_order=True)  # a line's expanded records are one
    if frame.height < 2:
        return
    marked = frame.select("file", "line", "exact", "near").with_row_index("row").with_columns(
        exact_first=pl.col("row").first().over("exact"),
        near_first=pl.col("row").first().over("near"),
    )
    first = marked.select(pl.col("row").alias("ref"), pl.col("file").alias("ref_file"), pl.col("line").alias("ref_line"))
    exact = marked.filter(pl.col("row") != pl.col("exact_first")).join(first, left_on="exact_first", right_on="ref")
    near = (marked.filter((pl.col("row") == pl.col("exact_first")) & (pl.col("row") != pl.col("near_first")))
            .join(first, left_on="near_first", right_on="ref"))
    out = []
    for code, rows, what in (("FT402", exact, "exact duplicate of"),
                             ("FT403", near, "near-duplicate (differs only in case or white space) of")):
        for r in rows.iter_rows(named=True):
            out.append((code, what, (r["file"], r["line"], hex_fingerprint(r["exact"])), (r["ref_file"], r["ref_line"])))
    out.sort(key=lambda item: (item[2][0], item[2][1], item[0]))
    yield from out


def leaked(train: pl.DataFrame, validation: pl.DataFrame) -> Iterator[tuple[Row, tuple[int, int]]]:
    """Each validation record whose text (up to case and white space) is also in the training
    data, with (file, line) of its first occurrence there."""
    import polars as pl

    if train.height == 0 or validation.height == 0:
        return
    seen = train.group_by("near").agg(pl.col("file").first().alias("t_file"), pl.col("line").first().alias("t_line"))
    hits = validation.select("file", "line", "near", "exact").unique(subset=["file", "line"], keep="first").join(seen, on="near")
    for r in hits.sort("file", "line").iter_rows(named=True):
        yield (r["file"], r["line"], hex_fingerprint(r["exact"])), (r["t_file"], r["t_line"])

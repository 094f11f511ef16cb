"""Fingerprints of records, and the queries dataset-wide checks make over them (rules/dataset.py
words the findings): one fingerprint row per valid line, searched in Python when few, in polars
when many.

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
from array import array
from collections.abc import Sequence
from dataclasses import dataclass
from hashlib import sha1
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Iterator

    import polars as pl

PRINT_COLUMNS = ("file", "line", "records", "exact", "near", "prompt")  # one fingerprint row per valid line


def frame_of(columns: dict[str, array]) -> pl.DataFrame:
    """Fingerprint columns as a polars frame of Int64 columns."""
    import polars as pl

    return pl.DataFrame({c: pl.Series(c, v, dtype=pl.Int64) for c, v in columns.items()})



@dataclass(frozen=True)
class DatasetView:
    """The fingerprints of the files checked together, for dataset-wide checks: a polars frame,
    or (fewer than CHUNK_ROWS lines) the columns themselves, searched without polars."""

    frame: pl.DataFrame | None
    paths: list[str]
    rows: dict[str, array] | None = None
    starts: tuple[Sequence[int] | None, ...] = ()  # per file, a JSON array's elements' first lines (engine/places.py)

    def where(self, file: int, line: int) -> str:
        """A record as a finding names it: path:line, an element of a JSON array on the line it starts on."""
        starts = self.starts[file] if file < len(self.starts) else None
        if not starts or not 0 < line <= len(starts):
            return f"{self.paths[file]}:{line}"
        return f"{self.paths[file]}:{starts[line - 1]} (element {line})"


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


Pair = tuple[str, Row, Row]  # ("exact" or "near", the later record, its first occurrence)


def duplicate_pairs(view: DatasetView) -> Iterator[Pair]:
    """(how, the later record, its first occurrence): "exact" for a record
    identical to an earlier one, "near" for one that differs from an earlier one only in case or
    white space. The first occurrence is never reported. In file and line order. Few rows are
    searched in Python (a small file's check never imports polars), many in polars: the two
    give the same pairs (tests/records/test_dataset.py)."""
    if view.rows is not None:
        yield from _duplicates_of_rows(view.rows)
    else:
        assert view.frame is not None
        yield from _duplicates_of_frame(view.frame)


def _duplicates_of_rows(rows: dict) -> Iterator[Pair]:
    first_exact: dict[int, int] = {}
    first_near: dict[int, int] = {}
    files, lines = rows["file"], rows["line"]
    for r, (file, line, exact, near) in enumerate(zip(files, lines, rows["exact"], rows["near"], strict=True)):
        e, n = first_exact.setdefault(exact, r), first_near.setdefault(near, r)
        if e != r:
            yield "exact", (file, line, hex_fingerprint(exact)), (files[e], lines[e], hex_fingerprint(rows["exact"][e]))
        elif n != r:
            yield "near", (file, line, hex_fingerprint(exact)), (files[n], lines[n], hex_fingerprint(rows["exact"][n]))


def _duplicates_of_frame(frame: pl.DataFrame) -> Iterator[Pair]:
    import polars as pl

    if frame.height < 2:
        return
    marked = frame.select("file", "line", "exact", "near").with_row_index("row").with_columns(
        exact_first=pl.col("row").first().over("exact"),
        near_first=pl.col("row").first().over("near"),
    )
    first = marked.select(pl.col("row").alias("ref"), pl.col("file").alias("ref_file"), pl.col("line").alias("ref_line"),
                          pl.col("exact").alias("ref_exact"))
    exact = marked.filter(pl.col("row") != pl.col("exact_first")).join(first, left_on="exact_first", right_on="ref")
    near = (marked.filter((pl.col("row") == pl.col("exact_first")) & (pl.col("row") != pl.col("near_first")))
            .join(first, left_on="near_first", right_on="ref"))
    out = []
    for how, rows in (("exact", exact), ("near", near)):
        for r in rows.iter_rows(named=True):
            out.append((how, (r["file"], r["line"], hex_fingerprint(r["exact"])),
                        (r["ref_file"], r["ref_line"], hex_fingerprint(r["ref_exact"]))))
    out.sort(key=lambda item: (item[1][0], item[1][1], item[0]))
    yield from out


def leaked(train: DatasetView, validation: DatasetView) -> Iterator[tuple[Row, Row]]:
    """Each validation record whose text (up to case and white space) is also in the training
    data, with its first occurrence there."""
    if train.rows is not None and validation.rows is not None:
        seen: dict[int, Row] = {}
        t = train.rows
        for file, line, near, exact in zip(t["file"], t["line"], t["near"], t["exact"], strict=True):
            if near not in seen:
                seen[near] = (file, line, hex_fingerprint(exact))
        v = validation.rows
        for file, line, near, exact in zip(v["file"], v["line"], v["near"], v["exact"], strict=True):
            if near in seen:
                yield (file, line, hex_fingerprint(exact)), seen[near]
        return
    yield from _leaked_frames(_frame(train), _frame(validation))


def _frame(view: DatasetView) -> pl.DataFrame:
    if view.frame is not None:
        return view.frame
    assert view.rows is not None
    return frame_of(view.rows)


def _leaked_frames(train: pl.DataFrame, validation: pl.DataFrame) -> Iterator[tuple[Row, Row]]:
    import polars as pl

    if train.height == 0 or validation.height == 0:
        return
    seen = train.group_by("near").agg(pl.col("file").first().alias("t_file"), pl.col("line").first().alias("t_line"),
                                      pl.col("exact").first().alias("t_exact"))
    hits = validation.select("file", "line", "near", "exact").join(seen, on="near")
    for r in hits.sort("file", "line").iter_rows(named=True):
        yield (r["file"], r["line"], hex_fingerprint(r["exact"])), (r["t_file"], r["t_line"], hex_fingerprint(r["t_exact"]))

"""Files that hold records without being JSONL: Parquet and Arrow IPC (a file, or a
`datasets.save_to_disk` folder of them: save_to_disk.py). Each is read in batches and handed to
the JSONL pipeline as one compact JSON line per row, so everything ftlint does for JSONL (check,
estimate, diff, the hook) works on it, and a finding's line number is the row's (1-based). A
top-level JSON array is read element by element instead: json_array.py.

Columnar files cannot tell a missing field from a null one (a message struct without "weight"
has weight null), so null values are dropped from every object, as trainers read them
(transformers drops null-valued message keys too). Memory stays flat: one batch of rows at a
time.
"""

from __future__ import annotations

import base64
import datetime as dt
import io
import re
from collections.abc import Iterator
from typing import Any

import orjson

PARQUET_MAGIC = b"PAR1"
ARROW_FILE_MAGIC = b"ARROW1"
ARROW_STREAM_MAGIC = b"\xff\xff\xff\xff"
BATCH_ROWS = 4096  # rows per slice: 8,192 held 30 MiB more while their Python rows were made, 2,048 read 30% slower
LINES_BUFFER = 1 << 20


JSONL_NAMES = (".jsonl", ".ndjson", ".jsonl.gz", ".jsonl.zst")


def kind_of(path: str, head: bytes) -> str | None:
    """'parquet', 'arrow', 'arrow-stream', 'json-array', or None (JSONL) from a file's first bytes.
    A file named as JSONL is JSONL whatever its bytes: they are findings of its lines."""
    if path.lower().endswith(JSONL_NAMES):
        return None
    if head.startswith(PARQUET_MAGIC):
        return "parquet"
    if head.startswith(ARROW_FILE_MAGIC):
        return "arrow"
    if head.startswith(ARROW_STREAM_MAGIC) and path.endswith(".arrow"):
        return "arrow-stream"
    if path.lower().endswith(".json") and head.lstrip(b" \t\r\n\xef\xbb\xbf")[:1] == b"[":
        return "json-array"  # only a .json file: a JSONL file whose first line is an array stays JSONL
    return None


def row_line(row: dict) -> bytes:
    """A row as Python reads it from polars, as one compact JSON line (no line end): null fields
    dropped, bytes as base64, dates as text."""
    return orjson.dumps(_plain(row), default=_default)


def _plain(value: Any) -> Any:
    """A row as JSON types, without null fields (a struct's absent keys)."""
    if isinstance(value, dict):
        return {k: _plain(v) for k, v in value.items() if v is not None}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    return value


def _default(value: object) -> object:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return base64.b64encode(bytes(value)).decode("ascii")
    if isinstance(value, (dt.date, dt.datetime, dt.time, dt.timedelta)):
        return str(value)
    return repr(value)


def _frames(kind: str, path: str) -> Iterator[Any]:
    import polars as pl

    if kind == "arrow-stream":  # save_to_disk's shards: read one shard at a time
        frame = pl.read_ipc_stream(path)
        for offset in range(0, frame.height, BATCH_ROWS):
            yield frame.slice(offset, BATCH_ROWS)
        return
    lazy = pl.scan_parquet(path) if kind == "parquet" else pl.scan_ipc(path)
    # slices of the lazy scan, not collect_batches: polars reads only the row groups a slice needs,
    # where collect_batches runs the whole scan ahead into its buffer (measured: 161 against 309 MiB
    # peak for a 136 MB, 400,000-row file). A file of one huge row group is read as that group.
    total = lazy.select(pl.len()).collect().item()
    for offset in range(0, total, BATCH_ROWS):
        yield lazy.slice(offset, BATCH_ROWS).collect()


# A null member of an object in polars' NDJSON, where its key is plain ASCII: a later one with
# its comma, a first one with the comma after it. Inside a string a quote is escaped, so neither
# a `,"` nor a `{"` there can start a match (the key class holds no structural character).
_LATER_NULL = re.compile(rb',"[A-Za-z0-9_ .@#$+-]*":null')
_FIRST_NULL = re.compile(rb'\{"[A-Za-z0-9_ .@#$+-]*":null,?')
NDJSON_ROWS = 512  # rows per NDJSON block: about 1.6 MB of chat rows


def _json_native(dtype: Any) -> bool:
    """Whether polars writes values of this type as the JSON the row would be: strings, numbers,
    booleans and nulls, in lists and structs (not bytes, dates, decimals)."""
    import polars as pl

    if isinstance(dtype, (pl.List, pl.Array)):
        return _json_native(dtype.inner)
    if isinstance(dtype, pl.Struct):
        return all(_json_native(f.dtype) for f in dtype.fields)
    return dtype in (pl.String, pl.Boolean, pl.Null, pl.Float32, pl.Float64) or dtype.is_integer()


def _non_finite(expr: Any, dtype: Any) -> list[Any]:
    """Expressions, one per float leaf, true where the column holds a NaN or an infinity anywhere."""
    import polars as pl

    if dtype in (pl.Float32, pl.Float64):
        return [(expr.is_nan() | expr.is_infinite()).any()]
    if isinstance(dtype, (pl.List, pl.Array)):
        return _non_finite(expr.explode() if isinstance(dtype, pl.List) else expr.arr.explode(), dtype.inner)
    if isinstance(dtype, pl.Struct):
        return [e for f in dtype.fields for e in _non_finite(expr.struct.field(f.name), f.dtype)]
    return []


def _ndjson(frame: Any) -> bytes | None:
    """The rows as JSON lines written by polars (no Python object per value: a slice of rows costs
    its text, not ten times that), without null members. None where that could differ from the
    slow path: a null that stays (a key with an escape or an unusual character, the text '":null'
    inside a string), or a NaN or infinity (polars writes null, removed here; the slow path keeps
    the key with null, which the schema then reports)."""
    import polars as pl

    checks = [e for name, dtype in frame.schema.items() for e in _non_finite(pl.col(name), dtype)]
    if checks and frame.select(pl.any_horizontal(checks)).item():
        return None
    data = frame.write_ndjson().encode("utf-8")
    if b":null" not in data:
        return data
    data = _FIRST_NULL.sub(b"{", _LATER_NULL.sub(b"", data))
    return None if b'":null' in data else data


def table_lines(kind: str, path: str) -> Iterator[bytes]:
    """Each row of a Parquet or Arrow file as one JSON line (yielded a block of lines at a time)."""
    native: bool | None = None
    for frame in _frames(kind, path):
        if native is None:
            native = all(_json_native(dtype) for dtype in frame.schema.values())
        for offset in range(0, frame.height, NDJSON_ROWS):
            rows = frame.slice(offset, NDJSON_ROWS)
            block = _ndjson(rows) if native else None
            if block is not None:
                yield block
                continue
            for row in rows.iter_rows(named=True):
                yield row_line(row) + b"\n"


class LineStream(io.RawIOBase):
    """A readable binary stream over generated lines (for the JSONL reader)."""

    def __init__(self, lines: Iterator[bytes], closing: object = None) -> None:
        self._lines = lines
        self._pending = b""
        self._closing = closing

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        while not self._pending:
            try:
                self._pending = next(self._lines)
            except StopIteration:
                return 0
            except OSError:
                raise
            except Exception as exc:  # polars on a damaged file: the reader reports a broken stream and goes on with the next file
                raise OSError(f"cannot read the rows: {str(exc).splitlines()[0][:200]}") from None
        n = min(len(buffer), len(self._pending))
        buffer[:n] = self._pending[:n]
        self._pending = self._pending[n:]  # a block of lines is larger than the buffer: a few copies of it
        return n

    def close(self) -> None:
        close = getattr(self._closing, "close", None)
        if callable(close):
            close()
        super().close()


def open_container(path: str, kind: str, stream: io.BufferedIOBase) -> io.BufferedReader:
    """A Parquet or Arrow file (`kind` as kind_of says) as a stream of JSON lines."""
    stream.close()
    import polars as pl

    if kind == "parquet":  # the footer, read now: a damaged file is one line of error, not a finding per row
        pl.read_parquet_schema(path)
    elif kind == "arrow":
        pl.read_ipc_schema(path)
    return io.BufferedReader(LineStream(table_lines(kind, path)), buffer_size=LINES_BUFFER)

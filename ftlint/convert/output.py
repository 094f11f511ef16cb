"""Where `ftlint convert` writes: OUT checked before a line is read (a file in a folder that is
there), then the converted rows written to a temporary file beside it and renamed into place
(atomic.py), JSONL as they come or Parquet for a .parquet name. What cannot be written is one
line (UsageError), never a traceback."""

from __future__ import annotations

import os
from collections.abc import Iterator

from ..atomic import atomic_path, atomic_text_writer
from ..errors import UsageError


def writable(output: str) -> None:
    """Refuse, before a line is read, an OUT that names a folder (`newdir/`) or lies in a folder
    that is not there: ftlint writes a temporary file beside OUT and renames it into place."""
    if output.endswith(("/", os.sep)) or os.path.basename(output) in ("", ".", ".."):
        raise UsageError(f"OUT {output}: names a folder; give the file to write")
    folder = os.path.dirname(os.path.abspath(output))
    if not os.path.isdir(folder):
        raise UsageError(f"OUT {output}: no such folder {folder}")


def write_rows(output: str, rows: Iterator[bytes]) -> None:
    """JSONL as the rows come, or Parquet for a .parquet name (a frame of all the rows), by a
    temporary file renamed into place (atomic.py)."""
    if not output.endswith(".parquet"):
        try:
            with atomic_text_writer(output) as fh:
                for row in rows:
                    fh.write(row.decode("utf-8", "surrogateescape") + "\n")
        except OSError as exc:  # a full disk, a folder it may not write in (/proc/self)
            raise UsageError(f"OUT {output}: cannot write it: {exc.strerror or exc}") from None
        return
    import orjson
    import polars as pl

    records = [orjson.loads(row) for row in rows]
    try:
        with atomic_path(output, ".parquet") as tmp:
            (pl.DataFrame(records, infer_schema_length=None) if records else pl.DataFrame()).write_parquet(tmp)
    except OSError as exc:
        raise UsageError(f"OUT {output}: cannot write it: {exc.strerror or exc}") from None
    except Exception as exc:  # polars cannot make one frame of the records (types that differ row to row)
        raise UsageError(f"{output}: cannot write the records as Parquet ({str(exc).splitlines()[0][:200]}); write JSONL") from None

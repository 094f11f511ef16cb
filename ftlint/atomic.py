"""Everything ftlint writes goes to a temporary file beside the target, then is renamed into
place: a reader never sees half a report, and a failed run leaves the old file untouched."""

from __future__ import annotations

import contextlib
import os
import tempfile
from collections.abc import Iterator
from typing import IO


def mode_for(path: str) -> int:
    """The replaced file's permissions, or what the umask gives a new file (mkstemp's are 0600)."""
    try:
        return os.stat(path).st_mode & 0o7777
    except OSError:
        mask = os.umask(0)
        os.umask(mask)
        return 0o666 & ~mask


@contextlib.contextmanager
def atomic_text_writer(path: str) -> Iterator[IO[str]]:
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ftlint-", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", errors="surrogateescape", newline="\n") as fh:
            yield fh
            fh.flush()
            os.fchmod(fh.fileno(), mode_for(path))
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise


@contextlib.contextmanager
def atomic_path(path: str, suffix: str = ".tmp") -> Iterator[str]:
    """The name of a temporary file beside `path`, for a writer that takes a name (polars'
    write_parquet); renamed onto `path`, with the permissions a new file there would get, once the
    block ends; removed if it fails."""
    directory = os.path.dirname(os.path.abspath(path))
    fd, tmp = tempfile.mkstemp(prefix=".ftlint-", suffix=suffix, dir=directory)
    os.close(fd)
    try:
        yield tmp
        os.chmod(tmp, mode_for(path))  # mkstemp's are 0600
        os.replace(tmp, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise

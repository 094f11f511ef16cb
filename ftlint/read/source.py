"""Opening a path: stdin, a file, a folder; compressed data decompressed and a container (Parquet,
Arrow, a save_to_disk folder, a JSON array) told by its bytes, each handed on by its own reader."""

from __future__ import annotations

import io
import os
import stat
import sys
from typing import TYPE_CHECKING, Any, BinaryIO

from .base import READ_BLOCK, InputError
from .compressed import compression, decompressed

if TYPE_CHECKING:
    from .json_array import JsonArray


def display_name(path: str) -> str:
    return "<stdin>" if path == "-" else path


def open_binary(path: str) -> BinaryIO | JsonArray:
    """Open a path ('-' is stdin) for binary reading, transparently decompressing gzip and zstd
    data (recognised by their magic bytes, whatever the file is called). A Parquet or Arrow file
    or a save_to_disk folder comes as a stream of JSON lines, a JSON array as a `JsonArray`."""
    if path == "-":
        if sys.stdin is None or sys.stdin.closed:
            raise InputError("<stdin>: standard input is closed")
        raw: BinaryIO = sys.stdin.buffer
    else:
        folder = _folder(path)
        if folder is not None:
            return folder
        try:
            # a 1 MiB buffer: readline on the default 8 KiB one cost 3x the CPU on long lines
            raw = open(path, "rb", buffering=READ_BLOCK)  # noqa: SIM115 - closed by the caller
        except PermissionError:
            raise InputError(f"{path}: permission denied") from None
        except OSError as exc:
            raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    buffered = raw if isinstance(raw, io.BufferedReader) else io.BufferedReader(raw)  # type: ignore[type-var]
    try:
        head = buffered.peek(8)[:8]
    except OSError as exc:
        raise InputError(f"{display_name(path)}: cannot read: {exc.strerror or exc}") from None
    packed = compression(head)
    if packed is not None:
        return decompressed(buffered, packed)
    if path == "-":
        return buffered
    return _container(path, head, buffered)


def refuse_folder(path: str) -> None:
    """InputError when `path` is a folder that is not a save_to_disk dataset: said before a run
    starts, not after its summary (a missing or unreadable file is said where it is read)."""
    try:
        is_folder = stat.S_ISDIR(os.stat(path).st_mode)
    except OSError:
        return
    if is_folder:
        rows = _folder(path)
        if rows is not None:
            rows.close()


def _folder(path: str) -> io.BufferedReader | None:
    """A save_to_disk folder's rows (None: `path` is no folder); InputError for another folder."""
    try:
        st = os.stat(path)
    except FileNotFoundError:
        # a flag after `--` is a path: pre-commit puts a hook's args after its entry's `--`
        hint = " (after `--` every argument is a path: give flags before it)" if path.startswith("-") else ""
        raise InputError(f"{path}: no such file{hint}") from None
    except OSError as exc:
        raise InputError(f"{path}: cannot read: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        return None
    from .save_to_disk import open_folder

    folder = open_folder(path)
    if folder is None:
        raise InputError(f"{path}: is a directory, not a JSONL file (nor a datasets.save_to_disk folder)")
    return folder


def _container(path: str, head: bytes, buffered: io.BufferedReader[Any]) -> BinaryIO | JsonArray:
    """A file's own reader, by its first bytes: JSONL (the file itself), a JSON array, a table."""
    from .tables import kind_of, open_container

    kind = kind_of(path, head)
    if kind == "json-array":
        from .json_array import JsonArray

        return JsonArray(buffered)
    if kind is not None:
        try:
            return open_container(path, kind, buffered)
        except Exception as exc:  # polars: not a readable Parquet or Arrow file
            raise InputError(f"{path}: cannot read it as {kind}: {str(exc).splitlines()[0][:200]}") from None
    return buffered

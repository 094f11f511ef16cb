"""A `datasets.save_to_disk` folder, read as one stream of JSON lines: its Arrow files in order.

The folder comes with the pull request, so its state.json is as untrusted as its rows. The files
it names are those `Dataset.load_from_disk` reads (datasets/arrow_dataset.py: the folder joined
with each `state["_data_files"][i]["filename"]`); without a state.json, the folder's *.arrow
files, sorted. Each must be a regular file inside the folder, symlinks followed, so a folder
cannot make ftlint read a file elsewhere (and quote its columns and values in findings, hence in
pull-request annotations), tell by its messages whether a path exists on the machine, or hang on
a FIFO. Whether a name lands outside is decided from the name and the folder's own links, before
anything it names is looked at, and said in one message either way.

A folder that breaks a rule is a one-line error (exit 2), given before any row is read: ftlint
cannot tell which rows the dataset holds, as with a damaged Parquet footer. A data file that is
damaged inside is a broken stream at the row where its reading broke, as before.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from pathlib import Path

import orjson

from .. import trust
from ..diagnostics import short_json
from .base import InputError
from .tables import LINES_BUFFER, LineStream, kind_of, table_lines


def open_folder(path: str) -> io.BufferedReader | None:
    """The folder as one stream of JSON lines (None: not a save_to_disk folder)."""
    files = data_files(path)
    if files is None:
        return None

    def lines() -> Iterator[bytes]:
        for file in files:
            with open(file, "rb") as fh:  # a regular file (data_files): opening it cannot block
                head = fh.read(8)
            yield from table_lines(kind_of(file, head) or "arrow-stream", file)

    return io.BufferedReader(LineStream(lines()), buffer_size=LINES_BUFFER)


def data_files(path: str) -> list[str] | None:
    """The folder's Arrow files, in order, resolved; None if it is not a save_to_disk folder."""
    folder = Path(path)
    if os.path.lexists(folder / "state.json"):
        _inside(folder, "state.json", f"{path}: state.json")
        named = _listed(folder / "state.json")
    else:
        named = [(p.name, f"{path}: data file {short_json(p.name, 80)}") for p in sorted(folder.glob("*.arrow"))]
        if not named:
            return None
    files = []
    for name, where in named:
        file = _inside(folder, name, where)
        if not trust.is_regular(file):
            what = "not a regular file (a FIFO, a device or a folder)" if os.path.lexists(file) else "no such file"
            raise InputError(f"{where}: {what}; expected an Arrow file")
        files.append(str(file))
    return files


def _listed(state: Path) -> list[tuple[str, str]]:
    """The file names state.json lists, each with the words that place it in an error."""
    shown = str(state)
    try:
        data = trust.read_file(state, "save_to_disk state file", trust.MAX_STATE_BYTES)
    except trust.Refused as exc:
        raise InputError(str(exc)) from None
    try:
        listed = orjson.loads(data)  # not json: orjson has a depth limit where json would recurse
    except orjson.JSONDecodeError as exc:
        raise InputError(f"{shown}: not valid JSON ({exc.msg}); datasets.save_to_disk writes a JSON object") from None
    files = listed.get("_data_files") if isinstance(listed, dict) else None
    if not isinstance(files, list) or not files:
        raise InputError(f'{shown}: expected an object whose "_data_files" lists the data files, '
                         'each as {"filename": NAME}, as datasets.save_to_disk writes it')
    named = []
    for i, entry in enumerate(files):
        name = entry.get("filename") if isinstance(entry, dict) else None
        if not isinstance(name, str) or not name or "\x00" in name:
            got = short_json(name, 80) if isinstance(entry, dict) and "filename" in entry else f"missing ({short_json(entry)})"
            raise InputError(f"{shown}: _data_files[{i}].filename is {got}, expected the name of a file in the folder")
        named.append((name, f"{shown}: _data_files[{i}].filename {short_json(name, 80)}"))
    return named


def _inside(folder: Path, name: str, where: str) -> Path:
    """`folder / name` resolved, if it is inside the folder: a relative name without '..' whose
    links (followed) stay in the folder; else an InputError that says only that."""
    candidate = folder / name
    if os.path.isabs(name) or ".." in Path(name).parts or not trust.inside(candidate, folder):
        raise InputError(f"{where} is outside the folder {folder} (symbolic links followed); "
                         "a save_to_disk folder's files lie inside it")
    return candidate.resolve()

"""What the commands read and write: inputs (globs expanded), the report's destination, and the
progress line on a terminal."""

from __future__ import annotations

import contextlib
import os
import stat
import sys
import time
from collections.abc import Iterator
from typing import IO


class OutputRefused(Exception):
    """--output-file names something ftlint must not replace: exit 2."""


def expand(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Expand globs the shell did not (quoted, from a config, or on Windows); `**` reaches into
    folders. A pattern that matches nothing is an error, as a missing file is."""
    import glob

    from ..errors import UsageError

    out: list[str] = []
    for path in paths:
        if path != "-" and not os.path.exists(path) and glob.has_magic(path):
            matches = sorted(glob.glob(path, recursive=True))
            if not matches:
                raise UsageError(f"{path}: no file matches")
            out.extend(m for m in matches if os.path.isfile(m))
        else:
            out.append(path)
    return tuple(out)


def _identity(st: os.stat_result) -> tuple[int, int]:
    return st.st_dev, st.st_ino


def input_identities(paths: tuple[str, ...]) -> set[tuple[int, int]]:
    """(device, inode) of every input, so that no name of one (a hard link, a symlink, the file
    standard input is redirected from) can be written over."""
    found = set()
    for path in paths:
        with contextlib.suppress(OSError):
            if path != "-":
                found.add(_identity(os.stat(path)))
        with contextlib.suppress(AttributeError, ValueError, OSError):  # standard input may be closed
            if path == "-":
                found.add(_identity(os.fstat(sys.stdin.fileno())))
    return found


def check_target(output_file: str, inputs: tuple[str, ...], what: str = "--output-file") -> None:
    """Refuse a target that is one of the inputs (by any name), a symbolic link (renaming onto it
    would replace the link), or an existing file that is not a regular file (a device, a pipe, a
    directory): ftlint replaces its target by renaming a new file onto it."""
    try:
        st = os.stat(output_file)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputRefused(f"{what} {output_file}: {exc.strerror or exc}") from None
    same = [p for p in inputs if p != "-" and os.path.abspath(p) == os.path.abspath(output_file)]
    if same or (st is not None and _identity(st) in input_identities(inputs)):
        raise OutputRefused(f"{what} {output_file} is one of the inputs; ftlint never writes over an input")
    if os.path.islink(output_file):
        raise OutputRefused(f"{what} {output_file} is a symbolic link; ftlint replaces its target by renaming a "
                            "new file onto it, which would replace the link: name the file itself")
    if st is not None and not stat.S_ISREG(st.st_mode):
        raise OutputRefused(f"{what} {output_file} exists and is not a regular file; ftlint writes reports to "
                            "regular files only (use standard output for a pipe or a device)")


@contextlib.contextmanager
def destination(output_file: str | None, inputs: tuple[str, ...]) -> Iterator[IO[str]]:
    if output_file is None:
        if sys.stdout is None:  # started with standard output closed
            raise OutputRefused("standard output is closed; give --output-file")
        yield sys.stdout
        return
    check_target(output_file, inputs)
    from ..atomic import atomic_text_writer

    try:
        with atomic_text_writer(output_file) as fh:
            yield fh
    except OSError as exc:
        raise OutputRefused(f"cannot write {output_file}: {exc.strerror or exc}") from None


class ProgressBar:
    """One line on a terminal's stderr, redrawn at most 5 times a second; silent elsewhere."""

    def __init__(self, paths: tuple[str, ...]) -> None:
        from ..report.escape import terminal_safe

        self.safe = terminal_safe
        # a compressed file's size says nothing of how much text it holds: no share for those
        self.sizes = {p: os.stat(p).st_size for p in paths if p != "-" and not p.endswith((".gz", ".parquet", ".arrow", ".json"))
                      and os.path.isfile(p)}
        self.last = 0.0
        self.drawn = False

    def __call__(self, path: str, done: int) -> None:
        now = time.monotonic()
        if now - self.last < 0.2:
            return
        self.last = now
        total = self.sizes.get(path)
        share = f" / {total / 1e6:,.1f} MB ({min(done / total, 1):.0%})" if total else " MB"
        sys.stderr.write(f"\rftlint: {self.safe(path)}: {done / 1e6:,.1f}{share}\x1b[K")
        sys.stderr.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def progress_for(paths: tuple[str, ...]) -> ProgressBar | None:
    return ProgressBar(paths) if sys.stderr.isatty() else None

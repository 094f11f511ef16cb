"""What ftlint trusts: the files it reads besides the data, where they may be and what they may be.

In CI ftlint runs on strangers' pull requests, where the repository's own files are as untrusted
as its data. Two rules, enforced here and nowhere else:

- **A path a configuration file names stays inside the folder of that file.** `confine` resolves
  it against the folder (symlinks followed) and refuses it, naming the key, when it lands outside:
  a pull request cannot point ftlint at `/etc/passwd` or `../outside/template.jinja` to change the
  figures a gate relies on. Paths given on the command line are the user's own and not confined.
- **Every file read besides the data is one regular file of bounded size.** `read_file` opens it
  once (non-blocking, so a FIFO cannot hang the run), asks the descriptor what it is (a FIFO, a
  device, a folder is refused) and reads at most its limit (`/dev/zero` behind a symlink cannot
  fill the memory). The limits are documented in the README's Trust section.

Data files are not read here: on the command line they may be FIFOs or standard input, and their
size is bounded per line (--max-line-bytes), not per file. The data files a workspace holds (the
GitHub Action's changed files: a pull request's own names) pass `workspace_file` first: inside
the workspace once symlinks are resolved, and a regular file, asked with stat, never opened.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import BinaryIO

MAX_CONFIG_BYTES = 1 << 20  # ftlint.toml, pyproject.toml: read before any flag, so not a flag
MAX_FILE_BYTES = 64 << 20  # --max-file-bytes: chat templates, tokenizers, mappings, run configs
MAX_BASELINE_BYTES = 256 << 20  # --baseline: a findings list can be long
MAX_STATE_BYTES = 1 << 20  # a save_to_disk folder's state.json (a few hundred bytes in practice)


class Refused(Exception):
    """A file ftlint will not read, or a path a configuration may not name: one line, exit 2."""


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    if stat.S_ISSOCK(mode):
        return "a socket"
    return "not a regular file"


def _open_regular(path: str | os.PathLike[str], what: str) -> tuple[int, os.stat_result]:
    """A descriptor of `path`, opened without blocking (a FIFO cannot hang the run) and refused
    unless it is a regular file, with its status."""
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except FileNotFoundError:
        raise Refused(f"{what} {path}: no such file") from None
    except PermissionError:
        raise Refused(f"{what} {path}: permission denied") from None
    except OSError as exc:
        raise Refused(f"{what} {path}: cannot read it: {exc.strerror or exc}") from None
    except ValueError:  # a NUL byte in the name: no file has it
        raise Refused(f"{what} {path!r}: no such file (the name holds a NUL byte)") from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Refused(f"{what} {path}: {_kind(st.st_mode)}, not a regular file")
    except OSError as exc:
        os.close(fd)
        raise Refused(f"{what} {path}: cannot read it: {exc.strerror or exc}") from None
    except BaseException:
        os.close(fd)
        raise
    return fd, st


def open_regular(path: str | os.PathLike[str], what: str) -> BinaryIO:
    """One regular file opened for reading in binary, for a reader that streams it (bounded per
    row, not per file: a training log); a FIFO, a device or a folder is refused at once."""
    fd, _ = _open_regular(path, what)
    os.set_blocking(fd, True)  # a regular file never blocks; the stream's reads expect a blocking descriptor
    return os.fdopen(fd, "rb")


def read_file(path: str | os.PathLike[str], what: str, limit: int) -> bytes:
    """The bytes of one regular file of at most `limit` bytes; `what` names it in errors
    (e.g. "--chat-template", "state.json of DIR")."""
    fd, st = _open_regular(path, what)
    try:
        if st.st_size > limit:
            raise Refused(f"{what} {path}: {st.st_size:,} bytes, over the {_size(limit)} limit for it")
        chunks, held = [], 0
        while held <= limit:
            block = os.read(fd, min(1 << 20, limit + 1 - held))
            if not block:
                break
            chunks.append(block)
            held += len(block)
        if held > limit:  # it grew while being read
            raise Refused(f"{what} {path}: over the {_size(limit)} limit for it")
        return b"".join(chunks)
    except OSError as exc:
        raise Refused(f"{what} {path}: cannot read it: {exc.strerror or exc}") from None
    finally:
        os.close(fd)


def read_text(path: str | os.PathLike[str], what: str, limit: int) -> str:
    """read_file, decoded as UTF-8 (a byte-order mark is dropped)."""
    data = read_file(path, what, limit)
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Refused(f"{what} {path}: not UTF-8 text (byte offset {exc.start})") from None


def is_regular(path: str | os.PathLike[str]) -> bool:
    """Whether `path` (symlinks followed) is a regular file; never opens it."""
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def special(path: str | os.PathLike[str]) -> str | None:
    """What `path` is (symlinks followed) when it is neither a regular file nor a folder, such as
    "a FIFO" or "a device", which a reader would block on or never finish; None otherwise (or
    when there is nothing there). Asked before a repository's file is handed to the data reader,
    which must open data FIFOs a user gives on the command line."""
    try:
        mode = os.stat(path).st_mode
    except (OSError, ValueError):
        return None
    return None if stat.S_ISREG(mode) or stat.S_ISDIR(mode) else _kind(mode)


def inside(path: str | os.PathLike[str], folder: str | os.PathLike[str]) -> bool:
    """Whether `path`, symlinks followed, is `folder` or lies within it (also resolved)."""
    try:
        target, base = Path(path).resolve(), Path(folder).resolve()
    except (OSError, RuntimeError, ValueError):  # a symlink loop, a NUL byte
        return False
    return target == base or base in target.parents


def workspace_file(path: str, root: str | os.PathLike[str]) -> None:
    """Refused unless `path` (relative to the working directory) resolves, symlinks followed,
    inside `root` to a regular file: a committed symlink to ../../outside, to /etc/passwd, to
    /dev/zero or to a FIFO is refused by its name alone, and nothing is opened (a FIFO cannot block)."""
    try:
        os.lstat(path)
    except (OSError, ValueError):
        raise Refused(f"{path}: no such file") from None
    if not inside(path, root):
        link = " (a symlink)" if os.path.islink(path) else ""
        raise Refused(f"{path}{link}: leads outside the workspace; ftlint reads only the files inside it")
    try:
        mode = os.stat(path).st_mode
    except OSError as exc:  # a dangling link, a loop
        raise Refused(f"{path}: cannot read it: {exc.strerror or exc}") from None
    if not stat.S_ISREG(mode):
        raise Refused(f"{path}: {_kind(mode)}, not a regular file")


def confine(value: str, config: Path, key: str) -> str:
    """A path that the configuration file `config` names under `key`: relative to the file's
    folder, and resolved (symlinks followed) inside it; refused otherwise."""
    base = config.parent
    candidate = Path(value) if os.path.isabs(value) else base / value
    if not value or "\x00" in value or not inside(candidate, base):
        raise Refused(f"{config}: {key} = {value!r}: outside {base.resolve()}, the folder of the configuration file; "
                      "a configuration names files inside its own folder (give a path outside it on the command line)")
    return str(candidate.resolve())


def _size(n: int) -> str:
    return f"{n >> 20} MiB" if n >= 1 << 20 and not n % (1 << 20) else f"{n:,}-byte"

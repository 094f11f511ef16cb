"""Opening a record's media: a file in the dataset's folder, or a data: URL's bytes, bounded.

A media file is data of the dataset, as untrusted as its lines (docs/trust.md): it must resolve,
symlinks followed, inside the dataset's folder (LLaMA-Factory joins a name to its media_dir,
src/llamafactory/data/converter.py DatasetConverter._find_medias, so `../../etc/passwd` or an
absolute path would be read from anywhere); it is opened without blocking and must be one regular
file (a FIFO or a device is refused, never read); only its header and last bytes are read
(header.py). A data: URL is decoded only over the bytes the header needs.
"""

from __future__ import annotations

import binascii
import os
import stat
from dataclasses import dataclass
from functools import lru_cache

from ..trust import inside
from .header import ImageSize, NotAnImage, image_size

MAX_READ = 4096  # bytes one read of a header may ask for
CACHED = 4096  # media files remembered per process: a dataset names the same image in many records


@dataclass(frozen=True, slots=True)
class Opened:
    """What a reference to an image gave: its size, or the problem and its kind."""

    image: ImageSize | None
    problem: str = ""  # what is wrong, as a finding says it
    kind: str = ""  # "missing" (no such file, or outside the folder), "unreadable", "not-image"
    nbytes: int = 0  # the image's bytes (decoded, for a data: URL)
    mime: str = ""  # a data: URL's declared media type


def _flags() -> int:
    return os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)


@lru_cache(maxsize=CACHED)
def local(root: str, name: str) -> Opened:
    """The image `name` names, relative to `root` (the dataset's folder)."""
    if not name or "\x00" in name:
        return Opened(None, "an empty media path" if not name else "a media path holding a NUL byte", "missing")
    path = name if os.path.isabs(name) else os.path.join(root, name)
    if not inside(path, root):
        return Opened(None, f"{name!r} is outside the dataset's folder: a record names files inside it", "missing")
    try:
        fd = os.open(path, _flags())
    except FileNotFoundError:
        return Opened(None, f"no such file: {name!r} (names are read relative to the dataset's folder)", "missing")
    except OSError as exc:
        return Opened(None, f"cannot read {name!r}: {exc.strerror or exc}", "unreadable")
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            return Opened(None, f"{name!r} is {_kind(st.st_mode)}, not a regular file", "unreadable")
        try:
            found = image_size(lambda offset, n: os.pread(fd, min(n, MAX_READ), offset), st.st_size)
        except NotAnImage as exc:
            return Opened(None, f"{name!r}: {exc}", "not-image", st.st_size)
        return Opened(found, nbytes=st.st_size)
    except OSError as exc:
        return Opened(None, f"cannot read {name!r}: {exc.strerror or exc}", "unreadable")
    finally:
        os.close(fd)


def _kind(mode: int) -> str:
    if stat.S_ISDIR(mode):
        return "a directory"
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    return "a device" if stat.S_ISCHR(mode) or stat.S_ISBLK(mode) else "a special file"


def data_url(url: str) -> Opened:
    """A data: URL's image (`data:image/png;base64,...`): only base64 is an image here."""
    head, comma, payload = url.partition(",")
    if not comma:
        return Opened(None, "a data: URL without a comma before its data", "not-image")
    params = head[5:].split(";")
    mime = params[0].strip().lower()
    if "base64" not in (p.strip().lower() for p in params[1:]):
        return Opened(None, "a data: URL that is not base64", "not-image", mime=mime)
    payload = payload.strip()
    pad = len(payload) - len(payload.rstrip("="))
    nbytes = max(0, len(payload) * 3 // 4 - pad)

    def read(offset: int, n: int) -> bytes:
        start = offset // 3 * 4
        stop = -(-(offset + min(n, MAX_READ)) // 3) * 4
        raw = binascii.a2b_base64(payload[start:stop], strict_mode=True)
        return raw[offset - start // 4 * 3:][: min(n, MAX_READ)]

    try:
        found = image_size(read, nbytes)
    except NotAnImage as exc:
        return Opened(None, f"a data: URL: {exc}", "not-image", nbytes, mime)
    except (binascii.Error, ValueError):
        return Opened(None, "a data: URL whose base64 is broken", "not-image", nbytes, mime)
    return Opened(found, nbytes=nbytes, mime=mime)

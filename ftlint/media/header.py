"""An image's kind and size from its first bytes: PNG, JPEG, WEBP and GIF, never decoded.

A reader is `read(offset, n) -> bytes` (fewer at the end): a file read with pread, or a data:
URL's base64 decoded only as far as the bytes asked for. At most MAX_HEADER_READS reads of at
most a few bytes each are made (a JPEG's segments are skipped by their lengths, not read), so a
hostile file costs the same whatever its size. The formats' facts:
  PNG   the 8-byte signature, then the IHDR chunk: width and height, 4 bytes each, big-endian
        (PNG specification, 11.2.2 IHDR); a whole file ends with the 12-byte IEND chunk
  GIF   "GIF87a" or "GIF89a", then the logical screen's width and height, 2 bytes little-endian;
        a whole file ends with the trailer 0x3B (GIF89a specification, 17-18, 27)
  WEBP  RIFF, its size, "WEBP", then one of VP8 (lossy: 14-bit sizes after the start code
        9d 01 2a), VP8L (lossless: 0x2f, then width-1 and height-1 in 14 bits each) or VP8X
        (extended: the canvas width-1 and height-1, 24 bits each) (RFC 9649)
  JPEG  SOI (ff d8), then segments, each ff + marker + a 2-byte length, up to a start of frame
        (SOF0-15 but DHT c4, JPG c8 and DAC cc) whose payload holds the precision, height and
        width (ITU T.81, B.2.2); a whole file ends with EOI (ff d9)
"""

from __future__ import annotations

import struct
from collections.abc import Callable
from dataclasses import dataclass

Reader = Callable[[int, int], bytes]
MAX_HEADER_READS = 4096  # a JPEG of more segments than this before its frame header is not an image a trainer reads
SOF_MARKERS = frozenset(range(0xC0, 0xD0)) - {0xC4, 0xC8, 0xCC}
STANDALONE = frozenset({0x01, *range(0xD0, 0xD8)})  # TEM and RST0-7 carry no length
KINDS = ("png", "jpeg", "webp", "gif")
TAIL = 1024  # the last bytes searched for the end marker (cameras and editors append a little after it)


class NotAnImage(Exception):
    """The bytes are not a PNG, JPEG, WEBP or GIF image whose size can be read (the message says why)."""


@dataclass(frozen=True, slots=True)
class ImageSize:
    kind: str  # png, jpeg, webp or gif
    width: int
    height: int
    whole: bool = True  # False: the file ends before the format's last bytes (a cut download)


def image_size(read: Reader, size: int) -> ImageSize:
    """The kind and size of the image of `size` bytes that `read` reads. NotAnImage otherwise."""
    head = read(0, 32)
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        found = _png(head)
    elif head[:6] in (b"GIF87a", b"GIF89a"):
        found = _gif(head)
    elif head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        found = _webp(head)
    elif head[:2] == b"\xff\xd8":
        found = _jpeg(read, size)
    else:
        raise NotAnImage(f"not a PNG, JPEG, WEBP or GIF image (it starts with {head[:8].hex(' ') or 'nothing'})")
    if found.width < 1 or found.height < 1:
        raise NotAnImage(f"a {found.kind.upper()} header giving a size of {found.width} x {found.height}")
    return ImageSize(found.kind, found.width, found.height, _ends(found.kind, read, size, head))


def _png(head: bytes) -> ImageSize:
    if len(head) < 24 or head[12:16] != b"IHDR":
        raise NotAnImage("a PNG signature without its IHDR header (the file is cut, or not a PNG)")
    width, height = struct.unpack(">II", head[16:24])
    return ImageSize("png", width, height)


def _gif(head: bytes) -> ImageSize:
    if len(head) < 10:
        raise NotAnImage("a GIF signature without its screen size (the file is cut)")
    width, height = struct.unpack("<HH", head[6:10])
    return ImageSize("gif", width, height)


def _webp(head: bytes) -> ImageSize:
    chunk = head[12:16]
    if chunk == b"VP8 " and len(head) >= 30:
        if head[23:26] != b"\x9d\x01\x2a":
            raise NotAnImage("a lossy WEBP (VP8) without its start code")
        width, height = struct.unpack("<HH", head[26:30])
        return ImageSize("webp", width & 0x3FFF, height & 0x3FFF)
    if chunk == b"VP8L" and len(head) >= 25:
        if head[20] != 0x2F:
            raise NotAnImage("a lossless WEBP (VP8L) without its signature byte")
        bits = int.from_bytes(head[21:25], "little")
        return ImageSize("webp", (bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1)
    if chunk == b"VP8X" and len(head) >= 30:
        return ImageSize("webp", int.from_bytes(head[24:27], "little") + 1, int.from_bytes(head[27:30], "little") + 1)
    raise NotAnImage(f"a WEBP container whose first chunk ({chunk!r}) gives no size")


def _jpeg(read: Reader, size: int) -> ImageSize:
    position = 2
    for _ in range(MAX_HEADER_READS):
        head = read(position, 9)
        if len(head) < 2:
            raise NotAnImage("a JPEG that ends before its frame header (the file is cut)")
        if head[0] != 0xFF:
            raise NotAnImage(f"a JPEG whose segment at byte {position:,} does not start with a marker")
        marker = head[1]
        if marker == 0xFF:  # fill bytes before a marker
            position += 1
            continue
        if marker in STANDALONE:
            position += 2
            continue
        if marker in (0xD8, 0xD9, 0xDA):
            raise NotAnImage("a JPEG whose image data starts before any frame header gives its size")
        if len(head) < 4:
            raise NotAnImage("a JPEG that ends inside a segment header (the file is cut)")
        length = struct.unpack(">H", head[2:4])[0]
        if marker in SOF_MARKERS:
            if len(head) < 9:
                raise NotAnImage("a JPEG that ends inside its frame header (the file is cut)")
            height, width = struct.unpack(">HH", head[5:9])
            return ImageSize("jpeg", width, height)
        if length < 2:
            raise NotAnImage(f"a JPEG segment of length {length} at byte {position:,}")
        position += 2 + length
        if position >= size:
            raise NotAnImage("a JPEG that ends before its frame header (the file is cut)")
    raise NotAnImage(f"a JPEG with more than {MAX_HEADER_READS:,} segments before its frame header")


def _ends(kind: str, read: Reader, size: int, head: bytes) -> bool:
    """Whether the file has the format's last bytes: a file cut short (a broken download) still
    has its header, and the trainer's decoder fails on it (PIL: "image file is truncated")."""
    tail = read(max(0, size - TAIL), TAIL) if kind in ("png", "jpeg") else b""
    if kind == "png":  # bytes after IEND are ignored by decoders, so the chunk is looked for near the end
        return b"IEND\xaeB`\x82" in tail
    if kind == "jpeg":  # entropy-coded data stuffs every ff with 00: ff d9 there is the end of the image
        return b"\xff\xd9" in tail
    if kind == "gif":
        return size >= 14 and read(size - 1, 1) == b"\x3b"
    return len(head) >= 8 and struct.unpack("<I", head[4:8])[0] + 8 <= size  # RIFF's own size

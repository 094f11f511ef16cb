"""Compressed data files: gzip and zstd, told by their first bytes, decompressed a bounded step at
a time. A compressed file is untrusted: 100 KB of zstd RLE blocks stand for gigabytes, so no read
may produce more than the bytes it asks for, whatever the ratio.

- gzip: the standard library's reader is bounded already: Lib/gzip.py `_GzipReader.read(size)`
  passes `size` to zlib as `max_length`, and `GzipFile.read1` reads through a BufferedReader.
- zstd: zstandard's `stream_reader` decompresses into the caller's buffer, at most its length
  (c-ext/decompressionreader.c), across frames; skippable frames (RFC 8878 section 3.1.2: pzstd
  starts its files with one) are passed over. It ends a stream cut inside a frame as quietly as a
  whole one, so `ZstdFrames` follows the frame and block headers as the compressed bytes go by,
  and a stream that stops inside a frame is an OSError (a broken stream), as a damaged one is.
"""

from __future__ import annotations

import gzip
import io
from typing import Any, BinaryIO

GZIP_MAGIC = b"\x1f\x8b"
ZSTD_MAGIC = b"\x28\xb5\x2f\xfd"  # RFC 8878 3.1.1: 0xFD2FB528, little-endian
SKIPPABLE_MAGIC = 0x184D2A50  # RFC 8878 3.1.2: 0x184D2A50 to 0x184D2A5F, little-endian
# libzstd's default (ZSTD_WINDOWLOG_LIMIT_DEFAULT, 27): a frame that asks for a larger window is
# refused (a broken stream) rather than given the memory; `zstd --long=31` files need --memory=2048MB there too
ZSTD_MAX_WINDOW = 1 << 27
STEP = 1 << 20


def compression(head: bytes) -> str | None:
    """'gzip', 'zstd' or None, from a stream's first four bytes."""
    if head[:2] == GZIP_MAGIC:
        return "gzip"
    if head[:4] == ZSTD_MAGIC or (len(head) >= 4 and int.from_bytes(head[:4], "little") & ~0xF == SKIPPABLE_MAGIC):
        return "zstd"
    return None


def decompressed(stream: BinaryIO, kind: str) -> BinaryIO:
    if kind == "gzip":
        return gzip.GzipFile(fileobj=stream, mode="rb")  # type: ignore[return-value]
    return io.BufferedReader(ZstdStream(stream), buffer_size=STEP)


class ZstdStream(io.RawIOBase):
    """A zstd stream, all its frames, decompressed at most one buffer at a time; its corruption or
    truncation is an OSError (a broken stream)."""

    def __init__(self, raw: BinaryIO) -> None:
        import zstandard

        self._error = zstandard.ZstdError
        self._frames = ZstdFrames(raw)
        self._reader = zstandard.ZstdDecompressor(max_window_size=ZSTD_MAX_WINDOW).stream_reader(
            self._frames, read_across_frames=True)  # type: ignore[arg-type]  # it calls only read()

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        try:
            n = self._reader.readinto(buffer)
        except self._error as exc:
            raise OSError(f"zstd stream is corrupt: {exc}") from None
        if not n and self._frames.open:
            raise OSError("zstd stream is truncated: its last frame does not end")
        return n

    def close(self) -> None:
        self._frames.raw.close()
        super().close()


class ZstdFrames:
    """The compressed bytes, read through: follows the frame and block headers (RFC 8878
    sections 3.1.1.1 and 3.1.1.2) to know whether the stream has stopped inside a frame. Bytes
    that are no frame stop the following; the decompressor reports them."""

    def __init__(self, raw: BinaryIO) -> None:
        self.raw = raw
        self._skip = 0  # bytes to pass before the next header: a block's content, a checksum, a skippable frame
        self._head = b""  # the header being read
        self._want = 4  # its length
        self._next = self._magic  # what reads it
        self._checksum = False
        self._lost = False  # not a zstd frame: nothing more is followed

    @property
    def open(self) -> bool:
        return not self._lost and (bool(self._skip) or bool(self._head) or self._next != self._magic)

    def read(self, n: int = -1) -> bytes:
        data = self.raw.read(n)
        pos, end = 0, len(data)
        while pos < end and not self._lost:
            if self._skip:
                step = min(self._skip, end - pos)
                self._skip -= step
                pos += step
                continue
            take = min(self._want - len(self._head), end - pos)
            self._head += data[pos : pos + take]
            pos += take
            if len(self._head) == self._want:
                head, self._head = self._head, b""
                self._next(head)
        return data

    def _expect(self, want: int, then: Any, skip: int = 0) -> None:
        self._want, self._next, self._skip = want, then, skip

    def _magic(self, head: bytes) -> None:
        magic = int.from_bytes(head, "little")
        if head == ZSTD_MAGIC:
            self._expect(1, self._descriptor)
        elif magic & ~0xF == SKIPPABLE_MAGIC:
            self._expect(4, self._skippable)
        else:
            self._lost = True

    def _skippable(self, head: bytes) -> None:
        self._expect(4, self._magic, skip=int.from_bytes(head, "little"))

    def _descriptor(self, head: bytes) -> None:
        descriptor = head[0]
        single_segment = bool(descriptor & 0x20)
        self._checksum = bool(descriptor & 0x04)
        size_field = (1 if single_segment else 0, 2, 4, 8)[descriptor >> 6]
        rest = (0 if single_segment else 1) + (0, 1, 2, 4)[descriptor & 3] + size_field
        if rest:
            self._expect(rest, self._header_rest)
        else:
            self._expect(3, self._block)

    def _header_rest(self, head: bytes) -> None:  # the window, dictionary and content size: not needed here
        self._expect(3, self._block)

    def _block(self, head: bytes) -> None:
        header = int.from_bytes(head, "little")
        kind, size = (header >> 1) & 3, header >> 3
        if kind == 3:  # reserved: a corrupt block, which the decompressor reports
            self._lost = True
            return
        content = 1 if kind == 1 else size  # an RLE block stores its one byte
        if header & 1:  # the frame's last block, then its checksum
            self._expect(4, self._magic, skip=content + (4 if self._checksum else 0))
        else:
            self._expect(3, self._block, skip=content)

"""Builds the images of fixtures/datasets/llama-factory-mllm/ and fixtures/media/ (not run in CI).

Small real images of several sizes: PNGs written here byte by byte (zlib and struct: a colour
gradient, so the file is a real image any decoder reads), JPEGs, WEBPs and GIFs by Pillow (a test
dependency: transformers' image processors are the tests' oracle). Run from the repository's
root: python tools/make_media_fixtures.py
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEMO = ROOT / "fixtures" / "datasets" / "llama-factory-mllm" / "mllm_demo_data"
MEDIA = ROOT / "fixtures" / "media"


def png(width: int, height: int) -> bytes:
    """An 8-bit RGB PNG: a gradient, one filter byte (0) a row."""
    rows = b"".join(b"\x00" + bytes(v for x in range(width) for v in (x * 255 // max(1, width - 1), y // 40 * 20 % 256, 128))
                    for y in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b"")


def pillow(width: int, height: int, kind: str, path: Path) -> None:
    from PIL import Image

    image = Image.linear_gradient("L").resize((width, height)).convert("RGB")
    image.save(path, kind, quality=60) if kind == "JPEG" else image.save(path, kind)


def main() -> None:
    DEMO.mkdir(parents=True, exist_ok=True)
    MEDIA.mkdir(parents=True, exist_ok=True)
    pillow(1280, 720, "JPEG", DEMO / "1.jpg")  # over LLaMA-Factory's image_max_pixels (768 x 768): resized first
    (DEMO / "2.png").write_bytes(png(640, 480))
    pillow(333, 1001, "JPEG", DEMO / "3.jpg")
    (MEDIA / "small.png").write_bytes(png(200, 150))
    pillow(1024, 1024, "JPEG", MEDIA / "square.jpg")
    pillow(300, 200, "WEBP", MEDIA / "wide.webp")
    pillow(120, 90, "GIF", MEDIA / "tiny.gif")


if __name__ == "__main__":
    main()

"""How many tokens of the model's sequence one image becomes: each family's processor arithmetic.

Each figure is the model's own, from its processor's code and its checkpoint's config:
  qwen2-vl    Qwen2-VL and Qwen2.5-VL: transformers' image_processing_qwen2_vl.py smart_resize (the
              image resized to multiples of patch x merge = 28, its pixels within min_pixels and
              max_pixels), then one token per merge x merge patches (Qwen2VLProcessor: grid_thw.prod()
              // merge_size**2 copies of <|image_pad|>), between <|vision_start|> and <|vision_end|>
              from the chat template. Qwen/Qwen2.5-VL-*-Instruct preprocessor_config.json: patch_size
              14, merge_size 2, min_pixels 3,136, max_pixels 12,845,056.
  qwen3-vl    Qwen3-VL and Qwen 3.5 (its processor under a new model type): the same arithmetic with
              patch_size 16 (factor 32), size {shortest_edge 65,536, longest_edge 16,777,216}
              (Qwen/Qwen3-VL-8B-Instruct preprocessor_config.json: Qwen2VLImageProcessorFast).
  gemma3      Gemma 3 (4B and larger): a fixed 256 image tokens (Gemma3Processor image_seq_length,
              pan-and-scan off by default: do_pan_and_scan False), written as "\n\n", <start_of_image>,
              256 <image_soft_token>, <end_of_image>, "\n\n" (processing_gemma3.py full_image_sequence).
  mllama      Llama 3.2 Vision: one <|image|> token in the text; the image reaches the model through
              cross-attention (up to 4 tiles of 560 x 560, image_processing_mllama.py), not as tokens
              of the sequence, so its length and bill hold one token an image.
  openai      gpt-4o and gpt-4.1 (OpenAI's vision guide, "Calculating costs"): detail low is 85; high
              fits the image in 2048 x 2048, scales its short side down to 768, and costs 85 + 170 per
              512-px tile. "auto" (the default) is counted as high, the larger of the two.
  gemini      Gemini 2.x and later (ai.google.dev/gemini-api/docs/tokens, read 2026-12-01): 258 tokens
              for an image of at most 384 px a side, else 258 per 768 x 768 tile (ftlint counts
              ceil(w/768) x ceil(h/768) tiles: Google does not publish its cropping).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

PIL_MAX_PIXELS = 89_478_485  # PIL.Image.MAX_IMAGE_PIXELS: past twice this, Image.open raises DecompressionBombError
BOMB_PIXELS = 2 * PIL_MAX_PIXELS


class Unusable(ValueError):
    """The processor refuses an image of this size (the message says why, as the processor does)."""


@dataclass(frozen=True)
class Processor:
    name: str
    title: str
    source: str
    exact: bool = True  # False: the figure is the provider's published rule, not its code

    def tokens(self, width: int, height: int, detail: str = "") -> int:
        """The image's tokens in the sequence, its markers included."""
        raise NotImplementedError

    def text(self, n: int) -> str | None:
        """What the chat template and the processor write for one image of `n` tokens, its
        added tokens spelled out (counted one each); None: the model's template is not rendered."""
        return None

    def unread(self) -> tuple[int, str]:
        """The tokens of an image whose size is not read (a URL: ftlint downloads nothing), and why."""
        raise NotImplementedError


@dataclass(frozen=True)
class QwenVL(Processor):
    patch: int = 14
    merge: int = 2
    min_pixels: int = 3136
    max_pixels: int = 12_845_056

    @property
    def factor(self) -> int:
        return self.patch * self.merge

    def resized(self, width: int, height: int) -> tuple[int, int]:
        """smart_resize's (height, width), as transformers computes it (round, then floor or ceil)."""
        if max(height, width) / min(height, width) > 200:
            raise Unusable(f"an aspect ratio of {max(height, width) / min(height, width):.1f}: the processor refuses "
                           "one over 200 (smart_resize)")
        factor = self.factor
        h_bar = round(height / factor) * factor
        w_bar = round(width / factor) * factor
        if h_bar * w_bar > self.max_pixels:
            beta = math.sqrt((height * width) / self.max_pixels)
            h_bar = max(factor, math.floor(height / beta / factor) * factor)
            w_bar = max(factor, math.floor(width / beta / factor) * factor)
        elif h_bar * w_bar < self.min_pixels:
            beta = math.sqrt(self.min_pixels / (height * width))
            h_bar = math.ceil(height * beta / factor) * factor
            w_bar = math.ceil(width * beta / factor) * factor
        return h_bar, w_bar

    def pads(self, width: int, height: int) -> int:
        h_bar, w_bar = self.resized(width, height)
        return (h_bar // self.patch) * (w_bar // self.patch) // (self.merge * self.merge)

    def tokens(self, width: int, height: int, detail: str = "") -> int:
        return self.pads(width, height) + 2  # <|vision_start|> ... <|vision_end|>

    def text(self, n: int) -> str:
        return "<|vision_start|>" + "<|image_pad|>" * (n - 2) + "<|vision_end|>"

    def unread(self) -> tuple[int, str]:
        low = self.min_pixels // (self.patch * self.patch) // (self.merge * self.merge) + 2
        return low, f"counted at the processor's least ({low} tokens, min_pixels {self.min_pixels:,}): a lower bound"


@dataclass(frozen=True)
class Fixed(Processor):
    """A fixed number of tokens an image, whatever its size."""

    count: int = 256
    spelled: str = ""  # the image as the template and processor write it ("" : not rendered)
    extra: int = 0  # tokens of the text around it that the model's tokenizer makes (Gemma's "\n\n" twice)

    def tokens(self, width: int, height: int, detail: str = "") -> int:
        return self.count + self.extra

    def text(self, n: int) -> str | None:
        return self.spelled or None

    def unread(self) -> tuple[int, str]:
        return self.count + self.extra, "its size does not matter to the count"


@dataclass(frozen=True)
class OpenAITiles(Processor):
    base: int = 85
    tile: int = 170

    def tiles(self, width: int, height: int) -> int:
        scale = min(1.0, 2048 / max(width, height))  # fit in 2048 x 2048
        w, h = width * scale, height * scale
        scale = min(1.0, 768 / min(w, h))  # then the short side down to 768
        w, h = w * scale, h * scale
        return math.ceil(w / 512) * math.ceil(h / 512)

    def tokens(self, width: int, height: int, detail: str = "") -> int:
        if detail == "low":
            return self.base
        return self.base + self.tile * self.tiles(width, height)

    def unread(self) -> tuple[int, str]:
        return self.base, "counted at detail low's fixed 85 (OpenAI's one documented figure without the size): a lower bound"


@dataclass(frozen=True)
class GeminiTiles(Processor):
    per_tile: int = 258

    def tokens(self, width: int, height: int, detail: str = "") -> int:
        if width <= 384 and height <= 384:
            return self.per_tile
        return self.per_tile * math.ceil(width / 768) * math.ceil(height / 768)

    def unread(self) -> tuple[int, str]:
        return self.per_tile, "counted as one 258-token tile (Google's figure for a small image): a lower bound"


QWEN25_VL_CONFIG = "Qwen/Qwen2.5-VL-*-Instruct preprocessor_config.json (patch_size 14, merge_size 2, min_pixels 3136, max_pixels 12845056)"
PROCESSORS: dict[str, Processor] = {p.name: p for p in (
    QwenVL("qwen2.5-vl", "Qwen2-VL / Qwen2.5-VL (smart_resize to multiples of 28; a token per 28 x 28)",
           f"transformers models/qwen2_vl/image_processing_qwen2_vl.py smart_resize; {QWEN25_VL_CONFIG}"),
    QwenVL("qwen3-vl", "Qwen3-VL / Qwen 3.5 (smart_resize to multiples of 32; a token per 32 x 32)",
           "transformers smart_resize; Qwen/Qwen3-VL-8B-Instruct preprocessor_config.json (patch_size 16, merge_size 2, "
           "size shortest_edge 65536, longest_edge 16777216)", patch=16, min_pixels=65_536, max_pixels=16_777_216),
    Fixed("gemma3", "Gemma 3 (256 image tokens, pan-and-scan off)",
          "transformers models/gemma3/processing_gemma3.py Gemma3Processor (image_seq_length 256, full_image_sequence)",
          count=258, extra=2),
    Fixed("mllama", "Llama 3.2 Vision (one <|image|> token; the tiles reach the model by cross-attention)",
          "transformers models/mllama/processing_mllama.py (one image token per image); image_processing_mllama.py "
          "(max_image_tiles 4, tiles of 560 x 560)", count=1, spelled="<|image|>"),
    OpenAITiles("openai", "OpenAI gpt-4o, gpt-4.1 (85 + 170 per 512-px tile; detail low 85)",
                "developers.openai.com/api/docs/guides/images-vision, Calculating costs (read 2026-12-01)", exact=False),
    GeminiTiles("gemini", "Gemini (258 per image up to 384 px, else per 768-px tile)",
                "ai.google.dev/gemini-api/docs/tokens, Multimodal tokens (read 2026-12-01)", exact=False),
)}


def processor(name: str) -> Processor | None:
    return PROCESSORS.get(name)

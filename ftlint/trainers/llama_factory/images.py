"""How LLaMA-Factory resizes an image before the model's processor sees it (Trainer.pre_resize)."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class PreResize:
    """LLaMA-Factory resizes every image before the model's processor sees it
    (src/llamafactory/data/mm_plugin.py MMPluginMixin._preprocess_image: past image_max_pixels,
    default 768 * 768, scaled by sqrt(max / pixels) with int() on each side; under image_min_pixels,
    32 * 32, scaled up the same way; Qwen2VLPlugin._preprocess_image then makes each side at least 28
    and clamps an aspect ratio over 200 to 180)."""

    max_pixels: int = 768 * 768
    min_pixels: int = 32 * 32
    source: str = "LLaMA-Factory src/llamafactory/data/mm_plugin.py _preprocess_image (image_max_pixels 768*768)"

    def __call__(self, width: int, height: int, qwen: bool) -> tuple[int, int]:
        if width * height > self.max_pixels:
            factor = math.sqrt(self.max_pixels / (width * height))
            width, height = int(width * factor), int(height * factor)
        if width * height < self.min_pixels:
            factor = math.sqrt(self.min_pixels / (width * height))
            width, height = int(width * factor), int(height * factor)
        if qwen:
            if min(width, height) < 28:
                width, height = max(width, 28), max(height, 28)
            if width / height > 200:
                width, height = height * 180, height
            if height / width > 200:
                width, height = width, width * 180
        return width, height

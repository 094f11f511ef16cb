"""Where a record's images lie in its tokens, and whether the trainer's cut at its max length goes
through one. A trainer that cuts some of an image's tokens still hands the model the whole image's
features, and the model stops: "Image features and image tokens do not match" (Qwen2-VL's forward;
QwenLM/Qwen3-VL#556, LLaMA-Factory#8329). Positions are found in the rendered text: each image
starts with an added token, so the tokens before it are counted exactly."""

from __future__ import annotations

from collections.abc import Callable, Sequence

from ..trainers.cut import Cut
from .processors import Processor


def spans(text: str, processor: Processor, sizes: Sequence[int], count: Callable[[str], int]) -> list[tuple[int, int]]:
    """(first token, tokens) of each image, in order, in the rendered `text` (sizes: each image's tokens)."""
    out = []
    position = 0
    for n in sizes:
        spelled = processor.text(n)
        if not spelled:
            continue
        at = text.find(spelled, position)
        if at < 0:
            break
        out.append((count(text[:at]), n))
        position = at + len(spelled)
    return out


def cut_through(images: Sequence[tuple[int, int]], pairs: Sequence[tuple[int, int]], cut: int, rule: Cut) -> list[int]:
    """The indexes of the images some of whose tokens the trainer's cut removes."""
    kept = rule.kept_ranges(pairs, cut)
    return [i for i, (start, n) in enumerate(images) if not any(a <= start and start + n <= b for a, b in kept)]

"""Media codes: the images, videos and audios a record names (FT250-FT254), and the tokens of its
images (FT350, FT351). The record's media are read once, by the figures (ftlint/media/plan.py:
each image's header, bounded; never a download); these checks word what that found."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit
from ..media.plan import MEDIA_LITERALS, pointer_text
from . import RUNS, check, register

if TYPE_CHECKING:
    from ..media.plan import MediaPlan
    from .context import RecordContext

register("FT250", "media-placeholder-mismatch", ERROR, """
    The record's text has more or fewer <image> (<video>, <audio>) placeholders than its images
    (videos, audios) column has entries.

    LLaMA-Factory and ms-swift put each image of the `images` column where an <image> stands in
    the text, in order (TRL: where a {"type": "image"} part stands). Why: the trainer stops on the
    record: LLaMA-Factory raises "The number of images does not match the number of <image>
    tokens" (src/llamafactory/data/mm_plugin.py _validate_messages), and a Qwen-VL model "Image
    features and image tokens do not match" (QwenLM/Qwen3-VL#556, LLaMA-Factory#8329).
    Example: {"messages": [{"role": "user", "content": "<image><image>What changed?"}, ...],
    "images": ["a.png"]}
""")

register("FT251", "media-missing", ERROR, """
    A media file the record names does not exist, or lies outside the dataset's folder.

    Names are read relative to the data file's folder (with a LLaMA-Factory --mapping, to the
    folder of dataset_info.json: its media_dir defaults to dataset_dir), symlinks followed; a name
    that resolves outside it (`../../etc/passwd`, an absolute path elsewhere) is refused unread,
    as every file a repository names is (docs/trust.md). Why: the trainer fails on the record when
    it loads the image (a FileNotFoundError mid-run), or, outside the folder, reads a file the
    dataset does not ship. Example: "images": ["mllm_demo_data/4.jpg"] with no such file.
""")

register("FT252", "media-unreadable", ERROR, """
    A media file or data: URL the record names is not an image that can be read: not a PNG, JPEG,
    WEBP or GIF, cut short, not a regular file (a FIFO, a device, a folder), or broken base64.

    Only the image's header and last bytes are read (never decoded, never more than a few
    kilobytes, whatever the file's size). Why: the trainer's image loader (PIL) fails on it:
    "cannot identify image file", "image file is truncated". Example: a 1 GB file named
    photo.png that holds no PNG signature; a JPEG without its end-of-image marker.
""")

register("FT253", "image-refused", ERROR, """
    An image the processor or its loader refuses for its size: a header claiming more pixels than
    PIL opens (178,956,970: twice PIL.Image.MAX_IMAGE_PIXELS, DecompressionBombError), or, for a
    Qwen-VL model, an aspect ratio over 200 (smart_resize raises).

    The size comes from the header alone: a "decompression bomb" costs ftlint nothing.
    Why: the run stops on the record. Example: a PNG whose IHDR says 100000 x 100000.
""")

register("FT254", "media-not-accepted", ERROR, """
    An image the format's provider does not accept: its kind (PNG, JPEG, WEBP, GIF), its size in
    bytes, a URL where the provider takes only base64 data, or more images than it takes.

    The rules are the provider's catalog entry (`[provider.media]` in ftlint/catalog/, each with
    its source and date): Together takes PNG, JPEG or WEBP, base64 data: URLs only, 10 MB an
    image; OpenAI JPEG, PNG or WEBP up to 10 MB; Vertex 30 images an example and 20 MB an image;
    Fireworks base64 PNG or JPEG; Bedrock images from S3. The kind is the image's own (its
    header), not its name or declared MIME type. Why: the provider rejects the file or the job.
    Example: a GIF for Together; "image_url": {"url": "https://..."} for Together.
""")

register("FT350", "image-cut", ERROR, """
    The trainer's max length cuts through an image's tokens.

    Only where ftlint renders the model's chat template and knows the image's tokens (a vision
    model of the catalog, whose processor says how many tokens each image is). Why: the trainer
    keeps only part of the image's tokens but hands the model all of its features, and the run
    stops: "Image features and image tokens do not match" (Qwen2-VL; LLaMA-Factory#9313 with
    cutoff_len). Raise the max length (cutoff_len, max_length) or shrink the image (max_pixels).
    Example: a 1000 x 1000 image (1,296 tokens for Qwen2.5-VL) in a record cut at 1,024.
""")

register("FT351", "media-not-counted", WARNING, """
    Media the record names are in its token count at a figure ftlint could not read: an image by
    URL (ftlint downloads nothing: it is counted as the processor's documented figure for an
    unknown size, a lower bound), or a video or audio (not counted).

    Said once per file, with the count. Why: the length, the cut and the bill of these records are
    higher than shown. Download the images and name them as files, or encode them as data: URLs.
""", per="file")


def _plan(ctx: RecordContext) -> MediaPlan | None:
    figures = ctx.figures
    return figures.media if figures is not None else None


@check("record", "FT250", "FT251", "FT252", "FT253", needs=MEDIA_LITERALS, fused=RUNS)
def media_read(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    plan = _plan(ctx)
    if plan is None:
        return
    for problem in plan.problems:
        yield Hit(problem.message, pointer_text(problem.pointer), code=problem.code)


@check("record", "FT254", needs=MEDIA_LITERALS, fused=RUNS)
def media_accepted(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    plan = _plan(ctx)
    if plan is None or not plan.uses:
        return
    from ..media.accepted import rules_for

    rules = rules_for(ctx.fmt.name)
    if rules is None:
        return
    who = f"{rules.provider} ({rules.cite()})"
    for use in plan.uses:
        if not use.read and not use.remote:  # unreadable: FT251 or FT252 says it
            continue
        where = pointer_text(use.pointer)
        if use.remote and (rules.inline_only or use.remote not in rules.remote):
            taken = "base64 data only" if rules.inline_only else f"only {', '.join(rules.remote) or 'inline data'}"
            yield Hit(f"an image by {use.remote} reference: {who} takes {taken}", where)
        if use.size is not None and rules.kinds and use.size.kind not in rules.kinds:
            yield Hit(f"a {use.size.kind.upper()} image: {who} takes {', '.join(k.upper() for k in rules.kinds)}", where)
        if use.mime and use.size is not None and use.mime != f"image/{use.size.kind}":
            yield Hit(f"a data: URL declared {use.mime} holding a {use.size.kind.upper()} image", where)
        if rules.max_bytes is not None and use.nbytes > rules.max_bytes:
            yield Hit(f"an image of {use.nbytes:,} bytes: {who} takes at most {rules.max_bytes:,}", where)
    if rules.max_images is not None and len(plan.uses) > rules.max_images:
        yield Hit(f"{len(plan.uses)} images in one example: {who} takes at most {rules.max_images}")


@check("record", "FT350", needs=MEDIA_LITERALS, fused=RUNS)
def image_cut(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    plan = _plan(ctx)
    if plan is None or not plan.cut_images:
        return
    where = ctx.cut_label or (f"the {ctx.limit:,}-token limit" if ctx.limit else "the max length")
    for i in plan.cut_images:
        use = [u for u in plan.uses if u.tokens][i]
        yield Hit(f"{where} cuts through this image's {use.tokens:,} tokens: the trainer stops on the record "
                  "(image features and image tokens do not match)", pointer_text(use.pointer))


@check("record", "FT351", needs=MEDIA_LITERALS, fused=RUNS)
def media_not_counted(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    plan = _plan(ctx)
    if plan is None or not plan.counting:  # no vision model: images keep the convention's 85, said in docs/estimate.md
        return
    remote = [u for u in plan.unread if u.tokens]
    if remote:
        yield Hit("images by URL are counted without their size (ftlint downloads nothing): a lower bound")
    if plan.others:
        yield Hit("videos and audios are not counted in the tokens")

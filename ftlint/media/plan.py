"""A record's media plan: each image it holds (in the order the trainer meets them), what reading
it gave, its tokens under the model's processor, and the record as the figures count it.

Where images are:
  parts        a content list's parts: OpenAI's {"type": "image_url", "image_url": {"url"}} (a data:
               URL or a remote one), Hugging Face's {"type": "image", "image" | "url" | "path"}, Gemini's
               inlineData (base64) and fileData (a gs:// or http URL), Converse's {"image": {"source"}}
               (S3); a bare {"type": "image"} part is a placeholder for the record's images column (TRL)
  columns      `images`, `videos`, `audios` (LLaMA-Factory's and ShareGPT's columns, ms-swift's
               standard format), bound in order to the <image>, <video> and <audio> placeholders of the
               record's text (LLaMA-Factory's mm_plugin.py _validate_messages requires as many of each)
A local name is read relative to the dataset's folder (files.py); a remote one is never downloaded:
its tokens are the processor's figure for an unknown size, and the figures say how many there are.

The figures count images two ways. Through the model's chat template, each image becomes the text
its processor makes of it (Qwen's <|vision_start|>, n <|image_pad|>, <|vision_end|>), in its place,
so the length, the mask and the cut see it where the trainer does. By the token convention, the
images are taken out of the text and their tokens added to each record that holds them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from ..diagnostics import json_path
from ..literals import want
from .files import Opened, data_url, local
from .header import ImageSize
from .processors import BOMB_PIXELS, Processor, QwenVL, Unusable
from .refs import COLUMNS, NOT_TEXT, PLACEHOLDERS, Walk, entries, inline, media_part

# a record none of whose compact JSON holds one of these has no media: the engine's one literal pass
# over each record (ftlint/literals.py) answers it, so a text dataset pays no walk
MEDIA_LITERALS = want((b'"image', b'"video', b'"audio', b'"input_image', b'"input_audio', b'"inlineData', b'"inline_data',
                       b'"fileData', b'"file_data', b"<image>", b"<video>", b"<audio>"))


@dataclass(slots=True)
class Use:
    """One image of the record, in order."""

    pointer: tuple[str | int, ...]
    turn: int  # the index of the top-level turn holding it (-1: not in a turn list)
    tokens: int = 0
    read: bool = False  # its size was read (False: remote, or not an image)
    size: ImageSize | None = None
    nbytes: int = 0
    mime: str = ""
    remote: str = ""  # "url", "s3", "gs" for an image not read


@dataclass(slots=True)
class Problem:
    code: str  # FT250 ... (rules/media.py words none of them: the plan holds the message)
    message: str
    pointer: tuple[str | int, ...]


@dataclass(slots=True)
class MediaPlan:
    uses: list[Use] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    placeholders: dict[str, int] = field(default_factory=dict)  # kind -> placeholders in the text
    listed: dict[str, int] = field(default_factory=dict)  # kind -> entries of its column
    counted: dict[str, object] | None = None  # the record as the figures count it (None: as it is)
    others: int = 0  # videos and audios (not counted as tokens)
    cut_images: list[int] = field(default_factory=list)  # the images the trainer's cut goes through (cut.py)
    counting: bool = False  # a processor counts the images (else each is the convention's 85 tokens)

    @property
    def unread(self) -> list[Use]:
        return [u for u in self.uses if u.remote]


PLACEHOLDER_FORMATS = frozenset({"sharegpt", "alpaca", "ms-swift"})  # their text holds <image> where an image goes


def root_for(shown: str, labels: tuple[tuple[str, str], ...], media_dir: str) -> str | None:
    """The folder a file's media names are read from: --mapping's dataset folder (LLaMA-Factory's
    media_dir defaults to its dataset_dir), else the data file's own; None for standard input."""
    import os

    if media_dir:
        return os.path.realpath(media_dir)
    path = next((p for p, label in labels if label == shown), shown)
    if path in ("-", "<stdin>") or not os.path.exists(path):
        return None
    return os.path.dirname(os.path.realpath(path))


class Planner:
    """Plans records of one format, for one processor (None: no vision model: images keep the
    convention's 85 tokens and are only checked), `root` the dataset's folder (None: standard
    input, where a local name cannot be read)."""

    def __init__(self, processor: Processor | None, root: str | None, templated: bool, turns_key: str,
                 placeholders: bool, pre_resize: Callable[[int, int, bool], tuple[int, int]] | None = None) -> None:
        self.processor, self.root, self.turns_key, self.pre_resize = processor, root, turns_key, pre_resize
        # spelled: each image becomes its text in place (a template renders the record); else the
        # images leave the text and the figures add their tokens; no processor: nothing changes
        self.spell = templated and processor is not None and processor.text(3) is not None
        self.rewrite = processor is not None
        self.placeholder_format = placeholders  # the format's text holds <image> placeholders (LLaMA-Factory, ms-swift)
        self.present: Callable[[], frozenset[bytes]] | None = None  # the current record's literals (the judge's)

    def __call__(self, record: dict) -> MediaPlan | None:
        if self.present is not None and self.present().isdisjoint(MEDIA_LITERALS):
            return None
        if not _has_media(record, self.placeholder_format):
            return None
        plan = MediaPlan(counting=self.processor is not None)
        columns = {kind: record[key] for key, kind in COLUMNS.items() if key in record}
        bound = {kind: entries(value) for kind, value in columns.items()}
        for kind, given in bound.items():
            plan.listed[kind] = len(given)
            if any(e is None for _, e in given):
                plan.problems.append(Problem("FT250", f"the {kind}s column holds an entry that is not a path, URL or "
                                             "data: URL", (f"{kind}s",)))
        walk = Walk(self, plan, {k: iter(v) for k, v in bound.items()})
        plan.counted = walk.record(record)
        for kind in PLACEHOLDERS:
            marks, listed = plan.placeholders.get(kind, 0), plan.listed.get(kind)
            if listed is None and not (self.placeholder_format and marks):
                continue
            if marks != (listed or 0):
                plan.problems.append(Problem("FT250", _mismatch(kind, marks, listed or 0),
                                             (f"{kind}s",) if listed is not None else ()))
        if not walk.changed:
            plan.counted = None
        return plan

    def image(self, source: str, value: str, pointer: tuple[str | int, ...], turn: int, plan: MediaPlan,
              detail: str = "") -> Use:
        """One image: read (a local file, a data: URL, inline base64) or not (remote), then counted."""
        use = Use(pointer, turn)
        opened: Opened | None = None
        if source == "data":
            opened = data_url(value)
        elif source == "base64":
            opened = inline(value)
        elif source == "path":
            if self.root is None:
                plan.problems.append(Problem("FT251", f"{value!r}: a file named by a record read from standard input "
                                             "cannot be found (give the file's path)", pointer))
                return use
            opened = local(self.root, value)
        else:
            use.remote = source
        if opened is not None:
            use.nbytes, use.mime = opened.nbytes, opened.mime
            if opened.image is None:
                code = "FT251" if opened.kind == "missing" else "FT252"
                plan.problems.append(Problem(code, opened.problem, pointer))
                return use
            use.size, use.read = opened.image, True
            size = opened.image
            if not size.whole:
                plan.problems.append(Problem("FT252", f"a {size.kind.upper()} image cut short (its last bytes are "
                                             "missing): the trainer's decoder fails on it", pointer))
            elif size.width * size.height > BOMB_PIXELS:
                plan.problems.append(Problem("FT253", f"a {size.kind.upper()} header claiming {size.width:,} x "
                                             f"{size.height:,} pixels: PIL refuses an image of more than "
                                             f"{BOMB_PIXELS:,} (DecompressionBombError), so the trainer stops on it",
                                             pointer))
                return use
        proc = self.processor
        if proc is None:
            use.tokens = 85
        elif use.size is not None:
            width, height = use.size.width, use.size.height
            if self.pre_resize is not None:
                width, height = self.pre_resize(width, height, isinstance(proc, QwenVL))
            try:
                use.tokens = proc.tokens(width, height, detail)
            except Unusable as exc:
                plan.problems.append(Problem("FT253", f"{use.size.width:,} x {use.size.height:,} pixels: {exc}", pointer))
        else:
            use.tokens = proc.unread()[0]
        return use


def _mismatch(kind: str, marks: int, listed: int) -> str:
    mark = PLACEHOLDERS[kind]
    return (f"{marks} {mark} placeholder{'s' if marks != 1 else ''} in the text but {listed} {kind}{'s' if listed != 1 else ''} "
            f"in the {kind}s column: the trainer stops on the record (LLaMA-Factory: \"The number of {kind}s does not "
            f"match the number of {mark} tokens\"; Qwen-VL: image features and image tokens do not match)")


def _has_media(record: dict, placeholders: bool) -> bool:
    """A cheap test, run on every record: a media column, or (on a walk of the turns' content) a
    part that is not text, or a placeholder in a format whose text holds them."""
    if any(key in record for key in COLUMNS):
        return True
    for value in record.values():
        if isinstance(value, list) and _any_media(value, placeholders, 0):
            return True
        if placeholders and isinstance(value, str) and "<" in value and any(m in value for m in PLACEHOLDERS.values()):
            return True
    return False


def _any_media(items: list, placeholders: bool, depth: int) -> bool:
    for item in items:
        if isinstance(item, dict):
            if media_part(item) is not None:
                return True
            for key, value in item.items():
                if isinstance(value, list) and depth < 4 and _any_media(value, placeholders, depth + 1):
                    return True
                if placeholders and key not in NOT_TEXT and isinstance(value, str) and "<" in value \
                        and any(m in value for m in PLACEHOLDERS.values()):
                    return True
        elif isinstance(item, str) and placeholders and "<" in item and any(m in item for m in PLACEHOLDERS.values()):
            return True
    return False


def pointer_text(pointer: tuple[str | int, ...]) -> str:
    return json_path(list(pointer)) if pointer else "$"

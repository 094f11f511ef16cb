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

import base64
import binascii
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..diagnostics import json_path
from .files import Opened, data_url, local
from .header import ImageSize, NotAnImage, image_size
from .processors import BOMB_PIXELS, PreResize, Processor, QwenVL, Unusable

PLACEHOLDERS = {"image": "<image>", "video": "<video>", "audio": "<audio>"}
COLUMNS = {"images": "image", "videos": "video", "audios": "audio"}
# keys whose strings are not the conversation's text (placeholders there are not LLaMA-Factory's)
NOT_TEXT = frozenset({*COLUMNS, "tools", "functions", "system", "systemInstruction", "system_instruction", "id", "source"})
MAX_MEDIA = 1024  # media of one record looked at; a record of more is one finding, not a million reads


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
                 placeholders: bool, pre_resize: PreResize | None = None) -> None:
        self.processor, self.root, self.turns_key, self.pre_resize = processor, root, turns_key, pre_resize
        # spelled: each image becomes its text in place (a template renders the record); else the
        # images leave the text and the figures add their tokens; no processor: nothing changes
        self.spell = templated and processor is not None and processor.text(3) is not None
        self.rewrite = processor is not None
        self.placeholder_format = placeholders  # the format's text holds <image> placeholders (LLaMA-Factory, ms-swift)

    def __call__(self, record: dict) -> MediaPlan | None:
        if not _has_media(record, self.placeholder_format):
            return None
        plan = MediaPlan(counting=self.processor is not None)
        columns = {kind: record[key] for key, kind in COLUMNS.items() if key in record}
        bound = {kind: _entries(value) for kind, value in columns.items()}
        for kind, entries in bound.items():
            plan.listed[kind] = len(entries)
            if any(e is None for _, e in entries):
                plan.problems.append(Problem("FT250", f"the {kind}s column holds an entry that is not a path, URL or "
                                             "data: URL", (f"{kind}s",)))
        walk = _Walk(self, plan, {k: iter(v) for k, v in bound.items()})
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
            opened = _inline(value)
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
            if _media_part(item) is not None:
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


def _media_part(part: dict) -> str | None:
    """The kind of media a content part is (image, video, audio), or None for text and the rest."""
    kind = part.get("type")
    if kind in ("image_url", "image", "input_image"):
        return "image"
    if kind in ("video", "video_url", "audio", "input_audio"):
        return "video" if kind.startswith("video") else "audio"
    if "image" in part or "image_url" in part or "inlineData" in part or "inline_data" in part:
        return "image"
    if "fileData" in part or "file_data" in part:
        data = part.get("fileData") or part.get("file_data")
        mime = data.get("mimeType", data.get("mime_type", "")) if isinstance(data, dict) else ""
        return "image" if not isinstance(mime, str) or mime.startswith("image/") else "video"
    if "video" in part:
        return "video"
    return None


def _entries(value: object) -> list[tuple[int, str | None]]:
    """A media column's entries: a string, or a list of strings (a list of frames counts as one
    video; a {"path": ...} dict as its path)."""
    items = value if isinstance(value, list) else [] if value is None else [value]
    out: list[tuple[int, str | None]] = []
    for i, item in enumerate(items[:MAX_MEDIA]):
        if isinstance(item, dict):
            item = item.get("path") or item.get("url")
        if isinstance(item, list):  # a video given as its frames
            item = next((f for f in item if isinstance(f, str)), None)
        out.append((i, item if isinstance(item, str) else None))
    return out


def _source_of(value: str) -> str:
    lowered = value[:8].lower()
    if lowered.startswith("data:"):
        return "data"
    if lowered.startswith(("http://", "https:/")):
        return "url"
    if lowered.startswith("s3://"):
        return "s3"
    if lowered.startswith("gs://"):
        return "gs"
    return "url" if "://" in value[:32] else "path"  # another scheme (ftp://, file://) names no file of the dataset


def _inline(data: str) -> Opened:
    """Gemini's inlineData: base64 without a data: prefix."""
    try:
        raw = base64.b64decode(data[:4096 // 3 * 4], validate=True)
    except (binascii.Error, ValueError):
        return Opened(None, "inline data whose base64 is broken", "not-image")
    nbytes = len(data) * 3 // 4
    try:
        found = image_size(lambda offset, n: raw[offset:offset + n] if offset < len(raw) else _tail(data, offset, n), nbytes)
    except NotAnImage as exc:
        return Opened(None, f"inline data: {exc}", "not-image", nbytes)
    return Opened(found, nbytes=nbytes)


def _tail(data: str, offset: int, n: int) -> bytes:
    start = offset // 3 * 4
    raw = base64.b64decode(data[start:start + (n // 3 + 2) * 4])
    return raw[offset - start // 4 * 3:][:n]


class _Walk:
    """One pass over the record: finds its images in order, counts its placeholders, and makes the
    record as the figures count it."""

    def __init__(self, planner: Planner, plan: MediaPlan, columns: dict[str, Iterator[tuple[int, str | None]]]) -> None:
        self.planner, self.plan, self.columns = planner, plan, columns
        self.changed = False
        self.turn = -1
        self.seen = 0

    def record(self, record: dict) -> dict:
        out: dict[str, object] = {}
        for key, value in record.items():
            if key in COLUMNS or key in NOT_TEXT:
                out[key] = value
            elif key == self.planner.turns_key and isinstance(value, list):
                turns = []
                for i, turn in enumerate(value):
                    self.turn = i
                    turns.append(self.value(turn, (key, i)))
                self.turn = -1
                out[key] = turns
            else:
                out[key] = self.value(value, (key,))
        return out

    def value(self, value: object, path: tuple[str | int, ...]) -> object:
        if isinstance(value, str):
            return self.text(value, path)
        if isinstance(value, list):
            if any(isinstance(p, dict) and _media_part(p) is not None for p in value):
                return self.parts(value, path)
            return [self.value(v, (*path, i)) for i, v in enumerate(value)]
        if isinstance(value, dict):
            return {k: (v if k in NOT_TEXT else self.value(v, (*path, k))) for k, v in value.items()}
        return value

    def text(self, text: str, path: tuple[str | int, ...]) -> str:
        if "<" not in text or not any(m in text for m in PLACEHOLDERS.values()):
            return text
        pieces: list[str] = []
        rest = text
        while True:
            found = [(rest.find(mark), kind) for kind, mark in PLACEHOLDERS.items() if mark in rest]
            if not found:
                pieces.append(rest)
                break
            at, kind = min(found)
            pieces.append(rest[:at])
            rest = rest[at + len(PLACEHOLDERS[kind]):]
            self.plan.placeholders[kind] = self.plan.placeholders.get(kind, 0) + 1
            pieces.append(self.bound(kind, path))
        if not self.planner.rewrite:
            return text
        self.changed = True
        return "".join(pieces)

    def bound(self, kind: str, path: tuple[str | int, ...]) -> str:
        """A placeholder's image from its column: the text the figures count in its place."""
        entries = self.columns.get(kind)
        entry = next(entries, None) if entries is not None else None
        if entry is None or entry[1] is None or kind != "image":
            if kind != "image" and entry is not None:
                self.plan.others += 1
            return ""
        use = self.use(_source_of(entry[1]), entry[1], (f"{kind}s", entry[0]), "")
        return self.spelled(use)

    def use(self, source: str, value: str, pointer: tuple[str | int, ...], detail: str) -> Use | None:
        if self.seen >= MAX_MEDIA:
            return None
        self.seen += 1
        use = self.planner.image(source, value, pointer, self.turn, self.plan, detail)
        self.plan.uses.append(use)
        return use

    def spelled(self, use: Use | None) -> str:
        proc = self.planner.processor
        if use is None or proc is None or not self.planner.spell or not use.tokens:
            return ""
        return proc.text(use.tokens) or ""

    def parts(self, parts: list, path: tuple[str | int, ...]) -> object:
        """A content list holding media: as one string through a template (texts and images in
        order, as Qwen's template writes them), else the list without its media."""
        kept: list[object] = []
        texts: list[str] = []
        for i, part in enumerate(parts):
            kind = _media_part(part) if isinstance(part, dict) else None
            if kind is None:
                done = self.value(part, (*path, i))
                kept.append(done)
                if isinstance(done, dict) and isinstance(done.get("text"), str):
                    texts.append(done["text"])
                continue
            assert isinstance(part, dict)
            if kind != "image":
                self.plan.others += 1
                continue
            found = _part_source(part)
            if found is None:  # a bare {"type": "image"}: a placeholder for the images column
                self.plan.placeholders["image"] = self.plan.placeholders.get("image", 0) + 1
                texts.append(self.bound("image", (*path, i)))
                continue
            source, value, detail = found
            texts.append(self.spelled(self.use(source, value, (*path, i), detail)))
        if not self.planner.rewrite:
            return parts
        self.changed = True
        return "".join(texts) if self.planner.spell else kept


def _part_source(part: dict) -> tuple[str, str, str] | None:
    """(source kind, value, detail) of an image part; None for a bare placeholder part."""
    url = part.get("image_url")
    if isinstance(url, dict):
        value = url.get("url")
        detail = url.get("detail") if isinstance(url.get("detail"), str) else ""
        return (_source_of(value), value, detail or "") if isinstance(value, str) else ("url", "", "")
    if isinstance(url, str):
        return _source_of(url), url, ""
    for key in ("image", "url", "path"):
        value = part.get(key)
        if isinstance(value, str):
            return _source_of(value), value, ""
        if isinstance(value, dict):  # Converse {"image": {"format", "source": {"s3Location"| "bytes"}}}
            return "s3", "", ""
    inline = part.get("inlineData") or part.get("inline_data")
    if isinstance(inline, dict) and isinstance(inline.get("data"), str):
        return "base64", inline["data"], ""
    data = part.get("fileData") or part.get("file_data")
    if isinstance(data, dict):
        uri = data.get("fileUri", data.get("file_uri", ""))
        return (_source_of(uri) if isinstance(uri, str) else "gs"), "", ""
    return None


def pointer_text(pointer: tuple[str | int, ...]) -> str:
    return json_path(list(pointer)) if pointer else "$"

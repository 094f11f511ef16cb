"""Where a record's media are, found in one walk (plan.py's Planner reads and counts each): the
placeholders of its text, the parts of its content lists, the entries of its media columns; and the
record as the figures count it (each image spelled as its processor writes it, or left out)."""

from __future__ import annotations

import base64
import binascii
from collections.abc import Iterator
from typing import Any, TypeAlias

from .files import Opened
from .header import NotAnImage, image_size

# plan.py's Planner, MediaPlan and Use (Any here: plan.py imports this module)
Planner: TypeAlias = Any
MediaPlan: TypeAlias = Any
Use: TypeAlias = Any

PLACEHOLDERS = {"image": "<image>", "video": "<video>", "audio": "<audio>"}
COLUMNS = {"images": "image", "videos": "video", "audios": "audio"}
# keys whose strings are not the conversation's text (placeholders there are not LLaMA-Factory's)
NOT_TEXT = frozenset({*COLUMNS, "tools", "functions", "system", "systemInstruction", "system_instruction", "id", "source"})
MAX_MEDIA = 1024  # media of one record looked at; a record of more is one finding, not a million reads


def media_part(part: dict) -> str | None:
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


def entries(value: object) -> list[tuple[int, str | None]]:
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


def source_of(value: str) -> str:
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


def inline(data: str) -> Opened:
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


class Walk:
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
            if any(isinstance(p, dict) and media_part(p) is not None for p in value):
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
        use = self.use(source_of(entry[1]), entry[1], (f"{kind}s", entry[0]), "")
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
            kind = media_part(part) if isinstance(part, dict) else None
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
            found = part_source(part)
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


def part_source(part: dict) -> tuple[str, str, str] | None:
    """(source kind, value, detail) of an image part; None for a bare placeholder part."""
    url = part.get("image_url")
    if isinstance(url, dict):
        value = url.get("url")
        detail = url.get("detail") if isinstance(url.get("detail"), str) else ""
        return (source_of(value), value, detail or "") if isinstance(value, str) else ("url", "", "")
    if isinstance(url, str):
        return source_of(url), url, ""
    for key in ("image", "url", "path"):
        value = part.get(key)
        if isinstance(value, str):
            return source_of(value), value, ""
        if isinstance(value, dict):  # Converse {"image": {"format", "source": {"s3Location"| "bytes"}}}
            return "s3", "", ""
    inline = part.get("inlineData") or part.get("inline_data")
    if isinstance(inline, dict) and isinstance(inline.get("data"), str):
        return "base64", inline["data"], ""
    data = part.get("fileData") or part.get("file_data")
    if isinstance(data, dict):
        uri = data.get("fileUri", data.get("file_uri", ""))
        return (source_of(uri) if isinstance(uri, str) else "gs"), "", ""
    return None

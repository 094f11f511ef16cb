"""What share of a dataset's records hold an e-mail, a URL, an image URL, a phone number, code,
a tool call or non-Latin text: the measure benchmarks/generate.py's mix was set from.

    python benchmarks/proportions.py FILE [FILE ...]

A file is JSONL or one JSON array (the shape of most public demo sets). A record counts once per
kind, whatever the number of hits in it; every string of the record is looked at, keys too (a
`tool_calls` or `function_call` key is a tool call). Prints one row per file and the pooled row.
"""

from __future__ import annotations

import json
import re
import sys
import unicodedata
from collections.abc import Iterator
from pathlib import Path

EMAIL = re.compile(r"[\w.+-]+@[A-Za-z0-9-]+\.[A-Za-z0-9.-]*[A-Za-z]")
URL = re.compile(r"https?://[^\s\"'<>)]+|www\.[A-Za-z0-9-]+\.[A-Za-z]{2,}")
IMAGE = re.compile(r"\.(?:jpe?g|png|gif|webp|bmp)\b|data:image/|<image>", re.I)
# a number as people write one: a grouped 7-to-12 digit run with separators, or +country code
PHONE = re.compile(r"(?<![\w.])(?:\+\d{1,3}[ .-]?)?(?:\(\d{2,4}\)[ .-]?|\d{2,4}[ .-])\d{3,4}[ .-]\d{3,4}(?![\w.])")
# a fence or a line that opens like source code (JSON, as tool arguments are, is not code here)
CODE = re.compile(r"```|^\s*(?:def |class |import |from \S+ import |function |#include|SELECT |public |return |for \(|if \()", re.M)
TOOL_KEYS = {"tool_calls", "function_call", "tools", "functions"}
TOOL_ROLES = {"tool", "function", "function_call", "observation", "ipython"}
KINDS = ("email", "url", "image_url", "phone", "code", "tool_call", "non_latin")


def records(path: Path) -> Iterator[object]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        yield from json.loads(text)
        return
    for line in text.splitlines():
        if line.strip():
            yield json.loads(line)


def strings(value: object, keys: set[str]) -> Iterator[str]:
    if isinstance(value, str):
        yield value
    elif isinstance(value, dict):
        for key, item in value.items():
            keys.add(key)
            if key in ("role", "from") and isinstance(item, str):
                keys.add(f"role:{item}")
            yield from strings(item, keys)
    elif isinstance(value, list):
        for item in value:
            yield from strings(item, keys)


def non_latin(text: str) -> bool:
    return any(ord(ch) > 0x24F and ch.isalpha() and not unicodedata.name(ch, "").startswith("LATIN") for ch in text)


def kinds(record: object) -> set[str]:
    keys: set[str] = set()
    text = "\n".join(strings(record, keys))
    found = {name for name, rx in (("email", EMAIL), ("url", URL), ("phone", PHONE), ("code", CODE)) if rx.search(text)}
    if IMAGE.search(text) or "image_url" in keys or "images" in keys:
        found.add("image_url")
    if keys & TOOL_KEYS or any(f"role:{r}" in keys for r in TOOL_ROLES):
        found.add("tool_call")
    if non_latin(text):
        found.add("non_latin")
    return found


def shares(paths: list[Path]) -> dict[str, tuple[int, dict[str, int]]]:
    out: dict[str, tuple[int, dict[str, int]]] = {}
    for path in paths:
        counts = dict.fromkeys(KINDS, 0)
        n = 0
        for record in records(path):
            n += 1
            for kind in kinds(record):
                counts[kind] += 1
        out[path.name] = (n, counts)
    return out


def main() -> None:
    paths = [Path(p) for p in sys.argv[1:]]
    if not paths:
        sys.exit(__doc__)
    table = shares(paths)
    pooled = dict.fromkeys(KINDS, 0)
    total = 0
    print(f"{'file':40} {'records':>7} " + " ".join(f"{k:>9}" for k in KINDS))
    for name, (n, counts) in table.items():
        total += n
        for kind in KINDS:
            pooled[kind] += counts[kind]
        print(f"{name:40} {n:7} " + " ".join(f"{100 * counts[k] / max(n, 1):8.1f}%" for k in KINDS))
    print(f"{'pooled':40} {total:7} " + " ".join(f"{100 * pooled[k] / max(total, 1):8.1f}%" for k in KINDS))


if __name__ == "__main__":
    main()

"""Reference: the bare tokenizer loop. Parse each line and encode_ordinary every string in it,
on one core, with the same shipped encoding ftlint uses. The floor of the work.

    python benchmarks/bare.py FILE [ENCODING]

stages.py times the same walk (`walker`) beside estimate's worker."""

from __future__ import annotations

import sys
from collections.abc import Callable

import orjson

from ftlint.tokens import get_encoding


def walker(encode: Callable[[str], list[int]]) -> Callable[[object], int]:
    """The tokens of every string in a parsed line, `encode` being the encoding's encode_ordinary."""

    def walk(value: object) -> int:
        if isinstance(value, str):
            return len(encode(value))
        if isinstance(value, dict):
            return sum(walk(v) for v in value.values())
        if isinstance(value, list):
            return sum(walk(v) for v in value)
        return 0

    return walk


def main(path: str, encoding: str) -> None:
    walk = walker(get_encoding(encoding).encode_ordinary)
    total = 0
    with open(path, "rb") as fh:
        for line in fh:
            total += walk(orjson.loads(line))
    print(total)


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else "o200k_base")

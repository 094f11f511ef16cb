"""Reference: the bare tokenizer loop. Parse each line and encode_ordinary every string in it,
on one core, with the same shipped encoding ftlint uses. The floor of the work."""

import sys

import orjson

from ftlint.tokens import get_encoding

encode = get_encoding(sys.argv[2] if len(sys.argv) > 2 else "o200k_base").encode_ordinary


def walk(value: object) -> int:
    if isinstance(value, str):
        return len(encode(value))
    if isinstance(value, dict):
        return sum(walk(v) for v in value.values())
    if isinstance(value, list):
        return sum(walk(v) for v in value)
    return 0


total = 0
with open(sys.argv[1], "rb") as fh:
    for line in fh:
        total += walk(orjson.loads(line))
print(total)

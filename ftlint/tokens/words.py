"""Whole-word tokens: for a family whose ranks ftlint ships, the words `w` (ASCII letters, at
most a leading capital: `[A-Z]?[a-z]+`) for which " " + w is one token of its vocabulary, among
its first WORD_RANKS ranks. A leaf of the tokens package, read by WordBound (tokens/__init__.py).

Why such a word is exactly one token wherever the text has it between two spaces (or a space and
the end): every family's split pattern starts a new piece at a space followed by a letter and
ends a run of letters at a space, and a run of lower-case letters after at most one capital
stays one piece (o200k's and Tekken's `[Lu]*[Ll]+`, cl100k's and Qwen's `\\p{L}+`; a contraction
needs an apostrophe, which no such word holds). So " w" is a whole piece, and tiktoken encodes a
piece found in the vocabulary as that one token. Only membership matters: a word missing from
the list only loosens the bound, a word in it that is not a token would break it, which
tests/models/test_tokens.py rules out for each shipped list against the family's ranks.
"""

from __future__ import annotations

import gzip
import hashlib
from functools import cache
from importlib import resources

# The families with a list, and whose list each reads (o200k_harmony has o200k_base's ranks and pattern)
WORD_LISTS = {"o200k_base": "o200k_base", "o200k_harmony": "o200k_base", "cl100k_base": "cl100k_base", "qwen2": "qwen2",
              "mistral-tekken": "mistral-tekken"}
WORD_RANKS = 50_000  # the commonest words only: 16-19 thousand a family, about 45 KB compressed
# SHA-256 of each uncompressed list (also in tokenizers/SHA256SUMS): a list that does not match is
# not used, so a damaged or altered file can only loosen the bound to the byte bound, never break it
WORD_SHA256 = {"o200k_base": "50c9530fe33e5bf3212c878bc077460c6d1d627129e68a0b3acb4c78809c146b",
               "cl100k_base": "1026b261b88da98258b7ae6bc1022fe7360a7a112308ba6a4132bf472f20022e",
               "qwen2": "72b92c66314d31747dc392da15b0c6b3ad8b92b402117d6b3e4109d3bf43e84a",
               "mistral-tekken": "d349b6f7d91eb8452f0486d15572ce5faeb809c9bb3e575445affc3fe957ea0f"}


def word_file(family: str) -> str:
    return f"{WORD_LISTS[family]}.words.gz"


@cache
def whole_words(family: str) -> frozenset[str]:
    """The family's words that are one token after a space (empty: no list, or an unreadable one or
    one whose hash is not the pinned one, which only makes the bound the byte bound)."""
    if family not in WORD_LISTS:
        return frozenset()
    try:
        data = gzip.decompress(resources.files("ftlint").joinpath("tokenizers", word_file(family)).read_bytes())
    except (OSError, EOFError, gzip.BadGzipFile):
        return frozenset()
    return words_of(family, data)


def words_of(family: str, data: bytes) -> frozenset[str]:
    """A list's words from its uncompressed bytes, if they are the pinned ones (else none)."""
    if hashlib.sha256(data).hexdigest() != WORD_SHA256[WORD_LISTS[family]]:
        return frozenset()
    return frozenset(data.decode("ascii").split("\n")) - {""}

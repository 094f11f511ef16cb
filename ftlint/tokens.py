"""Token counting with tiktoken and the rank files shipped inside this package.

No run ever touches the network: the BPE ranks come from `ftlint/tokenizers/*.tiktoken.gz`,
checked against the SHA-256 sums tiktoken itself pins for them (`SHA256SUMS`), then handed to
tiktoken. Text is encoded with `encode_ordinary`, so a string that looks like a special token
(`<|endoftext|>`) is counted as the plain text it is, never refused.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import threading
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    import tiktoken

ENCODINGS = ("o200k_base", "cl100k_base")
_LOCK = threading.Lock()


class TokenizerError(Exception):
    """The shipped rank file is missing or corrupt (a broken install): exit 2."""


def _expected_sums() -> dict[str, str]:
    text = resources.files("ftlint").joinpath("tokenizers", "SHA256SUMS").read_text()
    sums = {}
    for line in text.splitlines():
        if line.strip():
            digest, name = line.split()
            sums[name.removesuffix(".tiktoken")] = digest
    return sums


def load_ranks(name: str) -> dict[bytes, int]:
    """Read, verify and parse the shipped rank file of encoding `name`."""
    if name not in ENCODINGS:
        raise TokenizerError(f"unknown encoding {name!r}; ftlint ships {', '.join(ENCODINGS)}")
    ref = resources.files("ftlint").joinpath("tokenizers", f"{name}.tiktoken.gz")
    try:
        data = gzip.decompress(ref.read_bytes())
    except (OSError, EOFError) as exc:
        raise TokenizerError(f"cannot read the shipped {name} rank file: {exc}") from None
    digest = hashlib.sha256(data).hexdigest()
    expected = _expected_sums().get(name)
    if digest != expected:
        raise TokenizerError(
            f"the shipped {name} rank file is corrupt (sha256 {digest[:12]}…, expected "
            f"{(expected or '?')[:12]}…); reinstall ftlint"
        )
    decode = binascii.a2b_base64
    return {decode(token): int(rank) for token, rank in (line.split() for line in data.splitlines() if line)}


@cache
def get_encoding(name: str) -> tiktoken.Encoding:
    """A tiktoken Encoding built from the shipped, verified ranks. The split pattern and the
    special tokens come from tiktoken's own definition of the encoding, whose rank loader is
    pointed at the verified ranks for the duration of the call instead of the network."""
    import tiktoken
    from tiktoken_ext import openai_public

    ranks = load_ranks(name)
    with _LOCK:
        original = openai_public.load_tiktoken_bpe
        openai_public.load_tiktoken_bpe = lambda *_args, **_kwargs: ranks
        try:
            spec = getattr(openai_public, name)()
        finally:
            openai_public.load_tiktoken_bpe = original
    return tiktoken.Encoding(**spec)


class TokenCounter:
    """Counts tokens of strings with one encoding. Long strings that repeat across records
    (system prompts, tool definitions) are encoded once and remembered."""

    CACHE_MIN_CHARS = 200
    CACHE_MAX_ENTRIES = 4096

    def __init__(self, encoding_name: str) -> None:
        self.encoding_name = encoding_name
        self._encode = get_encoding(encoding_name).encode_ordinary
        self._cache: dict[str, int] = {}

    def count(self, text: str) -> int:
        if not text:
            return 0
        if len(text) < self.CACHE_MIN_CHARS:
            return len(self._encode(text))
        hit = self._cache.get(text)
        if hit is None:
            hit = len(self._encode(text))
            if len(self._cache) >= self.CACHE_MAX_ENTRIES:
                self._cache.clear()
            self._cache[text] = hit
        return hit

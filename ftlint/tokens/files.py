"""Tokenizer files the user names (--tokenizer PATH), read offline:

  a Hugging Face tokenizer.json of a byte-level BPE model (Llama 3, Qwen, gpt-oss, most open
      models), into tiktoken ranks: its vocabulary (GPT-2's byte-to-character table undone), its
      pre-tokenizer's split regex and its NFC normaliser, with its added tokens;
  any other tokenizer.json (SentencePiece-style BPE with byte fallback, Unigram, merges out of
      rank order, other normalisers and pre-tokenizers, added tokens that strip spaces: whatever
      tiktoken's merge by rank could count otherwise), run by the Hugging Face tokenizers
      library, as the trainers run it (library.py);
  a Mistral Tekken JSON (tekken.json): its vocabulary less its special tokens, and its pattern;
  a tiktoken rank file (Llama's tokenizer.model): its split pattern is not in the file, so it must
      be one ftlint knows by its SHA-256 (a family of ftlint.tokens);
  a model folder, or a model's snapshot in the local Hugging Face cache: the first of those files
      found in it, with its tokenizer_config.json's added tokens (folder.py), as transformers 4
      and 5 save them.

The file is read with trust.read_file (one regular file of at most --max-file-bytes: a FIFO or
/dev/zero behind a symlink is refused) and checked before tiktoken sees it (json_files.py,
and `_check_vocabulary` here): a malformed file is one TokenizerError naming it and saying what
would be right, never a panic of tiktoken's. Parsed, JSON takes up to 25 times its size (64 MiB
of empty objects: 1.7 GB); real tokenizer files have 2 to 35 MB.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path

from ..trust import MAX_FILE_BYTES, Refused, read_file
from .families import FAMILIES, TokenizerError, parse_ranks
from .folder import Added, custom_code, merged, of_config, of_tokenizer_json, read_config, rebuilt
from .json_files import Malformed, NotTiktoken, check_bytes, hugging_face, patterns, tekken
from .library import Library

# A split pattern longer than this is refused: real ones have a few hundred characters, and
# compiling costs with the length (an alternation of 1.5 MB took fancy-regex 3 s and 490 MiB).
MAX_PATTERN_CHARS = 4096
_JSON_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*[{\[]")  # tokenizer.json, tekken.json (a byte-order mark allowed)
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]+\r?(?:\n|$)")  # a tiktoken rank file's first line


@dataclass(frozen=True)
class LoadedTokenizer:
    path: str
    kind: str  # tokenizer.json | tekken | tiktoken | tokenizers (tokenizer.json, run by the tokenizers library)
    ranks: dict[bytes, int]
    pattern: str
    nfc: bool
    sha256: str
    added: tuple[Added, ...] = ()  # the tokens matched in a rendered text before the rest is split (folder.py)
    library: Library | None = None  # kind "tokenizers": the file, loaded
    why: str = ""  # kind "tokenizers": why tiktoken cannot run it exactly
    inexact: str = ""  # why the count may not be the trainer's (custom tokenizer code), said with the figures


def find_in(folder: Path) -> Path | None:
    for name in ("tokenizer.json", "tekken.json", "tokenizer.model", "original/tokenizer.model"):
        if (folder / name).is_file():
            return folder / name
    return None


def hf_cache_snapshot(model_id: str) -> Path | None:
    """The newest snapshot of a model in the local Hugging Face cache that holds a tokenizer."""
    if "/" not in model_id:
        return None
    home = Path(os.environ.get("HF_HUB_CACHE") or Path(os.environ.get("HF_HOME", Path.home() / ".cache" / "huggingface")) / "hub")
    snapshots = home / f"models--{model_id.replace('/', '--')}" / "snapshots"
    if not snapshots.is_dir():
        return None
    found = [s for s in snapshots.iterdir() if s.is_dir() and find_in(s) is not None]
    return max(found, key=lambda s: s.stat().st_mtime) if found else None


def load_file(path_text: str, limit: int = MAX_FILE_BYTES) -> LoadedTokenizer:
    """The tokenizer in a file or a folder, read with at most `limit` bytes (--max-file-bytes)
    and checked. A folder is read as transformers reads it: its tokenizer file and, beside a
    tokenizer.json, its tokenizer_config.json's added tokens (folder.py). (ftlint.tokens caches
    the encoding made of it, by path and limit.)"""
    if "\x00" in path_text:  # os.open raises ValueError for it (the API, or a configuration's string, can hold one)
        raise TokenizerError(f"--tokenizer {path_text!r}: a path with a NUL byte; name a file")
    path = Path(path_text)
    config: dict = {}
    if path.is_dir():
        inner = find_in(path)
        if inner is None:
            raise TokenizerError(f"--tokenizer {path}: no tokenizer.json, tekken.json or tokenizer.model in that folder")
        if inner.name == "tokenizer.json":
            config = read_config(path, "--tokenizer", limit)
        path = inner
    try:
        data = read_file(path, "--tokenizer", limit)
    except Refused as exc:
        raise TokenizerError(str(exc)) from None
    digest = hashlib.sha256(data).hexdigest()
    if not _JSON_START.match(data):
        return _rank_file(path, data, digest)
    try:
        doc = _document(data)
        if isinstance(doc.get("vocab"), list) and isinstance(doc.get("config"), dict):
            ranks, pattern = tekken(doc)
            _check_vocabulary(ranks, pattern)
            return LoadedTokenizer(str(path), "tekken", ranks, pattern, False, digest, _tekken_specials(doc))
        if not isinstance(doc.get("model"), dict):
            raise Malformed("neither a Hugging Face tokenizer.json (an object with a model) nor a Tekken file (an object with "
                            "vocab and config)")
        return _tokenizer_json(path, data, digest, doc, config)
    except Malformed as exc:
        raise TokenizerError(f"--tokenizer {path}: {exc}") from None


def _tokenizer_json(path: Path, data: bytes, digest: str, doc: dict, config: dict) -> LoadedTokenizer:
    """A tokenizer.json with its folder's added tokens: tiktoken's ranks where they count it
    exactly, else the tokenizers library's tokenizer of it."""
    added = merged(of_tokenizer_json(_listed(doc)), of_config(config))
    override = rebuilt(config, doc)
    if override:  # transformers 5 runs the tokenizer class's own pipeline, not the file's
        doc = {**doc, **override}
    try:
        ranks, pattern, nfc = hugging_face(doc)
        _check_vocabulary(ranks, pattern)
        why = _not_plain(added, config)
    except NotTiktoken as exc:
        why = str(exc)
    if not why:
        return LoadedTokenizer(str(path), "tokenizer.json", ranks, pattern, nfc, digest, added, inexact=custom_code(config))
    _check_patterns(doc)
    text = json.dumps(doc) if override else data.decode("utf-8-sig")
    library = Library(f"--tokenizer {path}", doc, text, added, config.get("split_special_tokens") is True)
    return LoadedTokenizer(str(path), "tokenizers", {}, "", False, digest, added, library, why, custom_code(config))


def _document(data: bytes) -> dict:
    try:
        doc = json.loads(data)
    except RecursionError:
        raise Malformed("its JSON nests too deeply for a tokenizer file") from None
    except MemoryError:
        raise Malformed(f"its {len(data):,} bytes of JSON do not fit in memory once parsed (JSON can take 25 times its "
                        "size); a tokenizer file has a few MB: lower --max-file-bytes to refuse such files unread") from None
    except ValueError as exc:  # json.JSONDecodeError, UnicodeDecodeError
        raise Malformed(f"not valid JSON ({exc})") from None
    if not isinstance(doc, dict):
        raise Malformed("a JSON list, not an object; a tokenizer.json or a tekken.json is one JSON object")
    return doc


def _listed(doc: dict) -> list:
    tokens = doc.get("added_tokens", [])
    if not isinstance(tokens, list):
        return []  # hugging_face names what is wrong with it
    return [t for t in tokens if isinstance(t, dict)]


def _tekken_specials(doc: dict) -> tuple[Added, ...]:
    """A Tekken file's control tokens (`special_tokens`: <s>, [INST], ...), which mistral-common
    never reads in text but transformers' tokenizer of the file does."""
    specials = doc.get("special_tokens")
    names = [t.get("token_str") for t in specials if isinstance(t, dict)] if isinstance(specials, list) else []
    return tuple(Added(n) for n in names if isinstance(n, str) and n)


def _not_plain(added: tuple[Added, ...], config: dict) -> str:
    """Why a split at the added tokens' text cannot be the library's matching ("" when it is)."""
    odd = next((t for t in added if not t.plain), None)
    if odd is not None:
        return f"its added token {odd.content!r} strips the spaces around it or matches whole words only"
    if config.get("split_special_tokens") is True:
        return "its tokenizer_config.json sets split_special_tokens"
    return ""


def _check_patterns(doc: dict) -> None:
    """A regex of the library's normaliser or pre-tokenizer is bounded as a split pattern is."""
    for regex in patterns([doc.get("normalizer"), doc.get("pre_tokenizer")]):
        if len(regex) > MAX_PATTERN_CHARS:
            raise Malformed(f"a regex of its normaliser or pre-tokenizer has {len(regex):,} characters; at most "
                            f"{MAX_PATTERN_CHARS:,} (real ones have a few hundred)")


def _check_vocabulary(ranks: dict[bytes, int], pattern: str) -> None:
    """A split pattern that is short and not empty, and what tiktoken needs of the vocabulary (json_files.check_bytes)."""
    if not pattern or len(pattern) > MAX_PATTERN_CHARS:
        raise Malformed(f"its split pattern has {len(pattern):,} characters; it must have from 1 to {MAX_PATTERN_CHARS:,} "
                        "(real ones have a few hundred)")
    check_bytes(ranks)


def _rank_file(path: Path, data: bytes, digest: str) -> LoadedTokenizer:
    """A tiktoken rank file: one of a family's, known by its SHA-256 (its split pattern is not
    in it). Such a file is parsed as the family's own (tests/models/test_tokens.py checks each)."""
    family = next((f for f in FAMILIES.values() if f.sha256 == digest and not f.ranks_of), None)
    if family is None:
        if not _RANK_LINE.match(data):
            empty = "an empty file" if not data or data.isspace() else "not a tokenizer file"
            raise TokenizerError(f"--tokenizer {path}: {empty}; give a tokenizer.json, a tekken.json, a tiktoken rank file (a "
                                 "base64 token and its rank on each line) or a model folder")
        raise TokenizerError(f"--tokenizer {path}: a tiktoken rank file carries no split pattern, and this one (sha256 "
                             f"{digest[:12]}…) is none ftlint knows; give the model's tokenizer.json instead")
    if family.pattern is None:  # OpenAI's: tiktoken's own definition holds the pattern
        raise TokenizerError(f"--tokenizer {path}: the rank file of {family.name}; give --tokenizer {family.name}")
    return LoadedTokenizer(str(path), "tiktoken", parse_ranks(data), family.pattern, family.nfc, digest)

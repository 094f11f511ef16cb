"""Tokenizer files the user names (--tokenizer PATH), read offline into tiktoken ranks:

  a Hugging Face tokenizer.json of a byte-level BPE model (Llama 3, Qwen, gpt-oss, most open
      models): its vocabulary (GPT-2's byte-to-character table undone), its pre-tokenizer's split
      regex and its NFC normaliser; refused when its merges are not in rank order (tiktoken merges
      by rank, so it could not count such a file exactly);
  a Mistral Tekken JSON (tekken.json): its vocabulary less its special tokens, and its pattern;
  a tiktoken rank file (Llama's tokenizer.model): its split pattern is not in the file, so it must
      be one ftlint knows by its SHA-256 (a family of ftlint.tokens);
  a model folder, or a model's snapshot in the local Hugging Face cache: the first of those files
      found in it.

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
from .json_files import Malformed, hugging_face, tekken

# A split pattern longer than this is refused: real ones have a few hundred characters, and
# compiling costs with the length (an alternation of 1.5 MB took fancy-regex 3 s and 490 MiB).
MAX_PATTERN_CHARS = 4096
_JSON_START = re.compile(rb"(?:\xef\xbb\xbf)?[ \t\r\n]*[{\[]")  # tokenizer.json, tekken.json (a byte-order mark allowed)
_RANK_LINE = re.compile(rb"[A-Za-z0-9+/]+={0,2} [0-9]+\r?(?:\n|$)")  # a tiktoken rank file's first line


@dataclass(frozen=True)
class LoadedTokenizer:
    path: str
    kind: str  # tokenizer.json | tekken | tiktoken
    ranks: dict[bytes, int]
    pattern: str
    nfc: bool
    sha256: str


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
    and checked. (ftlint.tokens caches the encoding made of it, by path and limit.)"""
    if "\x00" in path_text:  # os.open raises ValueError for it (the API, or a configuration's string, can hold one)
        raise TokenizerError(f"--tokenizer {path_text!r}: a path with a NUL byte; name a file")
    path = Path(path_text)
    if path.is_dir():
        inner = find_in(path)
        if inner is None:
            raise TokenizerError(f"--tokenizer {path}: no tokenizer.json, tekken.json or tokenizer.model in that folder")
        path = inner
    try:
        data = read_file(path, "--tokenizer", limit)
    except Refused as exc:
        raise TokenizerError(str(exc)) from None
    digest = hashlib.sha256(data).hexdigest()
    if not _JSON_START.match(data):
        return _rank_file(path, data, digest)
    try:
        kind, ranks, pattern, nfc = _from_json(data)
        _check_vocabulary(ranks, pattern)
    except Malformed as exc:
        raise TokenizerError(f"--tokenizer {path}: {exc}") from None
    return LoadedTokenizer(str(path), kind, ranks, pattern, nfc, digest)


def _from_json(data: bytes) -> tuple[str, dict[bytes, int], str, bool]:
    try:
        doc = json.loads(data)
        if not isinstance(doc, dict):
            raise Malformed("a JSON list, not an object; a tokenizer.json or a tekken.json is one JSON object")
        if isinstance(doc.get("vocab"), list) and isinstance(doc.get("config"), dict):
            return ("tekken", *tekken(doc), False)
        if isinstance(doc.get("model"), dict):
            return ("tokenizer.json", *hugging_face(doc))
    except RecursionError:
        raise Malformed("its JSON nests too deeply for a tokenizer file") from None
    except MemoryError:
        raise Malformed(f"its {len(data):,} bytes of JSON do not fit in memory once parsed (JSON can take 25 times its "
                        "size); a tokenizer file has a few MB: lower --max-file-bytes to refuse such files unread") from None
    except ValueError as exc:  # json.JSONDecodeError, UnicodeDecodeError
        raise Malformed(f"not valid JSON ({exc})") from None
    raise Malformed("neither a Hugging Face tokenizer.json (an object with a model) nor a Tekken file (an object with "
                    "vocab and config)")


def _check_vocabulary(ranks: dict[bytes, int], pattern: str) -> None:
    """What tiktoken needs of a vocabulary and would panic without (tiktoken/src/lib.rs): every
    single byte a token (byte_pair_encode looks each piece's bytes up unchecked), each rank
    once (CoreBPE::new asserts it); and a split pattern that is short and not empty."""
    if not pattern or len(pattern) > MAX_PATTERN_CHARS:
        raise Malformed(f"its split pattern has {len(pattern):,} characters; it must have from 1 to {MAX_PATTERN_CHARS:,} "
                        "(real ones have a few hundred)")
    if not ranks:
        raise Malformed("its vocabulary is empty; a byte-level BPE vocabulary has at least the 256 single bytes")
    if b"" in ranks:
        raise Malformed("its vocabulary has an empty token; every token spells at least one byte")
    missing = [b for b in range(256) if bytes((b,)) not in ranks]
    if missing:
        more = f" (nor for {len(missing) - 1} more)" if len(missing) > 1 else ""
        raise Malformed(f"its vocabulary has no token for the byte 0x{missing[0]:02x}{more}; byte-level BPE spells any "
                        "text from single bytes, so each of the 256 is a token (tiktoken panics on a text with a missing one)")
    if len(set(ranks.values())) != len(ranks):
        seen: dict[int, bytes] = {}
        for token, rank in ranks.items():
            if rank in seen:
                raise Malformed(f"the tokens {seen[rank]!r} and {token!r} have the same rank, {rank:,}; each token has its own")
            seen[rank] = token


def _rank_file(path: Path, data: bytes, digest: str) -> LoadedTokenizer:
    """A tiktoken rank file: one of a family's, known by its SHA-256 (its split pattern is not
    in it). Such a file is parsed as the family's own (tests/test_tokens.py checks each)."""
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

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
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .tokens import FAMILIES, GPT2_PATTERN, TokenizerError, parse_ranks

MAX_BYTES = 64 * 1024 * 1024  # a tokenizer file is a few megabytes


@dataclass(frozen=True)
class LoadedTokenizer:
    path: str
    kind: str  # tokenizer.json | tekken | tiktoken
    ranks: dict[bytes, int]
    pattern: str
    nfc: bool
    sha256: str


def _bytes_to_unicode() -> dict[int, str]:
    """GPT-2's table of the printable character standing for each byte in byte-level BPE."""
    printable = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    table, extra = {}, 0
    for b in range(256):
        if b in printable:
            table[b] = chr(b)
        else:
            table[b] = chr(256 + extra)
            extra += 1
    return table


def _read(path: Path) -> bytes:
    try:
        if path.stat().st_size > MAX_BYTES:
            raise TokenizerError(f"--tokenizer {path}: larger than {MAX_BYTES // 2**20} MiB; not a tokenizer file")
        return path.read_bytes()
    except OSError as exc:
        raise TokenizerError(f"--tokenizer {path}: {exc.strerror or exc}") from None


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


@cache
def load_file(path_text: str) -> LoadedTokenizer:
    path = Path(path_text)
    if path.is_dir():
        inner = find_in(path)
        if inner is None:
            raise TokenizerError(f"--tokenizer {path}: no tokenizer.json, tekken.json or tokenizer.model in that folder")
        path = inner
    if not path.is_file():
        raise TokenizerError(f"--tokenizer {path}: no such file")
    data = _read(path)
    digest = hashlib.sha256(data).hexdigest()
    if data[:1] in (b"{", b" ", b"\n"):
        try:
            doc = json.loads(data)
        except ValueError as exc:
            raise TokenizerError(f"--tokenizer {path}: not valid JSON ({exc})") from None
        if isinstance(doc, dict) and isinstance(doc.get("vocab"), list) and isinstance(doc.get("config"), dict):
            return _tekken(path, doc, digest)
        if isinstance(doc, dict) and isinstance(doc.get("model"), dict):
            return _hf(path, doc, digest)
        raise TokenizerError(f"--tokenizer {path}: neither a Hugging Face tokenizer.json nor a Tekken file")
    known = next((f for f in FAMILIES.values() if f.sha256 == digest and f.pattern and not f.ranks_of), None)
    if known is None:
        raise TokenizerError(f"--tokenizer {path}: a tiktoken rank file carries no split pattern, and this one (sha256 "
                             f"{digest[:12]}…) is none ftlint knows; give the model's tokenizer.json instead")
    try:
        ranks = parse_ranks(data)
    except (ValueError, IndexError) as exc:
        raise TokenizerError(f"--tokenizer {path}: not a tiktoken rank file ({exc})") from None
    return LoadedTokenizer(str(path), "tiktoken", ranks, str(known.pattern), known.nfc, digest)


def _tekken(path: Path, doc: dict, digest: str) -> LoadedTokenizer:
    import base64

    config = doc["config"]
    specials = int(config.get("default_num_special_tokens", 1000))
    size = int(config.get("default_vocab_size", len(doc["vocab"]) + specials))
    pattern = doc.get("pattern") or config.get("pattern")
    if not isinstance(pattern, str):
        raise TokenizerError(f"--tokenizer {path}: a Tekken file without a pattern")
    vocab = doc["vocab"][: size - specials]
    try:
        ranks = {base64.b64decode(entry["token_bytes"]): int(entry["rank"]) for entry in vocab}
    except (KeyError, TypeError, ValueError) as exc:
        raise TokenizerError(f"--tokenizer {path}: a Tekken vocabulary entry is malformed ({exc})") from None
    return LoadedTokenizer(str(path), "tekken", ranks, pattern, False, digest)


def _split_pattern(pre: object) -> str | None:
    """The regex of a Split pre-tokenizer (alone or in a Sequence); GPT-2's where a ByteLevel
    pre-tokenizer uses its own regex."""
    if not isinstance(pre, dict):
        return None
    if pre.get("type") == "Sequence":
        for inner in pre.get("pretokenizers", []):
            found = _split_pattern(inner)
            if found:
                return found
        return None
    if pre.get("type") == "Split" and isinstance(pre.get("pattern"), dict) and isinstance(pre["pattern"].get("Regex"), str):
        return str(pre["pattern"]["Regex"])
    if pre.get("type") == "ByteLevel" and pre.get("use_regex", True):
        return GPT2_PATTERN
    return None


def _has_nfc(normalizer: object) -> bool:
    if not isinstance(normalizer, dict):
        return False
    if normalizer.get("type") == "NFC":
        return True
    return any(_has_nfc(n) for n in normalizer.get("normalizers", []) or [])


def _hf(path: Path, doc: dict, digest: str) -> LoadedTokenizer:
    model = doc["model"]
    if model.get("type") != "BPE" or not isinstance(model.get("vocab"), dict):
        raise TokenizerError(f"--tokenizer {path}: a {model.get('type')} model; ftlint counts byte-level BPE tokenizers "
                             "(SentencePiece and WordPiece ones have no tiktoken form)")
    pattern = _split_pattern(doc.get("pre_tokenizer"))
    if pattern is None:
        raise TokenizerError(f"--tokenizer {path}: no byte-level split pattern in its pre-tokenizer")
    decode = {ch: b for b, ch in _bytes_to_unicode().items()}
    ranks: dict[bytes, int] = {}
    added = {t.get("content") for t in doc.get("added_tokens", []) if isinstance(t, dict)}
    for token, rank in model["vocab"].items():
        if token in added:
            continue
        try:
            ranks[bytes(decode[ch] for ch in token)] = int(rank)
        except KeyError:
            raise TokenizerError(f"--tokenizer {path}: token {token!r} is not byte-level BPE") from None
    merges = model.get("merges") or []
    last = -1
    for merge in merges:
        left, right = merge if isinstance(merge, list) else str(merge).split(" ", 1)
        merged = bytes(decode[ch] for ch in left + right)
        rank = ranks.get(merged)
        if rank is None or rank < last:
            raise TokenizerError(f"--tokenizer {path}: its merges are not in rank order, so tiktoken cannot count it "
                                 "exactly")
        last = rank
    return LoadedTokenizer(str(path), "tokenizer.json", ranks, pattern, _has_nfc(doc.get("normalizer")), digest)

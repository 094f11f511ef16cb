"""A tokenizer.json that tiktoken cannot run exactly, run by the Hugging Face tokenizers library:
what transformers (and so TRL, axolotl, LLaMA-Factory, unsloth) loads it with. SentencePiece-style
BPE with byte fallback (Llama 2, Mistral 7B v0.1-v0.3, Gemma), Unigram, WordPiece, merges that
are not in rank order, a normaliser or pre-tokenizer tiktoken has no form of, added tokens that
strip the spaces around them.

Two tokenizers are built from the one file, once per process (before the workers fork):
  `whole`  the file with its added tokens and the folder's (tokens/folder.py): a rendered
           conversation is encoded in one call, as transformers' apply_chat_template(...,
           tokenize=True) encodes it (add_special_tokens=False), so normalisers and
           pre-tokenizers that depend on where a piece starts count as the trainer counts;
  `plain`  the same without its added tokens: the texts OpenAI's convention counts one by one,
           where a string spelled like a control token is text (as tiktoken's encode_ordinary).
"""

from __future__ import annotations

import json
import os
from collections.abc import Sequence
from typing import Any

from .families import TokenizerError
from .folder import Added


class Library:
    def __init__(self, what: str, doc: dict, text: str, added: Sequence[Added], split_special: bool) -> None:
        # a forked worker must not inherit the library's thread pool (it would warn, or hang)
        os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
        from tokenizers import AddedToken, Tokenizer

        self.what = what
        try:
            self.whole = Tokenizer.from_str(text)
            known = {t.content for t in self.whole.get_added_tokens_decoder().values()}
            extra = [AddedToken(t.content, single_word=t.single_word, lstrip=t.lstrip, rstrip=t.rstrip, normalized=t.normalized,
                                special=t.special) for t in added if t.content not in known]
            if extra:
                self.whole.add_tokens(extra)
            self.whole.encode_special_tokens = split_special
            self.plain = Tokenizer.from_str(json.dumps({**doc, "added_tokens": []}))
        except BaseException as exc:
            raise _failed(what, "cannot load it", exc) from None
        for tokenizer in (self.whole, self.plain):  # a file's own truncation would cut a long record's count
            tokenizer.no_truncation()
            tokenizer.no_padding()

    def with_tokens(self, tokens: Sequence[str]) -> Library:
        """The same tokenizer with more added tokens, as a trainer adds them before it tokenizes
        (axolotl's special_tokens and tokens: add_special_tokens, add_tokens with normalized=False):
        each matched whole in a rendered text."""
        from tokenizers import AddedToken, Tokenizer

        more = object.__new__(Library)
        more.what, more.plain = self.what, self.plain
        try:
            more.whole = Tokenizer.from_str(self.whole.to_str())
            more.whole.add_tokens([AddedToken(t, normalized=False, special=True) for t in tokens])
        except BaseException as exc:
            raise _failed(self.what, "cannot add the trainer's tokens", exc) from None
        more.whole.encode_special_tokens = self.whole.encode_special_tokens
        more.whole.no_truncation()
        more.whole.no_padding()
        return more

    def count(self, text: str) -> int:
        """Tokens of a text as plain text (no added token matched)."""
        return len(self._encode(self.plain, text).ids)

    def count_whole(self, text: str) -> int:
        """Tokens of a rendered text, its added tokens matched, as the trainer encodes it."""
        return len(self._encode(self.whole, text).ids)

    def offsets(self, text: str) -> tuple[list[int], list[tuple[int, int]]]:
        """A rendered text's token ids and each token's characters (start, end) in it."""
        encoded = self._encode(self.whole, text)
        return list(encoded.ids), list(encoded.offsets)

    def _encode(self, tokenizer: Any, text: str) -> Any:
        try:
            return tokenizer.encode(text, add_special_tokens=False)
        except BaseException as exc:
            if isinstance(exc, (KeyboardInterrupt, SystemExit)):
                raise
            raise _failed(self.what, "failed on a text", exc) from None


def _failed(what: str, doing: str, exc: BaseException) -> TokenizerError:
    """An error (or a panic of compiled code, a BaseException) of the tokenizers library as one line."""
    if isinstance(exc, (KeyboardInterrupt, SystemExit)):
        raise exc
    reason = " ".join(str(exc).split())[:300] or type(exc).__name__
    return TokenizerError(f"{what}: the tokenizers library {doing} ({reason})")

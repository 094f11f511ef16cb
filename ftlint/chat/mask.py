"""The loss mask a self-hosted trainer builds from a rendered record, and what it shows.

TRL's SFTTrainer (trl/trainer/sft_trainer.py, 1.16) trains on:
  messages              every token, or with assistant_only_loss only the tokens transformers'
                        apply_chat_template(return_assistant_tokens_mask=True) marks: those of the
                        template's {% generation %} blocks (a template without them marks none,
                        and TRL 1.x stops: "at least one example has no assistant tokens");
  prompt + completion   the tokens after the longest common prefix of the tokenized prompt
                        (rendered with add_generation_prompt) and of prompt + completion
                        (completion_only_loss, on by default for such rows), and with
                        assistant_only_loss also inside the generation blocks;
and cuts a sequence to max_length tokens, keeping its start (truncation_mode="keep_start").

How a block of characters becomes tokens follows transformers: a token is marked from the one
holding the block's first character to the one holding its last (char_to_token), so a token
straddling the block's edge is in. Token boundaries come from tiktoken's offsets over the text
between added tokens (each added token is one token), as the tokenizer splits it.
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from dataclasses import dataclass

from ..tokens import described, failed, get_encoding, is_panic, normalises_nfc
from ..trust import MAX_FILE_BYTES

EMPTY_THINK = re.compile(r"<think>\s*</think>")


@dataclass(slots=True)
class Encoded:
    """Rendered text as the tokenizer splits it: one entry per token."""

    ids: list[int]  # the tokens' ranks; an added token is -(1 + its index among the template's added tokens)
    starts: list[int]  # the character each token starts at


@dataclass(slots=True)
class Masked:
    """One record rendered, tokenized and masked."""

    tokens: int
    trained: int
    text: str
    spans: list[tuple[int, int]]  # the trained blocks, in characters of `text` (empty: see `all_trained`)
    all_trained: bool  # every token trains (TRL without assistant_only_loss)
    eos: str = ""  # the template's end of turn (the tokenizer's eos_token)
    unmarked: bool = False  # assistant_only_loss with a template that has no generation block at all
    pairs: list[tuple[int, int]] | None = None  # the tokens in order as (untrained, trained) runs (trainers/cut.py)


class Tokenizer:
    """A tiktoken vocabulary with the template's added tokens, giving token starts."""

    def __init__(self, encoding_name: str, splitter: re.Pattern[str], file_limit: int = MAX_FILE_BYTES) -> None:
        self.name = encoding_name
        self.encoding = get_encoding(encoding_name, file_limit)
        self.nfc = normalises_nfc(encoding_name, file_limit)
        self.splitter = splitter
        self._special: dict[str, int] = {}

    def encode(self, text: str) -> Encoded:
        try:
            return self._encode(text)
        except BaseException as exc:  # a panic of tiktoken's on the text: one TokenizerError (ftlint.tokens.failed)
            if is_panic(exc):
                raise failed(described(self.name), exc) from None
            raise

    def _encode(self, text: str) -> Encoded:
        ids: list[int] = []
        starts: list[int] = []
        position = 0
        for k, piece in enumerate(self.splitter.split(text)):
            if k % 2:
                ids.append(-1 - self._special.setdefault(piece, len(self._special)))
                starts.append(position)
            elif piece:
                source = unicodedata.normalize("NFC", piece) if self.nfc else piece
                tokens = self.encoding.encode_ordinary(source)
                ids += tokens
                if len(source) == len(piece):
                    _, offsets = self.encoding.decode_with_offsets(tokens)
                    starts += [position + o for o in offsets]
                else:  # normalisation changed the length: the piece's tokens are placed at its start
                    starts += [position] * len(tokens)
            position += len(piece)
        return Encoded(ids, starts)


def token_at(starts: Sequence[int], char: int) -> int | None:
    """The index of the token holding character `char` (transformers' char_to_token)."""
    if char < 0 or not starts or char < starts[0]:
        return None
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= char:
            lo = mid
        else:
            hi = mid - 1
    return lo


def span_mask(encoded: Encoded, spans: Sequence[tuple[int, int]]) -> list[bool]:
    """transformers' assistant mask: for each block, its first character's token through its last
    character's token (to the end when that is token 0 or none, as transformers' loop does)."""
    n = len(encoded.ids)
    mask = [False] * n
    for start, end in spans:
        first = token_at(encoded.starts, start)
        if first is None:
            break
        last = token_at(encoded.starts, end - 1)
        stop = last + 1 if last else n
        for i in range(first, stop):
            mask[i] = True
    return mask


def common_prefix(a: Sequence[int], b: Sequence[int]) -> int:
    n = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        n += 1
    return n

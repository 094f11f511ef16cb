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
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..tokens import described, failed, get_encoding, is_panic, library_of, normalises_nfc
from ..trainers.rendering import Masked as Masked  # a trainer's own mask makes it too (Trainer.masker)
from ..trust import MAX_FILE_BYTES

if TYPE_CHECKING:
    from ..tokenizing import Encoding
    from ..tokens.library import Library

EMPTY_THINK = re.compile(r"<think>\s*</think>")


@dataclass(slots=True)
class Encoded:
    """Rendered text as the tokenizer splits it: one entry per token."""

    ids: list[int]  # the tokens' ranks; an added token is -(1 + its index among the template's added tokens)
    starts: list[int]  # the character each token starts at
    ends: list[int] = field(default_factory=list)  # the character after the last one it holds (a part of)


class Tokenizer:
    """A tiktoken vocabulary with the template's added tokens, giving token starts; or a
    tokenizer.json the tokenizers library runs, which gives them itself (its character offsets,
    the ones transformers' char_to_token reads)."""

    def __init__(self, encoding_name: Encoding, splitter: re.Pattern[str], file_limit: int = MAX_FILE_BYTES,
                 library: Library | None = None) -> None:
        """`library`: the tokenizer.json's tokenizer with tokens a trainer added (Library.with_tokens)."""
        self.name = encoding_name
        self.library = library or library_of(encoding_name, file_limit)
        if self.library is None:
            self.encoding = get_encoding(encoding_name, file_limit)
            self.nfc = normalises_nfc(encoding_name, file_limit)
        self.splitter = splitter
        self._special: dict[str, int] = {}

    def encode(self, text: str) -> Encoded:
        if self.library is not None:
            ids, offsets = self.library.offsets(text)
            return Encoded(ids, [start for start, _ in offsets], [end for _, end in offsets])
        try:
            return self._encode(text)
        except BaseException as exc:  # a panic of tiktoken's on the text: one TokenizerError (ftlint.tokens.failed)
            if is_panic(exc):
                raise failed(described(self.name), exc) from None
            raise

    def _encode(self, text: str) -> Encoded:
        encoded = Encoded([], [])
        position = 0
        for k, piece in enumerate(self.splitter.split(text)):
            if k % 2:
                encoded.ids.append(-1 - self._special.setdefault(piece, len(self._special)))
                encoded.starts.append(position)
                encoded.ends.append(position + len(piece))
            elif piece:
                source = unicodedata.normalize("NFC", piece) if self.nfc else piece
                tokens = self.encoding.encode_ordinary(source)
                encoded.ids += tokens
                starts, ends = _spans(self.encoding.decode_tokens_bytes(tokens), len(source))
                if len(source) == len(piece):
                    encoded.starts += [position + o for o in starts]
                    encoded.ends += [position + o for o in ends]
                else:  # normalisation changed the length: a token's characters are those they came from
                    origin = nfc_origins(piece)
                    encoded.starts += [position + origin[o] for o in starts]
                    encoded.ends += [position + origin[o - 1] + 1 for o in ends]
            position += len(piece)
        return encoded


def _spans(pieces: Sequence[bytes], length: int) -> tuple[list[int], list[int]]:
    """Each token's first character and the character after its last, in the text the pieces
    decode to: a token starting inside a character (a UTF-8 continuation byte) shares that
    character with the token before it, as Hugging Face's byte-level offsets do."""
    starts: list[int] = []
    chars = 0
    inside: list[bool] = []
    for piece in pieces:
        within = bool(piece) and 0x80 <= piece[0] < 0xC0
        starts.append(max(0, chars - within))
        inside.append(within)
        chars += sum(1 for b in piece if not 0x80 <= b < 0xC0)
    ends = [starts[i + 1] + inside[i + 1] if i + 1 < len(starts) else length for i in range(len(starts))]
    return starts, ends


def nfc_origins(piece: str) -> list[int]:
    """Where each character of NFC(piece) comes from in `piece`, as Hugging Face tokenizers align
    an NFC normaliser's output: a composed character is its first source character's (the marks
    composed into it are then in a token only when a character after them is); a character a
    decomposition adds is its source's; the rest follow in order. Worked out a segment at a time
    (a starter, the marks after it, and what composes with it), where NFC can change the length."""
    origin: list[int] = []
    segments: list[tuple[int, str]] = []
    for i, ch in enumerate(piece):
        if segments and (unicodedata.combining(ch) or _composes(segments[-1][1], ch)):
            start, chars = segments[-1]
            segments[-1] = (start, chars + ch)
        else:
            segments.append((i, ch))
    for start, chars in segments:
        out = len(unicodedata.normalize("NFC", chars))
        surplus = len(chars) - out
        if surplus >= 0:
            origin.append(start)
            origin += [start + j + surplus for j in range(1, out)]
        else:  # NFC made more characters than it was given (U+0F73): the extra ones are the last one's
            origin += [start + min(j, len(chars) - 1) for j in range(out)]
    return origin


def _composes(segment: str, ch: str) -> bool:
    """Whether a starter composes with the segment before it (Hangul jamo, some Indic vowel signs)."""
    return len(unicodedata.normalize("NFC", segment + ch)) < len(unicodedata.normalize("NFC", segment)) + len(
        unicodedata.normalize("NFC", ch))


def token_at(encoded: Encoded, char: int) -> int | None:
    """The index of the first token holding character `char`, as transformers' char_to_token
    finds it: None when no token's characters hold it (a mark NFC composed into the character
    before it, at the end of a token)."""
    starts, ends = encoded.starts, encoded.ends
    if char < 0 or not starts or char < starts[0]:
        return None
    lo, hi = 0, len(starts) - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        if starts[mid] <= char:
            lo = mid
        else:
            hi = mid - 1
    while lo and ends[lo - 1] > char:  # a character split over several tokens: the first of them
        lo -= 1
    return lo if ends[lo] > char else None


def span_mask(encoded: Encoded, spans: Sequence[tuple[int, int]]) -> list[bool]:
    """transformers' assistant mask: for each block, its first character's token through its last
    character's token (to the end when that is token 0 or none, as transformers' loop does)."""
    n = len(encoded.ids)
    mask = [False] * n
    for start, end in spans:
        first = token_at(encoded, start)
        if first is None:
            break
        last = token_at(encoded, end - 1)
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


def responses_mask(ids: Sequence[int], question: Sequence[int], answer: Sequence[int]) -> list[bool]:
    """unsloth's train_on_responses_only (unslothai/unsloth-zoo unsloth_zoo/dataset_utils.py, with its
    default force_match=True: each part is its own tokens, matched exactly): after each run of the
    response part's tokens, every token trains up to where the instruction part's tokens next begin,
    or to the sequence's end; the search for the next response part resumes one token past that
    instruction part. No response part found: nothing trains."""
    n, mask = len(ids), [False] * len(ids)
    if not question or not answer:
        return mask
    j = 0
    while j < n:
        if list(ids[j:j + len(answer)]) == list(answer):
            start = end = j + len(answer)
            while end < n - 1 and list(ids[end:end + len(question)]) != list(question):
                end += 1
            found = end < n - 1
            mask[start:end if found else n] = [True] * ((end if found else n) - start)
            j = end + len(question) if found else n
        j += 1
    return mask


def char_spans(encoded: Encoded, mask: Sequence[bool]) -> list[tuple[int, int]]:
    """The characters of the runs of trained tokens (a mask's spans in the text)."""
    spans: list[tuple[int, int]] = []
    for i, bit in enumerate(mask):
        if not bit:
            continue
        start, end = encoded.starts[i], encoded.ends[i] if encoded.ends else encoded.starts[i] + 1
        if spans and mask[i - 1]:
            spans[-1] = (spans[-1][0], end)
        else:
            spans.append((start, end))
    return spans

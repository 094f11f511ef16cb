"""A trainer's own renderer (Trainer.renderer): what it needs of the model's tokenizer (Vocab),
and what it makes of a record (Sample, in Parts), or why it cannot (Unrendered); a trainer's own
loss mask on the model's template (Trainer.masker: Masker): what it uses of ftlint/chat's Tally
(Tally) and what it makes (Masked)."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol


@dataclass(frozen=True, slots=True)
class Vocab:
    """What a trainer's own renderer needs of the model's tokenizer."""

    count: Callable[[str], int]  # tokens of a text, the tokenizer's added tokens found in it
    bos: str  # its bos token ("" when it has none)
    eos: str  # its eos token
    date: str  # today, for a prompt that writes the date


class Part(NamedTuple):
    """A piece of a Sample, as its renderer tokenizes it (`ftlint show` marks the record by them):
    its text, its tokens, whether they train, and how many of them (the first ones) its cut keeps."""

    text: str
    tokens: int
    trained: bool
    kept: int


@dataclass(frozen=True, slots=True)
class Sample:
    """A record as a trainer's own renderer makes it: its tokens, the trained ones, and what of
    each its cut at the max length keeps (a renderer that cuts as it encodes); `parts`, the same
    in pieces, in order, which sum to those four figures."""

    tokens: int
    trained: int
    kept: int
    kept_trained: int
    text: str  # the sequence, as text (what the template rules read)
    spans: tuple[tuple[int, int], ...]  # the trained characters of `text`
    messages: int = 0
    targets: int = 0
    parts: tuple[Part, ...] = ()  # (): the renderer gives its totals only


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
    pieces: list[tuple[str, int, bool]] | None = None  # mistral-common's, axolotl's Alpaca parts: each piece's text, tokens, trained


class Unrendered(Exception):
    """The trainer's renderer cannot make the record: the trainer fails on it, or (`not_modelled`)
    ftlint does not model what it would do."""

    def __init__(self, message: str, not_modelled: bool = False) -> None:
        super().__init__(message)
        self.not_modelled = not_modelled


class Renderer(Protocol):
    """A trainer's own way of making a record into its training sequence (Trainer.renderer)."""

    title: str
    added: tuple[str, ...]  # tokens it adds to the tokenizer

    def reads(self, formatting: str) -> bool:
        """Whether it makes the records of this format (else the model's chat template does)."""
        ...

    def sample(self, record: dict, formatting: str, vocab: Vocab, cutoff: int | None) -> Sample:
        """The record (in the format's canonical shape) as it trains; Unrendered if it cannot."""
        ...


class Template(Protocol):
    """What the mask reads of the model's template (ftlint/chat ChatTemplate)."""

    @property
    def eos(self) -> str: ...

    @property
    def bos(self) -> str: ...


class Encoding(Protocol):
    """A text as the tokenizer splits it (ftlint/chat/mask.py Encoded): one entry per token."""

    @property
    def ids(self) -> list[int]: ...

    @property
    def starts(self) -> list[int]: ...

    @property
    def ends(self) -> list[int]: ...


class Tokenizer(Protocol):
    """The model's tokenizer with the template's added tokens (ftlint/chat/mask.py Tokenizer)."""

    def encode(self, text: str) -> Encoding: ...


class Rendered(Protocol):
    """A rendered conversation (ftlint/chat/render.py Rendered)."""

    @property
    def text(self) -> str: ...


class Tally(Protocol):
    """What a trainer's own loss mask (Masker) uses of the renderer that hands itself to it (ftlint/chat/tally.py Tally)."""

    seen: list[str]

    @property
    def spec(self) -> Template: ...

    @property
    def tokenizer(self) -> Tokenizer: ...

    @property
    def text_bos(self) -> str:
        """What the tokenizer puts before a text it encodes ("": nothing)."""
        ...

    def count_pieces(self, text: str) -> int:
        """Tokens of a text encoded on its own, each added token one."""
        ...

    def render(self, messages: Sequence[dict], tools: object = None, add_generation_prompt: bool = False,
               extra: Mapping[str, object] | None = None) -> Rendered: ...

class Masker(Protocol):
    """A trainer's own loss mask on the model's template (Trainer.masker), which the Tally asks in
    place of TRL's: the tokenizer as the trainer loads it, a record's labels, and what it says."""

    @property
    def asks_tokenizer(self) -> bool:
        """Whether `refusal` has a token to count."""
        ...

    def refusal(self, count: Callable[[str], int]) -> str | None:
        """Why the trainer stops as it loads the model's tokenizer (`count`: its tokens of a text); None: it does not."""
        ...

    def tokenizer(self, specials: tuple[str, ...], eos: str, bos: str, words: bool = True) -> tuple[tuple[str, ...], str, str]:
        """The model's added tokens, eos and bos as the trainer leaves them (`words`: its plain added words too)."""
        ...

    def __call__(self, tally: Tally, messages: Sequence[dict], tools: object = None) -> Masked:
        """A conversation's labels."""
        ...

    def fields(self, tally: Tally, record: dict, shape: str) -> Masked | None:
        """A row of named fields (Alpaca), where the trainer makes it itself (None: read as a conversation)."""
        ...

    def rule(self, shape: str) -> str:
        """What trains, in words (the estimate's record rule)."""
        ...

    def title(self, shape: str) -> str:
        """What makes records of this shape instead of the model's chat template ("": the template)."""
        ...


__all__ = ["Encoding", "Masked", "Masker", "Part", "Rendered", "Renderer", "Sample", "Tally", "Template", "Tokenizer",
           "Unrendered", "Vocab"]

"""A trainer's own renderer (Trainer.renderer): what it needs of the model's tokenizer (Vocab),
and what it makes of a record (Sample, in Parts), or why it cannot (Unrendered)."""

from __future__ import annotations

from collections.abc import Callable
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


__all__ = ["Part", "Renderer", "Sample", "Unrendered", "Vocab"]

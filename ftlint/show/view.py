"""What `ftlint show` shows of a record: segments of its tokens, in order, with their marks."""

from __future__ import annotations

from array import array
from dataclasses import dataclass

Pairs = list[tuple[int, int]]  # (untrained, trained) runs, as trainers/cut.py takes them


@dataclass(slots=True)
class Segment:
    """A run of tokens: their text ("" when only counted), how many, whether they train, how
    many of them the trainer keeps (the first ones), and what part of the record they are."""

    text: str
    tokens: int
    trained: bool
    kept: int
    label: str = ""
    kept_text: str | None = None  # the text of the kept tokens, where the cut falls inside (None: unknown)
    offsets: array | None = None  # where each token starts in `text`, when known (to cut it at its kept tokens)


@dataclass(slots=True)
class Record:
    """One training record of the line, as its trainer has it."""

    tokens: int
    trainable: int  # the record's figures, before the cut
    segments: list[Segment]
    dropped: bool = False  # past the max length: left out (axolotl's drop) or refused with the job
    exact: bool = True  # the segments hold the tokens' own text (False: the layout's counts)
    parts: bool = False  # the segments are the convention's parts, each counted on its own (not one rendering)
    marked_by: str = ""  # where the runs come from: the loss mask, mistral-common's pieces, the format's layout

    @property
    def kept_tokens(self) -> int:
        return 0 if self.dropped else sum(s.kept for s in self.segments)

    @property
    def kept_trained(self) -> int:
        return 0 if self.dropped else sum(s.kept for s in self.segments if s.trained)


def runs(sized: list[tuple[int, bool]]) -> Pairs:
    """Tokens in order, each run marked trained or not, as (untrained, trained) pairs (trainers/cut.py)."""
    pairs: Pairs = []
    untrained = trained = 0
    for n, marked in sized:
        if marked:
            trained += n
        elif trained:
            pairs.append((untrained, trained))
            untrained, trained = n, 0
        else:
            untrained += n
    if untrained or trained:
        pairs.append((untrained, trained))
    return pairs

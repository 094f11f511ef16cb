"""What a trainer keeps of a sample longer than its max length, as arithmetic on the sample's
layout: its tokens in order as (untrained, then trained) pairs, one pair per turn (the prompt or
the user's side, then the answer); a record that trains every token is [(0, tokens)].

A trainer's rule is a Cut (its `cut`); the judge asks it which records are past the max length
and what of them stays, and never asks which trainer it is. The rule a run follows travels by its
name (Loss.past_max, the estimate's `truncation.rule`); the registry (ftlint/trainers/__init__.py
`cut_rule`) turns the name back into the rule.

  truncate  the first `cut` tokens stay, and the trained tokens among them train (a
            truncation that keeps the start, most trainers' and a hosted job's): KEEP_START, here.
  reject    the job refuses the sample (a provider's validation): REJECTED, here.
A packer that lays samples end to end (Uncut) cuts nothing: its trainers name it their own way.
The others are their trainers' own, in their packages.
"""

from __future__ import annotations

from collections.abc import Sequence

from .profile import REJECT, TRUNCATE

Pairs = Sequence[tuple[int, int]]


class Cut:
    """Past the max length: the first `cut` tokens stay (the base rule, "truncate")."""

    name = TRUNCATE
    words = "cut keeping the start"  # as the estimate says it
    shown = "the start is kept"  # as `ftlint show` says it, after "past it, "
    leaves_out = False  # True: a record past the max length leaves the run whole, and its layout is never asked

    def __init_subclass__(cls, **kwargs: object) -> None:
        super().__init_subclass__(**kwargs)
        if "shown" not in vars(cls):  # another rule is shown in its words, unless it has a phrase of its own
            cls.shown = cls.words

    def past(self, tokens: int, cut: int) -> bool:
        """Whether a record of `tokens` is past the max length `cut` (a rule may leave out short ones too)."""
        return tokens > cut

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        """Each pair's (untrained, trained) tokens the trainer keeps of a sample past `cut` (the
        start of each); None: the sample leaves the run. `ftlint show` marks these, and `kept` sums
        them: the two cannot disagree."""
        return keep_start(pairs, cut)

    def kept(self, pairs: Pairs, cut: int) -> tuple[int, int] | None:
        """(tokens kept, trained tokens kept) of a sample past `cut`; None: the sample leaves the run."""
        found = self.kept_pairs(pairs, cut)
        return None if found is None else (sum(u + t for u, t in found), sum(t for _, t in found))

    def kept_ranges(self, pairs: Pairs, cut: int) -> list[tuple[int, int]]:
        """The [start, end) token ranges of the sample that stay past `cut` (an image's tokens must
        lie whole inside one, or the model's features and tokens disagree: ftlint/media/cut.py)."""
        return [(0, cut)]


class Rejected(Cut):
    """The job refuses a sample past the max length."""

    name = REJECT
    words = "records past it refused"
    shown = "the job is refused"
    leaves_out = True

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        return None


class Uncut(Cut):
    """Samples packed end to end: a long one continues into the next row, so nothing is cut."""

    def past(self, tokens: int, cut: int) -> bool:
        return False

    def kept_pairs(self, pairs: Pairs, cut: int) -> list[tuple[int, int]] | None:
        return list(pairs)


KEEP_START = Cut()
REJECTED = Rejected()


def pairs_of_mask(mask: Sequence[bool]) -> list[tuple[int, int]]:
    """A loss mask (one bool a token) as its (untrained, trained) runs."""
    pairs: list[tuple[int, int]] = []
    untrained = trained = 0
    for bit in mask:
        if bit:
            trained += 1
        elif trained:
            pairs.append((untrained, trained))
            untrained, trained = 1, 0
        else:
            untrained += 1
    if untrained or trained:
        pairs.append((untrained, trained))
    return pairs


def keep_start(pairs: Pairs, cut: int) -> list[tuple[int, int]]:
    """Each pair's (untrained, trained) tokens among the first `cut` tokens."""
    out, position = [], 0
    for untrained, trained in pairs:
        start = position + untrained
        out.append((max(0, min(start, cut) - position), max(0, min(start + trained, cut) - start)))
        position = start + trained
    return out


__all__ = ["KEEP_START", "REJECTED", "Cut", "Pairs", "keep_start", "pairs_of_mask"]

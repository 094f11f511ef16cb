"""check's proofs for a record whose byte bound reaches its limit (FT301), cheapest first.

1. The whole-word bound (tokens.WordBound), which needs no tokenizer: a record it keeps within
   the limit has no FT301 to report. It costs about a quarter of an exact count, and prose has
   some 4.5 bytes a token where it counts about 2.7: so it is tried only where a sample of each
   text (its first SAMPLE characters) says it can clear the record. A long-context record at 50%
   of its limit or more is far past it, and goes straight to 2.
2. The exact count, piece by piece (tokens/cuts.py: the pieces' counts add up to the text's),
   the record's bound lowered by each piece counted; it stops once the bound is within the
   limit. A record over the limit is counted to its end, once: its figures are made from those
   counts (FT301's message prints them), never counted again.

Every step is a bound of the exact figures or the exact figures themselves, so FT301 is found
exactly where the exact count finds it (tests/engine/test_bounds.py, at the limit and one either side).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING

from ..tokens import ByteBound, TokenCounter, WordBound

if TYPE_CHECKING:
    from ..formats import Format, LineFigures
    from ..tokenizing import Encoding

SAMPLE = 16_384  # characters of each text the whole-word bound is tried on first
MARGIN = 1.25  # ... and then on the whole record only if the sample's rate keeps it within this of the limit


def by_words(fmt: Format, encoding: Encoding, limit: int | None) -> Callable[[dict], LineFigures | None]:
    """A record's figures by the whole-word bound when none of its training records reaches
    `limit` by it, else None (also when a sample says it would not: the bound is not made)."""
    bound, rate = WordBound(encoding), _SampledWords(encoding)

    def cleared(record: dict) -> LineFigures | None:
        if limit is None or any(r.tokens > MARGIN * limit for r in fmt.figures(record, rate, None).records):
            return None
        figures = fmt.figures(record, bound, None)
        return figures if all(r.tokens <= limit for r in figures.records) else None

    return cleared


def exactly(fmt: Format, record: dict, limit: int | None, counter: TokenCounter) -> LineFigures:
    """The record's figures for FT301: exact, or (once the pieces counted prove it within `limit`)
    its byte-bound figures with the record's tokens lowered to that proof's bound. Each text is
    counted once. Only for the families ftlint ships (check's byte bound is theirs alone), whose
    split patterns the pieces' cut holds for."""
    calls = _Calls(counter.encoding_name)
    bounded = fmt.figures(record, calls, None)
    if limit is None or len(bounded.records) != 1:
        return fmt.figures(record, _Known(counter, {}), None)
    from ..tokens.cuts import pieces

    uses, byte = Counter(calls.texts), ByteBound(counter.encoding_name)
    # the record's tokens: its fixed part, and each text's pieces, by the byte bound until counted
    fixed = bounded.records[0].tokens - sum(byte.count(text) * n for text, n in uses.items())
    split = {text: pieces(text) for text in uses}
    left = {text: sum(map(byte.count, parts)) for text, parts in split.items()}
    bound = fixed + sum(left[text] * n for text, n in uses.items())
    known: dict[str, int] = {}
    for text in sorted(uses, key=left.__getitem__, reverse=True):
        done = 0
        for part in split[text]:
            exact = counter.count(part)
            done += exact
            bound -= (byte.count(part) - exact) * uses[text]
            if bound <= limit:  # within the limit: the bound is the record's figure, nothing for FT301 to report
                bounded.records[0].tokens = bound
                return bounded
        known[text] = done
    return fmt.figures(record, _Known(counter, known), None)


def needs_exact(chunks: Iterable[tuple[str, Iterable[tuple[int, object]]]], encoding: Encoding,
                limit_of: Callable[[Format], int | None], max_depth: int) -> bool:
    """Whether the first chunks (each its format and its numbered lines) hold a record whose byte
    bound reaches its limit (`limit_of` its format) and which the whole-word bound does not clear:
    one that needs the tokenizer. A guess, from a few long lines parsed twice, which decides only
    where such records are counted (engine/pipeline.py)."""
    from ..formats import get_format
    from ..parse import parse_line

    bound = ByteBound(encoding)
    for name, lines in chunks:
        fmt = get_format(name)
        limit = limit_of(fmt)
        if limit is None:
            continue
        cleared = by_words(fmt, encoding, limit)
        for number, raw in lines:
            if not isinstance(raw, bytes) or len(raw) < limit // 4:  # too short to reach the limit by any bound
                continue
            value = parse_line(number, raw, max_depth).value
            try:
                if isinstance(value, dict) and any(r.tokens > limit for r in fmt.figures(value, bound).records) \
                        and cleared(value) is None:
                    return True
            except Exception:  # a record the judge would reject before its figures: no guess from it
                continue
    return False


class _SampledWords(ByteBound):
    """Not a bound: a text's bytes at the whole-word bound's rate on its first SAMPLE characters,
    to guess whether the bound can clear a record before making it."""

    def __init__(self, encoding_name: Encoding) -> None:
        super().__init__(encoding_name)
        self.words = WordBound(encoding_name)

    def count(self, text: str) -> int:
        if len(text) <= SAMPLE:
            return self.words.count(text)
        sample = text[:SAMPLE]
        return super().count(text) * self.words.count(sample) // max(1, super().count(sample))


class _Calls(ByteBound):
    """The byte bound, keeping the texts it was asked for (with repeats: a text counted twice in a
    record is twice in its tokens)."""

    def __init__(self, encoding_name: Encoding) -> None:
        super().__init__(encoding_name)
        self.texts: list[str] = []

    def count(self, text: str) -> int:
        self.texts.append(text)
        return super().count(text)


class _Known(TokenCounter):
    """The tokenizer, with the texts already counted piece by piece given their counts."""

    def __init__(self, counter: TokenCounter, known: dict[str, int]) -> None:  # not super().__init__: nothing to load
        self.counter, self.known = counter, known

    def count(self, text: str) -> int:
        found = self.known.get(text)
        return found if found is not None else self.counter.count(text)

"""The pieces a text's exact count is the sum of, cut where every family's pre-tokenizer starts a
new piece anyway: before a space that follows a character other than white space (no alternative
of the shipped split patterns, nor of OpenAI's, holds white space after anything else; none looks
behind; tiktoken encodes each piece on its own). So TokenCounter.count(text) is the sum of the
pieces' counts, and a piece's count can stand in for its share of the text's: check counts a long
record piece by piece and stops once the pieces counted and the bound of the rest decide its limit.
"""

from __future__ import annotations

from . import LONG_TEXT, SEGMENT, segments


def pieces(text: str, size: int = SEGMENT) -> list[str]:
    """`text` in pieces of about `size` characters whose counts add up to TokenCounter.count(text):
    past LONG_TEXT the segments it counts itself (tokens.segments), else cut only before a space
    after a character that is not white space (a run without one stays whole, however long)."""
    if len(text) > LONG_TEXT:
        return segments(text, size)
    out, start, n = [], 0, len(text)
    while n - start > size:
        end = text.rfind(" ", start + size // 2, start + size)
        while end > start and text[end - 1].isspace():
            end = text.rfind(" ", start + size // 2, end)
        if end <= start:  # none in the window: the first one after it
            end = _next_cut(text, start + size)
            if end < 0:
                break
        out.append(text[start:end])
        start = end
    out.append(text[start:])
    return out


def _next_cut(text: str, at: int) -> int:
    """The first space at or after `at` that follows a character other than white space (-1: none)."""
    end = text.find(" ", at)
    while end > 0 and text[end - 1].isspace():
        end = text.find(" ", end + 1)
    return end

"""check's second bound: before a record whose byte bound reaches its limit is counted exactly (in
the main process, which then loads the tokenizer), its tokens are bounded again by whole words
(tokens.WordBound); a record that bound keeps within the limit has no FT301 to report, and is
never counted exactly. The long records of real chat data are mostly prose, 4-7 bytes a token,
which the byte bound counts as one each."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..formats import Format, LineFigures


def cleared_by_words(fmt: Format, encoding: str, limit: int | None) -> Callable[[dict], LineFigures | None]:
    """A record's figures by the whole-word bound when none of its training records reaches
    `limit` by it (so no exact count is needed), else None."""
    from ..tokens import WordBound

    bound = WordBound(encoding)

    def cleared(record: dict) -> LineFigures | None:
        figures = fmt.figures(record, bound, None)
        return figures if limit is not None and all(r.tokens <= limit for r in figures.records) else None

    return cleared

"""Write ftlint/tokenizers/FAMILY.words.gz for each family ftlint ships ranks of: the words `w`
(`[A-Z]?[a-z]+`) for which " " + w is one token among the family's first WORD_RANKS ranks, one a
line, sorted (see ftlint/tokens/words.py). Derived from the shipped rank files alone; run from the
repository root after a rank file changes:
    .venv/bin/python tools/word_tokens.py
"""

from __future__ import annotations

import gzip
import re
from pathlib import Path

from ftlint.tokens import load_ranks
from ftlint.tokens.words import WORD_LISTS, WORD_RANKS, word_file

OUT = Path(__file__).resolve().parent.parent / "ftlint" / "tokenizers"
WORD = re.compile(rb" [A-Z]?[a-z]+")


def words_of(ranks: dict[bytes, int]) -> bytes:
    return b"\n".join(sorted(token[1:] for token, rank in ranks.items() if rank < WORD_RANKS and WORD.fullmatch(token)))


def main() -> None:
    for family in sorted(set(WORD_LISTS.values())):
        (OUT / word_file(family)).write_bytes(gzip.compress(words_of(load_ranks(family)) + b"\n", 9, mtime=0))


if __name__ == "__main__":
    main()

"""Long documents for the benchmark's long records: English-like prose, Python-like code and
Chinese, each made to a number of tokens (o200k_base, counted by ftlint's TokenCounter as it is
made). Deterministic: the vocabulary comes from the shipped o200k_base ranks, the choices from
the caller's random.Random.

What matters to a tokenizer's speed, and to any cache of counts, is how often each piece of text
comes back, so the words follow Zipf's law (the k-th commonest word has frequency proportional to
1/k) over a vocabulary of about 150,000 words: a hundred English function words first, then the
tokens " [a-z]+" of o200k_base in rank order (47,450, common words first: BPE ranks follow
frequency), then compounds of two such tokens glued (rare words of several tokens); each document
adds a few names and terms of its own that recur through it, as a document's topic does. Sentences
carry commas, numbers, parentheses and quotes; paragraphs, headings and lists break them. The
shares and the law are assumed, not measured on a public long-context set (none is reachable
here); docs/performance.md compares the text with real English on what a count depends on
(bytes per token, distinct space-separated pieces, the whole-word bound's ratio to the count).
"""

from __future__ import annotations

import itertools
import random
import re
from functools import cache

FUNCTION_TEXT = """the of and to a in is that for it as was with be by on not he this are or his from at which but have an
they you were her all she there would their we him been has when who will more no if out so said what up its about into than
them can only other new some could time these two may then do first any my now such like our over man me even most made after
also did many before must through back years where much your way well down should because each just those people how too
little state good very make world still own see men work long get here between both life being under never day same another
know while last might us great old year off come since against go came right used take three"""
FUNCTION_WORDS = tuple(FUNCTION_TEXT.split())
ZH_PUNCT = "，，，，。。、；：？！"
REUSE = 0.4  # the share of words taken again from the document's last few thousand
CODE_KEYWORDS = ("return", "if", "for", "while", "else:", "try:", "raise", "yield", "with", "assert")


@cache
def vocabulary() -> tuple[list[str], list[str], list[float]]:
    """(words in Zipf order, Chinese tokens in rank order, the words' cumulative Zipf weights)."""
    from ftlint.tokens import load_ranks

    by_rank = sorted(load_ranks("o200k_base").items(), key=lambda kv: kv[1])
    seen = set(FUNCTION_WORDS)
    words = list(FUNCTION_WORDS)
    letters = re.compile(rb" [a-z]{3,}")
    for token, _ in by_rank:
        if letters.fullmatch(token) and (w := token[1:].decode()) not in seen:
            seen.add(w)
            words.append(w)
    common = words[len(FUNCTION_WORDS):]
    glue, heads, tails = random.Random(0), common[2000:], common[500:20000]
    words += [glue.choice(heads) + glue.choice(tails) for _ in range(100_000)]
    han = []
    for token, _ in by_rank:
        text = token.decode("utf-8", "replace")
        if text and all("\u4e00" <= ch <= "\u9fff" for ch in text):
            han.append(text)
    weights = list(itertools.accumulate(1.0 / k for k in range(1, len(words) + 1)))
    return words, han, weights


class Writer:
    """Paragraphs of one document: prose, code or Chinese."""

    def __init__(self, rng: random.Random, kind: str) -> None:
        self.rng, self.kind = rng, kind
        self.words, self.han, self.weights = vocabulary()
        # the document's own names and terms, each recurring through it
        self.topic = [rng.choice(self.words[20000:]).capitalize() for _ in range(6)] + \
            [rng.choice(self.words[5000:]) for _ in range(10)]
        self.recent: list[str] = []

    def draw(self, n: int) -> list[str]:
        rng, recent = self.rng, self.recent
        out = rng.choices(self.words, cum_weights=self.weights, k=n)
        for i in range(n):
            roll = rng.random()
            if roll < 0.03:
                out[i] = rng.choice(self.topic)
            elif roll < REUSE and recent:  # a word the document used lately, as text returns to its words
                out[i] = rng.choice(recent)
        recent.extend(out)
        if len(recent) > 4000:
            del recent[:2000]
        return out

    def paragraph(self) -> str:
        if self.kind == "code":
            return self._code()
        if self.kind == "zh":
            return self._chinese()
        rng = self.rng
        roll = rng.random()
        if roll < 0.05:
            return "## " + " ".join(self.draw(rng.randint(2, 6))).capitalize()
        if roll < 0.12:
            return "\n".join(f"- {self._sentence(4, 14)}" for _ in range(rng.randint(2, 6)))
        return " ".join(self._sentence() for _ in range(rng.randint(2, 8)))

    def _sentence(self, lo: int = 6, hi: int = 30) -> str:
        rng = self.rng
        words = self.draw(rng.randint(lo, hi))
        for i in range(1, len(words) - 1):
            roll = rng.random()
            if roll < 0.06:
                words[i] += ","
            elif roll < 0.075:
                words[i] = str(rng.choice((rng.randint(2, 99), rng.randint(1900, 2030), rng.randint(100, 99999))))
            elif roll < 0.082:
                words[i] = f"({words[i]}"
                words[i + 1] += ")"
            elif roll < 0.087:
                words[i] = f'"{words[i]}'
                words[i + 1] += '"'
        words[0] = words[0].capitalize()
        return " ".join(words) + rng.choice(".....?!:")

    def _code(self) -> str:
        rng = self.rng
        name = "_".join(self.draw(rng.randint(1, 3)))
        args = ", ".join(self.draw(rng.randint(0, 3)))
        lines = [f"def {name}({args}):", f'    """{self._sentence(4, 12)}"""']
        depth = 1
        for _ in range(rng.randint(3, 14)):
            pad = "    " * depth
            roll = rng.random()
            if roll < 0.25 and depth < 4:
                lines.append(f"{pad}{rng.choice(('if', 'for', 'while', 'with'))} {' '.join(self.draw(rng.randint(1, 4)))}:")
                depth += 1
            elif roll < 0.35:
                lines.append(f"{pad}# {self._sentence(3, 10)}")
            elif roll < 0.45 and depth > 1:
                lines.append(f"{pad}{rng.choice(CODE_KEYWORDS)} {'_'.join(self.draw(2))}")
                depth -= 1
            else:
                target = "_".join(self.draw(rng.randint(1, 2)))
                call = ".".join(self.draw(rng.randint(1, 2)))
                lines.append(f"{pad}{target} = {call}({', '.join(self.draw(rng.randint(0, 3)))}) + {rng.randint(0, 512)}")
        return "\n".join(lines)

    def _chinese(self) -> str:
        rng = self.rng
        # the Chinese tokens in rank order, Zipf-weighted through the same weights' head
        chars = rng.choices(self.han, cum_weights=self.weights[: len(self.han)], k=rng.randint(40, 200))
        for _ in range(rng.randint(2, 8)):
            chars.insert(rng.randrange(1, len(chars)), rng.choice(ZH_PUNCT))
        return "".join(chars) + "。"


def document(rng: random.Random, kind: str, tokens: int, count: object) -> str:
    """A document of `kind` ("prose", "code", "zh") of at most `tokens` tokens by `count` (a
    callable str -> int), and about that many: paragraphs are added while they fit."""
    writer = Writer(rng, kind)
    parts: list[str] = []
    used = 0
    sep = "\n\n" if kind != "zh" else "\n"
    while True:
        para = writer.paragraph()
        n = count(sep + para)  # type: ignore[operator]
        if used + n > tokens:
            return sep.join(parts)
        parts.append(para)
        used += n

"""Dataset formats: each owns its JSON Schema, its rules and its record rule.

A format turns one parsed line into findings (schema + rules) and into training records (how
many, which spans carry loss, their tokens). The registry is explicit: add a module, add it here.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Protocol

from ..tokens import TokenCounter


@dataclass(slots=True)
class RecordFigures:
    """One training record as the provider sees it."""

    messages: int  # messages in the record's context
    targets: int  # spans that carry loss
    tokens: int  # all tokens of the record, formatting overhead included
    trainable: int  # tokens of the targets


@dataclass(slots=True)
class LineFigures:
    records: list[RecordFigures]
    messages: int  # messages on the line (not per expanded record)


class Format(Protocol):
    name: str
    title: str
    schema: str
    record_rule: str
    shape: str
    also_shapes: tuple[str, ...]
    providers: str
    min_examples: int | None
    documented: bool
    bom_ok: bool
    notes: str
    token_limit: int | None

    def findings(self, record: dict, present: frozenset[bytes] | None = None) -> list[tuple[str, str, str | None]]:
        """Schema and rule findings; `present`: the literals found in the record's compact JSON
        (ftlint.literals.present), computed here when not given."""
        ...

    def figures(self, record: dict, counter: TokenCounter) -> LineFigures: ...

    def prompt(self, record: dict) -> object:
        """What the record asks (everything before its first target): two versions of a
        record with the same prompt are one record changed, not one removed and one added."""
        ...


def get_format(name: str) -> Format:
    from .registry import get_format as lookup

    return lookup(name)  # type: ignore[no-any-return]

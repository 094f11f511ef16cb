"""Dataset formats: each owns its JSON Schema, its record rule and its token figures.

A format turns one parsed line into training records (how many, which spans carry loss, their
tokens). Which rules apply to it is said by the rules themselves (their scope); what its provider
tolerates or rejects more strictly than the registry's default is the format's `severities`. The
registry (formats/registry.py) is an explicit table: adding a format touches the table, its
schema in schemas/ and its fixtures in fixtures/formats/NAME/.
"""

from __future__ import annotations

from .base import Format, LineFigures, RecordFigures

__all__ = ["Format", "LineFigures", "RecordFigures", "get_format"]


def get_format(name: str) -> Format:
    from .registry import FORMATS

    if name not in FORMATS:
        raise KeyError(f"unknown format {name!r}; `ftlint formats` lists them")
    return FORMATS[name]

"""Renderers for `ftlint trainers`: every trainer on a line, or one trainer's profile in full,
each fact with the place in the trainer's code or documentation it comes from."""

from __future__ import annotations

import textwrap
from collections.abc import Iterable

import orjson

from ..trainers import ALIASES, Profile
from .renderer import Renderer


def render_list(profiles: Iterable[Profile]) -> str:
    lines = []
    for p in profiles:
        kind = "hosted" if p.hosted else "self-hosted"
        lines.append(f"{p.name:<18} {kind:<12} {p.title}")
    aliases = ", ".join(f"{alias} = {name}" for alias, name in ALIASES.items())
    return "\n".join([*lines, "", f"also: {aliases}; hosted = the model's provider's job"]) + "\n"


def _value(value: object, name: str = "") -> str:
    if isinstance(value, dict):  # the versions modelled: the trainer's and transformers'
        parts = [f"{value.get('package') or name} {value['trainer']}" if value.get("trainer") else "",
                 f"transformers {value['transformers']}" if value.get("transformers") else ""]
        return ", ".join(p for p in parts if p) or "-"
    if isinstance(value, tuple):
        return ", ".join(map(str, value))
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "yes" if value else "no"
    return str(value) if value != "" else "-"


def render_profile(p: Profile) -> str:
    kind = "a provider's job" if p.hosted else "self-hosted"
    lines = [f"{p.name}: {p.title} ({kind}; read at {p.read})"]
    for label, fact in p.facts():
        lines.append(f"  {label:<20} {_value(fact.value, p.name)}")
        lines += textwrap.wrap(fact.source, 100, initial_indent=" " * 23 + "source: ", subsequent_indent=" " * 31)
    lines.append(f"  {'steps':<20} {p.steps} (ftlint/trainers/steps.py)")
    for title, table in (("run-config keys it applies (--run)", p.keys),
                         ("run-config keys it refuses (--run, exit 2: they change the figures, and ftlint does not model them)",
                          p.refused)):
        if table:
            lines.append(f"  {title}:")
            for key, what in table:
                lines += textwrap.wrap(what, 100, initial_indent=f"    {key:<28} ", subsequent_indent=" " * 33)
    lines += [f"  note: {note}" for note in p.notes]
    return "\n".join(lines) + "\n"


def render_profile_json(p: Profile) -> str:
    facts = {label: {"value": fact.value, "source": fact.source} for label, fact in p.facts()}
    out = {"name": p.name, "title": p.title, "hosted": p.hosted, "read": p.read, "steps": p.steps, "facts": facts,
           "keys": dict(p.keys), "refused": dict(p.refused), "notes": list(p.notes)}
    return orjson.dumps(out, option=orjson.OPT_INDENT_2).decode() + "\n"


TRAINERS_RENDERERS: dict[str, Renderer[Iterable[Profile]]] = {"text": render_list}
TRAINER_RENDERERS: dict[str, Renderer[Profile]] = {"text": render_profile, "json": render_profile_json}

"""Renderers for `ftlint rules`: every code on a line, or one rule in full (its documentation)."""

from __future__ import annotations

from collections.abc import Iterable

from ..rules import Rule
from .renderer import Renderer


def render_list(rules: Iterable[Rule]) -> str:
    return "".join(f"{r.code}  {r.severity:<7}  {r.name:<26}  {r.summary}\n" for r in sorted(rules, key=lambda r: r.code))


def render_rule(rule: Rule) -> str:
    return f"{rule.code} {rule.name} ({rule.severity})\n\n{rule.doc}\n"


RULES_RENDERERS: dict[str, Renderer[Iterable[Rule]]] = {"text": render_list}
RULE_RENDERERS: dict[str, Renderer[Rule]] = {"text": render_rule}

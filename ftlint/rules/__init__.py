"""The registry of every code ftlint emits.

Codes are letters + 3 digits; the hundreds digit is the family:
  FT0xx file and JSON        FT1xx structure (schema)     FT2xx content and conversation
  FT3xx tokens               FT4xx dataset-wide           FT5xx training-plan advice
  FT6xx secrets and personal data
Codes are never reused. A rule's docstring is its documentation (`ftlint rules CODE`): the first
line is the summary; then what it checks, why it matters for training, and an example.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Iterable
from dataclasses import dataclass

from ..diagnostics import ERROR, Hit
from ..literals import want

Check = Callable[[dict], Iterable[Hit]]


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: str
    doc: str
    check: Check | None = None  # None: emitted by the reader, the schema or the estimator
    # The rule can only fire on a record whose compact JSON holds one of these (empty: any
    # record). Lets the engine skip, say, tool-call rules on records without tool calls.
    needs: tuple[bytes, ...] = ()

    def applies(self, present: frozenset[bytes]) -> bool:
        """`present`: the literals found in the record (ftlint.literals.present)."""
        return not self.needs or not present.isdisjoint(self.needs)

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0]


REGISTRY: dict[str, Rule] = {}


def register(code: str, name: str, severity: str, doc: str, check: Check | None = None,
             needs: tuple[bytes, ...] = ()) -> Rule:
    if code in REGISTRY:
        raise ValueError(f"code {code} registered twice")
    rule = Rule(code, name, severity, inspect.cleandoc(doc), check, want(needs))
    REGISTRY[code] = rule
    return rule


def rule(code: str, name: str, severity: str = ERROR, needs: tuple[bytes, ...] = ()) -> Callable[[Check], Check]:
    """Decorator for a record rule: the function's docstring documents it."""

    def wrap(func: Check) -> Check:
        register(code, name, severity, func.__doc__ or name, func, needs)
        return func

    return wrap


def severity_of(code: str) -> str:
    rule_ = REGISTRY.get(code)
    return rule_.severity if rule_ else ERROR


def load_all() -> dict[str, Rule]:
    """Import every rule module so the registry is complete."""
    from . import estimate_advice, file, openai_chat, schema, secrets, tokens  # noqa: F401

    return REGISTRY

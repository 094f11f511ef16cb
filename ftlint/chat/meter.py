"""What rendering a record through a chat template costs, counted as it happens (the budget is
ftlint/options.py TemplateBudget; sandbox.py puts the counting in, bounds.py sizes results
before they are made).

A template from a repository is as untrusted as its data: `{{ 'x' * 1500000000 }}`, loops in
loops, a macro calling itself twice would otherwise take the memory or the time of the run.
- Steps: loop iterations, filters, the items a reducing filter (sum, min, max) walks, and
  calls (macros, methods, `loop()`, `caller()`), which count 4 each (sandbox.py CALL_STEPS).
- Characters: those of every string a rendering makes: each piece of output (literal text too,
  inside loops, macros and `{% set %}` blocks, which Jinja gathers in lists first), every result
  of an operator, filter, call or slice; a list or dict counts ITEM characters per entry.
- Seconds: checked at every step, a backstop for work that makes nothing and takes no step.
"""

from __future__ import annotations

from collections.abc import ItemsView, KeysView, ValuesView
from itertools import chain
from time import monotonic

from jinja2.utils import Namespace

from ..options import TemplateBudget

ITEM = 8  # characters an entry of a list or dict counts for: one pointer at least
# An integer this large prints as about 19,700 digits (Python prints at most 4,300); beyond it,
# multiplying two of them takes seconds in one uninterruptible call.
MAX_INT_BITS = 1 << 16
CLOCK_EVERY = 8  # steps between two readings of the clock
_CONTAINERS = (list, tuple, dict, set, frozenset, KeysView, ValuesView, ItemsView)
_SCALARS = frozenset({float, bool, type(None)})  # and ints of 64 bits: a repr of at most 24 characters


class TemplateFailure(Exception):
    """The template raised (its own raise_exception, or a Jinja error): the record cannot be rendered."""


class OverBudget(TemplateFailure):
    """The template went over its budget on the record (FT238): the message says which, and the flag."""


class Meter:
    """The steps and characters of one rendering, and the deadline of the record's renderings.
    Hot paths count inline (`steps += 1`, then `check()` when `steps` reaches `check_at`)."""

    __slots__ = ("_data", "chars", "check_at", "deadline", "max_chars", "max_steps", "roots", "seconds", "steps")

    def __init__(self, budget: TemplateBudget, deadline: float | None = None, roots: tuple[object, ...] = ()) -> None:
        self.steps = self.chars = 0
        self.max_steps, self.max_chars, self.seconds = budget.max_steps, budget.max_chars, budget.seconds
        self.deadline = deadline if deadline is not None else monotonic() + budget.seconds
        self.check_at = min(CLOCK_EVERY, self.max_steps + 1)
        self.roots = roots  # the record's data the rendering is given (its messages, its tools)
        self._data: set[int] | None = None

    def step(self, n: int = 1) -> None:
        self.steps += n
        if self.steps >= self.check_at:
            self.check()

    def check(self) -> None:
        """Over the steps, or past the deadline (read every CLOCK_EVERY steps: the clock costs more than a step)."""
        if self.steps > self.max_steps:
            steps = f"{self.max_steps:,} step{'s' if self.max_steps > 1 else ''}"
            raise OverBudget(f"it took more than {steps} (loop iterations, calls and filters); --template-max-steps raises the budget")
        if monotonic() > self.deadline:
            raise OverBudget(f"it ran past {self.seconds:g} s; --template-seconds raises the budget")
        self.check_at = min(self.steps + CLOCK_EVERY, self.max_steps + 1)

    @property
    def room(self) -> int:
        return self.max_chars - self.chars

    def need(self, n: int, what: str) -> None:
        """Refuse a result of `n` characters before it is made, when it would go over the budget."""
        if n > self.max_chars - self.chars:
            raise self._over(f"{what} would make {n:,}")

    def add(self, n: int) -> None:
        self.chars += n
        if self.chars > self.max_chars:
            raise self._over(f"the rendering reached {self.chars:,}")

    def weight(self, value: object) -> int:
        """weight(value), but 0 for the record's own data: parsed from one line, it is a tree no
        longer than the line (the template cannot change it: the sandbox is immutable), whose
        copies are counted when they are made. Walking every `tojson` of a record's tools would
        cost as much as writing them."""
        if type(value) is str:
            return len(value)
        if self._data is None:
            self._data = _containers(self.roots)
        return 0 if id(value) in self._data else weight(value, self.max_chars - self.chars)

    def made(self, value: object) -> object:
        """Count a result (a string's characters, a list's or dict's entries) and return it."""
        kind = type(value)
        if kind is str or kind is bytes or isinstance(value, str):
            self.add(len(value))  # type: ignore[arg-type]
        elif kind is list or kind is tuple or kind is dict:
            self.add(len(value) * ITEM)  # type: ignore[arg-type]
        elif kind is int and value.bit_length() > MAX_INT_BITS:  # type: ignore[attr-defined]
            raise int_over(value.bit_length(), "an operation")  # type: ignore[attr-defined]
        return value

    def _over(self, detail: str) -> OverBudget:
        return OverBudget(f"it would produce more than {self.max_chars:,} characters ({detail}); "
                          "--template-max-chars raises the budget")


def int_over(bits: int, what: str) -> OverBudget:
    return OverBudget(f"{what} would make an integer of more than {MAX_INT_BITS:,} bits ({bits:,})")


def _containers(roots: tuple[object, ...]) -> set[int]:
    """The ids of the record's data, two levels down (each message and what it holds, each tool
    and its function): the values templates write out whole. They live as long as the
    rendering, so no id is another object's."""
    found = set(map(id, roots))
    for root in roots:
        if type(root) is list:
            found.update(map(id, root))
            try:  # lists of dicts (messages, tools), the common case, in one go
                found.update(map(id, chain.from_iterable(map(dict.values, root))))
            except TypeError:
                for item in root:
                    if type(item) is dict:
                        found.update(map(id, item.values()))
    return found


def weight(value: object, cap: int) -> int:
    """About how many characters str(value) has, escapes aside, counted no further than past
    `cap`: a list holding one long string many times over is as long as all its copies (each
    copy is walked, so the walk itself stops past `cap`). JSON's types are told by their exact
    type, first: the walk runs on every `tojson`."""
    kind = type(value)
    if kind is str or kind is bytes:
        return len(value)  # type: ignore[arg-type]
    total, todo = 0, [value]
    pop, extend = todo.pop, todo.extend
    while todo:
        item = pop()
        kind = type(item)
        if kind is str:
            total += len(item) + 4  # type: ignore[arg-type]  # quotes, a separator
        elif kind is dict:
            total += 2 + 4 * len(item)  # type: ignore[arg-type]
            extend(item.keys())  # type: ignore[attr-defined]
            extend(item.values())  # type: ignore[attr-defined]
        elif kind is list or kind is tuple:
            total += 2 + 4 * len(item)  # type: ignore[arg-type]
            if total <= cap:
                extend(item)  # type: ignore[arg-type]
        elif kind is int:
            total += item.bit_length() // 3 + 2  # type: ignore[attr-defined]
        elif kind in _SCALARS:
            total += 24
        else:
            total += _other(item, todo)
        if total > cap:
            return total
    return total


def _other(item: object, todo: list[object]) -> int:
    """weight's rarer cases: an int, subclasses, views, a namespace, an object's short repr."""
    if isinstance(item, (str, bytes)):
        return len(item) + 4
    if isinstance(item, int):
        return item.bit_length() // 3 + 2
    if isinstance(item, _CONTAINERS):
        todo.extend(item.items() if isinstance(item, dict) else item)
        return 2 + 4 * len(item)
    if isinstance(item, Namespace):  # its repr shows what it holds
        todo.append(object.__getattribute__(item, "_Namespace__attrs"))
    return 24

"""The values an option takes, one rule each: the flags (ftlint/cli/options.py), the
configuration file (through the flags' types) and the Python API (through the frozen options of
ftlint/options.py) all call these, so they cannot disagree on what `batch-size = 0`,
`epochs=float("nan")` or `max_depth="x"` is.

A rule takes a value as any of them gives it (a flag's text, a TOML value, a Python object) and
returns it converted, or raises OptionError saying what is wrong and what is expected.
"""

from __future__ import annotations

import dataclasses
import math
import os
from collections.abc import Iterable
from dataclasses import dataclass
from fractions import Fraction
from typing import Any, Protocol


class OptionError(ValueError):
    """A value an option does not take. `option` is the option's name where the rule was applied to
    a field (empty inside a flag's type: click names the flag itself)."""

    def __init__(self, reason: str, option: str = "") -> None:
        super().__init__(f"{option}: {reason}" if option else reason)
        self.reason, self.option = reason, option


class Rule(Protocol):
    @property
    def name(self) -> str: ...  # what the value is, for --help's metavar

    def __call__(self, value: object) -> Any: ...


def shown(value: object, longest: int = 40) -> str:
    """A value as an error quotes it: a long one (a 400-digit number) cut to its start and its length."""
    text = value if isinstance(value, str) else repr(value)
    return text if len(text) <= longest else f"{text[:20]}... ({len(text):,} characters)"


def _huge(value: object) -> bool:
    """A finite number too large for a float ("1e400", 400 digits), not infinity or NaN."""
    if isinstance(value, float):
        return False
    try:
        Fraction(str(value).strip())
    except (ValueError, ZeroDivisionError):
        return False
    return True


def _figure(value: float) -> str:
    return f"{int(value):,}" if float(value).is_integer() and abs(value) < 1e18 else f"{value:g}"


@dataclass(frozen=True, slots=True)
class Count:
    """A whole number in a range; a float or a boolean (from a config file, from Python) is refused, not cut."""

    minimum: int = 0
    maximum: int | None = None
    name: str = "integer"

    def __call__(self, value: object) -> int:
        if isinstance(value, (bool, float)) or not isinstance(value, (str, int)):
            raise OptionError(f"{shown(repr(value))} is not a whole number")
        try:
            number = int(value)
        except ValueError:  # not digits, or more than Python converts (4,300)
            raise OptionError(f"{shown(repr(value))} is not a whole number") from None
        if number < self.minimum or (self.maximum is not None and number > self.maximum):
            bound = f"at least {self.minimum:,}" + (f" and at most {self.maximum:,}" if self.maximum is not None else "")
            raise OptionError(f"{shown(value)} is not {bound}")
        return number


@dataclass(frozen=True, slots=True)
class Number:
    """A finite decimal number in a range: NaN and infinity are refused (they would turn a gate
    off: every comparison with NaN is false), and so is a boolean."""

    minimum: float = 0.0
    minimum_open: bool = False
    maximum: float | None = None
    name: str = "number"

    def __call__(self, value: object) -> float:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise OptionError(f"{shown(repr(value))} is not a number")
        try:
            number = float(value)
        except ValueError:
            raise OptionError(f"{shown(repr(value))} is not a number") from None
        except OverflowError:  # a whole number of hundreds of digits: past any maximum
            number = math.inf if int(value) > 0 else -math.inf
        if not math.isfinite(number) and (self.maximum is None or not _huge(value)):
            raise OptionError(f"{shown(repr(value))} is not a finite number")
        low = number <= self.minimum if self.minimum_open else number < self.minimum
        if low or (self.maximum is not None and number > self.maximum) or math.isinf(number):
            bound = f"above {_figure(self.minimum)}" if self.minimum_open else f"at least {_figure(self.minimum)}"
            if self.maximum is not None:
                bound += f" and at most {_figure(self.maximum)}"
            raise OptionError(f"{shown(value)} is not {bound}")
        return number


@dataclass(frozen=True, slots=True)
class Ratio:
    """A decimal from 0 to 1, kept exact (0.1 is 1/10, not 0.1000000000000000055...), so
    ceil(ratio x steps) is what arithmetic by hand gives."""

    name: str = "ratio"

    def __call__(self, value: object) -> Fraction:
        if isinstance(value, Fraction):
            ratio = value
        elif isinstance(value, bool) or not isinstance(value, (str, int, float)):
            raise OptionError(f"{value!r} is not a decimal number")
        else:
            try:
                ratio = Fraction(str(value).strip())  # str(float('nan')) is 'nan': refused here
            except (ValueError, ZeroDivisionError):
                raise OptionError(f"{value!r} is not a decimal number") from None
        if not 0 <= ratio <= 1:
            raise OptionError(f"{value} is not between 0 and 1")
        return ratio


@dataclass(frozen=True, slots=True)
class Flag:
    """True or False, nothing that merely looks like one ("no" is a true string in Python)."""

    name: str = "boolean"

    def __call__(self, value: object) -> bool:
        if not isinstance(value, bool):
            raise OptionError(f"{value!r} is not true or false")
        return value


@dataclass(frozen=True, slots=True)
class Text:
    """A string; with `path`, a path-like object too (pathlib.Path), as its string."""

    path: bool = False
    name: str = "text"

    def __call__(self, value: object) -> str:
        if self.path and isinstance(value, os.PathLike):
            value = os.fspath(value)
        if not isinstance(value, str):
            raise OptionError(f"{value!r} is not {'a path' if self.path else 'a string'}")
        return value


@dataclass(frozen=True, slots=True)
class Version:
    """A release's version as a package gives it (5, 5.14, 5.14.1, 1.10.0.dev0): numbers first."""

    name: str = "version"

    def __call__(self, value: object) -> str:
        import re

        if not isinstance(value, str) or not re.fullmatch(r"[vV]?\d{1,4}(\.\d{1,6}){0,3}([.+-]?[A-Za-z0-9]{1,16}){0,3}", value):
            raise OptionError(f"{value!r} is not a version (5.14.1, 1.10.0.dev0)")
        return value


@dataclass(frozen=True, slots=True)
class OneOf:
    """One of some names."""

    choices: tuple[str, ...]
    name: str = "name"

    def __call__(self, value: object) -> str:
        if not isinstance(value, str) or value not in self.choices:
            raise OptionError(f"{value!r} is not one of {', '.join(map(repr, self.choices))}")
        return value


def is_code(code: str) -> bool:
    """A rule code or a prefix of codes: FT604, FT6, FT."""
    return code.startswith("FT") and code[2:].isdigit() and len(code) <= 5


def codes(values: object) -> tuple[str, ...]:
    """Codes or code prefixes, as --select gives them: comma-separated, in one string or many."""
    if isinstance(values, str):
        values = (values,)
    if not isinstance(values, Iterable):
        raise OptionError(f"{values!r} is not a list of codes")
    found = []
    for value in values:
        if not isinstance(value, str):
            raise OptionError(f"{value!r} is not a code or code prefix (like FT604 or FT6)")
        found += [c.strip().upper() for c in value.split(",") if c.strip()]
    for code in found:
        if not is_code(code):
            raise OptionError(f"{code!r} is not a code or code prefix (like FT604 or FT6)")
    return tuple(found)


def check_fields(options: Any, rules: dict[str, Rule]) -> None:
    """Apply each field's rule to a frozen dataclass's value and keep the converted value; an
    error names the field. None passes where it is the field's default ("the trainer's", "no
    limit"), nowhere else."""
    optional = {f.name for f in dataclasses.fields(options) if f.default is None}
    for name, rule in rules.items():
        value = getattr(options, name)
        if value is None and name in optional:
            continue
        try:
            converted = rule(value)
        except OptionError as exc:
            raise OptionError(exc.reason, name) from None
        if converted is not value:
            object.__setattr__(options, name, converted)  # frozen: the one write, before anyone sees it

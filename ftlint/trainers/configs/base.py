"""What a run config is to ftlint, whichever trainer's file it came from: the trainer, the
option values it sets (each with where it came from), the datasets it names, and what it says
that ftlint reads but does not model. One module per kind of file reads it into this."""

from __future__ import annotations

import sys
from collections.abc import Callable, Collection
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class RunConfigError(Exception):
    """The run config cannot be used: one line naming the file, the key and what it takes (exit 2)."""


@dataclass(frozen=True, slots=True)
class Setting:
    value: object
    source: str  # "sequence_len 2048 from lora-1b.yml": the config's key first

    @property
    def key(self) -> str:
        """The config's key the value came from (or ftlint's default names)."""
        return self.source.split(" ", 1)[0]


@dataclass(frozen=True, slots=True)
class DatasetRef:
    path: str  # as the config names it (a local file, relative to the config's folder, or a Hub id)
    kind: str = ""  # the trainer's type for it (a dataset entry's `type:` or `formatting`)
    local: str | None = None  # the file, resolved inside the config's folder, when it is one there
    mapping: str | None = None  # the --mapping value that reads it as the trainer does (FILE[:NAME])


@dataclass(frozen=True)
class RunConfig:
    kind: str  # the trainer whose config it is (its name: ftlint/trainers CONFIGS)
    path: str
    trainer: str  # the profile's name (ftlint/trainers)
    run: dict[str, Setting] = field(default_factory=dict)  # RunOptions fields: model_name, max_seq_len, ...
    plan: dict[str, Setting] = field(default_factory=dict)  # PlanOptions fields: epochs, batch_size, ...
    datasets: tuple[DatasetRef, ...] = ()
    validation: DatasetRef | None = None  # a validation file the config names
    validation_split: Setting | None = None  # a share (or count) of the training data held out
    notes: tuple[str, ...] = ()  # keys read but not modelled, each said once
    unset: tuple[str, ...] = ()  # keys that decide figures, not set: the trainer's default applies
    keys: dict[str, object] = field(default_factory=dict)  # keys its trainer reads itself (Trainer.reading, cut_for, renderer, prepare)
    findings: tuple[tuple[str, str], ...] = ()  # (code, message): a key its version ignores or rejects, or ftlint cannot apply

    @property
    def name(self) -> str:
        return Path(self.path).name


class Keys:
    """A config's top-level mapping, read key by key with its type checked: a value of another
    type is a RunConfigError naming the file, the key and what it takes."""

    def __init__(self, doc: dict, path: str, templates: Collection[str] = (), models: Callable[..., Any] | None = None,
                 versions: tuple[str | None, str | None] = (None, None)) -> None:
        self.doc, self.path, self.name = doc, path, Path(path).name
        self.templates = templates  # the chat templates ftlint renders, by name: what a config's named one is compared with
        # how a self-hosted run's model name is read (names.named: a folder, a name rule, the catalog),
        # given by the caller so that the readers import nothing above them
        self.models = models
        self.versions = versions  # (--trainer-version, --transformers-version): what its reader asks its trainer's versions with
        self.notes: list[str] = []
        self.findings: list[tuple[str, str]] = []

    def ignored(self, text: str) -> None:
        """A key the run's trainer version ignores or rejects: an error (FT514) saying what the run does instead."""
        self.findings.append(("FT514", text))

    def unapplied(self, text: str) -> None:
        """A key that changes figures and that ftlint does not apply: an error (FT515); the figures are not the run's."""
        self.findings.append(("FT515", text))

    def get(self, key: str, kind: str, where: dict | None = None, shown: str | None = None) -> object:
        """The value of `key` (None when absent or null), of `kind`: int, number, bool, str,
        list, dict, or "int|str" (either)."""
        value = (self.doc if where is None else where).get(key)
        if value is None:
            return None
        if not _is(value, kind):
            raise RunConfigError(f"{self.path}: {shown or key} = {quoted(value)}: expected {_WORDS[kind]}")
        if kind == "number" and isinstance(value, int) and not isinstance(value, bool) and abs(value) > _FLOAT_MAX:
            raise RunConfigError(f"{self.path}: {shown or key} = {quoted(value)}: too large for a number (ftlint's maximum "
                                 "for each setting is in docs/trust.md)")
        return value

    def count_or_number(self, key: str) -> Setting | None:
        """A value a trainer takes as a float (epochs, warmup steps): a whole one is kept whole, so
        that one too large for a float meets the option's maximum and is refused naming it."""
        raw = self.doc.get(key)
        return self.setting(key, "int" if isinstance(raw, int) and not isinstance(raw, bool) else "number")

    def items(self, key: str) -> list[object]:
        """A list's items (none when absent)."""
        value = self.get(key, "list")
        return self.bounded(key, list(value) if isinstance(value, list) else [])

    def bounded(self, key: str, names: list) -> list:
        """A list of datasets, at most MAX_RUN_DATASETS of them: each is a file to read."""
        from ...maxima import MAX_RUN_DATASETS

        if len(names) > MAX_RUN_DATASETS:
            raise RunConfigError(f"{self.path}: {key}: {len(names):,} datasets, over the {MAX_RUN_DATASETS:,} a run config "
                                 "may name")
        return names

    def setting(self, key: str, kind: str, value: object | None = None, shown: str | None = None) -> Setting | None:
        """A Setting of `key`'s value (or `value`, derived from it), said as `key VALUE from FILE`."""
        found = self.get(key, kind, shown=shown)
        if found is None:
            return None
        return Setting(found if value is None else value, f"{shown or key} {_said(found)} from {self.name}")

    def note(self, text: str) -> None:
        if text not in self.notes:
            self.notes.append(text)


_FLOAT_MAX = int(sys.float_info.max)  # YAML and JSON integers have no limit; a float does


def quoted(value: object) -> str:
    """A config's value as an error quotes it: a long one (a 400-digit number) cut short."""
    from ...checked import shown

    return shown(repr(value))


_WORDS = {"int": "a whole number", "number": "a number", "bool": "true or false", "str": "a string", "list": "a list",
          "dict": "a mapping", "int|str": "a whole number or a string", "str|list": "a string or a list of strings"}


def _is(value: object, kind: str) -> bool:
    if kind == "int":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and value == value and abs(value) != float("inf")
    if kind == "bool":
        return isinstance(value, bool)
    if kind == "str":
        return isinstance(value, str)
    if kind == "list":
        return isinstance(value, list)
    if kind == "dict":
        return isinstance(value, dict)
    if kind == "int|str":
        return _is(value, "int") or isinstance(value, str)
    if kind == "str|list":
        return isinstance(value, str) or (isinstance(value, list) and all(isinstance(v, str) for v in value))
    raise KeyError(kind)


def _said(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float):
        return f"{value:g}"
    return str(value)


def number(text: object, key: str, keys: Keys) -> float | None:
    """A learning rate as YAML may hold it: a float, or a string ("2e-4" is a string to YAML 1.1)."""
    if text is None:
        return None
    try:
        value = float(text)  # type: ignore[arg-type]
    except (TypeError, ValueError, OverflowError):
        raise RunConfigError(f"{keys.path}: {key} = {quoted(text)}: expected a number") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise RunConfigError(f"{keys.path}: {key} = {quoted(text)}: expected a number")
    return value

"""`--run FILE`: the run config the user already has, read as its trainer reads it. Each trainer
that has one reads it in its own package (ftlint/trainers/<name>/config.py, through
`Trainer.read_config`) into what base.py says a RunConfig holds; common.py holds what the
readers share. The registry (ftlint/trainers/__init__.py CONFIGS) lists the kinds ftlint reads.

The kind is detected from the keys only that kind has, or given. Pure: the file is read
bounded and confined (ftlint/trust.py, ftlint/documents.py); nothing is printed. Keys ftlint
does not use are ignored; a key it uses, of another type than the trainer takes, is a
RunConfigError naming the file, the key and what it takes.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from pathlib import Path
from typing import Any

from .base import DatasetRef, Keys, RunConfig, RunConfigError, Setting


def read_run(path: str, kind: str | None = None, limit: int | None = None, templates: Collection[str] = (),
             models: Callable[..., Any] | None = None, versions: tuple[str | None, str | None] = (None, None)) -> RunConfig:
    """The run config at `path` (one regular file of at most `limit` bytes), of `kind` or of the
    kind its keys show. `templates`: the chat templates ftlint renders, by name; `models`: how a
    self-hosted run's model name is read (names.named), else the catalog's entry alone; `versions`:
    the trainer's and transformers' the user gave (--trainer-version, --transformers-version)."""
    from ...documents import parse_json, parse_yaml
    from ...trust import MAX_FILE_BYTES, Refused, read_text
    from .. import CONFIGS

    try:
        text = read_text(path, "--run", limit or MAX_FILE_BYTES)
        doc = (parse_json if Path(path).suffix == ".json" else parse_yaml)(text, f"--run {path}")
    except Refused as exc:
        raise RunConfigError(str(exc)) from None
    if not isinstance(doc, dict) or not all(isinstance(k, str) for k in doc):
        raise RunConfigError(f"--run {path}: not a run config (a mapping of settings)")
    kinds = ", ".join(t.name for t in CONFIGS)
    found = kind or detect(doc)
    if found is None:
        raise RunConfigError(f"--run {path}: not a run config ftlint knows ({kinds}); its keys name no trainer")
    reader = next((t for t in CONFIGS if t.name == found), None)
    if reader is None:
        raise RunConfigError(f"--run {path}: unknown kind {found!r}; ftlint reads {kinds}")
    return reader.read_config(Keys(doc, path, templates, models, versions))


def detect(doc: dict) -> str | None:
    """The kind of config whose own keys `doc` has (the first of the registry's CONFIGS that reads it)."""
    from .. import CONFIGS

    return next((t.name for t in CONFIGS if t.reads_config(doc)), None)


__all__ = ["DatasetRef", "Keys", "RunConfig", "RunConfigError", "Setting", "detect", "read_run"]

"""Which versions of a trainer (and of transformers under it) a run is modelled as: what the user
says (--trainer-version, --transformers-version), else what is installed beside ftlint when the
trainer itself is (its distribution's metadata, read with importlib.metadata: the trainer is never
imported), else what its profile models (its `versions` fact). A key a version ignores or rejects
(transformers 5.15 removed warmup_ratio) is decided by these, in the trainer's run-config reader.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

_PART = re.compile(r"\d+")


@dataclass(frozen=True, slots=True)
class Versions:
    """A run's versions: the trainer's and transformers' ("" where the trainer runs none), and why."""

    trainer: str
    transformers: str
    source: str  # "--trainer-version", "installed beside ftlint", "the versions ftlint models", or a mix

    def transformers_at_least(self, version: str) -> bool:
        return bool(self.transformers) and parse(self.transformers) >= parse(version)

    def words(self, package: str) -> str:
        parts = [f"{package} {self.trainer}" if self.trainer else "", f"transformers {self.transformers}" if self.transformers else ""]
        return f"{' and '.join(p for p in parts if p)} ({self.source})"


def parse(version: str) -> tuple[int, ...]:
    """A release's number as a tuple to compare ('5.14.1' -> (5, 14, 1); '1.10.0.dev0' -> (1, 10, 0)):
    the leading numbers, up to the first part that is not one."""
    out = []
    for part in version.strip().lstrip("vV").split("."):
        found = _PART.match(part)
        if found is None:
            break
        out.append(int(found.group()))
        if found.end() != len(part):
            break
    return tuple(out)


def installed(distribution: str) -> str | None:
    """The version of a distribution installed beside ftlint (its metadata only), None if it is not."""
    from importlib import metadata

    try:
        return metadata.version(distribution)
    except (metadata.PackageNotFoundError, ValueError):
        return None


def resolved(modelled: dict, trainer_given: str | None, transformers_given: str | None) -> Versions:
    """The run's versions from a profile's `versions` fact (`package`: its distribution's name,
    `trainer`, `transformers`: what ftlint models) and the user's."""
    package = str(modelled.get("package", ""))
    here = installed(package) if package else None  # ftlint in the trainer's environment: its versions are the run's
    trainer, transformers = str(modelled.get("trainer", "")), str(modelled.get("transformers", ""))
    said = []
    if trainer_given:
        trainer = trainer_given
        said.append("--trainer-version")
    elif here:
        trainer = here
        said.append(f"{package} installed beside ftlint")
    beside = installed("transformers") if here and transformers else None
    if transformers and transformers_given:
        transformers = transformers_given
        said.append("--transformers-version")
    elif beside:
        transformers = beside
        said.append("transformers installed beside it")
    if len(said) < (2 if transformers else 1):
        said.append("the versions ftlint models" if not said else "otherwise the versions ftlint models")
    return Versions(trainer, transformers, ", ".join(s for s in said if s))


__all__ = ["Versions", "installed", "parse", "resolved"]

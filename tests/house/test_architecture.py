"""docs/architecture.md is the map of the code: it names every module of ftlint/ (a trainer's own
package by its folder, which says what such a package holds), and every file it names exists."""

from __future__ import annotations

import re

from conftest import ROOT

DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
TREE = DOC.split("```")[3]  # the second fenced block: the module map
FILES = set(re.findall(r"\b([A-Za-z_]\w*\.py)\b", TREE))
FOLDERS = set(re.findall(r"([A-Za-z_][\w-]*)/", TREE))
TRAINER_PACKAGES = {p.parent for p in (ROOT / "ftlint" / "trainers").glob("*/__init__.py")} - {ROOT / "ftlint" / "trainers" / "configs"}


def test_the_map_names_every_module() -> None:
    missing = []
    for path in sorted((ROOT / "ftlint").rglob("*.py")):
        if path.parent in TRAINER_PACKAGES or path.name == "__init__.py":  # a trainer's package: its folder is named, and what such a package holds
            named = path.parent.name in FOLDERS
        else:
            named = path.name in FILES
        if not named:
            missing.append(str(path.relative_to(ROOT)))
    assert missing == []


def test_every_file_the_map_names_exists() -> None:
    everywhere = {p.name for folder in ("ftlint", "tools", "tests", "benchmarks") for p in (ROOT / folder).rglob("*.py")}
    assert sorted(FILES - everywhere) == []
    folders = {p.name for p in ROOT.rglob("*") if p.is_dir() and ".venv" not in p.parts and ".git" not in p.parts}
    assert sorted(FOLDERS - folders) == []

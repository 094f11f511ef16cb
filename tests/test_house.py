"""The house (issue 25): the import graph of ftlint/ is a layered DAG, of files and of top-level
rooms (a package is one room), counting every import (at the top, inside a function, under
TYPE_CHECKING); no private name crosses a module; every relative import names a module (mypy,
which ignores missing imports, would not see one that is wrong inside a function); no module
outgrows a screenful of screens. tools/imports.py draws it."""

from __future__ import annotations

import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import imports  # tools/ is not a package: found on the path set just above

MODULES = imports.modules()
GRAPH = imports.imports(MODULES)
MAX_LINES = 420


def test_no_cycle_and_no_arrow_back_up_among_modules_or_rooms() -> None:
    for graph in (GRAPH, imports.rooms(GRAPH)):
        assert imports.cycles(graph) == []
        assert imports.back_up(graph, imports.layers(graph)) == []


def test_the_reader_and_the_engine_sit_below_the_use_cases() -> None:
    """Spot checks of the layering the counts hold: what a rule sees is below the rules and the
    engine, and neither the engine nor the rules reach up into the use cases or the CLI."""
    layer = imports.layers(imports.rooms(GRAPH))
    assert layer["ftlint.read"] < layer["ftlint.engine"] < layer["ftlint.app"] < layer["ftlint.api"] < layer["ftlint.cli"]
    assert layer["ftlint.rules"] < layer["ftlint.engine"] and layer["ftlint.plan"] < layer["ftlint.rules"]
    for low in ("ftlint.engine", "ftlint.rules", "ftlint.read", "ftlint.formats", "ftlint.plan"):
        assert not {t for m, ts in GRAPH.items() if m.startswith(low) for t in ts} & {"ftlint.app", "ftlint.api", "ftlint.cli"}


def test_no_private_name_crosses_a_module_and_every_relative_import_resolves() -> None:
    assert imports.private_names(MODULES) == []
    assert imports.unresolved(MODULES) == []


def test_no_module_is_over_the_house_size() -> None:
    sizes = {name: len(path.read_text(encoding="utf-8").splitlines()) for name, path in MODULES.items()}
    assert {n: s for n, s in sizes.items() if s > MAX_LINES} == {}

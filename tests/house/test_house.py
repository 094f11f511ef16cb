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


def test_generic_code_asks_the_trainer_and_never_compares_it_with_a_name() -> None:
    """Outside ftlint/trainers/, nothing compares the run's trainer (its name, its profile, its step
    arithmetic) with a literal: what differs by trainer is a method of its Trainer (issue 36; on
    main, `trainer == "together"` in formats/registry.py, `trainer.name == "together"` in app.py and
    `e.trainer_steps == "axolotl"` in report/estimate.py)."""
    import ast

    found = []
    for module, path in MODULES.items():
        if module.startswith("ftlint.trainers"):
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Compare):
                continue
            operands = [node.left, *node.comparators]
            literal = any(isinstance(o, ast.Constant) and isinstance(o.value, str) for o in operands)
            if literal and any(not isinstance(o, ast.Constant) and ("trainer" in ast.unparse(o) or "profile" in ast.unparse(o))
                               for o in operands):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_a_tokenizer_file_a_template_file_and_no_model_named_are_types_not_strings() -> None:
    """A tokenizer or chat template given as a file is a TokenizerPath or TemplatePath, typed once by
    resolve/ (ftlint/tokenizing.py, whose __str__ alone spells "path:" and "file:" for the JSON and
    the reports), and no model named is Model.unnamed (issue 36; on main, 37 lines told them apart by
    startswith("file:"), removeprefix("path:"), "path:" + ... or model.name.startswith("("))."""
    import ast

    found = []
    for module, path in MODULES.items():
        if module == "ftlint.tokenizing":
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Constant) and node.value in ("file:", "path:"):
                found.append(f"{path.name}:{node.lineno} {node.value}")
            elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "startswith" \
                    and any(isinstance(a, ast.Constant) and a.value == "(" for a in node.args):
                found.append(f"{path.name}:{node.lineno} {ast.unparse(node)}")
    assert found == []


def test_a_trainer_is_named_by_few_modules_outside_its_package() -> None:
    """What one trainer does lives in its package (issue 36): each trainer's name is in at most 8
    modules outside it where the code names it (identifiers, imports, ids: the registry, the format
    table, a format or template named after it), and, but for TRL's, in at most 8 in what a user is
    told too (the rules' docs among them; the flags' help is the trainers' own, ftlint/cli/told.py).
    TRL's is in more (`python tools/imports.py --names`): the rules' docs cite TRL's code as the
    reference the other trainers build on, its formats' names (trl-messages) are the shapes others
    read, and unsloth runs TRL's trainer."""
    in_code = imports.named_outside(MODULES, code=True)
    anywhere = imports.named_outside(MODULES)
    assert {name: places for name, places in in_code.items() if len(places) > 8} == {}
    assert {name: places for name, places in anywhere.items() if name != "trl" and len(places) > 8} == {}
    assert {"axolotl", "unsloth", "llama-factory", "mistral-finetune", "together", "trl"} <= set(anywhere)
    assert all(in_code[name] for name in anywhere)  # each is named somewhere in code: the registry at least


def test_only_the_registry_reaches_into_a_trainers_package() -> None:
    """A trainer's package (ftlint/trainers/<name>/) is reached through the registry and the Trainer
    it lists: no module outside ftlint/trainers/ imports one."""
    from ftlint.trainers import TRAINERS

    packages = {t.package for t in TRAINERS.values()}
    reaching = {(m, t) for m, targets in GRAPH.items() if not m.startswith("ftlint.trainers")
                for t in targets if any(t == p or t.startswith(p + ".") for p in packages)}
    assert packages and reaching == set()

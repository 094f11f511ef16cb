"""What a trainer's or provider's format needs is said once, in the format registry (issue 36, the
third round): the rules apply to a format by what its entry demands (Format.demands) and name its
provider by its label, convert writes a format by its Conversion, a mapping says where its turns
are. On main before this, rules compared `fmt.name == "mistral-finetune"` and `fmt.family ==
"together"`, and convert, formats/conversion.py and mapping.py kept tables of the formats' names."""

from __future__ import annotations

import ast
import re
import sys

from conftest import ROOT

sys.path.insert(0, str(ROOT / "tools"))
import imports  # tools/ is not a package: found on the path set just above

from ftlint.formats.registry import FORMATS

MODULES = imports.modules()
# the modules that read formats: the rules (their registry's list of modules aside), convert, the
# format package below its table, and the column mapping
READERS = [m for m in MODULES if (m.startswith(("ftlint.rules.", "ftlint.convert", "ftlint.formats."))
           and m != "ftlint.formats.registry") or m == "ftlint.mapping"]


def _theirs() -> set[str]:
    """The trainers' names, and the names of the formats named after one (trl-messages, together-preference)."""
    packages = imports.trainer_packages()
    spelled = re.compile("(?<![a-z])(?:" + "|".join(re.escape(n) for n in packages) + ")(?![a-z])")
    return set(packages) | {name for name in FORMATS if spelled.search(name)}


def _decisions(tree: ast.AST, names: set[str]) -> list[ast.AST]:
    """Comparisons, calls (a scope's `named(...)`) and tables (tuples, lists, sets, a dict's keys) holding one of `names`."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Compare):
            parts: list = [node.left, *node.comparators]
            parts += [e for p in parts if isinstance(p, (ast.Tuple, ast.List, ast.Set)) for e in p.elts]
        elif isinstance(node, ast.Call):
            parts = node.args
        elif isinstance(node, (ast.Tuple, ast.List, ast.Set)):
            parts = node.elts
        elif isinstance(node, ast.Dict):
            parts = [k for k in node.keys if k is not None]
        else:
            continue
        if any(isinstance(p, ast.Constant) and p.value in names for p in parts):
            found.append(node)
    return found


def test_the_modules_that_read_formats_decide_by_none_of_a_trainers_names() -> None:
    names = _theirs()
    assert {"together", "mistral-finetune", "trl-messages", "trl-stepwise", "together-preference"} <= names
    found = [f"{module}:{node.lineno} {ast.unparse(node)}" for module in READERS
             for node in _decisions(ast.parse(MODULES[module].read_text(encoding="utf-8")), names)]
    assert len(READERS) > 10
    assert found == []


def test_the_check_finds_a_decision_by_name() -> None:
    """The walk above finds each way main spelled such a decision."""
    names = _theirs()
    for code in ('fmt.name == "mistral-finetune"', 'fmt.family in ("openai", "together")', 'named("trl-stepwise")',
                 'WEIGHTED = ("openai-chat", "together-conversational")', 'R = {"trl-messages": "reasoning_content"}'):
        assert _decisions(ast.parse(code), names), code


def test_every_demand_declared_in_the_registry_is_a_rules_scope() -> None:
    """A demand no rule reads would be a fact that decides nothing: each one a format declares is
    read by a rule module."""
    import ftlint.formats.base as base

    constants = {value: name for name, value in vars(base).items() if isinstance(value, str) and name.isupper()}
    declared = {d for fmt in FORMATS.values() for d in fmt.demands}
    assert declared and declared <= set(constants)
    rules = "".join(MODULES[m].read_text(encoding="utf-8") for m in READERS if m.startswith("ftlint.rules."))
    assert {constants[d] for d in declared if not re.search(rf"\b{constants[d]}\b", rules)} == set()

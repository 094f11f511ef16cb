"""The house as its imports draw it: modules, layers, arrows, arrows back up and cycles of ftlint/.

    python tools/imports.py            counts, then each cycle and each arrow back up
    python tools/imports.py --route    the modules a run reaches from ftlint.app.analyse_data, layer by layer
    python tools/imports.py --json     the counts as JSON (tests/house/test_house.py holds cycles and arrows back up at zero)
    python tools/imports.py --names    each trainer, the modules outside its package that name it (and how many in code)

An arrow is any import of one ftlint module by another: at the top, inside a function, or under
`if TYPE_CHECKING:` (a type a module names is a dependency of its design even when it is not
one at run time). Two units are drawn, each must form a layered graph on its own:
  modules  every file (`ftlint/engine/judge.py` is `ftlint.engine.judge`);
  rooms    every top-level module, and every package as one room (`ftlint/rules/` is `ftlint.rules`).
A layer is the length of the longest chain of imports below a unit (a unit importing nothing is
layer 1). A cycle is a set of units that reach each other; an arrow back up is an import from a
lower layer to a higher one, which only a cycle makes possible once layers are computed this way,
so both are counted after the units of each cycle are put on one layer, with a DFS order inside.
"""

from __future__ import annotations

import argparse
import ast
import json
import re
import sys
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGE = "ftlint"


def modules(root: Path = ROOT) -> dict[str, Path]:
    found = {}
    for path in sorted((root / PACKAGE).rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        found[".".join(parts)] = path
    return found


def _resolve(module: str, is_package: bool, level: int, name: str | None) -> str:
    if level == 0:
        return name or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (level - 1)]
    return ".".join([*base, name] if name else base)


def imports(known: dict[str, Path]) -> dict[str, set[str]]:
    """module -> the ftlint modules it imports (the deepest known module each import names)."""
    graph: dict[str, set[str]] = {m: set() for m in known}
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node.level, node.module)
                targets = [f"{base}.{alias.name}" for alias in node.names] + [base]
            elif isinstance(node, ast.Call) and getattr(node.func, "id", None) == "__import__" and node.args:
                first = node.args[0]
                if isinstance(first, ast.Constant) and isinstance(first.value, str):
                    targets = [first.value]
            for target in targets:
                hit = _deepest(target, known)
                if hit and hit != module:
                    graph[module].add(hit)
                    break
    return graph


def unresolved(known: dict[str, Path]) -> list[tuple[str, str]]:
    """(module, name) for each relative import that names no ftlint module (mypy, told to ignore
    missing imports, cannot see those: an import inside a function fails only when it runs)."""
    found = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.level:
                base = _resolve(module, is_package, node.level, node.module)
                if base not in known and not any(f"{base}.{a.name}" in known for a in node.names):
                    found.append((module, base))
    return sorted(found)


def private_names(known: dict[str, Path]) -> list[tuple[str, str]]:
    """(module, name) for each private name (`_x`) one ftlint module imports from another."""
    found = []
    for module, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
        is_package = path.name == "__init__.py"
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom):
                base = _resolve(module, is_package, node.level, node.module)
                if _deepest(base, known) is None:
                    continue
                found += [(module, f"{base}.{a.name}") for a in node.names if a.name.startswith("_") and not a.name.startswith("__")]
    return sorted(found)


def _deepest(name: str, known: dict[str, Path]) -> str | None:
    parts = name.split(".")
    while parts:
        candidate = ".".join(parts)
        if candidate in known:
            return candidate
        parts.pop()
    return None


def rooms(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """The graph of top-level rooms: `ftlint.x` for a module, `ftlint.pkg` for a package."""

    def room(module: str) -> str:
        return ".".join(module.split(".")[:2])

    out: dict[str, set[str]] = {}
    for module, targets in graph.items():
        out.setdefault(room(module), set())
        for target in targets:
            if room(target) != room(module) and room(module) != PACKAGE:  # ftlint/__init__ re-exports: its face
                out[room(module)].add(room(target))
    return out


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one unit (Tarjan, iteratively)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = counter
        counter += 1
        stack.append(start)
        on_stack.add(start)
        while work:
            node, children = work[-1]
            advanced = False
            for child in children:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, ())))))
                    advanced = True
                    break
                if child in on_stack:
                    low[node] = min(low[node], index[child])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return sorted(found)


def layers(graph: dict[str, set[str]]) -> dict[str, int]:
    """Each unit's layer: 1 + the highest layer among what it imports, arrows inside a cycle
    left out (so a cycle's units share the layer their outside imports give them)."""
    together = {m: frozenset(c) for c in cycles(graph) for m in c}
    layer: dict[str, int] = {}

    def of(unit: str, seen: frozenset[str]) -> int:
        if unit in layer:
            return layer[unit]
        group = together.get(unit, frozenset({unit}))
        below = [of(t, seen | group) for m in group for t in graph.get(m, ()) if t not in group and t not in seen]
        value = 1 + max(below, default=0)
        for m in group:
            layer[m] = value
        return value

    sys.setrecursionlimit(max(sys.getrecursionlimit(), 10_000))
    for unit in sorted(graph):
        of(unit, frozenset())
    return layer


def back_up(graph: dict[str, set[str]], layer: dict[str, int]) -> list[tuple[str, str]]:
    """Arrows that do not run down a layer: within a cycle, an import of a unit on the same layer."""
    return sorted((a, b) for a, targets in graph.items() for b in targets if layer[b] >= layer[a])


def counts(graph: dict[str, set[str]]) -> dict[str, int]:
    layer = layers(graph)
    return {"units": len(graph), "layers": max(layer.values(), default=0), "arrows": sum(len(t) for t in graph.values()),
            "arrows back up": len(back_up(graph, layer)), "cycles": len(cycles(graph))}


def route(graph: dict[str, set[str]], start: str) -> dict[int, list[str]]:
    """The modules reachable from `start`, by layer, top first."""
    layer = layers(graph)
    seen, todo = {start}, [start]
    while todo:
        for target in graph.get(todo.pop(), ()):
            if target not in seen:
                seen.add(target)
                todo.append(target)
    out: dict[int, list[str]] = {}
    for module in sorted(seen):
        out.setdefault(layer[module], []).append(module)
    return dict(sorted(out.items(), reverse=True))


def report(graph: dict[str, set[str]], title: str) -> Iterable[str]:
    figures = counts(graph)
    yield f"{title}: " + ", ".join(f"{v} {k}" for k, v in figures.items())
    for component in cycles(graph):
        yield "  cycle: " + " <-> ".join(component)
    layer = layers(graph)
    for a, b in back_up(graph, layer):
        yield f"  back up: {a} (layer {layer[a]}) -> {b} (layer {layer[b]})"


def trainer_packages(root: Path = ROOT) -> dict[str, str]:
    """Each trainer's name -> its package under ftlint/trainers/ (hosted/ holds the providers' jobs, configs/ what the readers share)."""
    folders = sorted(p.parent.name for p in (root / PACKAGE / "trainers").glob("*/__init__.py"))
    return {f.replace("_", "-"): f for f in folders if f not in ("configs", "hosted")}


def _spoken(tree: ast.AST) -> Iterable[str]:
    """The names and words of a module: identifiers, attribute names, imported modules and strings
    that are not docstrings (a docstring explains; the rest is code or what a user is told)."""
    docs = {id(n.body[0].value) for n in ast.walk(tree)
            if isinstance(n, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)) and n.body
            and isinstance(n.body[0], ast.Expr) and isinstance(n.body[0].value, ast.Constant)}
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docs:
            yield node.value
        elif isinstance(node, ast.Name):
            yield node.id
        elif isinstance(node, ast.Attribute):
            yield node.attr
        elif isinstance(node, ast.ImportFrom) and node.module:
            yield node.module


# a trainer's name that is also an English word, and the phrases of ftlint that use it as one
# (read by hand): each is taken out of a text before the text is searched
WORDS = {"together": ("checked together", "training files together", "records together", "-size together", "-part together")}


def _names(text: str, name: str, package: str) -> bool:
    text = text.lower()
    for phrase in WORDS.get(name, ()):
        text = text.replace(phrase, "")
    return re.search(rf"(?<![a-z])(?:{re.escape(name)}|{package})(?![a-z])", text) is not None


def named_outside(known: dict[str, Path], root: Path = ROOT, *, code: bool = False) -> dict[str, list[str]]:
    """Each trainer -> the modules outside its package that name it (its name or its package's; a
    format spelled the same counts too: read each before believing it). With `code`, only where the
    code names it: identifiers, imports and strings without a space (a key, a format's or a
    template's id), not what a user is told."""
    found: dict[str, list[str]] = {}
    for name, package in trainer_packages(root).items():
        inside = f"{PACKAGE}.trainers.{package}"
        found[name] = sorted(str(path.relative_to(root)) for module, path in known.items()
                             if module != inside and not module.startswith(inside + ".")
                             and any(_names(text, name, package) for text in _spoken(ast.parse(path.read_text(encoding="utf-8")))
                                     if not (code and re.search(r"\s", text))))
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--route", nargs="?", const="ftlint.app", metavar="MODULE")
    parser.add_argument("--names", action="store_true")
    args = parser.parse_args(argv)
    if args.names:
        in_code = named_outside(modules(), code=True)
        for name, places in named_outside(modules()).items():
            print(f"{name} {len(places)} ({len(in_code[name])} in code): {', '.join(places)}")
        return 0
    graph = imports(modules())
    if args.json:
        print(json.dumps({"modules": counts(graph), "rooms": counts(rooms(graph))}))
        return 0
    if args.route:
        for level, names in route(graph, args.route).items():
            print(f"layer {level:>2}  " + ", ".join(n.removeprefix("ftlint.") for n in names))
        return 0
    for line in (*report(graph, "modules"), *report(rooms(graph), "rooms")):
        print(line)
    for module, name in private_names(modules()):
        print(f"  private name: {module} imports {name}")
    for module, name in unresolved(modules()):
        print(f"  unresolved: {module} imports {name}, which is no module")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

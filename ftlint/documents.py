"""Small JSON and YAML documents read besides the data (a trainer's mapping), parsed within
bounds: their depth and their size in values are measured before anything walks them.

The file's bytes are bounded by trust.read_text; these bounds are on what the bytes become. A
60 MiB JSON array of two-letter strings is 1.2 GB of Python objects; YAML is worse, since an
alias repeats a node without repeating its text: nine lines of nine aliases each ("billion
laughs") compose to a few dozen shared nodes that a validator walks 10^9 times. A mapping holds
hundreds of values, so the bounds are far above any real one and far below harm.
"""

from __future__ import annotations

from typing import Any

from .trust import Refused

MAX_DEPTH = 64  # a trainer's dataset_info.json is 3 levels deep, its YAML config about 6
MAX_JSON_VALUES = 1_000_000  # counted from the text, an upper bound: about 100 MiB of Python objects
MAX_YAML_NODES = 100_000  # after expanding aliases; a trainer's config has a few hundred


def parse_json(text: str, what: str) -> object:
    """The value of a JSON document of at most MAX_DEPTH levels and MAX_JSON_VALUES values."""
    import orjson

    from .parse import nesting_depth

    # every value but a container's first follows a comma, and each container opens with a
    # bracket: 2 x (commas + brackets) + 1 bounds the keys and values, before any is built
    bound = 2 * (text.count(",") + text.count("[") + text.count("{")) + 1
    if bound > MAX_JSON_VALUES:
        raise Refused(f"{what}: up to {bound:,} JSON values (commas and brackets counted), over the "
                      f"{MAX_JSON_VALUES:,} a mapping may hold; not read")
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError as exc:
        if "depth limit" in str(exc):  # orjson stops at 1,024 levels
            raise Refused(f"{what}: nested more than {MAX_DEPTH} levels deep (a mapping has a few); not read") from None
        raise Refused(f"{what}: not JSON ({exc})") from None
    if nesting_depth(value, MAX_DEPTH) > MAX_DEPTH:
        raise Refused(f"{what}: nested more than {MAX_DEPTH} levels deep (a mapping has a few); not read")
    return value


def parse_yaml(text: str, what: str) -> object:
    """The value of a YAML document (PyYAML's safe loader) of at most MAX_DEPTH levels and
    MAX_YAML_NODES nodes with its aliases expanded, measured on the composed node graph before
    any Python object is constructed."""
    import yaml

    loader = _bounded_loader()(text)
    try:
        node = loader.get_single_node()
        if node is None:
            return None
        _measure(node, what)
        return loader.construct_document(node)
    except _TooDeep:
        raise Refused(f"{what}: nested more than {MAX_DEPTH} levels deep (a mapping has a few); not read") from None
    except _TooMany:
        raise Refused(f"{what}: more than {MAX_YAML_NODES:,} YAML nodes, its aliases expanded (a mapping has hundreds); "
                      "not read") from None
    except yaml.YAMLError as exc:
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        if problem == "exceeded maximum nesting depth":  # libyaml's own bound (1,000 levels), met scanning ahead
            raise Refused(f"{what}: nested more than {MAX_DEPTH} levels deep (a mapping has a few); not read") from None
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}, column {mark.column + 1}" if mark is not None else ""
        raise Refused(f"{what}: not YAML ({problem}{where})") from None
    except ValueError as exc:  # an integer past Python's 4,300 digits, which PyYAML converts with int()
        raise Refused(f"{what}: not read ({str(exc).split(';')[0]})") from None
    finally:
        loader.dispose()


class _TooDeep(Exception):
    pass


class _TooMany(Exception):
    pass


def _bounded_loader() -> Any:
    """PyYAML's safe loader with libyaml's event parser where PyYAML has it (the pure-Python
    scanner takes 9 s to pass over an 8 MiB comment, libyaml 0.06 s) and the pure-Python
    composer either way: libyaml's composes in C, recursing with no limit (yaml/_yaml.pyx
    CParser._compose_node). Composer.compose_node (yaml/composer.py) recurses once a level, so
    counting there bounds the depth and the nodes before Python's own limit or the memory."""
    from yaml.composer import Composer
    from yaml.constructor import SafeConstructor
    from yaml.resolver import Resolver

    events = _event_parser()

    class BoundedLoader(Composer, events, SafeConstructor, Resolver):  # type: ignore[misc, valid-type]
        def __init__(self, stream: str) -> None:
            events.__init__(self, stream)  # type: ignore[misc]
            Composer.__init__(self)
            SafeConstructor.__init__(self)
            Resolver.__init__(self)
            self.depth = self.nodes = 0

        def compose_node(self, parent: Any, index: Any) -> Any:
            self.depth += 1
            self.nodes += 1
            if self.depth > MAX_DEPTH:
                raise _TooDeep
            if self.nodes > MAX_YAML_NODES:
                raise _TooMany
            try:
                return super().compose_node(parent, index)
            finally:
                self.depth -= 1

    return BoundedLoader


def _event_parser() -> type:
    """What turns the text into YAML events: libyaml's CParser, else PyYAML's own three stages."""
    try:
        from yaml.cyaml import CParser
    except ImportError:  # PyYAML built without libyaml
        from yaml.parser import Parser
        from yaml.reader import Reader
        from yaml.scanner import Scanner

        class PythonEvents(Reader, Scanner, Parser):
            def __init__(self, stream: str) -> None:
                Reader.__init__(self, stream)
                Scanner.__init__(self)
                Parser.__init__(self)

        return PythonEvents
    return CParser


def _measure(root: Any, what: str) -> None:
    """Refuse a node graph whose expansion (every alias a copy of its node) is over the bounds,
    or that refers to itself (`&a [*a]`, which PyYAML composes as a cycle). Each node is
    measured once, so the work is the graph's, not the expansion's."""
    import yaml

    size: dict[int, int] = {}
    depth: dict[int, int] = {}
    stack: list[tuple[Any, bool]] = [(root, False)]
    open_: set[int] = set()
    while stack:
        node, done = stack.pop()
        key = id(node)
        if done:
            children = _children(node, yaml)
            size[key] = 1 + sum(size[id(c)] for c in children)
            depth[key] = 1 + max((depth[id(c)] for c in children), default=0)
            open_.discard(key)
            if size[key] > MAX_YAML_NODES:
                raise _TooMany
            if depth[key] > MAX_DEPTH:
                raise _TooDeep
            continue
        if key in size:
            continue
        if key in open_:
            raise Refused(f"{what}: a YAML alias refers to the node that holds it (a cycle); not read")
        open_.add(key)
        stack.append((node, True))
        stack.extend((c, False) for c in _children(node, yaml) if id(c) not in size)


def _children(node: Any, yaml: Any) -> list[Any]:
    if isinstance(node, yaml.MappingNode):
        return [part for pair in node.value for part in pair]
    if isinstance(node, yaml.SequenceNode):
        return list(node.value)
    return []

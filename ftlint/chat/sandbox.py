"""The sandbox chat templates render in: Jinja2's ImmutableSandboxedEnvironment, kept whole (it
is what transformers renders with, and it holds against escapes), with a meter (meter.py) at
every place a template can spend time or memory:
- the sandbox's own hooks (jinja2/sandbox.py): `call`, for every call (macros, methods, `loop()`,
  `caller()`), and `call_binop` for `*`, `**` and `%` (intercepted_binops);
- every filter, wrapped (filters compile to direct calls: a wrapper costs less than a call hook);
- the parsed template, changed before it is compiled (_Metering): a loop's iterable counts a
  step per item, an output's expressions, `~` and a chain of `+` the characters they make, a
  slice its result, and each scope (the template, a loop's body, a macro, a block) its literal
  text in advance.
The wrappers take the context (jinja2 `pass_context`), so Jinja does not fold them into
constants while compiling (jinja2/nodes.py `_FilterTestCommon.as_const`), nor intercepted
operators: compiling `{{ 'x' * 1500000000 }}` no longer computes it. Measured on the shipped
templates over the fixtures' conversations (benchmarks/templates.py cost), a rendering costs
about a quarter more; a whole `ftlint estimate`, about 5% more instructions per record.
"""
from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Sized
from typing import Any

import jinja2
import jinja2.nodes as nodes
from jinja2.runtime import Context, LoopContext, Macro
from jinja2.sandbox import ImmutableSandboxedEnvironment
from jinja2.utils import _PassArg, pass_context
from jinja2.visitor import NodeTransformer

from ..options import TemplateBudget
from . import bounds
from .meter import Meter, TemplateFailure

MAX_TEMPLATE_CHARS = 1 << 20  # chat templates are a few KB (gpt-oss's, among the longest, 17 KB)
# ... and a few thousand tokens (gpt-oss's 2,688). Compiling costs up to 50 us and 4 KB a token
# (16,384: at most 0.7 s and 60 MiB, measured); literal text is one token however long.
MAX_TEMPLATE_TOKENS = 16_384
# the filters the transformed template calls: names no template can write
LOOP, WRITE, TEXT, PLUS, MADE, CHARGE = "ftlint:loop", "ftlint:write", "ftlint:text", "ftlint:plus", "ftlint:made", "ftlint:charge"
SHORT_LOOP = 32  # a loop over a list this short counts its steps at once
# A call (a macro, caller(), a method) costs the sandbox 7-10 us, a loop iteration or a filter
# 0.3-4 (measured): a call counts 4 steps, so that a budget of steps is about as long whatever
# a template spends it on (200,000: at most about half a second).
CALL_STEPS = 4


class Metered:
    """A loop's iterable: each item it yields is a step (and `static` characters: the literal
    text of the loop's body). Its length is the iterable's (loop.length)."""

    __slots__ = ("items", "meter", "static")

    def __init__(self, items: Any, meter: Meter, static: int = 0) -> None:
        self.items, self.meter, self.static = items, meter, static

    def __len__(self) -> int:
        return len(self.items)  # a TypeError without one: LoopContext then counts the items itself

    def __iter__(self) -> Iterator[Any]:
        meter, static = self.meter, self.static
        for item in self.items:
            meter.steps += 1
            if meter.steps >= meter.check_at:
                meter.check()
            if static:
                meter.add(static)
            yield item


class MeteredEnvironment(ImmutableSandboxedEnvironment):
    """The sandbox with its meter; `meter` is the current rendering's (one rendering at a time)."""

    intercepted_binops = frozenset({"*", "**", "%"})  # `+` is counted as a whole chain (_Metering.visit_Add)

    def __init__(self, budget: TemplateBudget, filters: dict[str, Callable[..., Any]], **options: Any) -> None:
        super().__init__(**options)
        self.meter = Meter(budget, math.inf)
        self.filters.update(filters)
        for name, func in list(self.filters.items()):
            self.filters[name] = _guarded(self, name, func)
        self.filters[LOOP] = _loop(self)
        self.filters[WRITE] = _write(self)
        self.filters[TEXT] = _text(self)
        self.filters[PLUS] = _plus(self)
        self.filters[CHARGE] = _charge(self)
        self.filters[MADE] = pass_context(lambda context, value: self.meter.made(value))
        lipsum: Callable[..., Any] = self.globals["lipsum"]  # type: ignore[assignment]

        def bounded_lipsum(*args: Any, **kwargs: Any) -> Any:
            bounds.lipsum(self.meter, *args, **kwargs)
            return lipsum(*args, **kwargs)

        self.globals["lipsum"] = bounded_lipsum

    def call_binop(self, context: Context, operator: str, left: Any, right: Any) -> Any:
        meter = self.meter
        bounds.binop(meter, operator, left, right)
        return meter.made(self.binop_table[operator](left, right))

    def call(self, context: Context, obj: Any, /, *args: Any, **kwargs: Any) -> Any:
        meter = self.meter
        meter.steps += CALL_STEPS
        if meter.steps >= meter.check_at:
            meter.check()
        kind = type(obj)
        if kind is Macro:  # its output is counted as it is written
            return super().call(context, obj, *args, **kwargs)
        # a recursive loop's next level: its items are steps too
        args = (Metered(args[0], meter), *args[1:]) if kind is LoopContext and args else bounds.method(meter, obj, args, kwargs)
        return meter.made(super().call(context, obj, *args, **kwargs))


def _write(env: MeteredEnvironment) -> Callable[..., str]:
    """The operands of `~`, written as one string, counted."""

    def write(context: Context, parts: list[Any]) -> str:
        meter = env.meter
        try:  # before it is made (`ns.s ~ ns.s` doubles): strings are as long as they write, containers longer
            size = sum(map(len, parts))
        except TypeError:  # a number, None
            size = 0
        if size > meter.max_chars - meter.chars:
            meter.need(size, "writing out")
        try:
            text = "".join(parts)
        except TypeError:  # not all strings: each as str() writes it, a container bounded first
            text = "".join([part if isinstance(part, str) else _written(meter, part) for part in parts])
        meter.chars += len(text)
        if meter.chars > meter.max_chars:
            meter.add(0)
        return text

    return pass_context(write)


def _text(env: MeteredEnvironment) -> Callable[..., str]:
    """An expression an output writes, as the string it is written as, counted."""

    def text(context: Context, value: Any) -> str:
        meter = env.meter
        if type(value) is not str and not isinstance(value, str):
            value = _written(meter, value)
        meter.chars += len(value)
        if meter.chars > meter.max_chars:
            meter.add(0)
        return value

    return pass_context(text)


def _charge(env: MeteredEnvironment) -> Callable[..., str]:
    """A scope's literal text, counted as it starts (`value` is the empty output it writes)."""

    def charge(context: Context, value: str, n: int) -> str:
        env.meter.add(n)
        return value

    return pass_context(charge)


def _plus(env: MeteredEnvironment) -> Callable[..., Any]:
    """`a + b + c ...`, left to right: strings joined at once, anything else added one by one."""

    def plus(context: Context, operands: list[Any]) -> Any:
        meter = env.meter
        if set(map(type, operands)) == _STRINGS:
            size = sum(map(len, operands))
            if size > meter.max_chars - meter.chars:
                meter.need(size, "'+'")
            meter.chars += size
            return "".join(operands)
        result = operands[0]
        for operand in operands[1:]:
            bounds.binop(meter, "+", result, operand)
            result = meter.made(result + operand)
        return result

    return pass_context(plus)


_STRINGS = {str}


def _written(meter: Meter, value: Any) -> str:
    if type(value) is not int:  # an integer is under MAX_INT_BITS (Meter.made), or the data's
        meter.need(meter.weight(value), "writing out a value")
    return str(value)


def _loop(env: MeteredEnvironment) -> Callable[..., Any]:
    """A loop's iterable, its items counted: a short list at once, anything else item by item,
    so that a long loop also reads the clock as it goes."""

    def loop(context: Context, items: Any, static: int = 0) -> Any:
        meter = env.meter
        if static and isinstance(items, Sized):  # the body's literal text, for every item: refused before it is written
            meter.need(len(items) * static, "the loop's text")
            meter.chars += len(items) * static
            static = 0
        if type(items) is list and len(items) <= SHORT_LOOP:
            meter.step(len(items))
            return items
        return Metered(items, meter, static)

    return pass_context(loop)


def _guarded(env: MeteredEnvironment, name: str, func: Callable[..., Any]) -> Callable[..., Any]:
    """A filter that counts a step, bounds what it would make, then counts what it made."""
    pre = bounds.precheck(name)
    passed = _PassArg.from_obj(func)

    def guarded(context: Context, value: Any, *args: Any, **kwargs: Any) -> Any:
        meter = env.meter
        meter.steps += 1
        if meter.steps >= meter.check_at:
            meter.check()
        if pre is not None:
            value = pre(meter, value, args, kwargs)
        if passed is None:
            result = func(value, *args, **kwargs)
        else:
            first = context if passed is _PassArg.context else context.eval_ctx if passed is _PassArg.eval_context else env
            result = func(first, value, *args, **kwargs)
        if type(result) is str:
            meter.chars += len(result)
            if meter.chars > meter.max_chars:
                meter.add(0)
            return result
        return meter.made(result)

    return pass_context(guarded)


def _filter(node: nodes.Node, name: str, *args: nodes.Expr) -> nodes.Filter:
    return nodes.Filter(node, name, list(args), [], None, None, lineno=node.lineno)


class _Metering(NodeTransformer):
    """The template's nodes, with the meter's filters around loops, output, `~`, `+` and slices.

    Literal text is counted by scope, not where it is written (which would cost a call per piece):
    a loop's iterable counts its body's text once per item; a macro's, a call block's or a
    block's body, and the template's own, count theirs each time they run (an output at their
    start). A scope's text is that of every output in it, whichever branch runs: at most what it
    writes."""

    def visit_Template(self, node: nodes.Template) -> nodes.Node:
        self.generic_visit(node)
        node.body = _charged(node.body)
        return node

    def visit_For(self, node: nodes.For) -> nodes.Node:
        self.generic_visit(node)
        if node.recursive:  # `loop(...)` runs the body again: it counts itself
            node.body = _charged(node.body)
            node.iter = _filter(node.iter, LOOP)
        else:
            node.iter = _filter(node.iter, LOOP, nodes.Const(_static(node.body)))
        return node

    def _own_scope(self, node: nodes.Macro | nodes.CallBlock | nodes.Block) -> nodes.Node:
        self.generic_visit(node)
        node.body = _charged(node.body)
        return node

    visit_Macro = visit_CallBlock = visit_Block = _own_scope

    def visit_Output(self, node: nodes.Output) -> nodes.Node:
        self.generic_visit(node)
        node.nodes = [child if isinstance(child, (nodes.TemplateData, nodes.Const)) else _filter(child, TEXT)
                      for child in node.nodes]
        return node

    def visit_Concat(self, node: nodes.Concat) -> nodes.Node:
        self.generic_visit(node)
        return _filter(nodes.List(node.nodes, lineno=node.lineno), WRITE)

    def visit_Add(self, node: nodes.Add) -> nodes.Node:
        """A chain `a + b + c` (left-nested: ((a + b) + c)) as one call, its operands in order."""
        operands = [node.right]
        while isinstance(node.left, nodes.Add):
            node = node.left
            operands.append(node.right)
        operands.append(node.left)
        operands = [self.visit(operand) for operand in reversed(operands)]
        return _filter(nodes.List(operands, lineno=node.lineno), PLUS)

    def visit_Getitem(self, node: nodes.Getitem) -> nodes.Node:
        self.generic_visit(node)
        return _filter(node, MADE) if isinstance(node.arg, nodes.Slice) else node


def _static(body: list[nodes.Node]) -> int:
    """The literal text of the outputs of a scope: not of the loops, macros, call blocks and
    blocks in it (they count their own), but of a loop's else branch (it runs in this scope)."""
    total, todo = 0, list(body)
    while todo:
        node = todo.pop()
        if isinstance(node, nodes.Output):
            total += sum(len(child.data) if isinstance(child, nodes.TemplateData) else len(str(child.value))
                         for child in node.nodes if isinstance(child, (nodes.TemplateData, nodes.Const)))
        elif isinstance(node, nodes.For):
            todo.extend(node.else_)
        elif not isinstance(node, (nodes.Macro, nodes.CallBlock, nodes.Block, nodes.Expr)):
            todo.extend(node.iter_child_nodes())
    return total


def _charged(body: list[nodes.Node]) -> list[nodes.Node]:
    static = _static(body)
    return [nodes.Output([_filter(nodes.Const(""), CHARGE, nodes.Const(static))]), *body] if static else body


def compile_template(env: MeteredEnvironment, source: str) -> jinja2.Template:
    """The template, metered. A template too long (in characters or in tokens), or nested
    deeper than Jinja's parser or Python's compiler go, is a TemplateFailure, like one that does
    not parse."""
    if len(source) > MAX_TEMPLATE_CHARS:
        raise TemplateFailure(f"the chat template has {len(source):,} characters, over the {MAX_TEMPLATE_CHARS:,} "
                              "a template may have (chat templates have a few thousand)")
    try:
        for count, _ in enumerate(env.lex(source), 1):  # lexing is cheap; compiling is not
            if count > MAX_TEMPLATE_TOKENS:
                raise TemplateFailure(f"the chat template has more than {MAX_TEMPLATE_TOKENS:,} tokens (tags, names, "
                                      "operators), over what a template may have (chat templates have a few thousand)")
        tree = env.parse(source)
        _Metering().visit(tree)
        tree.set_environment(env)
        return env.from_string(tree)
    except jinja2.TemplateError as exc:
        raise TemplateFailure(f"the chat template does not compile: {exc}") from None
    except (RecursionError, SyntaxError, MemoryError) as exc:  # the parser's or Python's compiler's depth
        raise TemplateFailure(f"the chat template does not compile: it nests too deeply ({type(exc).__name__}: {exc})") from None

"""Rendering a conversation through a chat template, as transformers' apply_chat_template does
(5.x: null-valued keys dropped and reasoning fields aliased first, see `normalised`):
Jinja2 in an immutable sandbox, with trim_blocks and lstrip_blocks, the loopcontrols extension,
a `tojson` filter that keeps non-ASCII text (ensure_ascii off), the `raise_exception` and
`strftime_now` globals, and the `{% generation %}` tag whose spans mark what TRL's
assistant_only_loss trains on. `strftime_now` reads --today (so dated templates are
reproducible), at midnight.

Every rendering runs under a budget (ftlint/options.py TemplateBudget; sandbox.py, meter.py): over
it, the record's rendering fails with OverBudget (FT238), and the next record is rendered afresh.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

import jinja2
import jinja2.ext
import jinja2.nodes

from ..options import TemplateBudget
from .meter import Meter, OverBudget, TemplateFailure
from .sandbox import MeteredEnvironment, compile_template

__all__ = ["END", "START", "JinjaTemplate", "OverBudget", "Rendered", "TemplateFailure", "normalised"]

START, END = "\ue000", "\ue001"  # private-use characters around a {% generation %} block while rendering


REASONING_FIELDS = ("reasoning_content", "thinking", "reasoning")


def normalised(messages: Sequence[dict]) -> list[dict]:
    """The messages as transformers 5 hands them to a template (utils/chat_template_utils.py):
    keys whose value is null dropped (`content: null` beside tool calls renders as nothing, not
    "None"), and a message's reasoning, under any of its names, given as both reasoning_content
    (what Qwen's and most templates read) and thinking (what gpt-oss's reads)."""
    out = []
    for message in messages:
        if isinstance(message, dict):
            message = {key: value for key, value in message.items() if value is not None}
            reasoning = next((message[key] for key in REASONING_FIELDS if message.get(key) is not None), None)
            if reasoning is not None:
                message = {"thinking": reasoning, **message, "reasoning_content": reasoning}
        out.append(message)
    return out


class _Generation(jinja2.ext.Extension):
    tags = {"generation"}  # noqa: RUF012  (jinja2's own attribute)

    def parse(self, parser: jinja2.parser.Parser) -> jinja2.nodes.Node:
        lineno = next(parser.stream).lineno
        body = parser.parse_statements(("name:endgeneration",), drop_needle=True)
        return jinja2.nodes.CallBlock(self.call_method("_mark"), [], [], body).set_lineno(lineno)

    def _mark(self, caller: Any) -> str:
        return START + str(caller()) + END


def _raise(message: str) -> None:
    raise TemplateFailure(message)


def _tojson(value: object, ensure_ascii: bool = False, indent: int | None = None, separators: Any = None,
            sort_keys: bool = False) -> str:
    return json.dumps(value, ensure_ascii=ensure_ascii, indent=indent, separators=separators, sort_keys=sort_keys)


@dataclass
class Rendered:
    text: str
    spans: list[tuple[int, int]] = field(default_factory=list)  # character ranges of {% generation %} blocks


class JinjaTemplate:
    """A compiled chat template."""

    def __init__(self, source: str, today: dt.date | None = None, budget: TemplateBudget | None = None) -> None:
        self.budget = budget or TemplateBudget()
        self.env = env = MeteredEnvironment(self.budget, {"tojson": _tojson}, trim_blocks=True, lstrip_blocks=True,
                                            extensions=[_Generation, jinja2.ext.loopcontrols])
        day = dt.datetime.combine(today or dt.date.today(), dt.time())

        def strftime_now(fmt: str) -> str:
            if isinstance(fmt, str):  # a directive writes at most a few dozen characters
                env.meter.need(len(fmt) * 16, "strftime_now")
            return day.strftime(fmt)

        env.globals["raise_exception"] = _raise
        env.globals["strftime_now"] = strftime_now
        self.template = compile_template(env, source)
        self.has_generation = "{% generation" in source or "{%- generation" in source

    def render(self, messages: Sequence[dict], tools: object = None, bos: str = "", eos: str = "",
               add_generation_prompt: bool = False, deadline: float | None = None, **extra: object) -> Rendered:
        """The conversation rendered, under the budget (its seconds until `deadline`, a
        time.monotonic() value shared by a record's renderings; None: from now)."""
        given, swapped = normalised(messages), None
        if _holds((given, tools), START, END):
            # the data holds our markers: they stand in for two characters it does not hold while
            # rendering (one for one, so the spans keep their places), and come back after
            swapped = _stand_ins(given, tools)
            there = str.maketrans({START: swapped[0], END: swapped[1]})
            given, tools = _translated(given, there), _translated(tools, there)
        self.env.meter = Meter(self.budget, deadline, (given, tools))
        try:
            text = self.template.render(messages=given, tools=tools or None, bos_token=bos, eos_token=eos,
                                        add_generation_prompt=add_generation_prompt, **extra)
        except TemplateFailure:
            raise
        except Exception as exc:  # a template's error on a record's data (a KeyError, a TypeError, ...)
            raise TemplateFailure(f"{type(exc).__name__}: {exc}") from None
        back = str.maketrans({swapped[0]: START, swapped[1]: END}) if swapped else None
        if START not in text:
            return Rendered(text.translate(back) if back else text.replace(END, ""))
        spans, out, position = [], [], 0
        start = 0
        for piece in _split_marks(text):
            if piece == START:
                start = position
            elif piece == END:
                spans.append((start, position))
            else:
                out.append(piece.translate(back) if back else piece)
                position += len(piece)
        return Rendered("".join(out), spans)


_MARKS = re.compile(f"([{START}{END}])")


def _holds(value: object, char: str, other: str = "") -> bool:
    """Whether a string inside `value` holds `char` (or `other`). One walk of the record's data
    a rendering: str() of it would not say, as it writes a private-use character as an escape."""
    todo = [value]
    while todo:
        item = todo.pop()
        if isinstance(item, str):
            if char in item or (other and other in item):
                return True
        elif isinstance(item, dict):
            todo += item.keys()
            todo += item.values()
        elif isinstance(item, (list, tuple)):
            todo += item
    return False


def _stand_ins(*values: object) -> tuple[str, str]:
    """Two characters of the supplementary private-use plane no string of `values` holds."""
    free = (chr(c) for c in range(0xF0000, 0xFFFFE) if not _holds(values, chr(c)))
    return next(free), next(free)


def _translated(value: Any, table: dict[int, str]) -> Any:
    if isinstance(value, str):
        return value.translate(table)
    if isinstance(value, dict):
        return {_translated(k, table): _translated(v, table) for k, v in value.items()}
    if isinstance(value, list):
        return [_translated(v, table) for v in value]
    return value


def _split_marks(text: str) -> list[str]:
    return [piece for piece in _MARKS.split(text) if piece]

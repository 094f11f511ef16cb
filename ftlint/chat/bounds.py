"""The size of a result a template operation can make far larger than its operands, known before
it is made: repetition, widths, indents, replacements, joins, paddings, big integers. Each check
asks the meter for room (Meter.need) and raises OverBudget when there is none; the others'
results are counted after they are made (Meter.made), at most a few times their operands.

Each follows the Python or Jinja function it guards (CPython's str methods and printf-style
formatting; jinja2/filters.py do_center, do_indent, do_join, do_replace, do_wordwrap, do_batch,
do_slice, sync_do_sum, do_round; jinja2/utils.py generate_lorem_ipsum).
"""

from __future__ import annotations

import re
import string
from collections.abc import Callable, Iterable, Mapping, Sized
from typing import Any

from .meter import ITEM, MAX_INT_BITS, Meter, int_over

Args = tuple[Any, ...]
Kwargs = dict[str, Any]
# printf-style conversions: %[(key)][flags][width][.precision][length]type
_PRINTF = re.compile(r"%(?:\([^)]*\))?[-#0 +]*(\*|\d+)?(?:\.(\*|\d+))?[hlL]?(.)", re.S)
_DIGITS = re.compile(r"\d+")
_LINE_BREAKS = "\n\r\v\f\x1c\x1d\x1e\x85\u2028\u2029"  # what str.splitlines splits at


def arg(args: Args, kwargs: Kwargs, index: int, name: str, default: Any = None) -> Any:
    """A call's argument, given by position or by name."""
    return args[index] if len(args) > index else kwargs.get(name, default)


def _number(digits: str, star: int) -> int:
    if digits == "*":
        return star
    return int(digits) if len(digits) < 19 else 1 << 64  # int() of a huge digit string would itself refuse it


def _fields(values: Iterable[Any], meter: Meter) -> tuple[int, int]:
    """The longest of the values a format string may write, and the largest integer among them (a `*` width)."""
    biggest = star = 0
    for value in values:
        biggest = max(biggest, meter.weight(value))
        if isinstance(value, int):
            star = max(star, abs(value))
    return biggest, star


def printf(meter: Meter, fmt: str | bytes, values: Any, what: str) -> None:
    """`fmt % values`: each conversion writes at most the longest value, padded to its width and precision."""
    text = fmt.decode("latin-1") if isinstance(fmt, bytes) else fmt
    args = values if isinstance(values, tuple) else values.values() if isinstance(values, Mapping) else (values,)
    biggest, star = _fields(args, meter)
    total = len(text)
    for width, precision, _ in _PRINTF.findall(text):
        total += biggest + _number(width or "0", star) + _number(precision or "0", star)
        if total > meter.room:
            break
    meter.need(total, what)


def str_format(meter: Meter, fmt: str, args: Args, kwargs: Kwargs) -> None:
    """`fmt.format(...)`: each field writes at most the longest argument, padded to the widths in its spec."""
    biggest, star = _fields([*args, *kwargs.values(), *(v for a in args if isinstance(a, Mapping) for v in a.values())],
                            meter)
    total = 0
    for literal, field, spec, _ in string.Formatter().parse(fmt):
        total += len(literal)
        if field is not None:
            total += biggest + sum(_number(d, star) for d in _DIGITS.findall(spec or "")) + (star if "{" in (spec or "") else 0)
        if total > meter.room:
            break
    meter.need(total, "str.format")


def binop(meter: Meter, op: str, left: Any, right: Any) -> None:
    """The operators that can multiply their operands' size: `*`, `**`, `+` and `%`."""
    if op == "*":
        seq, n = (left, right) if isinstance(right, int) else (right, left) if isinstance(left, int) else (None, 0)
        if isinstance(seq, (str, bytes)):
            meter.need(len(seq) * n, "'*'")
        elif isinstance(seq, (list, tuple)):
            meter.need(len(seq) * n * ITEM, "'*'")
        elif isinstance(seq, int) and seq.bit_length() + n.bit_length() > MAX_INT_BITS:
            raise int_over(seq.bit_length() + n.bit_length(), "'*'")
    elif op == "**":
        if isinstance(left, int) and isinstance(right, int) and right > 0 and abs(left) > 1:
            bits = (abs(left).bit_length() - 1) * right + 1  # at least
            if bits > MAX_INT_BITS:
                raise int_over(bits, "'**'")
    elif op == "+":
        if isinstance(left, (str, bytes)) and isinstance(right, (str, bytes)):
            meter.need(len(left) + len(right), "'+'")
        elif isinstance(left, (list, tuple)) and isinstance(right, (list, tuple)):
            meter.need((len(left) + len(right)) * ITEM, "'+'")
    elif op == "%" and isinstance(left, (str, bytes)):
        printf(meter, left, right, "'%'")


def _width(meter: Meter, s: Any, width: Any, what: str) -> None:
    if isinstance(width, int):
        meter.need(max(meter.weight(s), width), what)


def _text_method(name: str, meter: Meter, s: Any, args: Args, kwargs: Kwargs) -> Args:
    """String and bytes methods that can make more than their string: padding, tabs, replacing,
    joining, translating, formatting; and splitting, whose pieces are new strings and a list."""
    if name in ("center", "ljust", "rjust", "zfill"):
        _width(meter, s, arg(args, kwargs, 0, "width"), f"str.{name}")
    elif name == "expandtabs":
        size = arg(args, kwargs, 0, "tabsize", 8)
        if isinstance(size, int):
            meter.need(len(s) + s.count("\t" if isinstance(s, str) else b"\t") * max(size, 0), "str.expandtabs")
    elif name == "replace":
        old, new, count = arg(args, kwargs, 0, "old"), arg(args, kwargs, 1, "new"), arg(args, kwargs, 2, "count", -1)
        _replace(meter, s, old, new, count, "str.replace")
    elif name == "join" and args:
        items = args[0] if isinstance(args[0], (str, bytes, list, tuple)) else list(args[0])
        pieces = sum(len(i) for i in items if isinstance(i, (str, bytes)))
        meter.need(pieces + len(s) * max(len(items) - 1, 0), "str.join")
        return (items, *args[1:])
    elif name == "translate" and isinstance(s, str):
        table = arg(args, kwargs, 0, "table")
        values = table.values() if isinstance(table, Mapping) else table if isinstance(table, (list, tuple)) else ()
        longest = max((len(v) for v in values if isinstance(v, str)), default=1)
        meter.need(len(s) * max(longest, 1), "str.translate")
    elif name in ("format", "format_map") and isinstance(s, str):
        str_format(meter, s, args, kwargs)
    elif name in ("split", "rsplit", "splitlines"):
        meter.need(len(s) + _pieces(name, s, args, kwargs) * ITEM, f"str.{name}")
        meter.add(len(s))  # the pieces' characters; the list's entries are counted when it is made
    elif name in ("upper", "lower", "title", "capitalize", "swapcase", "casefold", "encode", "hex"):
        meter.need(len(s) * 4, f"str.{name}")  # a character's case, its UTF-8 bytes or hex: at most 4 (3 for case)
    return args


def _pieces(name: str, s: Any, args: Args, kwargs: Kwargs) -> int:
    if name == "splitlines":
        breaks = _LINE_BREAKS if isinstance(s, str) else "\n\r"
        return 1 + sum(s.count(c if isinstance(s, str) else c.encode()) for c in breaks)
    sep = arg(args, kwargs, 0, "sep")
    if isinstance(sep, type(s)) and sep:
        return 1 + int(s.count(sep))
    return len(s) // 2 + 1


def _replace(meter: Meter, s: Any, old: Any, new: Any, count: Any, what: str) -> None:
    kind = type(s)
    if not (issubclass(kind, (str, bytes)) and isinstance(old, kind) and isinstance(new, kind)):
        return
    found = len(s) + 1 if not old else s.count(old)
    if isinstance(count, int) and count >= 0:
        found = min(found, count)
    meter.need(len(s) + found * max(len(new) - len(old), 0), what)


def method(meter: Meter, func: Any, args: Args, kwargs: Kwargs) -> Args:
    """A method call's bound; returns its arguments (a generator to join is made a list first)."""
    target = getattr(func, "__wrapped__", func)  # the sandbox wraps str.format (jinja2/sandbox.py wrap_str_format)
    owner, name = getattr(target, "__self__", None), getattr(target, "__name__", "")
    if isinstance(owner, (str, bytes)):
        return _text_method(name, meter, owner, args, kwargs)
    if isinstance(owner, int) and name == "to_bytes":
        length = arg(args, kwargs, 0, "length", 1)
        if isinstance(length, int):
            meter.need(length, "int.to_bytes")
    return args


def lipsum(meter: Meter, n: Any = 5, html: Any = True, min: Any = 20, max: Any = 100) -> None:
    if isinstance(n, int) and isinstance(max, int):
        meter.need(n * max * 12 + n * 10, "lipsum")  # words of at most 11 letters and a space; a paragraph's markup


FilterCheck = Callable[[Meter, Any, Args, Kwargs], Any]


def _center(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    _width(meter, value, arg(args, kwargs, 0, "width", 80), "center")
    return value


def _indent(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    width = arg(args, kwargs, 0, "width", 4)
    size = len(width) if isinstance(width, str) else width if isinstance(width, int) else 0
    text = value if isinstance(value, str) else ""
    meter.need(meter.weight(value) + (text.count("\n") + 1) * size, "indent")
    return value


def _format(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    if isinstance(value, str):
        printf(meter, value, kwargs or args, "format")
    return value


def _join(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    items = value if isinstance(value, (list, tuple, str)) else list(value)
    glue = arg(args, kwargs, 0, "d", "")
    total = sum(meter.weight(item) for item in items)
    meter.need(total + (len(glue) if isinstance(glue, str) else 0) * max(len(items) - 1, 0), "join")
    return items


def _replace_filter(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    count = arg(args, kwargs, 2, "count")
    _replace(meter, value, arg(args, kwargs, 0, "old"), arg(args, kwargs, 1, "new"), -1 if count is None else count, "replace")
    return value


def _wordwrap(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    glue = arg(args, kwargs, 2, "wrapstring")
    if isinstance(value, str):  # at most a line break after every character
        meter.need(len(value) * (1 + (len(glue) if isinstance(glue, str) else 1)), "wordwrap")
    return value


def _batch(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    size, fill = arg(args, kwargs, 0, "linecount"), arg(args, kwargs, 1, "fill_with")
    if fill is not None and isinstance(size, int):
        meter.need(size * ITEM, "batch")  # the last batch is filled up to its size
    return value


def _slice(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    slices = arg(args, kwargs, 0, "slices")
    if isinstance(slices, int):
        meter.need(slices * ITEM, "slice")  # as many lists, empty or not
    return value


def _reduce(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    if isinstance(value, Sized):
        meter.step(len(value))
    return value


def _sum(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    start = arg(args, kwargs, 1, "start", 0)
    if isinstance(start, (int, float)):
        return _reduce(meter, value, args, kwargs)
    items = list(value)  # lists or strings added one by one: each sum copies all before it
    meter.step(len(items))
    total = sum(len(i) for i in items if isinstance(i, Sized)) + (len(start) if isinstance(start, Sized) else 0)
    meter.need(total * len(items) * ITEM, "sum")
    return items


def _round(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    precision = arg(args, kwargs, 0, "precision", 0)
    if isinstance(precision, int) and abs(precision) * 10 // 3 > MAX_INT_BITS:  # 10 ** precision is computed
        raise int_over(abs(precision) * 10 // 3, "round")
    return value


def _tojson(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    if not args and not kwargs:  # the common case: the record's tools, a tool call's arguments
        meter.need(meter.weight(value) * 6, "tojson")
        return value
    indent, separators = arg(args, kwargs, 1, "indent"), arg(args, kwargs, 2, "separators")
    size = len(indent) if isinstance(indent, str) else indent if isinstance(indent, int) and indent > 0 else 0
    glue = sum(len(s) for s in separators if isinstance(s, str)) if isinstance(separators, (list, tuple)) else 0
    escapes = 12 if arg(args, kwargs, 0, "ensure_ascii", False) else 6  # \uXXXX, twice for a surrogate pair
    body = meter.weight(value) * escapes
    if size or glue:  # written once per entry (a separator), once per entry and level (an indent)
        entries, indents = _layout(value, meter.room // max(size, glue, 1))
        body += indents * size + entries * (glue + 1)
    meter.need(body, "tojson")
    return value


def _layout(value: Any, cap: int) -> tuple[int, int]:
    """How many entries json.dumps(value) writes, and how many indents with indent=...: one per
    level for each entry's line and each closing bracket's (counted no further than past `cap`)."""
    entries = indents = 0
    todo = [(value, 1)]
    while todo:
        item, depth = todo.pop()
        children = item.values() if isinstance(item, dict) else item if isinstance(item, (list, tuple)) else None
        if children is None:
            continue
        entries += len(item)
        indents += len(item) * depth + depth - 1
        if indents > cap:
            break
        todo.extend((child, depth + 1) for child in children)
    return entries, indents


def _urlize(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
    """Each link (at most one per 4 characters: "a.co") is written twice, with its target and rel."""
    if isinstance(value, str):
        extra = sum(len(a) for a in (arg(args, kwargs, 2, "target"), arg(args, kwargs, 3, "rel")) if isinstance(a, str))
        meter.need(len(value) * 4 + (len(value) // 4 + 1) * (extra + 48), "urlize")
    return value


def precheck(name: str) -> FilterCheck | None:
    """What the filter `name` checks before it runs: the entries it may make (ITEMIZING), the
    size of a value it writes out (the others, unless NOT_WRITING), and its own check."""
    check, factor = FILTER_CHECKS.get(name), EXPANDING.get(name, 0)
    if name in ITEMIZING:
        def items(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
            if isinstance(value, Sized):
                meter.add(len(value) * ITEM)
            return check(meter, value, args, kwargs) if check is not None else value

        return items
    if name in NOT_WRITING:
        return check

    def writes(meter: Meter, value: Any, args: Args, kwargs: Kwargs) -> Any:
        if not isinstance(value, str):
            meter.need(meter.weight(value), f"the {name} filter")
        elif factor:
            meter.need(len(value) * factor, f"the {name} filter")
        return check(meter, value, args, kwargs) if check is not None else value

    return writes


FILTER_CHECKS: dict[str, FilterCheck] = {
    "center": _center, "indent": _indent, "format": _format, "join": _join, "replace": _replace_filter,
    "wordwrap": _wordwrap, "batch": _batch, "slice": _slice, "sum": _sum, "min": _reduce, "max": _reduce,
    "round": _round, "tojson": _tojson, "urlize": _urlize,
}
# filters that make a list, or yield an entry per item of what they are given: its items are counted first
ITEMIZING = frozenset({"list", "sort", "unique", "batch", "slice", "groupby", "dictsort", "items", "map", "select", "reject",
                       "selectattr", "rejectattr"})
# filters that never write their value out as a string (the others are bounded by its weight first)
NOT_WRITING = frozenset({*ITEMIZING, "length", "count", "first", "last", "random", "reverse", "default", "d", "attr", "sum",
                         "min", "max", "abs", "int", "float", "round", "tojson", "join", "wordcount"})
# filters whose result can be several times their string: escapes, case, URL quoting, a repr
EXPANDING = {"escape": 6, "e": 6, "forceescape": 6, "urlencode": 12, "pprint": 10, "upper": 3, "lower": 3, "title": 3,
             "capitalize": 3}

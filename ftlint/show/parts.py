"""A record under ftlint's token convention (a hosted job's, or any run without a chat template),
shown as the parts the convention counts (formats/counting.py): the record's own tokens (the
reply's priming, tool definitions, a top-level system field), then each turn's overhead (3, its
role, a name, a tool call id) and what it says (content, tool calls, reasoning), which trains
when the turn is a target. The parts are counted with the convention's own Counting, and must
make the format's layout exactly (the runs the estimate cuts and counts); otherwise none is shown."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..formats.counting import TOKENS_PER_RECORD, Counting
from ..parse import compact_json
from .view import Segment, runs

if TYPE_CHECKING:
    from ..formats import Format
    from ..formats.chat import ChatFormat
    from ..tokens import TokenCounter


def convention_segments(fmt: Format, value: dict, counter: TokenCounter, index: int,
                        pairs: list[tuple[int, int]]) -> list[Segment] | None:
    """Record `index`'s parts, if the format is one of turns and its parts make `pairs`."""
    from ..formats.chat import ChatFormat

    if not isinstance(fmt, ChatFormat):
        return None
    c = Counting(counter)
    head = [Segment("", TOKENS_PER_RECORD, False, 0, "the reply's priming")]
    for key in fmt.extra_fields_counted:
        if given := value.get(key):
            head.append(Segment(_json(given), c.json(given), False, 0, key))
    system = fmt.system(value)
    if system is not None:
        head.append(Segment(system if isinstance(system, str) else _json(system),
                            c.text(system) if isinstance(system, str) else c.json(system), False, 0, "system"))
    turns = [_turn(fmt, c, turn) for _, turn in fmt.turns(value)]
    if fmt.expands(value):
        targets = [k for k, (_, _, target) in enumerate(turns) if target]
        last = targets[index] if index < len(targets) else len(turns) - 1
        chosen = [(over, body, k == last) for k, (over, body, _) in enumerate(turns[: last + 1])]
    elif fmt.targets == "all":
        chosen = [(over, body, True) for over, body, _ in turns]
    else:
        chosen = [(over, body, target and fmt.targets == "roles") for over, body, target in turns]
    everything = fmt.targets == "all" and not fmt.expands(value)
    segments = [_as(s, everything) for s in head]
    for over, body, target in chosen:
        segments += [_as(over, everything), _as(body, target)]
    segments = [s for s in segments if s.tokens]
    return segments if _pairs_of(segments) == [p for p in pairs if p != (0, 0)] else None


def _turn(fmt: ChatFormat, c: Counting, turn: dict) -> tuple[Segment, Segment, bool]:
    """A turn's overhead and what it says, as Counting.turn counts them, and whether it is a target."""
    total, body = c.turn(turn)
    role = turn.get(getattr(fmt, "role_key", "role"), turn.get("role"))
    role_text = role if isinstance(role, str) else ""
    over = Segment(role_text, total - body, False, 0, f"{role_text or 'turn'}: the turn's own tokens (role, name, id)")
    return over, Segment(_said(turn), body, False, 0, f"{role_text or 'turn'}: what it says"), bool(fmt.is_target(turn))


def _said(turn: dict) -> str:
    """What a turn says, as text to read: its content (text parts joined, media named), tool calls
    as name(arguments), reasoning first."""
    out = [turn[k] for k in ("reasoning", "reasoning_content") if isinstance(turn.get(k), str)]
    content = turn.get("content", turn.get("parts", turn.get("text")))
    if isinstance(content, str):
        out.append(content)
    elif isinstance(content, list):
        for part in content:
            if isinstance(part, dict):
                text = part.get("text", part.get("refusal"))
                out.append(text if isinstance(text, str) else f"[{part.get('type') or next(iter(part), 'part')}]")
    if isinstance(turn.get("refusal"), str):
        out.append(turn["refusal"])
    calls = turn.get("tool_calls")
    for call in calls if isinstance(calls, list) else []:
        function = call.get("function") if isinstance(call, dict) else None
        if isinstance(function, dict):
            arguments = function.get("arguments")
            out.append(f"{function.get('name')}({arguments if isinstance(arguments, str) else _json(arguments)})")
    return "\n".join(out)


def _json(value: object) -> str:
    return compact_json(value, sort_keys=False).decode("utf-8", "surrogatepass")


def _as(segment: Segment, trained: bool) -> Segment:
    segment.trained = trained
    return segment


def _pairs_of(segments: list[Segment]) -> list[tuple[int, int]]:
    """The segments as (untrained, trained) runs, as the layout gives them."""
    return runs([(s.tokens, s.trained) for s in segments])

"""Renderers for `ftlint show`: one record as the trainer sees it, in text (colour only on a
terminal, never with NO_COLOR), Markdown and JSON.

The text is the rendering (or the convention's parts) with its tokens marked: ⟦trained⟧, and
⟪cut⟫ for what the trainer cuts off at its max length; on a terminal, trained text is green and
cut text struck through instead. Data cannot forge a mark: the mark characters in the text are
shown as escapes, as are control characters (each line of the text is one line of output, behind
a gutter); secrets are masked (ftlint.redact). A long part is shown by its start and end
(--max-chars), its tokens counted whole."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from ..redact import redact
from .escape import json_safe, md_code, md_fence, md_text, path_text, terminal_safe

if TYPE_CHECKING:
    from ..show import Shown
    from ..show.view import Record, Segment
    from ..tokenizing import Encoding, Template

MARKS = {"⟦": "\\u27e6", "⟧": "\\u27e7", "⟪": "\\u27ea", "⟫": "\\u27eb"}
TRAINED, CUT = ("⟦", "⟧"), ("⟪", "⟫")
DEFAULT_MAX_CHARS = 2000


def _plain(text: str) -> str:
    """Data as shown inside the marks: secrets masked, the marks' own characters escaped."""
    text = redact(text)
    for mark, escaped in MARKS.items():
        text = text.replace(mark, escaped)
    return text


def _elided(text: str, max_chars: int) -> str:
    if not max_chars or len(text) <= max_chars:
        return text
    half = max_chars // 2
    return f"{text[:half]}…[{len(text) - 2 * half:,} characters]…{text[-half:]}"


def pieces(record: Record, max_chars: int) -> list[tuple[str, str]]:
    """The record's text as (text, kind) in order: kind "context", "trained" or "cut", or "label"
    (ftlint's words before a part of the convention's, each part on its own line)."""
    out: list[tuple[str, str]] = []
    for k, s in enumerate(record.segments):
        if record.parts or not s.text:
            count = f"{s.tokens:,} token{'s' if s.tokens != 1 else ''}"
            out.append((("\n" if k else "") + f"[{s.label or ('trained' if s.trained else 'context')}: {count}] ", "label"))
        text = s.text
        if not text:  # counted, with no text of its own: its label says it (and the cut, in the table)
            continue
        kept_text = text if s.kept >= s.tokens else (s.kept_text if s.kept_text is not None else "")
        if record.dropped:
            out.append((text, "cut"))
            continue
        if s.kept and not kept_text:  # a cut inside a part whose tokens' text is not known: said in words
            kept_text = f"[{s.kept:,} of {s.tokens:,} tokens kept]"
            rest = text
        else:
            rest = text[len(kept_text):]
        if kept_text:
            out.append((kept_text, "trained" if s.trained else "context"))
        if rest:
            out.append((rest, "cut"))
    merged: list[tuple[str, str]] = []
    for text, kind in out:  # one mark around a run of the same kind (a dropped record's runs are all cut)
        if merged and merged[-1][1] == kind != "label":
            merged[-1] = (merged[-1][0] + text, kind)
        else:
            merged.append((text, kind))
    return [(text if kind == "label" else _elided(_plain(text), max_chars), kind) for text, kind in merged]


def marked_lines(record: Record, max_chars: int, color: bool) -> list[str]:
    """The text, marked, as output lines behind a gutter."""
    import click

    joined = []
    for text, kind in pieces(record, max_chars):
        if kind == "label":
            joined.append(click.style(text, dim=True) if color else text)
        elif color and kind != "context":
            style = {"fg": "green", "bold": True} if kind == "trained" else {"dim": True, "strikethrough": True}
            joined.append("\n".join(click.style(terminal_safe(part), **style) for part in text.split("\n")))
        else:
            start, end = {"trained": TRAINED, "cut": CUT}.get(kind, ("", ""))
            joined.append(start + "\n".join(terminal_safe(part) for part in text.split("\n")) + end)
    return [("  │ " + line).rstrip() for line in "".join(joined).split("\n")]


def _header(shown: Shown) -> list[tuple[str, str]]:
    t = shown.target
    renderer = "ftlint's token convention (no chat template)" if shown.template == "openai" else \
        "the trainer's own renderer" if shown.renderer else f"the {_flag(shown.template)} template"
    rows = [("format", f"{shown.format}: {shown.format_reason}"),
            ("model", f"{shown.model or 'none of the catalog named'}, counted with {_flag(shown.encoding)} over {renderer}"),
            ("trainer", f"{shown.trainer}: {shown.trainer_title}; {shown.trainer_source}" if shown.trainer else
             "none: a provider's plain job (`ftlint trainers`)")]
    if shown.renderer:  # it makes the records, not the model's chat template (as the estimate's `renderer` says)
        rows.append(("renderer", f"the trainer's: {shown.renderer}"))
    if shown.cut is not None:
        rows.append(("max length", f"{shown.cut_label}: past it, {_rule(shown.past_max)}"))
    if t.element:
        rows.insert(0, ("element", f"{t.element:,} of the array, from line {t.start:,}"))
    return rows


def _flag(value: Template | Encoding) -> str:
    """A file as the user gives it (--chat-template PATH, --tokenizer PATH), or the family's name."""
    return value if isinstance(value, str) else value.flag


def _rule(rule: str) -> str:
    """What the trainer does past its max length (Loss.past_max), in the words its Cut gives `ftlint show`."""
    from ..trainers import CUTS

    return CUTS[rule].shown if rule in CUTS else rule


def _summary(record: Record, k: int, n: int) -> str:
    head = f"record {k} of {n}: {record.tokens:,} tokens, {record.trainable:,} trained"
    if record.dropped:
        return head + ": past the max length, the trainer leaves it out: nothing of it trains"
    if record.kept_tokens == record.tokens:
        return head + ": all kept"
    return head + f"; the trainer keeps {record.kept_tokens:,} tokens, {record.kept_trained:,} of them trained"


def _table(record: Record) -> list[tuple[str, str, str, str]]:
    return [(f"{s.tokens:,}", "yes" if s.trained else "-", f"{s.kept:,}", s.label or ("trained" if s.trained else "context"))
            for s in record.segments]


def render_text(shown: Shown, max_chars: int = DEFAULT_MAX_CHARS, color: bool = False) -> str:
    t = shown.target
    lines = [f"{path_text(t.shown)}:{t.line}"]
    rows = _header(shown)
    width = max(len(label) for label, _ in rows)
    lines += [f"  {label:<{width}}  {terminal_safe(redact(value))}" for label, value in rows]
    if shown.rejected:
        lines.append("rejected: the line has an error, so no record of it is trained (nor in any figure)")
    for k, record in enumerate(shown.records, 1):
        lines += ["", _summary(record, k, len(shown.records))]
        lines += [f"  {'tokens':>9}  {'trains':>6}  {'kept':>9}  part"]
        lines += [f"  {a:>9}  {b:>6}  {c:>9}  {terminal_safe(redact(d))}" for a, b, c, d in _table(record)]
        legend = "green trains, struck through is cut off" if color else "⟦trains⟧, ⟪cut off⟫"
        legend += f"; marked by {record.marked_by}" if record.marked_by else ""
        exact = "" if record.exact else "; the text is not split where the tokens are: the runs by their counts"
        lines += [f"  text ({legend}{exact}):", *marked_lines(record, max_chars, color)]
    if shown.findings:
        lines += ["", "findings:", *(f"  {d.code} {terminal_safe(d.message)}" + (f" ({terminal_safe(d.pointer)})" if d.pointer else "")
                                      for d in shown.findings)]
    return "\n".join(lines) + "\n"


def render_markdown(shown: Shown, max_chars: int = DEFAULT_MAX_CHARS) -> str:
    t = shown.target
    lines = [f"### ftlint show {md_code(f'{t.shown}:{t.line}')}", "", "| | |", "|---|---|"]
    lines += [f"| {label} | {md_code(redact(value))} |" for label, value in _header(shown)]  # it names data: keys, files
    if shown.rejected:
        lines += ["", "**rejected**: the line has an error, so no record of it is trained (nor in any figure)"]
    for k, record in enumerate(shown.records, 1):
        lines += ["", f"**{md_text(_summary(record, k, len(shown.records)))}**", "",
                  "| tokens | trains | kept | part |", "|---:|---|---:|---|"]
        lines += [f"| {a} | {b} | {c} | {md_code(redact(d))} |" for a, b, c, d in _table(record)]
        lines += ["", "⟦trains⟧, ⟪cut off⟫:", "",
                  *md_fence([line.removeprefix("  │ ") for line in marked_lines(record, max_chars, False)])]
    if shown.findings:
        lines += ["", "| code | severity | finding |", "|---|---|---|"]
        lines += [f"| {d.code} | {d.severity} | {md_code(d.message + (f' ({d.pointer})' if d.pointer else ''))} |"
                  for d in shown.findings]
    return "\n".join(lines) + "\n"


def render_json(shown: Shown, max_chars: int = 0) -> str:
    t = shown.target

    def segment(s: Segment) -> dict[str, object]:
        return {"text": json_safe(redact(s.text)), "tokens": s.tokens, "trained": s.trained, "kept": s.kept, "part": s.label}

    data = {"path": json_safe(redact(t.shown)), "line": t.line, "element": t.element or None, "format": shown.format,
            "format_reason": json_safe(redact(shown.format_reason)), "model": shown.model, "encoding": str(shown.encoding),
            "template": str(shown.template), "trainer": shown.trainer, "renderer": shown.renderer, "max_length": shown.cut,
            "past_max": shown.past_max, "rejected": shown.rejected,
            "records": [{"tokens": r.tokens, "trainable": r.trainable, "dropped": r.dropped, "kept_tokens": r.kept_tokens,
                         "kept_trained": r.kept_trained, "exact": r.exact, "segments": [segment(s) for s in r.segments]}
                        for r in shown.records],
            "findings": [d.to_dict() for d in shown.findings]}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"

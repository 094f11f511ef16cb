"""Past the trainer's max length, per record: what the trainer cuts off a record longer than it
(tokens, trained tokens) or that it leaves the record out, and the file's counts of both.

Only a record longer than the cut costs anything more than a comparison: its layout, where its
trained tokens lie (a template's mask already made, else the format's `layout`), then the
trainer's rule (its Cut: ftlint/trainers/cut.py), which the judge never asks the name of."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..options import Loss
from ..rules.context import FIRST_LINES, FileSummary
from ..trainers import Cut, cut_rule

if TYPE_CHECKING:
    from ..chat.tally import Tally
    from ..formats import Format, LineFigures, RecordFigures
    from ..media.plan import Planner
    from ..tokens import TokenCounter


def cut_label(loss: Loss, cut: int, limit: int | None, owner: str) -> str:
    """Where the trainer cuts, as a finding says it."""
    if loss.max_seq_len is not None and cut == loss.max_seq_len:
        source = loss.max_len_source.split(" (")[0]
        return f"--max-seq-len {cut:,}" if source == "--max-seq-len" else f"{source} max length {cut:,}"
    return f"the {cut:,}-token limit of {owner}" if limit is not None else f"{cut:,} tokens"


def past_max(fmt: Format, value: dict, figures: LineFigures, cut: int, rule: Cut, counter: TokenCounter,
             exact: Callable[[], TokenCounter] | None, tally: Tally | None) -> LineFigures:
    """The line's records as the trainer has them past `cut` (RecordFigures' cut_tokens,
    cut_trainable, dropped). `exact`: the tokenizer, when `counter` is `check`'s byte bound."""
    if not any(rule.past(r.tokens, cut) for r in figures.records):
        return figures
    if exact is not None:  # counted by the byte bound: the record's exact figures decide
        counter = exact()
        figures = fmt.figures(value, counter, tally)
    layouts: list[list[tuple[int, int]]] | None = None
    rendered = figures.rendered
    for i, r in enumerate(figures.records):
        if not rule.past(r.tokens, cut):
            continue
        if rule.leaves_out:
            r.dropped = True
            continue
        if rendered is not None and rendered.pairs is not None:
            pairs = rendered.pairs
        else:
            layouts = layouts or fmt.layout(value, counter, tally)
            pairs = layouts[i]
        found = rule.kept(aligned(pairs, r.tokens), cut)
        if found is None:
            r.dropped = True
            continue
        r.cut_tokens, r.cut_trainable = max(0, r.tokens - found[0]), max(0, r.trainable - found[1])
    return figures


def aligned(pairs: list[tuple[int, int]], tokens: int) -> list[tuple[int, int]]:
    """A record's layout as its figures count it: a layout counted otherwise (a template's
    renderings of prefixes) differs in context, added to (or taken from) what comes first."""
    laid = sum(u + t for u, t in pairs)
    if laid == tokens or not pairs:
        return pairs
    return [(max(0, pairs[0][0] + tokens - laid), pairs[0][1]), *pairs[1:]]


def trainer_figures(fmt: Format, value: dict, counter: TokenCounter, tally: Tally) -> LineFigures:
    """A record as the trainer's own renderer makes it (Tally.sample), already cut as it cuts; one
    it cannot make (the trainer fails on it, or ftlint does not model it) is a failure (FT230),
    its figures the format's own."""
    from ..chat.mask import Masked
    from ..formats import LineFigures, RecordFigures
    from ..trainers import Unrendered

    try:
        with tally.record():
            made = tally.sample(value, fmt.name)
    except Unrendered as exc:
        figures = fmt.figures(value, counter, None)
        figures.failure = str(exc)
        return figures
    record = RecordFigures(made.messages, made.targets, made.tokens, made.trained, made.tokens - made.kept,
                           made.trained - made.kept_trained)
    masked = Masked(made.tokens, made.trained, made.text, list(made.spans), False, tally.spec.eos)
    return LineFigures([record], made.messages, rendered=masked, parts=made.parts)


def count_cut(summary: FileSummary, number: int, record: RecordFigures) -> None:
    summary.cut += 1
    summary.tokens_cut += record.cut_tokens
    if record.cut_trainable:
        summary.truncated += 1
        summary.trainable_cut += record.cut_trainable
        summary.emptied += record.cut_trainable >= record.trainable
        if len(summary.cut_lines) < FIRST_LINES and number not in summary.cut_lines:
            summary.cut_lines.append(number)


def count_dropped(summary: FileSummary, number: int, record: RecordFigures) -> None:
    summary.dropped += 1
    summary.dropped_tokens += record.tokens
    summary.dropped_trainable += record.trainable
    if len(summary.dropped_lines) < FIRST_LINES and number not in summary.dropped_lines:
        summary.dropped_lines.append(number)


def line_figures(fmt: Format, counter: TokenCounter, tally: Tally | None, cut: int | None, rule: str,
                 exact: Callable[[], TokenCounter] | None, planner: Planner | None = None) -> Callable[[dict], LineFigures]:
    """A line's figures as the judge makes them: the format's, then past the trainer's cut (if any).
    One function for the full path and the fused pass (engine/fused.py), so both make the same.
    It holds the parts, never the judge (a cycle through the judge would keep a chunk alive).
    `planner`: the record's images read and counted first (ftlint/media/); a record without them
    goes the way of a file without them."""
    if planner is not None:
        return _with_media(fmt, planner, counter, tally, cut, rule, exact)
    if tally is not None and tally.renders(fmt.name):  # the trainer's own renderer, which cuts as it encodes
        return lambda value: trainer_figures(fmt, value, counter, tally)
    if cut is None:
        return lambda value: fmt.figures(value, counter, tally)
    found = cut_rule(rule)
    return lambda value: past_max(fmt, value, fmt.figures(value, counter, tally), cut, found, counter, exact, tally)


def _with_media(fmt: Format, planner: Planner, counter: TokenCounter, tally: Tally | None, cut: int | None, rule: str,
                exact: Callable[[], TokenCounter] | None) -> Callable[[dict], LineFigures]:
    from ..media.plan import MEDIA_LITERALS

    plain = line_figures(fmt, counter, tally, cut, rule, exact)
    found = cut_rule(rule)

    def figures(value: dict) -> LineFigures:
        present = planner.present
        if present is not None and present().isdisjoint(MEDIA_LITERALS):  # no media: the judge's literals say it
            return plain(value)
        plan = planner(value)
        if plan is None:
            return plain(value)
        from ..media.figures import images_cut, with_media  # a file without media never imports them

        counted, made = with_media(fmt, planner, plan, value, counter, tally)
        if cut is None:
            return made
        made = past_max(fmt, counted, made, cut, found, counter, exact, tally)
        if any(r.cut_tokens for r in made.records):
            images_cut(plan, made, planner, cut, found, counter, tally)
        return made

    return figures

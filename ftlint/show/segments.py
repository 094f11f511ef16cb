"""A record's tokens as segments: runs of untrained and trained tokens in order, each with its
text, and the part of each the trainer keeps at its max length.

Where the trainer's own renderer made the record (LLaMA-Factory's templates: Trainer.renderer),
its pieces are shown as it made them (Sample.parts): their text, which train, and how many
tokens of each its cut keeps, the figures the estimate sums. Otherwise the runs are the
estimate's own: the chat template's loss mask (`Masked.pairs`), mistral-common's pieces, or the
format's layout (aligned to the figures, as engine/past_max.py aligns it); what is
kept is `kept_pairs` of the trainer's rule. The text comes from the rendering, split where the
tokenizer of ftlint/chat/mask.py splits it, or, under ftlint's token convention, from the parts
the convention counts (show/parts.py). Where neither lines up with the runs, the runs are shown
by their counts alone (Record.exact is False), never a text that would mark other tokens."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .view import Pairs, Record, Segment, runs

if TYPE_CHECKING:
    from ..engine.pipeline import Worker
    from ..formats import Format, LineFigures, RecordFigures
    from ..trainers.rendering import Part

# a template's rendering without a mask of the trainer's own: the estimate lays each target's tokens
# (what it says) at the end of its turn's rendering (formats/chat.py ChatFormat._rendered_layout)
LAYOUT = "the estimate's layout: each target's tokens counted at the end of its turn's rendering"
MADE = "the trainer's own renderer: its pieces, as it tokenizes and cuts them"


def record_of(fmt: Format, value: dict, figures: LineFigures, i: int, worker: Worker, cut: int | None, rule: str) -> Record:
    from ..engine.past_max import aligned
    from ..trainers import cut_rule

    r = figures.records[i]
    if figures.parts:
        return made_record(r, figures.parts, worker)
    rendered = figures.samples[i] if figures.samples is not None else figures.rendered
    if rendered is not None and rendered.pieces is not None:  # mistral-common's, or axolotl's Alpaca prompt and output
        own = worker.tally is not None and worker.tally.own_mask
        pairs, marked_by = runs([(n, trained) for _, n, trained in rendered.pieces]), "mistral-common's pieces" if own else MADE
    elif rendered is not None and rendered.pairs is not None:
        pairs, marked_by = list(rendered.pairs), "the chat template's loss mask"
    else:
        pairs = list(fmt.layout(value, worker.counter, worker.tally)[i])
        marked_by = LAYOUT if worker.tally is not None and figures.failure is None else "ftlint's token convention"
    pairs = aligned(pairs, r.tokens)
    trainer_cut = cut_rule(rule)
    past = cut is not None and trainer_cut.past(r.tokens, cut)
    kept = trainer_cut.kept_pairs(pairs, cut) if past and cut is not None else pairs
    budgets = [n for pair in (kept or [(0, 0)] * len(pairs)) for n in pair]  # kept tokens of each run, in order
    segments = _segments(fmt, value, figures, i, worker, pairs)
    exact = segments is not None
    if segments is None:
        segments = [Segment("", n, bool(k % 2), n) for pair in pairs for k, n in enumerate(pair) if n]
    _keep(segments, [n for pair in pairs for n in pair], budgets)
    if marked_by == MADE:
        segments = merged(segments)
    parts = (exact and worker.tally is None) or figures.failure is not None
    return Record(r.tokens, r.trainable, segments, dropped=r.dropped or kept is None, exact=exact, parts=parts,
                  marked_by=marked_by)


def made_record(r: RecordFigures, parts: tuple[Part, ...], worker: Worker) -> Record:
    """A record as the trainer's own renderer made it: its pieces, marked and kept as it made them."""
    tally = worker.tally
    segments = [Segment(p.text, p.tokens, p.trained, p.kept) for p in parts if p.tokens]
    tokenizer = tally.sample_tokenizer() if tally is not None and any(0 < s.kept < s.tokens for s in segments) else None
    for s in segments:
        if 0 < s.kept < s.tokens and tokenizer is not None:  # the cut falls inside the piece: its kept text, if its tokens say it
            starts = tokenizer.encode(s.text).starts
            s.kept_text = s.text[: starts[s.kept]] if len(starts) == s.tokens else None
    return Record(r.tokens, r.trainable, merged(segments), dropped=r.dropped, marked_by=MADE)


def merged(segments: list[Segment]) -> list[Segment]:
    """Pieces alike in a row as one segment (one row of the table), where the text kept of them
    stays known and the start of it."""
    out: list[Segment] = []
    for s in segments:
        last = out[-1] if out else None
        if last is not None and last.trained == s.trained and last.text and s.text and (last.kept == last.tokens or not s.kept):
            before, after = _kept_text(last), _kept_text(s)
            if before is not None and after is not None:
                last.text, last.tokens, last.kept = last.text + s.text, last.tokens + s.tokens, last.kept + s.kept
                last.kept_text, last.offsets = before + after, None
                continue
        out.append(s)
    return out


def _kept_text(s: Segment) -> str | None:
    return s.text if s.kept >= s.tokens else "" if not s.kept else s.kept_text


def _keep(segments: list[Segment], sizes: list[int], budgets: list[int]) -> None:
    """Each segment's kept tokens: the segments fill the runs in order (untrained, trained, ...),
    and of each run the first `budget` tokens are kept."""
    run, left = 0, sizes[0] if sizes else 0
    for s in segments:
        while left == 0 and run + 1 < len(sizes):
            run += 1
            left = sizes[run]
        s.kept = min(s.tokens, budgets[run]) if run < len(budgets) else 0
        budgets[run] -= s.kept
        left -= s.tokens
        if 0 < s.kept < s.tokens and s.kept_text is None and s.offsets is not None:
            s.kept_text = s.text[: s.offsets[s.kept]]


def _segments(fmt: Format, value: dict, figures: LineFigures, i: int, worker: Worker, pairs: Pairs) -> list[Segment] | None:
    """The runs with their text: the rendering's tokens, mistral-common's pieces, or the
    convention's parts; None when the text does not line up with the runs."""
    rendered = figures.samples[i] if figures.samples is not None else figures.rendered
    if rendered is not None and rendered.pieces is not None:
        return [Segment(text, n, trained, n) for text, n, trained in rendered.pieces if n]
    tally = worker.tally
    if tally is not None and figures.failure is None and len(figures.records) == 1:
        text = rendered.text if rendered is not None else _rendering(fmt, value, tally)
        if text is not None:
            return _on_tokens(text, pairs, tally)
    if tally is None or figures.failure is not None:
        from .parts import convention_segments

        return convention_segments(fmt, value, worker.counter, i, pairs)
    return None


def _rendering(fmt: Format, value: dict, tally: object) -> str | None:
    """The conversation as the template renders it, as the format's layout rendered it
    (ChatFormat._rendered_layout; an Alpaca row as the messages it is read as)."""
    as_messages, turns = getattr(fmt, "as_messages", None), getattr(fmt, "turns", None)
    if as_messages is not None:
        messages, tools = as_messages(value), None
    elif turns is not None and getattr(fmt, "turns_key", "") == "messages":
        messages, tools = [t for _, t in turns(value)], value.get("tools")
    else:
        return None
    from ..chat.render import TemplateFailure

    try:
        with tally.record():  # type: ignore[attr-defined]
            return str(tally.render(messages, tools).text)  # type: ignore[attr-defined]
    except TemplateFailure:
        return None


def _on_tokens(text: str, pairs: Pairs, tally: object) -> list[Segment] | None:
    """The rendered text cut into the runs where its tokens begin (ftlint/chat/mask.py's
    Tokenizer); None if the tokens are not as many as the runs hold."""
    from array import array

    starts = encoded_starts(text, tally)
    if len(starts) != sum(u + t for u, t in pairs):
        return None
    out: list[Segment] = []
    position = 0
    for u, t in pairs:
        for n, trained in ((u, False), (t, True)):
            if n:
                begin = starts[position] if position else 0
                end = starts[position + n] if position + n < len(starts) else len(text)
                offsets = array("q", (starts[k] - begin for k in range(position, position + n)))
                out.append(Segment(text[begin:end], n, trained, n, offsets=offsets))
                position += n
    return out


def encoded_starts(text: str, tally: object) -> list[int]:
    """Where each token of the rendered text starts, as the trainer's tokenizer splits it."""
    return list(tally.tokenizer.encode(text).starts)  # type: ignore[attr-defined]

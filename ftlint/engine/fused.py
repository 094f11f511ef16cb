"""The fused clean-record pass (issue 28): one walk over a parsed record proves it clean, or the
record goes the full path.

The full path (LineJudge._judge) runs the shape gate, the figures and every record check one after
another, each walking the record again; most records of a real file are clean. One walk over the
messages (or the turns, or the fields) proves most of those checks silent at once. The pass returns
the line's figures, computed by the very function the full path calls (so they are the same by
construction), once it has shown that every check the full path would run is silent but those it
runs as they are (below); else it returns None and the line goes the full path as if the pass did
not exist.

What the pass needs of each check, the check declares beside its registration (rules/__init__.py
Fused): a fact the pass establishes of the record anyway, a literal absent, its own predicate for
the walk of the format's kind, or that the pass runs it as it is. The engine names no rule and no
code; a record check the judge would run without a declaration that covers the format's walk turns
the pass off for the format. The facts, for a record the parser found nothing wrong with:
  VALID    jsonschema-rs's is_valid: the record is valid against the format's schema
  PLAIN    the figures carry no rendering, no failure to read, no system dropped (no chat template):
           the pass shows it of every record, since the full path counts those in the file's summary
  WITHIN   no record over the limit (a byte bound over it asks for an exact count)
  UNCUT    no record that the trainer's max length drops or cuts trained tokens off
The walks (walk_of): OpenAI's messages shape ("messages": OpenAI's, Azure's, Mistral's, Fireworks',
Together's, TRL's, Bedrock's Claude and RFT formats), the turns of another shape ("turns": ShareGPT's,
read as messages by ShareGPT.turns), and fields ("fields": Alpaca, prompt-completion, text, TRL's
fields). The walk hands each predicate the record and its messages (turns), once it has seen they
are a non-empty list of objects, each with a string role.

The checks that run are run as they are, last, where the literals they need occur (as the full path
runs them): tool calls, images, secrets and the like are a few records in a hundred. Their hits are
the line's: every other check proved silent, the full path would make the same hits in the same
order (the judge's order of checks), and a record with an e-mail is not scanned twice. The shape
gate of the formats whose walk does not prove it runs first, as it does on the full path; its hit
sends the line the full path, which stops there too.

Off as well: --mapping, a chat template, and `Settings.fused` False (the environment's
FTLINT_FUSED=0), which the differential test (tests/oracles/test_fused.py) and users comparing the
two paths use.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from ..formats.chat import ChatFormat, ShareGPT
from ..formats.fields import FieldsFormat
from ..rules import UNCUT, VALID, WITHIN

if TYPE_CHECKING:
    from ..diagnostics import Hit
    from ..formats import Format, LineFigures
    from ..rules import Check, Silent
    from ..rules.context import RecordContext


def covered(check: Check, walk: str) -> bool:
    """Whether the check's declaration shows it silent on the walk's records, or has it run."""
    fused = check.fused
    return fused is not None and (walk in (fused.walks or {}) or bool(fused.fact or fused.absent) or fused.runs)


def walk_of(fmt: Format) -> str | None:
    """Which walk suits the format: OpenAI's messages shape, turns of another shape (ShareGPT), fields."""
    if isinstance(fmt, ChatFormat):
        if type(fmt).is_target is not ChatFormat.is_target or "assistant" not in fmt.target_roles:
            return None
        if fmt.shape == "messages" and fmt.turns_key == "messages" and type(fmt).turns is ChatFormat.turns:
            return "messages"
        return "turns" if type(fmt).turns is ShareGPT.turns else None
    return "fields" if isinstance(fmt, FieldsFormat) else None


class FusedPass:
    """One format's pass: call it with a record and its context (the literals found in it)."""

    def __init__(self, fmt: Format, walk: str, gates: list[Check], checks: list[Check],
                 figures: Callable[[dict], LineFigures], cut_label: str = "") -> None:
        from ..schemas import fast_validator

        def walked(c: Check) -> bool:
            return c.fused is not None and walk in (c.fused.walks or {})

        both = [*gates, *checks]
        facts = {c.fused.fact for c in both if c.fused is not None and not walked(c)}
        self.fmt, self.kind = fmt, walk
        self.silent: list[Silent] = [c.fused.walks[walk](fmt) for c in both if c.fused is not None and c.fused.walks
                                     and walk in c.fused.walks]
        self.is_valid = fast_validator(fmt.schema).is_valid if VALID in facts else None
        self.over = WITHIN in facts
        self.cut = bool(cut_label) and UNCUT in facts
        self.absent = tuple({c.fused.absent for c in both if c.fused is not None and c.fused.absent and not walked(c)})
        proved = [c for c in both if walked(c) or (c.fused is not None and (c.fused.fact or c.fused.absent))]
        self.gates = [c for c in gates if c not in proved]  # the shape gate, where the walk does not prove it
        self.runs = [c for c in checks if c not in proved]
        self.figures = figures

    def __call__(self, record: dict, ctx: RecordContext, hits: list[tuple[str, Hit]]) -> LineFigures | None:
        """The line's figures, its run checks' hits added to `hits`; or None, `hits` untouched."""
        for gate in self.gates:
            for _ in gate.func(record, ctx):
                return None
        if not self.walk(record):
            return None
        if self.is_valid is not None and not self.is_valid(record):
            return None
        present = ctx.present
        for literal in self.absent:
            if literal in present:
                return None
        figures = self.figures(record)
        if figures.failure or figures.rendered is not None or figures.system_dropped:
            return None  # the full path counts these in the file's summary
        if self.cut:
            for r in figures.records:
                if r.dropped or r.cut_trainable:
                    return None
        limit = ctx.limit
        if self.over and limit is not None:
            for r in figures.records:
                if r.tokens > limit:
                    return None
        ctx.figures = figures
        for c in self.runs:  # in the judge's order: with the others silent, their hits are the line's, in order
            if c.needs and present.isdisjoint(c.needs):
                continue
            first = c.codes[0]
            for hit in c.func(record, ctx):
                hits.append((hit.code or first, hit))
        return figures

    def walk(self, record: dict) -> bool:
        """Whether every predicate of the walk (the checks' own, rules/) finds the record silent."""
        if self.kind == "fields":
            turns: list[dict] = []
        else:
            turns = record.get("messages") if self.kind == "messages" else [t for _, t in self.fmt.turns(record)]  # type: ignore[assignment]
            if type(turns) is not list or not turns:
                return False
            for m in turns:  # what every predicate may read without looking
                if type(m) is not dict or type(m.get("role")) is not str:
                    return False
        for silent in self.silent:  # noqa: SIM110 - all() over a generator costs a frame a record
            if not silent(record, turns):
                return False
        return True


def fused_pass(fmt: Format, gates: list[Check], checks: list[Check], ctx: RecordContext, fused: bool, plain: bool,
               figures: Callable[[dict], LineFigures]) -> FusedPass | None:
    """The format's pass, where it covers the run: `plain` says no --mapping and no chat template; a
    walk suits the format; every check the judge would run declares how the pass covers it."""
    if not fused or not plain or ctx.control_tokens is not None:
        return None
    walk = walk_of(fmt)
    if walk is None or not all(covered(c, walk) for c in (*gates, *checks)):
        return None
    return FusedPass(fmt, walk, gates, checks, figures, ctx.cut_label)

"""Judging: one line at a time, then one file, then the files together.

Per line: its facts' hits, then (for a parsed object) the shape gate, the format's figures and
every record check that applies to the format. Each finding takes its severity from the registry
(or the format's own) and passes the selection here, in the worker, so a line's verdict (valid, or
with errors: rejected, in no figure) is the one the user sees. The engine emits no code. With
--mapping, its checks see the record as read; the others the mapped view, paths put back in its keys.
"""

from __future__ import annotations

import os
from array import array
from collections import Counter, abc
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..dataset import DatasetView, fingerprint, fingerprints, hex_fingerprint
from ..diagnostics import ERROR, Diagnostic, Hit
from ..formats import read_as, trained_as
from ..lengths import Lengths
from ..literals import present as literals_in
from ..options import Loss, ReadLimits, TemplateBudget
from ..parse import BLANK, Line, compact_json
from ..redact import redact
from ..rules import Check, checks
from ..rules.context import FIRST_LINES, FileContext, FileSummary, RecordContext
from ..selection import Selection
from ..trainers.base import Reading
from ..trainers.profile import REJECT
from .bounds import by_words, exactly
from .fused import fused_pass
from .media import planner_for
from .past_max import count_cut, count_dropped, cut_label, line_figures
from .result import Columns
from .verdict import Verdict

if TYPE_CHECKING:
    from ..chat.source import TemplateFile
    from ..chat.tally import Tally
    from ..formats import Format, LineFigures
    from ..mapping import Mapping
    from ..models import Model
    from ..plan.estimate import Estimate
    from ..rules.context import PlanContext
    from ..tokenizing import Encoding, Template
    from ..tokens import TokenCounter


@dataclass(frozen=True, slots=True)
class Settings:
    """What judging needs: the model's tokenizer and limit, the reading limits, the selection."""

    encoding: Encoding  # a tokenizer family, or a file (ftlint/tokenizing.py)
    model_name: str  # "" when no model was named: each format's provider's default applies
    model_limit: int | None = None  # the named model's per-example token limit
    context: int | None = None  # --context: wins over the format's and the model's limit
    today: str = ""  # ISO date: which default models are still open (the clock, or --today)
    template: Template = "openai"  # "openai" (the token convention), a chat-template family, or a TemplatePath
    format_name: str = "auto"  # or a name from `ftlint formats`
    limits: ReadLimits = field(default_factory=ReadLimits)
    selection: Selection = field(default_factory=Selection)
    training: bool = True  # a training file: the provider's minimum applies (FT401)
    content_fingerprints: bool = True  # exact and near, for duplicates and leakage
    prompt_fingerprints: bool = False  # only `ftlint diff` pairs changed records by prompt
    labels: tuple[tuple[str, str], ...] = ()  # (path, the name findings give it)
    loss: Loss = field(default_factory=Loss)  # what a self-hosted trainer trains on (with a chat template)
    bound_tokens: bool = False  # check: count by the byte bound, exactly only where it reaches a limit
    mapping: Mapping | None = None  # --mapping: records are read through a trainer's column mapping first
    keep_order: bool = False  # keep each record's figures in order (a trainer's split and packing follow it)
    template_file: TemplateFile | None = None  # a TemplatePath's template, read once in the main process
    template_budget: TemplateBudget = field(default_factory=TemplateBudget)
    trainer: str = ""  # the trainer named (or implied by the model named): a name of ftlint.trainers.TRAINERS
    trainer_formats: tuple[str, ...] = ()  # ... and the formats it takes: a file of another shape is read as its own
    control_tokens: bool = True  # text spelling an added token becomes it (the trainer's profile; transformers' default)
    trains_targets: bool = False  # the trainer's loss is the targets (its profile's), even of a format trained whole elsewhere
    reading: Reading = field(default_factory=Reading)  # what the trainer does to a row before it tokenizes it
    trainer_keys: tuple[tuple[str, object], ...] = ()  # its run config's keys it reads itself: its renderer's (Trainer.renderer)
    rows_per_file: int | None = None  # only the first rows of each file are read (a trainer's max_samples)
    fused: bool = field(default_factory=lambda: os.environ.get("FTLINT_FUSED", "1") != "0")  # engine/fused.py; 0: full path

    @property
    def keeps_prints(self) -> bool:
        return self.content_fingerprints or self.prompt_fingerprints

    @property
    def uses_bound(self) -> bool:
        from ..tokens import bounds_tokens

        return self.bound_tokens and self.template == "openai" and bounds_tokens(self.encoding)

    def named_model(self) -> Model | None:
        """The model --model or the run config names (names.resolve; None: none named)."""
        from ..names import resolve

        return resolve(self.model_name, lenient=True) if self.model_name else None

    def limit_for(self, fmt: Format) -> tuple[int | None, str]:
        """Tokens per example and whose limit it is: --context, else the format's provider
        limit, else the model's."""
        if self.context is not None:
            return self.context, "--context"
        if fmt.token_limit is not None:
            return fmt.token_limit, fmt.name
        if self.model_name:
            return self.model_limit, self.model_name
        from ..models import default_model, today_from

        model = default_model(fmt.name, today_from(self.today or None))
        return (int(model.context.value), model.name) if model.context else (None, model.name)


def _reported(check: Check, verdict: Verdict) -> bool:
    return any(verdict(code) is not None for code in check.codes)


class LineJudge:
    """Judges the lines of one chunk (one file, one format): findings, figures, fingerprints."""

    def __init__(self, fmt: Format, counter: TokenCounter, settings: Settings, summary: FileSummary,
                 columns: Columns, file_index: int, tally: Tally | None = None,
                 exact: abc.Callable[[], TokenCounter] | None = None, lengths: Lengths | None = None,
                 ordered: array | None = None, deferred: list[tuple[int, bytes, str]] | None = None) -> None:
        fmt = read_as(trained_as(fmt, settings.trains_targets), settings.reading, settings.loss.completion_only)
        self.fmt, self.counter, self.settings, self.summary, self.columns = fmt, counter, settings, summary, columns
        self.lengths = lengths if lengths is not None else Lengths()
        self.ordered, self.tally, self.file_index = ordered, tally, file_index
        self.exact = exact  # the tokenizer, when `counter` is the byte bound
        allowed = settings.selection.for_path(summary.path)
        self.severity = Verdict(fmt, allowed, settings.trainer)
        applicable = [c for c in checks("record") if c.applies(fmt)]
        self.gates = [c for c in applicable if c.gate]  # run whether reported or not: they decide what is checked
        self.checks = [c for c in applicable if not c.gate and _reported(c, self.severity)]
        self.limit, owner = settings.limit_for(fmt)
        # where the trainer cuts: its max length, else (a hosted job) the limit; not by a byte bound (`check`'s)
        # unless a self-hosted trainer's max length asks for exact counts of the records past it
        lengths_cut = [n for n in (settings.loss.max_seq_len, self.limit) if n is not None]
        self.cut = min(lengths_cut) if lengths_cut and (exact is None or settings.loss.max_seq_len is not None) else None
        self.line_checks, self.mapping_checks = checks("line"), checks("mapping")
        self._blank: tuple[str, Hit] | None = None  # (code, hit) of a blank line, once known
        self._blank_found: dict[bytes, Diagnostic | None] = {}  # a blank line's finding (line 0), by its bytes
        level = self.severity  # the lambdas below hold their parts, never the judge: a cycle through it would keep a
        self.context = RecordContext(fmt, frozenset(), None, self.limit, owner, lambda code: level(code) is not None,  # chunk's
                                     settings.named_model())  # records (the deferred ones) alive until a full collection
        if tally is not None and settings.control_tokens:
            self.context.control_tokens = tally.controls
        self.context.past_max = settings.loss.past_max
        if self.cut is not None and settings.loss.max_seq_len is not None:  # past a hosted limit alone: FT301 says it
            self.context.cut_label = cut_label(settings.loss, self.cut, self.limit, owner)
        self.deferred = deferred
        planner = planner_for(fmt, settings.named_model(), settings.model_name, settings.today, settings.mapping, settings.labels,
                              settings.trainer, summary.path, tally is not None)
        context = self.context
        planner.present = lambda: context.present  # set for each record before its figures (_judge)
        self.figures = line_figures(fmt, counter, tally, self.cut, settings.loss.past_max, exact, planner)
        self.fused = fused_pass(fmt, self.gates, self.checks, self.context, settings.fused,
                                settings.mapping is None and tally is None and settings.template == "openai", self.figures)
        self._deferring: list[bool] = []  # a check that recounts asked for an exact count of the current record
        if exact is not None:  # the byte bound counts; a record whose bound reaches its limit is bounded again by whole
            cleared = by_words(fmt, settings.encoding, self.limit)  # words, and counted exactly only if still over
            recounting = [c for c in checks("record") if c.recounts]  # a hit without a code carries the first
            if deferred is not None and settings.loss.past_max != REJECT and all(self.severity(c.codes[0]) != ERROR for c in recounting):
                # ... by the main process, which is otherwise idle: the workers never load the
                # tokenizer. Not when the finding rejects the record: the line's verdict is made here.
                asked = self._deferring
                self.context.recount = lambda record: cleared(record) or asked.append(True)  # type: ignore[func-returns-value]
            else:
                limit = self.limit
                self.context.recount = lambda record: cleared(record) or exactly(fmt, record, limit, exact())

    def blank(self, number: int, raw: bytes) -> Diagnostic | None:
        """A blank line, without the general path: a file of millions of them stays fast. Its
        finding, the same object for each blank line of the same bytes, with line 0: the line is
        the caller's to put in (a run of them travels as one item, engine/merge.py Runs)."""
        summary = self.summary
        summary.lines += 1
        summary.blank += 1
        found = self._blank_found.get(raw, self)  # self: not seen yet
        if not isinstance(found, Diagnostic) and found is not None:
            if self._blank is None:
                ((code, hit),) = self._line_hits(Line(number, None, [BLANK], len(raw), blank=True))
                self._blank = (code, Hit(hit.message, None, hit.col, hit.code))
            code, hit = self._blank
            found = self.severity.finding(self.summary.path, 0, code, hit, hex_fingerprint(fingerprint(raw)), col=1)
            self._blank_found[raw] = found
        if found is not None and found.severity == ERROR:
            summary.invalid += 1
        return found

    def _line_hits(self, line: Line) -> list[tuple[str, Hit]]:
        """The hits of a line's facts (what the reader and the parser found), from the line checks."""
        return [(hit.code or c.codes[0], hit) for c in self.line_checks for hit in c.func(line)]

    def __call__(self, line: Line, raw: bytes | None = None) -> list[Diagnostic]:
        summary = self.summary
        summary.lines += 1
        hits = self._line_hits(line) if line.facts else []
        if line.blank:
            summary.blank += 1
        value = line.value
        figures = None
        if value is not None:
            figures = self._judge(line, value, hits)
        found = self._diagnostics(line, hits, raw) if hits else []
        rejected = any(d.severity == ERROR for d in found)
        if rejected:
            summary.invalid += 1
        elif value is not None:
            summary.valid += 1
            if figures is not None:
                self._count(line, value, figures)
        return found

    def _judge(self, line: Line, value: dict, hits: list[tuple[str, Hit]]) -> LineFigures | None:
        mapping = self.settings.mapping
        if mapping is None:
            return self._judge_record(line, value, hits)
        hits.extend((hit.code or c.codes[0], hit) for c in self.mapping_checks for hit in c.func(value, mapping))
        start = len(hits)
        figures = self._judge_record(line, mapping.apply(value), hits)
        hits[start:] = mapping.own_hits(hits[:start], hits[start:])
        return figures

    def _judge_record(self, line: Line, value: dict, hits: list[tuple[str, Hit]]) -> LineFigures | None:
        ctx = self.context
        compact = line.compact if line.compact is not None else compact_json(value)
        ctx.present = literals_in(compact)
        ctx.compact = compact
        ctx.figures = None
        if self.fused is not None and (clean := self.fused(value, ctx, hits)) is not None:
            return clean  # every other check proved silent; the hits of those it runs are in `hits` (engine/fused.py)
        for gate in self.gates:
            gated = [(hit.code or gate.codes[0], hit) for hit in gate.func(value, ctx)]
            if gated:
                hits.extend(gated)
                return None
        ctx.figures = figures = self.figures(value)
        if figures.rendered is not None:
            summary = self.summary
            summary.rendered += 1
            summary.untrained += figures.rendered.trained == 0
        if figures.system_dropped:
            self.summary.system_dropped += 1
            if len(self.summary.system_dropped_lines) < FIRST_LINES:
                self.summary.system_dropped_lines.append(line.number)
        present = ctx.present
        for c in self.checks:
            if c.needs and present.isdisjoint(c.needs):
                continue
            first = c.codes[0]
            for hit in c.func(value, ctx):
                hits.append((hit.code or first, hit))
        if self._deferring:
            self._deferring.clear()
            assert self.deferred is not None
            record = compact if self.settings.mapping is None else compact_json(value)
            self.deferred.append((line.number, record, hex_fingerprint(fingerprint(line.compact if line.compact is not None else compact))))
        return figures

    def _count(self, line: Line, value: dict, figures: LineFigures) -> None:
        settings, summary = self.settings, self.summary
        summary.messages += figures.messages
        records = figures.records
        add, ordered = self.lengths.add, self.ordered
        kept = 0
        for record in records:
            if ordered is not None:  # each record in order, as the trainer's split and packing see it (result.py ROW)
                ordered.extend((record.tokens, record.cut_tokens, record.trainable, record.cut_trainable, record.messages,
                                record.targets, record.dropped, self.file_index))
            if record.dropped:
                count_dropped(summary, line.number, record)
                continue
            kept += 1
            add(record.tokens)
            summary.targets += record.targets
            summary.tokens += record.tokens
            summary.trainable += record.trainable - record.cut_trainable
            if record.cut_tokens:
                count_cut(summary, line.number, record)
        summary.records += kept
        if records and (settings.content_fingerprints or settings.prompt_fingerprints):
            exact = near = prompt = 0
            if settings.content_fingerprints:
                exact, near = fingerprints(line.compact if line.compact is not None else compact_json(value))
            if settings.prompt_fingerprints:
                prompt = fingerprint(compact_json(self.fmt.prompt(value), sort_keys=False))
            self.columns.add((self.file_index, line.number, len(records), exact, near, prompt))

    def _diagnostics(self, line: Line, hits: list[tuple[str, Hit]], raw: bytes | None) -> list[Diagnostic]:
        path, number, level = self.summary.path, line.number, self.severity
        if line.compact is not None:
            fp = hex_fingerprint(fingerprint(line.compact))
        elif raw is not None:
            fp = hex_fingerprint(fingerprint(raw))
        else:
            fp = ""
        found = [d for code, hit in hits if (d := level.finding(path, number, code, hit, fp)) is not None]
        if len(found) > 1:
            found.sort()
        return found


class Recounter:
    """The records whose byte bound reached their limit and the whole-word bound did not clear,
    settled in the main process (bounds.exactly: counted piece by piece until the limit is
    decided, to the end if over): the tokenizer is loaded there the first time one occurs (a file
    without one never loads it), and the checks that recount (Check.recounts) run on those figures, as they
    would have in the worker. Its findings are merged into the chunk's in line order."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._counter: TokenCounter | None = None
        self._checks = [c for c in checks("record") if c.recounts]

    def findings(self, summary: FileSummary, deferred: list[tuple[int, bytes, str]]) -> list[Diagnostic]:
        import orjson

        from ..formats import get_format
        from ..tokens import TokenCounter

        if self._counter is None:
            self._counter = TokenCounter(self.settings.encoding, self.settings.limits.max_file_bytes)
        counter, settings = self._counter, self.settings
        fmt = read_as(get_format(summary.format), settings.reading, settings.loss.completion_only)
        level = Verdict(fmt, settings.selection.for_path(summary.path), settings.trainer)
        limit, owner = settings.limit_for(fmt)
        ctx = RecordContext(fmt, frozenset(), None, limit, owner, lambda code: level(code) is not None, settings.named_model())
        ctx.past_max = settings.loss.past_max
        path = redact(summary.path)
        out = []
        for number, compact, fp in deferred:
            record = orjson.loads(compact)
            ctx.figures = exactly(fmt, record, limit, counter)  # the whole-word bound did not clear it (the worker tried)
            for c in self._checks:
                out += level.findings(path, [(hit.code or c.codes[0], hit) for hit in c.func(record, ctx)], number, fp)
        return out


def file_findings(summary: FileSummary, fmt: Format, settings: Settings) -> list[Diagnostic]:
    """The file-level checks (empty file, too few records) at the end of a file."""
    level = Verdict(fmt, settings.selection.for_path(summary.path), settings.trainer)
    limit, owner = settings.limit_for(fmt)
    cut = min((n for n in (settings.loss.max_seq_len, limit) if n is not None), default=None)
    ctx = FileContext(fmt, settings.training, settings.loss, settings.template,
                      settings.template_file.source if settings.template_file else None,
                      cut_label(settings.loss, cut, limit, owner) if cut is not None and settings.loss.max_seq_len else "")
    return level.findings(summary.path, [(hit.code or c.codes[0], hit) for c in checks("file") for hit in c.func(summary, ctx)])


def dataset_findings(views: tuple[DatasetView, ...], kind: str, selection: Selection, formats: list[Format],
                     trainer: str = "", changed: abc.Callable[[str], bool] | None = None) -> tuple[Counter[str], list[Diagnostic]]:
    """Dataset checks (`kind` "dataset": one set; "split": training and validation) over the frames; `formats`
    are the views' files' formats; `changed` (--dataset): whether a file's findings are shown (Located.shown_on).
    Returns how many hits each code made (reported or not: figures count them), and the findings in file and line order."""
    paths = [p for v in views for p in v.paths]
    levels = [Verdict(fmt, selection.for_path(path), trainer) for path, fmt in zip(paths, formats, strict=True)]
    made: Counter[str] = Counter()
    found = []
    for c in checks(kind):
        for hit in c.func(*views):
            code = hit.hit.code or c.codes[0]
            made[code] += 1
            located = hit if changed is None else hit.shown_on(lambda i: changed(paths[i]))
            d = None if located is None else levels[located.file_index].finding(
                paths[located.file_index], located.line, code, located.hit, located.fingerprint)
            if d is not None:
                found.append((located.file_index, located.line, d))
    found.sort(key=lambda item: (item[0], item[1], item[2].code))
    return made, [d for _, _, d in found]


def record_findings(fmt: Format, record: dict, counter: TokenCounter, limit: int | None = None,
                    tally: Tally | None = None) -> list[tuple[str, Hit]]:
    """Every record check's hits on one record, as (code, hit), whatever their severity (the API's)."""
    compact = compact_json(record)
    ctx = RecordContext(fmt, literals_in(compact), None, limit, "--context", lambda code: True)
    found: list[tuple[str, Hit]] = []
    applicable = [c for c in checks("record") if c.applies(fmt)]
    for gate in (c for c in applicable if c.gate):
        found += [(hit.code or gate.codes[0], hit) for hit in gate.func(record, ctx)]
        if found:
            return found
    ctx.figures = fmt.figures(record, counter, tally)
    for c in applicable:
        if not c.gate and (not c.needs or not ctx.present.isdisjoint(c.needs)):
            found += [(hit.code or c.codes[0], hit) for hit in c.func(record, ctx)]
    return found


def plan_findings(e: Estimate, ctx: PlanContext, verdict: Verdict, path: str) -> tuple[Diagnostic, ...]:
    """The plan rules' findings on an estimate (and a named model's lifecycle's), at the run's
    verdict: errors (failed gates) first, then by code."""
    import datetime as dt

    hits = [(hit.code or c.codes[0], hit) for c in checks("plan") for hit in c.func(e, ctx)]
    if ctx.model is not None:
        today = dt.date.fromisoformat(ctx.today) if ctx.today else dt.date.today()
        hits += [(hit.code or c.codes[0], hit) for c in checks("model") for hit in c.func(ctx.model, today)]
    return tuple(sorted(verdict.findings(path, hits), key=lambda d: (d.severity != "error", d.code)))

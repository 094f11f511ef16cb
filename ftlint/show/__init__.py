"""`ftlint show FILE:LINE`: one record as the trainer will see it. The rendered text (or, under
ftlint's token convention, the parts it counts), the tokens of each part, which of them train,
and where the trainer cuts at its max length.

Every mark comes from the functions the estimate counts with, never from a second reading: the
line is judged by the engine's Worker (its findings, its format); its figures are the judge's
(`line_figures`: the format's figures, the chat template's loss mask of ftlint/chat/mask.py, the
cut of engine/past_max.py); the tokens in order as (untrained, trained) runs are the mask's
(`Masked.pairs`) or the format's layout, aligned as the cut aligns them; what the trainer keeps
is `kept_pairs`, the rule the cut sums. Where the trainer's own renderer makes the record
(Trainer.renderer), its pieces are shown as it made and cut them (Sample.parts), the pieces its
figures sum. So the tokens marked trained and kept are the record's trainable tokens in
`estimate`, record by record (tests/commands/test_show.py), and the trainer's own where it was recorded
(tests/oracles/test_show_trainer_runs.py).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, Diagnostic
from .target import Target, find
from .view import Record, Segment

if TYPE_CHECKING:
    from ..engine import Settings
    from ..engine.pipeline import Worker
    from ..formats import Format, LineFigures
    from ..options import RunOptions
    from ..tokenizing import Encoding, Template


@dataclass
class Shown:
    target: Target
    format: str
    format_reason: str
    model: str  # "" when none was named
    encoding: Encoding
    template: Template  # "openai": ftlint's token convention
    trainer: str
    trainer_title: str
    trainer_source: str
    limit: int | None
    limit_owner: str
    cut: int | None  # where the trainer cuts: its max length, else the limit
    cut_label: str
    past_max: str
    findings: list[Diagnostic] = field(default_factory=list)
    records: list[Record] = field(default_factory=list)
    failure: str | None = None  # the chat template could not render it: the convention's figures
    renderer: str = ""  # the trainer's own renderer that makes the record (Trainer.renderer), with its source ("": none)

    @property
    def rejected(self) -> bool:
        """A line with an error: the provider or trainer refuses it, and it is in no figure."""
        return any(d.severity == ERROR for d in self.findings)


def show(run: RunOptions, line: int) -> Shown:
    """The record on `line` of run.paths[0] (a JSON array's: the element on it) as its trainer sees it."""
    from ..engine.past_max import cut_label
    from ..formats import get_format, trained_as
    from ..formats.shape import DETECT_RECORDS, detect
    from ..mapping import given_format
    from ..models import default_model
    from ..resolve import resolve_run
    from ..trainers import run_trainer

    resolved = resolve_run(run)
    named, settings = resolved.model, resolved.settings
    target = find(run.paths[0], line, settings.limits, DETECT_RECORDS)
    if settings.format_name != "auto":
        name, reason = settings.format_name, given_format(settings.mapping)
    else:
        found = detect(target.head, settings.trainer, settings.trainer_formats, target.shown)
        name, reason = found.name, found.reason
    settings = dataclasses.replace(settings, format_name=name, bound_tokens=False, content_fingerprints=False,
                                   prompt_fingerprints=False)
    fmt = trained_as(get_format(name), settings.trains_targets)
    model = named or default_model(name, resolved.today)
    trainer, why = run_trainer(resolved.trainer, resolved.trainer_source, model.provider, name)
    limit, owner = settings.limit_for(fmt)
    lengths = [n for n in (settings.loss.max_seq_len, limit) if n is not None]
    cut = min(lengths) if lengths else None
    shown = Shown(target, name, reason, "" if model.unnamed else model.name, settings.encoding,
                  settings.template, trainer.name if trainer else "", trainer.title_for(fmt.preference) if trainer else "", why,
                  limit, owner, cut, cut_label(settings.loss, cut, limit, owner) if cut is not None else "",
                  settings.loss.past_max)
    from ..engine.pipeline import Worker

    worker = Worker(settings)  # the engine's, for the line's findings and its figures alike
    tally = worker.tally
    if tally is not None and tally.renderer is not None and tally.renders(name):
        shown.renderer = tally.renderer.title
    elif tally is not None and tally.masker is not None:
        shown.renderer = tally.masker.title(fmt.shape)
    shown.findings = _findings(target, settings, worker)
    if shown.rejected or target.value is None:
        return shown
    _view(shown, fmt, settings, worker, target.value)
    return shown


def _findings(target: Target, settings: Settings, worker: Worker) -> list[Diagnostic]:
    """The line's findings, as `check` makes them (the engine's Worker on this one line); the
    file's own findings (line 0: too few records, ...) are not the record's."""
    from ..engine.pipeline import drive, file_chunks

    found: list[Diagnostic] = []
    drive(map(worker.run, file_chunks(0, target.shown, [(target.number, target.item)], settings)), settings, found.append)
    return [d for d in found if d.line > 0]


def _view(shown: Shown, fmt: Format, settings: Settings, worker: Worker, value: dict) -> None:
    """The line's records, each as segments of tokens with their marks."""
    from ..engine.past_max import line_figures
    from .segments import record_of

    if settings.mapping is not None:
        value = settings.mapping.apply(value)
    figures: LineFigures = line_figures(fmt, worker.counter, worker.tally, shown.cut, settings.loss.past_max, None)(value)
    shown.failure = figures.failure  # (FT230, an error, rejects such a line before it is shown)
    shown.records = [record_of(fmt, value, figures, i, worker, shown.cut, settings.loss.past_max)
                     for i in range(len(figures.records))]


__all__ = ["Record", "Segment", "Shown", "show"]

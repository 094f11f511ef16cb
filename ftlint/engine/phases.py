"""Every rule phase of a run, in the order its findings are reported: the training files' records
and files (the pipeline, where the run says: this machine or Ray), their duplicates (dataset), the
provider's minimum of the training set (--dataset), the model named, the run config's keys and the
trainer's formats; then the validation files' records, files and duplicates, and the leakage
between the two (splits). The estimate's phase (judge.plan_findings) follows, on the estimate.

Each phase makes its findings through Verdict, the one gate; `Phases.report` counts each once, on
the analysis it is about, and hands it on. The use case hands the engine what it resolved (a Run,
read through `Resolved`) and gets back what the phases found (`Phased`)."""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol

from ..diagnostics import Diagnostic, Hit
from ..formats import Format, get_format
from ..origin import located
from ..redact import redact
from ..rules import checks
from ..rules.context import FileContext, FileSummary
from ..scope import Shown
from .judge import Settings, dataset_findings
from .pipeline import analyse
from .places import placed_all
from .result import Analysis, view_of
from .verdict import Verdict

if TYPE_CHECKING:
    from ..models import Model
    from ..options import RunOptions
    from ..trainers import Trainer
    from .pipeline import Emit, Progress


class Resolved(Protocol):
    """What the phases read of a resolved run (ftlint/resolve: Run)."""

    @property
    def options(self) -> RunOptions: ...

    @property
    def model(self) -> Model | None: ...

    @property
    def trainer(self) -> Trainer | None: ...

    @property
    def settings(self) -> Settings: ...

    @property
    def today(self) -> dt.date: ...


@dataclass
class Phased:
    """The files analysed, and what the phases found that the use case reads besides the findings."""

    train: Analysis
    validation: Analysis | None = None
    leaks: int = 0  # validation records also in the training data (the split checks' hits, shown or not)
    refused: list[Diagnostic] = field(default_factory=list)  # the run config's keys (FT514, FT515), the files' (FT110)


def run_phases(run: Resolved, emit: Emit, progress: Progress | None = None, train: Analysis | None = None,
               validation: Analysis | None = None) -> Phased:
    """The run's phases, each once. `train` (and `validation`): the files already analysed, their
    records' and files' findings already reported; the phases after them are run here."""
    phases = Phases(run, emit, progress)
    phased = phases.training(train)
    if run.options.validation_files:
        phases.held_out(phased, validation)
    return phased


class Phases:
    """One run's phases, sharing its emit (only the changed files' findings with --dataset: ftlint/scope.py)."""

    def __init__(self, run: Resolved, emit: Emit, progress: Progress | None) -> None:
        self.run, self.progress = run, progress
        self.shown = Shown.of(run.options)
        self.emit = self.shown.emit(emit) if self.shown else emit
        self.changed = self.shown.changed if self.shown else None  # whether a file's findings are shown

    def report(self, found: list[Diagnostic], about: Analysis) -> None:
        """A phase's findings, counted once on the analysis they are about, then reported."""
        for d in found:
            about.count(d.severity)
            self.emit(d)

    def training(self, done: Analysis | None) -> Phased:
        """The training files, then what is said of them as a whole: the minimum, the model, the trainer."""
        run, options = self.run, self.run.options
        train = self.files(options.paths, run.settings, done)
        fmt = first_format(train)
        if options.dataset:  # the provider's minimum, of the training set as a whole
            names = train.paths
            place = self.shown.first(names) if self.shown else (names[0] if names else "")
            self.report(minimum_findings(train, fmt, run.settings, place), train)
        if run.model is not None:  # a named model past (or near) its last training date is a finding of check too
            self.report(model_findings(run.model, run.today, options, fmt, train.paths[0] if train.paths else ""), train)
        # the run config's keys its version ignores or ftlint does not apply; a trainer named (or implied by the
        # model named): the files must be of formats it takes
        refused = run_config_findings(options) + (trainer_findings(run.trainer, train, options) if run.trainer else [])
        self.report(refused, train)
        return Phased(train, refused=refused)

    def held_out(self, phased: Phased, done: Analysis | None) -> None:
        """The validation files, then the leakage between them and the training files."""
        run, train = self.run, phased.train
        validation = self.files(run.options.validation_files, dataclasses.replace(run.settings, training=False), done)
        made, found = dataset_findings((view_of(train), view_of(validation)), "split", run.options.selection,
                                       _formats(train) + _formats(validation), run.settings.trainer, self.changed)
        self.report(placed_all(found, (train, validation)), validation)
        phased.validation, phased.leaks = validation, sum(made.values())

    def files(self, paths: tuple[str, ...], settings: Settings, done: Analysis | None) -> Analysis:
        """Some files' records and files judged (`done`: already), then their duplicates when the run looks for them."""
        options = self.run.options
        result = done if done is not None else judged(paths, settings, self.emit, options, self.progress)
        if options.dataset_rules:
            found = dataset_findings((view_of(result),), "dataset", options.selection, _formats(result), settings.trainer,
                                     self.changed)[1]
            self.report(placed_all(found, (result,)), result)
        return result


def judged(paths: tuple[str, ...], settings: Settings, emit: Emit, run: RunOptions, progress: Progress | None) -> Analysis:
    """Some files' records and files judged where the run says (this machine, or Ray): no dataset rule yet."""
    if run.engine == "ray":
        from . import ray as on_ray

        return on_ray.analyse(paths, settings, emit, jobs=run.jobs, progress=progress)
    return analyse(paths, settings, emit, jobs=run.jobs, progress=progress)


def first_format(result: Analysis) -> Format:
    """The first file's format (OpenAI's chat format when none was read)."""
    return get_format(result.files[0].format) if result.files else get_format("openai-chat")


def minimum_findings(train: Analysis, fmt: Format, settings: Settings, place: str) -> list[Diagnostic]:
    """The file checks that judge the training set as a whole (Check.whole: its minimum), on `place` (--dataset)."""
    whole = FileSummary(path="", format=fmt.name)
    for summary in train.files:
        whole.add(summary)
    verdict = Verdict(fmt, settings.selection.for_path(place), settings.trainer)
    ctx = FileContext(fmt, True, dataset_files=len(train.files))
    hits = [(hit.code or c.codes[0], hit) for c in checks("file") if c.whole for hit in c.func(whole, ctx)]
    return verdict.findings(place, [(code, Hit(hit.message)) for code, hit in hits])


def model_findings(model: Model, today: dt.date, run: RunOptions, fmt: Format, path: str) -> list[Diagnostic]:
    """The model rules' findings (its lifecycle), with the registry's severities (or the format's),
    for the codes the selection lets through on `path` (the data's first file), located where the
    model was chosen (ftlint/origin.py)."""
    verdict = Verdict(fmt, lambda code: run.selection.allows(code, path or None))
    found = verdict.findings("", [(hit.code or c.codes[0], hit) for c in checks("model") for hit in c.func(model, today)])
    return [located(d, model, run.model_source, run.model_file) for d in found]


def run_config_findings(run: RunOptions) -> list[Diagnostic]:
    """The run config's own findings (FT514, FT515: ftlint/rules/runs.py), on the config."""
    if run.run is None:
        return []
    verdict = Verdict(None, run.selection.for_path(run.run))
    return verdict.findings(run.run, [(code, Hit(message)) for code, message in run.run_findings])


def trainer_findings(trainer: Trainer, train: Analysis, run: RunOptions) -> list[Diagnostic]:
    """The trainer rules' findings on each file (FT110: a format the trainer does not take)."""
    out = []
    for summary in train.files:
        fmt = get_format(summary.format)
        verdict = Verdict(fmt, run.selection.for_path(summary.path), trainer.name)
        out += verdict.findings(summary.path, [(hit.code or c.codes[0], hit) for c in checks("trainer")
                                               for hit in c.func(trainer.profile, fmt, redact(summary.path))])
    return out


def _formats(result: Analysis) -> list[Format]:
    return [get_format(f.format) for f in result.files]

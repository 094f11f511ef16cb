"""The use cases: check, estimate, plan and convert, on one pipeline (diff.py builds on them).

Every command runs the same analysis (`analyse_data`: the training files, then a validation
file, then the leakage between them, each once) and the estimate is built the same way for all
(`estimate_data`), so the commands cannot disagree on a file's format, limit or tokens. The CLI
only parses options into the frozen objects of ftlint/options.py, calls one of these, renders
and exits. No printing here.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TypeVar

from .diagnostics import Diagnostic
from .engine import Analysis, Settings
from .engine.phases import first_format, run_phases
from .engine.verdict import Verdict
from .errors import UsageError
from .formats import Format, rule_of, trained_as
from .models import Model, Sourced, default_model, user_value
from .options import ConvertOptions, PlanOptions, RunOptions, StudyOptions
from .redact import redact
from .resolve import Run, resolve_run
from .trainers import Trainer, run_trainer

if TYPE_CHECKING:
    from .convert import Tally
    from .engine.pipeline import Progress
    from .plan.estimate import DatasetInfo, Estimate
    from .plan.figures import DatasetFigures, ValidationFigures
    from .plan.study import Study
    from .trainers.base import RecordRow

Emit = Callable[[Diagnostic], None]
T = TypeVar("T")


@dataclass
class Data:
    """The analysed input: the training files, and the validation file if one was given."""

    run: Run  # what it was analysed as
    model: Model  # as named; or, when none was, the training format's provider's default (model.assumed)
    train: Analysis
    validation: Analysis | None
    leaks: int = 0  # validation records also in the training data (FT404's hits, shown or not)
    today: str = ""
    trainer: Trainer | None = None  # the run's: named, or implied by the model's (or the format's) provider
    trainer_source: str = ""  # why it is the run's
    refused: list[Diagnostic] = field(default_factory=list)  # the run config's keys (FT514, FT515), the files' (FT110): estimate's too

    @property
    def settings(self) -> Settings:
        return self.run.settings

    @property
    def io_errors(self) -> list[str]:
        return self.train.io_errors + (self.validation.io_errors if self.validation else [])

    @property
    def format(self) -> Format:
        """The training data's format (the first file's; `estimate` says when files differ)."""
        return trained_as(first_format(self.train), self.settings.trains_targets, self.settings.loss.assistant_only)

    @property
    def limit(self) -> int | None:
        return self.settings.limit_for(self.format)[0]


def analyse_data(run: Run, emit: Emit, progress: Progress | None = None, train: Analysis | None = None,
                 validation: Analysis | None = None) -> Data:
    """Judge the training paths, then the validation file, then the leakage between them: every
    phase run by the engine (engine/phases.py), its findings reaching `emit` in that order, each
    set in file and line order. `train` (and `validation`): the files already analysed (merged
    shards, the Python API, a change's parts), their line and file findings already reported;
    the dataset-wide findings and everything after are made from them. With `changed`
    (--dataset), only the changed files' findings reach `emit` (ftlint/scope.py)."""
    options = run.options
    if options.validation is not None and options.validation in options.paths:
        raise UsageError(f"--validation {options.validation} is also a training path")
    if not options.paths and not options.validation_files:
        raise UsageError("no training file to read")
    phased = counted(lambda: run_phases(run, emit, progress, train, validation))
    fmt = first_format(phased.train)
    model = run.model or default_model(fmt.name, run.today)
    trainer, why = run_trainer(run.trainer, run.trainer_source, model.provider, fmt.name)
    return Data(run, model, phased.train, phased.validation, phased.leaks, run.today.isoformat(), trainer, why,
                phased.refused)


def counted(work: Callable[[], T]) -> T:
    """`work`, with a tokenizer that fails on a text (a panic of tiktoken's, in this process or a
    worker's), or a Ray that cannot be had, as a usage error: one line, exit 2."""
    from .engine.ray import RayUnavailable
    from .tokens import TokenizerError

    try:
        return work()
    except (TokenizerError, RayUnavailable) as exc:
        raise UsageError(str(exc)) from None


@dataclass(frozen=True)
class EstimateRun:
    """`ftlint estimate`'s result: the analysed data and its estimate."""

    data: Data
    estimate: Estimate

    @property
    def paths(self) -> list[str]:
        """The training files the estimate is of, as the reports name them."""
        return list(self.data.train.paths)


@dataclass(frozen=True)
class StudyRun:
    """`ftlint plan`'s result: the production run's estimate and the tuning study around it."""

    production: EstimateRun
    study: Study


def check_plan(plan: PlanOptions) -> None:
    """Options that cannot go together."""
    if plan.warmup_ratio is not None and plan.warmup_steps is not None:
        raise UsageError("give --warmup-ratio or --warmup-steps, not both")
    if (plan.learning_rate is None) != (plan.reference_batch_size is None):
        raise UsageError("give --learning-rate and --reference-batch-size together")


def estimate_data(data: Data, plan: PlanOptions) -> EstimateRun:
    """The estimate of analysed data under a plan: one frozen Estimate with its findings."""
    from .plan.estimate import DatasetInfo

    fmt = data.format
    limit = data.limit
    train = data.train
    run = data.run.options
    plan = _fitted(plan, data)
    loss = data.settings.loss
    figures = train.figures(context_limit=limit)
    reason = redact(train.files[0].format_reason) if train.files else ""  # it may name the data's keys
    if len({f.format for f in train.files}) > 1:
        reason += "; files differ in format: " + ", ".join(f"{f.path}: {f.format}" for f in train.files)
    info = DatasetInfo(paths=tuple(train.paths), model=redact(data.model.name), encoding=data.settings.encoding,
                       context_limit=limit, format=fmt.name, format_reason=reason, record_rule=rule_of(fmt, loss),
                       min_examples=fmt.min_examples, model_entry=data.model,
                       validation=_validation_figures(data, limit),
                       preference=fmt.preference,
                       today=data.today, trainer=data.trainer, trainer_source=data.trainer_source, template=data.settings.template,
                       run_config=run.run or "", run_notes=run.run_notes, trainer_keys=run.trainer_keys,
                       rows_per_file=run.rows_per_file,
                       max_length=loss.max_seq_len, past_max=loss.past_max,
                       model_source=run.model_source, model_file=run.model_file,
                       max_length_source=loss.max_len_source if loss.max_seq_len else f"the limit of {data.settings.limit_for(fmt)[1]}")
    price: Sourced | None = user_value(plan.price, "usd_per_1m_tokens") if plan.price is not None else data.model.price
    path = train.paths[0] if train.paths else None
    verdict = Verdict(fmt, lambda code: run.selection.allows(code, path), data.settings.trainer)
    # every record in order, when kept: what the trainer prepares (its split, its packing, its own preparation)
    ordered = train.record_rows() if train.ordered is not None else None
    result = planned(figures, plan, info, price=price, ordered=ordered, verdict=verdict)
    if data.refused:  # a file the trainer does not take: its figures are not the run's, and the estimate fails
        result = dataclasses.replace(result, findings=(*data.refused, *result.findings))
    return EstimateRun(data, result)


def _fitted(plan: PlanOptions, data: Data) -> PlanOptions:
    """The plan, checked against the run: options its trainer has no use for, or cannot run with,
    are a UsageError; its max length is the run's, the one the records were judged at."""
    from .trainers import refusals

    trainer = data.trainer
    for option, message in refusals().items():  # the options only some trainers take
        given = getattr(plan, option)
        if (given is not None and given is not False) and (trainer is None or option not in trainer.plan_options):
            raise UsageError(message)
    refusal = trainer.refuses(plan, data.validation is not None) if trainer is not None else None
    if refusal is not None:
        raise UsageError(refusal)
    loss = data.settings.loss
    if plan.max_seq_len is not None and plan.max_seq_len != loss.max_seq_len:  # the cut is made where records are judged
        raise UsageError(f"max_seq_len {plan.max_seq_len}: the records were judged at {loss.max_seq_len or 'the limit'} "
                         f"({loss.max_len_source}); give the max length where they are read (summarise(max_seq_len=...))")
    plan = dataclasses.replace(plan, max_seq_len=loss.max_seq_len)  # one max length: the cut's, packing's rows
    if plan.packing and not plan.max_seq_len:
        raise UsageError("--packing needs --max-seq-len: the length of the rows records are packed into")
    return plan


def planned(figures: DatasetFigures, plan: PlanOptions, info: DatasetInfo, *, price: Sourced | None,
            ordered: Sequence[RecordRow] | None = None, verdict: Verdict | None = None) -> Estimate:
    """The estimate of a dataset's figures under a plan, with the plan rules' findings at the run's
    `verdict` (none given: the registry's severities, every code reported)."""
    import dataclasses

    from .engine.judge import plan_findings
    from .origin import located, model_codes
    from .plan.estimate import estimate
    from .rules.context import PlanContext

    e = estimate(figures, plan, info, price=price, ordered=ordered)
    ctx = PlanContext(plan, info.min_examples, info.model_entry, info.today)
    # on the dataset's file when it is one (its line 0), else on none; a model's finding where the model was chosen
    found = plan_findings(e, ctx, verdict or Verdict(None), info.paths[0] if len(info.paths) == 1 else "")
    model = model_codes()
    return dataclasses.replace(e, findings=tuple(located(d, info.model_entry, info.model_source, info.model_file)
                                                 if d.code in model and info.model_entry else d for d in found))


def _validation_figures(data: Data, limit: int | None) -> ValidationFigures | None:
    held_out = data.validation
    if held_out is None:
        return None
    from .plan.figures import ValidationFigures

    figures: DatasetFigures = held_out.figures(context_limit=limit)
    return ValidationFigures(held_out.paths, figures.lines, figures.records, figures.tokens_capped, data.leaks)


def run_estimate(run: RunOptions, plan: PlanOptions, progress: Progress | None = None) -> EstimateRun:
    """`ftlint estimate`: analyse (no findings shown), then estimate."""
    check_plan(plan)
    if plan.packing and not run.keep_order:
        run = dataclasses.replace(run, keep_order=True)
    data = analyse_data(resolve_run(run), lambda d: None, progress)
    return estimate_data(data, plan)


def run_study(run: RunOptions, plan: PlanOptions, options: StudyOptions, progress: Progress | None = None) -> StudyRun:
    """`ftlint plan`: the production run's estimate, and the tuning study around it."""
    from .plan.study import study

    production = run_estimate(run, plan, progress)
    return StudyRun(production, study(production.estimate, options.trials, options.short_fraction, options.finalists))


@dataclass(frozen=True)
class Conversion:
    """What `ftlint convert` did: the source's format, and what became of every line read."""

    options: ConvertOptions
    source_format: str
    tally: Tally

    @property
    def summary(self) -> str:
        from .formats.shape import read_back

        o = self.options
        return (f"converted {redact(o.path)} ({self.source_format}) to {redact(o.output)} ({o.target}): {self.tally.summary()}"
                + read_back(o.output, o.target))


def convert_file(options: ConvertOptions, emit: Emit) -> Conversion:
    """`ftlint convert`: each line of a file read, converted into the target format and written
    (a temporary file renamed into place). Its findings reach `emit` as diagnostics with the
    registry's severities (the target's own for its rules), passing the selection: what a line
    holds that is wrong (FT0xx), what the target cannot hold (FT801) or cannot hold at all
    (FT802), and what the target's rules reject. The Tally accounts for every line."""
    import orjson

    from .convert import READERS, Tally, convert_lines
    from .convert.output import writable, write_rows
    from .diagnostics import Hit
    from .formats.registry import FORMATS
    from .formats.shape import DETECT_RECORDS, detect
    from .read import InputError, display_name, read_lines
    from .rules import ERROR
    from .rules.file import line_hits

    path, limits = options.path, options.limits
    writable(options.output)  # before a line is read
    try:
        source = options.source_format
        if source == "auto":
            head = [line.value for _, line in zip(range(DETECT_RECORDS), read_lines(path, limits.max_line_bytes, limits.max_depth),
                                                  strict=False) if line.value is not None]
            source = detect(head).name
        if source not in READERS:
            raise UsageError(f"cannot convert from {source!r}; ftlint converts from {', '.join(sorted(READERS))} (give --format)")
        shown, allows = display_name(path), options.selection.for_path(path)
        # the registry's severities for what is read; the target format's for what it would reject
        read_verdict, target_verdict = Verdict(None, allows), Verdict(FORMATS[options.target], allows)
        tally = Tally(options.drop_invalid)

        def report(number: int, col: int, code: str, message: str, pointer: str | None = None,
                   verdict: Verdict = read_verdict) -> str | None:
            """The finding, if its code is reported: its severity (None: not reported)."""
            found = verdict.finding(shown, number, code, Hit(message, pointer, col))
            if found is not None:
                emit(found)
            return found.severity if found is not None else None

        own_error: dict[int, str] = {}  # a parsed line's own error (a duplicate key), until its record is converted

        def records() -> Iterator[tuple[int, dict]]:
            for line in read_lines(path, limits.max_line_bytes, limits.max_depth):
                tally.lines += 1
                if line.blank:
                    tally.blank += 1
                    continue
                hits = line_hits(line)
                levels = [report(line.number, hit.col, code, hit.message, hit.pointer) for code, hit in hits]
                if line.value is None:
                    tally.unreadable[hits[-1][0] if hits else "FT001"] += 1
                    continue
                errors = [code for (code, _), level in zip(hits, levels, strict=True) if level == ERROR]
                if errors:
                    own_error[line.number] = errors[0]
                yield line.number, line.value

        def rows() -> Iterator[bytes]:
            for item in convert_lines(records(), source, options.target):
                for where, what in item.lost:
                    report(item.number, 1, "FT801", what, where)
                first_error = own_error.pop(item.number, None)
                if item.failure is not None:
                    report(item.number, 1, "FT802", item.failure)
                    tally.unconvertible += 1
                    continue
                for code, message, pointer in item.rejected:
                    level = report(item.number, 1, code, f"in the {options.target} record: {message}", pointer or None,
                                   target_verdict)
                    first_error = first_error or (code if level == ERROR else None)
                if first_error is not None:
                    tally.rejected[first_error] += 1
                    if options.drop_invalid:
                        continue
                tally.written += 1
                yield orjson.dumps(item.record)

        write_rows(options.output, rows())
    except InputError as exc:
        raise UsageError(str(exc)) from None
    return Conversion(options, source, tally)



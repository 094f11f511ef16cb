"""The use cases: check, estimate, plan and diff, on one pipeline.

Every command runs the same analysis (`analyse_data`: the training files, then a validation
file, then the leakage between them, each once) and the estimate is built the same way for all
(`estimate_data`), so the commands cannot disagree on a file's format, limit or tokens. The CLI
only parses options into the frozen objects of ftlint/options.py, calls one of these, renders
and exits. No printing here.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING

from .dataset import DatasetView
from .diagnostics import Diagnostic
from .engine import Analysis, Settings, analyse, dataset_findings, view_of
from .formats import Format, get_format
from .models import Model, Sourced, default_model, get_model, today_from, user_value
from .options import Loss, PlanOptions, RunOptions, StudyOptions
from .redact import redact

if TYPE_CHECKING:
    from .chat.source import TemplateFile
    from .engine.pipeline import Progress
    from .plan.estimate import DatasetInfo, Estimate
    from .plan.figures import DatasetFigures, ValidationFigures
    from .plan.study import Study

Emit = Callable[[Diagnostic], None]


class UsageError(Exception):
    """Options that cannot go together, or name what does not exist: exit 2."""


@dataclass
class Data:
    """The analysed input: the training files, and the validation file if one was given."""

    model: Model  # as named; or, when none was, the training format's provider's default (model.assumed)
    settings: Settings
    train: Analysis
    validation: Analysis | None
    leaks: int = 0  # validation records also in the training data (FT404's hits, shown or not)
    today: str = ""

    @property
    def io_errors(self) -> list[str]:
        return self.train.io_errors + (self.validation.io_errors if self.validation else [])

    @property
    def format(self) -> Format:
        """The training data's format (the first file's; `estimate` says when files differ)."""
        return get_format(self.train.files[0].format) if self.train.files else get_format("openai-chat")

    @property
    def limit(self) -> int | None:
        return self.settings.limit_for(self.format)[0]


def tokenizer_for(run: RunOptions, model: Model | None) -> str:
    """The tokenizer the counts use: --tokenizer (a family or a file), the named model's (from this
    package, an installed one, or the model's snapshot in the local Hugging Face cache), or
    o200k_base (an estimate) for a model whose tokenizer is not public."""
    from .tokens import FAMILIES, missing

    if run.tokenizer:
        if run.tokenizer in FAMILIES:
            return run.tokenizer
        import os

        return _checked("path:" + os.path.abspath(run.tokenizer), run, None)
    if model is None:
        return "o200k_base"
    reason = missing(model.encoding)
    if reason is None:
        return model.encoding
    from .tokens.files import hf_cache_snapshot

    snapshot = hf_cache_snapshot(model.name)
    if snapshot is not None:
        return _checked(f"path:{snapshot}", run, model)
    raise UsageError(f"--model {model.name}: {reason}")


def _checked(name: str, run: RunOptions, model: Model | None) -> str:
    """A tokenizer file, loaded and checked here, in the main process before any worker starts
    (they share it, or load the same): a bad one is one line and exit 2, not a worker's failure."""
    from .tokens import TokenizerError, token_length

    try:
        token_length(name, run.limits.max_file_bytes)  # the encoding, and its probes (tiktoken could panic on them)
    except TokenizerError as exc:
        message = str(exc)
        if model is not None:  # the user named the model, not the file
            message = f"--model {model.name}: its tokenizer in the Hugging Face cache, {message.removeprefix('--tokenizer ')}"
        raise UsageError(message) from None
    return name


def template_for(run: RunOptions, model: Model | None) -> str:
    """How a record becomes tokens: --chat-template, the named model's template family, or
    ftlint's token convention ("openai")."""
    if run.chat_template:
        import os

        return "file:" + os.path.abspath(run.chat_template)
    if model is not None and model.template not in ("openai",) and model.tokens_exact:
        from .chat import CHAT_TEMPLATES

        if model.template in CHAT_TEMPLATES:
            return model.template
    return "openai"


def settings_for(run: RunOptions, model: Model | None, training: bool = True) -> Settings:
    """Judging settings: a named model's tokenizer, template and limit, or (none named) o200k_base
    and each format's provider's default model's limit."""
    if run.format_name != "auto":
        from .formats.registry import FORMATS

        if run.format_name not in FORMATS:
            raise UsageError(f"format: {run.format_name!r} is not a format; `ftlint formats` lists them")
    template = template_for(run, model)
    mapping = None
    if run.mapping is not None:
        from .mapping import MappingError, load_mapping

        try:
            mapping = load_mapping(run.mapping, run.paths, run.limits.max_file_bytes)
        except MappingError as exc:
            raise UsageError(str(exc)) from None
        if run.format_name not in ("auto", mapping.formatting):
            raise UsageError(f"--mapping {run.mapping} reads the data as {mapping.formatting}, not as --format {run.format_name}")
    template_file = _template_file(run, template) if template.startswith("file:") else None
    if run.assistant_only_loss and template == "openai":
        raise UsageError("--assistant-only-loss needs the model's chat template: name a self-hosted model with --model, "
                         "or give --chat-template FILE")
    return Settings(
        encoding=tokenizer_for(run, model), model_name=model.name if model else "", template=template,
        model_limit=int(model.context.value) if model and model.context else None, context=run.context,
        today=today_from(run.today).isoformat(),
        format_name=mapping.formatting if mapping else run.format_name, limits=run.limits, selection=run.selection, training=training,
        content_fingerprints=run.dataset_rules or run.prompt_fingerprints or run.validation is not None,
        prompt_fingerprints=run.prompt_fingerprints, labels=run.labels,
        loss=Loss(run.assistant_only_loss, run.completion_only_loss, run.max_seq_len), bound_tokens=run.bound_tokens,
        mapping=mapping, keep_order=run.keep_order, template_file=template_file, template_budget=run.template_budget,
    )


def _template_file(run: RunOptions, template: str) -> TemplateFile:
    """A user's template, read once (the workers get its text) and compiled once here: one that
    cannot be read or compiled is one line, exit 2."""
    from .chat.render import JinjaTemplate, TemplateFailure
    from .chat.source import read_template
    from .trust import Refused

    try:
        found = read_template(template.removeprefix("file:"), run.limits.max_file_bytes)
        JinjaTemplate(found.source, budget=run.template_budget)
    except (TemplateFailure, Refused) as exc:
        message = str(exc)
        raise UsageError(message if message.startswith("--chat-template") else f"--chat-template {run.chat_template}: {message}") from None
    return found


def resolve_model(name: str | None) -> Model | None:
    from .models import UnknownModel

    if name is None:
        return None
    try:
        return get_model(name)
    except UnknownModel as exc:
        raise UsageError(str(exc)) from None


def analyse_data(run: RunOptions, emit: Emit, progress: Progress | None = None, train: Analysis | None = None) -> Data:
    """Judge the training paths, then the validation file, then the leakage between them.
    Findings reach `emit` in that order, each set in file and line order. `train`: the training
    files already analysed (merged shards, the Python API), their line and file findings already
    reported; the dataset-wide findings and everything after are made here, from it."""
    if run.validation is not None and run.validation in run.paths:
        raise UsageError(f"--validation {run.validation} is also a training path")
    named = resolve_model(run.model_name)
    try:
        today = today_from(run.today)
    except ValueError:
        raise UsageError(f"--today {run.today}: not a date (YYYY-MM-DD)") from None
    settings = settings_for(run, named)
    train = _analyse(run.paths, settings, emit, run, progress, train)
    fmt = get_format(train.files[0].format) if train.files else get_format("openai-chat")
    model = named or default_model(fmt.name, today)
    if named is not None:  # a named model past (or near) its last training date is a finding of check too
        _report(model_findings(model, today, run, fmt, train.paths[0] if train.paths else ""), train, emit)
    validation, leaks = None, 0
    if run.validation is not None:
        validation = _analyse((run.validation,), dataclasses.replace(settings, training=False), emit, run, progress)
        views = (_view(train), _view(validation))
        made, found = dataset_findings(views, "split", run.selection, _formats(train) + _formats(validation))
        _report(found, validation, emit)
        leaks = made["FT404"]
    return Data(model, settings, train, validation, leaks, today.isoformat())


def _analyse(paths: tuple[str, ...], settings: Settings, emit: Emit, run: RunOptions,
             progress: Progress | None, done: Analysis | None = None) -> Analysis:
    if done is not None:
        result = done
    elif run.engine == "ray":
        from . import ray as on_ray

        try:
            result = on_ray.analyse(paths, settings, emit, jobs=run.jobs, progress=progress)
        except on_ray.RayUnavailable as exc:
            raise UsageError(str(exc)) from None
    else:
        result = counted(lambda: analyse(paths, settings, emit, jobs=run.jobs, progress=progress))
    if run.dataset_rules:
        _report(dataset_findings((_view(result),), "dataset", run.selection, _formats(result))[1], result, emit)
    return result


def counted(work: Callable[[], Analysis]) -> Analysis:
    """`work`, with a tokenizer that fails on a text (a panic of tiktoken's, in this process or a
    worker's) as a usage error: one line, exit 2."""
    from .tokens import TokenizerError

    try:
        return work()
    except TokenizerError as exc:
        raise UsageError(str(exc)) from None


def model_findings(model: Model, today: dt.date, run: RunOptions, fmt: Format, path: str) -> list[Diagnostic]:
    """The model rules' findings (its lifecycle), with the registry's severities."""
    from .rules import OFF, checks, severity

    out = []
    for c in checks("model"):
        for hit in c.func(model, today):
            code = hit.code or c.codes[0]
            level = severity(code, fmt.severities)
            if level != OFF and run.selection.allows(code, path or None):
                out.append(Diagnostic(redact(path), 0, 0, code, hit.message, level))
    return out


def _view(result: Analysis) -> DatasetView:
    return view_of(result)


def _formats(result: Analysis) -> list[Format]:
    return [get_format(f.format) for f in result.files]


def _report(found: list[Diagnostic], result: Analysis, emit: Emit) -> None:
    for d in found:
        result.counts[d.severity] = result.counts.get(d.severity, 0) + 1
        emit(d)


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
    if plan.packing and (plan.trainer != "hf" or not plan.max_seq_len):
        raise UsageError("--packing needs --trainer hf and --max-seq-len")
    if plan.max_seq_len and plan.trainer != "hf":
        raise UsageError("--max-seq-len is the length a self-hosted trainer cuts records at: give --trainer hf "
                         "(a provider's limit is --context)")
    if (plan.learning_rate is None) != (plan.reference_batch_size is None):
        raise UsageError("give --learning-rate and --reference-batch-size together")


def estimate_data(data: Data, plan: PlanOptions, run: RunOptions) -> EstimateRun:
    """The estimate of analysed data under a plan: one frozen Estimate with its findings."""
    from .plan.estimate import DatasetInfo

    fmt = data.format
    limit = data.limit
    train = data.train
    figures = train.figures(context_limit=limit, truncate_at=plan.max_seq_len if not plan.packing else None)
    reason = redact(train.files[0].format_reason) if train.files else ""  # it may name the data's keys
    if len({f.format for f in train.files}) > 1:
        reason += "; files differ in format: " + ", ".join(f"{f.path}: {f.format}" for f in train.files)
    info = DatasetInfo(paths=tuple(train.paths), model=data.model.name, encoding=data.settings.encoding,
                       context_limit=limit, format=fmt.name, format_reason=reason, record_rule=fmt.record_rule,
                       min_examples=fmt.min_examples, validation=_validation_figures(data, limit), model_entry=data.model,
                       today=data.today)
    price: Sourced | None = user_value(plan.price, "usd_per_1m_tokens") if plan.price is not None else data.model.price
    path = train.paths[0] if train.paths else None
    result = planned(figures, plan, info, price=price, lengths=train.record_tokens() if plan.packing else None,
                     allows=lambda code: run.selection.allows(code, path), severities=fmt.severities)
    return EstimateRun(data, result)


def planned(figures: DatasetFigures, plan: PlanOptions, info: DatasetInfo, *, price: Sourced | None,
            lengths: Iterable[int] | None = None, allows: Callable[[str], bool] = lambda code: True,
            severities: Mapping[str, str] | None = None) -> Estimate:
    """The estimate of a dataset's figures under a plan, with the plan rules' findings (the
    registry's severities, or the format's: `severities`) for the codes `allows` lets through."""
    import dataclasses

    from .engine.judge import plan_findings
    from .plan.estimate import estimate
    from .rules.context import PlanContext

    e = estimate(figures, plan, info, price=price, lengths=lengths)
    ctx = PlanContext(plan, info.min_examples, info.model_entry, info.today)
    return dataclasses.replace(e, findings=plan_findings(e, ctx, allows, severities, redact(info.paths[0]) if info.paths else ""))


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
    data = analyse_data(run, lambda d: None, progress)
    return estimate_data(data, plan, run)


def run_study(run: RunOptions, plan: PlanOptions, options: StudyOptions, progress: Progress | None = None) -> StudyRun:
    """`ftlint plan`: the production run's estimate, and the tuning study around it."""
    from .plan.study import study

    production = run_estimate(run, plan, progress)
    return StudyRun(production, study(production.estimate, options.trials, options.short_fraction, options.finalists))

"""The Python API: what the CLI does, for notebooks and pipelines, without the CLI.

    import ftlint
    result = ftlint.check("data.jsonl")                      # findings and per-file counts
    plan = ftlint.estimate("data.jsonl", epochs=3)           # records, tokens, steps, cost
    ftlint.check_records([{"messages": [...]}, ...])         # records already in memory

Shards: `summarise` makes a mergeable Summary of some files; `merge` joins summaries in order;
`check` and `estimate` take a Summary as well as paths. Merged summaries give the findings and
figures one run over all the files gives: counts and sums add, the token-length distribution
is exact (engine/result.py), duplicates and leakage across shards are found from the merged
fingerprints, and steps, warmup and cost are computed from the merged totals, never summed.

The options are the CLI's, by the same names (`model`, `format`, `context`, `select`,
`ignore`, ...; see `ftlint check --help`), and each takes what its flag takes (ftlint/checked.py:
the same rule checks both, and the configuration file). Errors of use raise UsageError with a
message naming the keyword: an unknown keyword, a value its flag would refuse (`batch_size=0`,
`epochs=float("nan")`, `max_depth="x"`), paths that are not paths (`check(5)`), a merge of
what is not a Summary, an unknown model, options that do not go together, a tokenizer file that
cannot be read, is malformed or fails on a text (with the CLI's one-line message).

Paths that cannot be read: `check` reports them as the CLI does, beside the files it could read,
in the result's `io_errors` (and `failing()` is then true, as the CLI's exit 2); when no path
at all can be read there is nothing to report on, and `check` raises UsageError (so does
`summarise`). `estimate` raises UsageError for any path it cannot read: its figures would be
of part of the data, and the CLI prints none either.
Everything here is typed and stable from 0.x on: new keywords may come, none is renamed.
"""

from __future__ import annotations

import dataclasses
import inspect
import os
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .app import Data, analyse_data, counted, estimate_data
from .checked import OptionError, codes
from .diagnostics import ERROR, WARNING, Diagnostic, fails
from .engine import Analysis, FileSummary
from .engine.phases import judged
from .errors import UsageError
from .options import Gates, PlanOptions, ReadLimits, RunOptions, TemplateBudget, Thresholds
from .plan.estimate import Estimate
from .resolve import resolve_run
from .selection import Selection

__all__ = ["CheckResult", "Diagnostic", "Estimate", "FileSummary", "Summary", "UsageError", "check", "check_records",
           "estimate", "merge", "summarise"]

Paths = str | Iterable[str]
Emit = Callable[[Diagnostic], None]


def _paths(paths: object) -> tuple[str, ...]:
    """A path (a string, a pathlib.Path) or an iterable of them, as strings."""
    if isinstance(paths, (str, os.PathLike)):
        items: list[object] = [paths]
    elif isinstance(paths, Iterable) and not isinstance(paths, (bytes, bytearray)):
        items = list(paths)
    else:
        raise UsageError(f"paths: {paths!r:.60} ({type(paths).__name__}) is not a path or a list of paths")
    out: list[str] = []
    for item in items:
        path = os.fspath(item) if isinstance(item, os.PathLike) else item
        if not isinstance(path, str):
            raise UsageError(f"paths: {item!r:.60} ({type(item).__name__}) is not a path")
        out.append(path)
    return tuple(out)


KEYWORD = {"model_name": "model", "format_name": "format"}  # the keywords whose option has another name


def _usage(exc: OptionError, table: str = "") -> UsageError:
    return UsageError(f"{table}{KEYWORD.get(exc.option, exc.option)}: {exc.reason}")


def _codes(keyword: str, values: object) -> tuple[str, ...]:
    try:
        return codes(values)
    except OptionError as exc:
        raise OptionError(exc.reason, keyword) from None


def run_options(paths: Paths, *, model: str | None = None, format: str = "auto", context: int | None = None,
                tokenizer: str | None = None, chat_template: str | None = None, validation: str | None = None,
                select: Iterable[str] = (), ignore: Iterable[str] = (), today: str | None = None, jobs: int | None = None,
                engine: str = "local", max_line_bytes: int | None = None, max_depth: int | None = None,
                max_file_bytes: int | None = None,
                assistant_only_loss: bool = False, completion_only_loss: bool = True, max_seq_len: int | None = None,
                mapping: str | None = None, dataset_rules: bool = True, template_max_chars: int | None = None,
                template_max_steps: int | None = None, template_seconds: float | None = None,
                trainer: str | None = None, run: str | None = None, trainer_version: str | None = None,
                transformers_version: str | None = None, template_name: str | None = None,
                instruction_part: str | None = None, response_part: str | None = None) -> RunOptions:
    """The CLI's judging options, as keywords, each checked as its flag is (UsageError)."""
    default, budget = ReadLimits(), TemplateBudget()
    try:
        limits = ReadLimits(max_line_bytes if max_line_bytes is not None else default.max_line_bytes,
                            max_depth if max_depth is not None else default.max_depth,
                            max_file_bytes if max_file_bytes is not None else default.max_file_bytes)
        budget = _budget(template_max_chars if template_max_chars is not None else budget.max_chars,
                         template_max_steps if template_max_steps is not None else budget.max_steps,
                         template_seconds if template_seconds is not None else budget.seconds)
        return RunOptions(paths=_paths(paths), validation=validation, model_name=model,
                          model_source="the model keyword" if model is not None else "", context=context, today=today,
                          tokenizer=tokenizer, chat_template=chat_template, format_name=format, limits=limits,
                          selection=Selection(_codes("select", select), _codes("ignore", ignore)), jobs=jobs,
                          dataset_rules=dataset_rules, assistant_only_loss=assistant_only_loss,
                          completion_only_loss=completion_only_loss, max_seq_len=max_seq_len, mapping=mapping, engine=engine,
                          template_budget=budget, trainer=trainer, run=run, trainer_version=trainer_version,
                          transformers_version=transformers_version, template_name=template_name,
                          instruction_part=instruction_part, response_part=response_part)
    except OptionError as exc:
        raise _usage(exc) from None


def _budget(max_chars: object, max_steps: object, seconds: object) -> TemplateBudget:
    """The template budget; its fields are the keywords template_max_chars, _max_steps, _seconds."""
    try:
        return TemplateBudget(max_chars, max_steps, seconds)  # type: ignore[arg-type]  # checked by its rules
    except OptionError as exc:
        raise OptionError(exc.reason, f"template_{exc.option}") from None


JUDGING_KEYS = tuple(inspect.signature(run_options).parameters)[1:]


def options_of(paths: Paths, options: Mapping[str, Any], own: Iterable[str] = ()) -> RunOptions:
    """run_options from the keywords a call was given; a keyword no option has is a UsageError
    naming the known ones (`own`: the call's own keywords, for that list)."""
    _known(options, (*JUDGING_KEYS, *own))
    return run_options(paths, **options)


def _known(options: Mapping[str, Any], known: Iterable[str]) -> None:
    unknown = sorted(set(options) - set(known))
    if unknown:
        raise UsageError(f"unknown keyword {unknown[0]!r}; the known ones: {', '.join(sorted(set(known)))}")


def _readable(analysis: Analysis) -> None:
    """A run that could read none of its paths has nothing to report: an error, not an empty result."""
    if analysis.io_errors and not analysis.files:
        raise UsageError("no path could be read: " + "; ".join(analysis.io_errors))


@dataclass
class Summary:
    """What one run over some files found, in a form that merges: the analysis (per-file counts
    and sums, the token-length distribution, fingerprints) and the findings on their lines and
    files, in file and line order. Dataset-wide findings (duplicates, leakage) and the model's
    are made when a Summary is checked, from all of it."""

    options: RunOptions
    analysis: Analysis
    findings: list[Diagnostic] = field(default_factory=list)

    @property
    def paths(self) -> list[str]:
        return self.analysis.paths

    def merge(self, other: Summary) -> Summary:
        """This summary's files, then `other`'s (a new Summary; neither changes)."""
        return merge([self, other])


def _judging(run: RunOptions) -> RunOptions:
    """The options that decide what is found (not which files, nor where they run)."""
    return dataclasses.replace(run, paths=(), jobs=None, engine="local", labels=())


def _with_order(analysis: Analysis, keep: bool) -> Analysis:
    if keep and analysis.ordered is None:
        raise UsageError("a summary made without keep_order=True does not merge with one made with it")
    return analysis


def summarise(paths: Paths, *, keep_order: bool = False, on_finding: Emit | None = None, **options: Any) -> Summary:
    """Analyse some files (a shard) into a mergeable Summary. `keep_order`: keep each record's
    tokens in order, which `estimate(..., packing=True)` needs. `on_finding` sees each line
    and file finding as it is made (the summary keeps them too)."""
    run = dataclasses.replace(options_of(paths, options, ("keep_order", "on_finding")), keep_order=keep_order)
    settings = resolve_run(run).settings
    found: list[Diagnostic] = []

    def emit(d: Diagnostic) -> None:
        found.append(d)
        if on_finding is not None:
            on_finding(d)

    analysis = counted(lambda: judged(run.paths, settings, emit, run, None))  # the dataset rules: check(summary)'s
    _readable(analysis)
    return Summary(run, analysis, found)


def merge(summaries: Iterable[Summary]) -> Summary:
    """Summaries joined in order: the files of the first, then the second's, ... (one pass: the
    parts are copied once, however many there are)."""
    if not isinstance(summaries, Iterable) or isinstance(summaries, Summary):
        raise UsageError(f"merge: {type(summaries).__name__} is not a list of Summary objects (summarise() makes them)")
    parts = list(summaries)
    if not parts:
        raise UsageError("merge: no summaries")
    for i, part in enumerate(parts):
        if not isinstance(part, Summary):
            raise UsageError(f"merge: item {i} ({type(part).__name__}) is not a Summary (summarise() makes them)")
    first = parts[0]
    if any(_judging(p.options) != _judging(first.options) for p in parts):
        raise UsageError("summaries made with different options do not merge")
    keep = any(p.analysis.ordered is not None for p in parts)
    analysis = Analysis.merged([_with_order(p.analysis, keep) for p in parts])
    options = dataclasses.replace(first.options, paths=tuple(path for p in parts for path in p.options.paths))
    return Summary(options, analysis, [d for p in parts for d in p.findings])


@dataclass(frozen=True)
class CheckResult:
    """What `ftlint check` reports: every finding in file and line order, and each file's counts."""

    findings: list[Diagnostic]
    files: list[FileSummary]
    io_errors: list[str]
    model: str  # the model the limits are of (the one named, or the format's provider's default)

    @property
    def errors(self) -> int:
        return sum(d.severity == ERROR for d in self.findings)

    @property
    def warnings(self) -> int:
        return sum(d.severity == WARNING for d in self.findings)

    @property
    def by_code(self) -> Counter[str]:
        return Counter(d.code for d in self.findings)

    def failing(self, fail_on: str = ERROR) -> bool:
        """Whether `ftlint check --fail-on FAIL_ON` would exit 1 (or 2, for a path it cannot read)."""
        return bool(self.io_errors) or fails((d.severity for d in self.findings), fail_on)

    @property
    def records(self) -> int:
        return sum(f.records for f in self.files)

    @property
    def lines(self) -> int:
        return sum(f.lines for f in self.files)

    def _repr_html_(self) -> str:
        """A notebook shows the files' counts and the first findings as tables, escaped."""
        from .notebook import findings_table, table

        files = table(f"ftlint check: {self.errors:,} errors, {self.warnings:,} warnings", ("file", "lines", "records", "format"),
                      [(f.path, f.lines, f.records, f.format) for f in self.files])
        return files + findings_table([(d.path, d.line, d.code, d.severity, d.message) for d in self.findings])


def _data(source: Paths | Summary, options: dict[str, Any], emit: Emit, *, bound: bool,
          keep_order: bool = False) -> tuple[Data, RunOptions]:
    """The analysed data of paths (every path unreadable: UsageError) or of a Summary."""
    if isinstance(source, Summary):
        if options:
            raise UsageError("options belong to summarise(); check(summary) and estimate(summary) use the summary's")
        for d in source.findings:
            emit(d)
        fresh = Analysis.merged([source.analysis])  # the summary itself stays as it was
        if keep_order and fresh.ordered is None:
            raise UsageError("packing needs each record's tokens in order: summarise(..., keep_order=True)")
        return analyse_data(resolve_run(source.options), emit, None, fresh), source.options
    run = dataclasses.replace(run_options(source, **options), bound_tokens=bound, keep_order=keep_order)
    run, _ = with_run(run, None, options)
    data = analyse_data(resolve_run(run), emit)
    _readable(data.train)
    return data, run


def check(source: Paths | Summary, *, on_finding: Emit | None = None, bound_tokens: bool = False,
          **options: Any) -> CheckResult:
    """`ftlint check`: the findings on some files (or on a Summary of shards). `bound_tokens`:
    decide the token limit as the CLI's check does, from a byte bound where it suffices
    (faster; the same findings, but the files' `tokens` and `trainable` are then bounds)."""
    _known(options, (*JUDGING_KEYS, "on_finding", "bound_tokens"))
    found: list[Diagnostic] = []

    def emit(d: Diagnostic) -> None:
        found.append(d)
        if on_finding is not None:
            on_finding(d)

    data, _ = _data(source, options, emit, bound=bound_tokens)
    files = data.train.files + (data.validation.files if data.validation else [])
    return CheckResult(found, files, data.io_errors, data.model.name)


PLAN_KEYS = tuple(f.name for f in dataclasses.fields(PlanOptions) if f.name not in ("thresholds", "gates", "sources"))


def estimate(source: Paths | Summary, *, thresholds: Mapping[str, Any] | None = None, gates: Mapping[str, Any] | None = None,
             **options: Any) -> Estimate:
    """`ftlint estimate`: records, tokens, steps, epochs and cost, with the plan's findings
    (`.findings`). Plan keywords are PlanOptions' (epochs, batch_size, grad_accum, gpus,
    warmup_ratio, warmup_steps, max_seq_len, packing, price, ...); the rest are the judging
    options (`trainer` among them: it decides how the files are read, so a Summary's is summarise()'s)."""
    _known(options, (*JUDGING_KEYS, *PLAN_KEYS, "thresholds", "gates"))
    plan_args = {k: options.pop(k) for k in list(options) if k in PLAN_KEYS}
    if "max_seq_len" in plan_args and not isinstance(source, Summary):
        options["max_seq_len"] = plan_args["max_seq_len"]
    try:
        plan = PlanOptions(**plan_args, thresholds=_table(Thresholds, "thresholds", thresholds), gates=_table(Gates, "gates", gates))
    except OptionError as exc:
        raise _usage(exc) from None
    from .app import check_plan

    if not isinstance(source, Summary):
        options.setdefault("dataset_rules", False)  # as `ftlint estimate`: no findings are listed
    if not isinstance(source, Summary) and options.get("run") is not None:
        source, plan = _run_source(source, options, plan, plan_args)
    check_plan(plan)
    data, _ = _data(source, options, lambda d: None, bound=False, keep_order=plan.packing)
    if data.io_errors:  # as `ftlint estimate` (exit 2): no figures of part of the data
        raise UsageError("cannot read: " + "; ".join(data.io_errors))
    return estimate_data(data, plan).estimate


def with_run(run: RunOptions, plan: PlanOptions | None, given: Mapping[str, Any]) -> tuple[RunOptions, PlanOptions | None]:
    """run= (a run config): its values where no keyword gives one (ftlint/resolve/run_config.py)."""
    if run.run is None:
        if not run.paths:
            raise UsageError("paths: none given (give paths, or run= a run config naming its datasets)")
        return run, plan
    from .resolve.run_config import configured

    return configured(run, plan, {k: f"{k}={v!r}" for k, v in given.items()})


def _run_source(source: Paths, options: dict[str, Any], plan: PlanOptions, plan_args: Mapping[str, Any]) -> tuple[Paths, PlanOptions]:
    """estimate(run=...): the plan and the paths with the run config's values; the judging options
    are applied again in _data (the same values: the config is read twice, a few milliseconds)."""
    run, applied_plan = with_run(run_options(source, **options), plan, {**options, **plan_args})
    assert applied_plan is not None
    if "max_seq_len" in dict(applied_plan.sources) and applied_plan.max_seq_len is not None:
        options.setdefault("max_seq_len", applied_plan.max_seq_len)
    return run.paths, applied_plan


def _table(kind: type[Thresholds] | type[Gates], keyword: str, values: Mapping[str, Any] | None) -> Any:
    """thresholds= and gates=: a mapping of the fields of Thresholds or Gates."""
    if values is None:
        return kind()
    if not isinstance(values, Mapping):
        raise UsageError(f"{keyword}: {type(values).__name__} is not a mapping of {', '.join(kind.RULES)}")
    unknown = sorted(str(k) for k in values if k not in kind.RULES)
    if unknown:
        raise UsageError(f"{keyword}: unknown key {unknown[0]!r}; the known ones: {', '.join(kind.RULES)}")
    try:
        return kind(**values)
    except OptionError as exc:
        raise _usage(exc, f"{keyword}.") from None


def check_records(records: Iterable[Mapping[str, Any]], *, name: str = "<records>", on_finding: Emit | None = None,
                  **options: Any) -> CheckResult:
    """Check records already in memory, as the lines of a file called `name` (line N is the
    Nth record). The same rules, findings and counts as a JSONL file of them."""
    import orjson

    from .engine.pipeline import analyse_lines

    if not isinstance(records, Iterable) or isinstance(records, (str, bytes, Mapping)):
        raise UsageError(f"check_records: {type(records).__name__} is not an iterable of records (mappings)")
    if not isinstance(name, str):
        raise UsageError(f"name: {name!r:.60} is not a string")
    run = options_of((name,), options, ("name", "on_finding"))
    resolved = resolve_run(run)
    settings = dataclasses.replace(resolved.settings, labels=((name, name),))
    found: list[Diagnostic] = []

    def emit(d: Diagnostic) -> None:
        found.append(d)
        if on_finding is not None:
            on_finding(d)

    def lines() -> Iterator[tuple[int, bytes]]:
        for n, record in enumerate(records, 1):
            try:
                yield n, orjson.dumps(dict(record))
            except (TypeError, ValueError) as exc:
                raise UsageError(f"check_records: record {n} is not a JSON object: {exc}") from None

    data = analyse_data(resolved, emit, None, counted(lambda: analyse_lines(name, lines(), settings, emit)))
    return CheckResult(found, data.train.files, data.io_errors, data.model.name)


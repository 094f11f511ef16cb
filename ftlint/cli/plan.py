"""`ftlint estimate`, `ftlint plan` and `ftlint review`: the doors of planning a run and of
judging it after. Flags -> RunOptions and PlanOptions -> a use case of app.py -> a renderer of
report/ -> the exit code (1 when a gate fails, or a finding at --fail-on's severity)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import click

from ..maxima import maximum
from . import options as opt
from .common import base_selection, exit_with, failing, for_workers, inputs, or_fail
from .errors import UsageFailure

if TYPE_CHECKING:
    from ..options import PlanOptions, RunOptions


def _with_run(run: RunOptions, plan: PlanOptions) -> tuple[RunOptions, PlanOptions]:
    """--run's values where no flag gives one; then the workers' setting for what is read."""
    run, given = opt.with_run(run, plan)
    assert given is not None
    return for_workers(run), given


def _estimated(paths: tuple[str, ...], params: dict[str, Any]) -> Any:
    from ..app import run_estimate
    from .io import expand, progress_for

    dataset, globs = params.pop("dataset", False), tuple(params.pop("dataset_paths", ()) or ())
    if dataset:
        run, plan = or_fail(lambda: _in_dataset(paths, globs, params))
    else:
        run, plan = or_fail(lambda: _with_run(opt.run_options(params, expand(paths), base_selection(), dataset_rules=False),
                                              opt.plan_options(params)))
    progress = progress_for(inputs(run))
    try:
        result = or_fail(run_estimate, run, plan, progress)
    finally:
        if progress:
            progress.clear()
    if result.data.io_errors:
        exit_with(True, result.data.io_errors)
    return run, result


def _in_dataset(paths: tuple[str, ...], globs: tuple[str, ...], params: dict[str, Any]) -> tuple[RunOptions, PlanOptions]:
    """estimate --dataset: the repository's dataset (ftlint/repository.py), its validation files by name too."""
    import dataclasses

    from ..change import in_dataset, layout
    from ..errors import UsageError
    from ..repository import RepositoryError

    if paths:
        raise UsageError("--dataset: the dataset is the repository's data files; give no PATH (check --dataset takes the changed ones)")
    run, plan = opt.run_options(params, (), base_selection(), dataset_rules=False), opt.plan_options(params)
    if run.run is not None:  # the run config's model, trainer, lengths and batches; the dataset is the repository's
        run, plan = _with_run(dataclasses.replace(run, paths=("-",)), plan)
    try:
        lay = layout(globs, run.validation, True)
    except RepositoryError as exc:
        raise UsageError(str(exc)) from None
    if not lay.head.training:
        raise UsageError("--dataset: the repository holds no training file" + (" matching dataset-paths" if globs else ""))
    return for_workers(in_dataset(run, lay.head, None)), plan


@click.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.output_options())
@opt.apply(opt.PLAN)
@opt.apply(opt.GATES)
@opt.FAIL_ON
@opt.apply(opt.PLOTS)
@opt.apply(opt.DATASET)
def estimate(paths: tuple[str, ...], output_file: str | None, output_format: str, plots: bool, schedule: str,
             fail_on: str, **params: Any) -> None:
    """Records, tokens, steps, epochs and cost of a training run on PATH.

    Several paths are one dataset. Findings are not listed (use `ftlint check`); lines with
    errors are left out of the figures and named in a warning.
    """
    from ..report import ESTIMATE_RENDERERS
    from .io import OutputRefused, destination

    run, result = _estimated(paths, params)
    e = result.estimate
    try:
        with destination(output_file, inputs(run)) as out:
            out.write(ESTIMATE_RENDERERS[output_format](result))
            if plots and output_format == "text":
                from ..plots import length_histogram, schedule_plot

                s = e.schedule
                out.write("\n" + length_histogram(result.data.train.lengths, e.counts.context_limit) + "\n"
                          + schedule_plot(s.total_steps, s.warmup_steps, s.steps_per_epoch, schedule) + "\n")
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    exit_with(failing(e.findings, fail_on))


@click.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.output_options(("text", "json")))
@opt.apply(opt.PLAN)
@opt.apply(opt.GATES)
@opt.FAIL_ON
@opt.apply(opt.STUDY)
def plan(paths: tuple[str, ...], output_file: str | None, output_format: str, fail_on: str, trials: int,
         short_fraction: float, finalists: int, **params: Any) -> None:
    """A tuning study around the production run the options describe: a round of many short
    runs (about a tenth of the production length) to choose hyperparameters, then a round of
    a few full-length runs; steps, tokens and cost of each round. Exit 1 when a gate fails.
    """
    from ..app import run_study
    from ..options import StudyOptions
    from ..report.plan import PLAN_RENDERERS
    from .io import OutputRefused, destination, expand

    run, plan_opts = or_fail(lambda: _with_run(opt.run_options(params, expand(paths), base_selection(), dataset_rules=False),
                                               opt.plan_options(params)))
    result = or_fail(run_study, run, plan_opts, StudyOptions(trials, short_fraction, finalists))
    production = result.production
    if production.data.io_errors:
        exit_with(True, production.data.io_errors)
    try:
        with destination(output_file, inputs(run)) as out:
            out.write(PLAN_RENDERERS[output_format](result))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    exit_with(failing(production.estimate.findings, fail_on))


@click.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--metric", help="Metric to judge by (default: eval_loss, else the first eval_* column).")
@click.option("--mode", type=click.Choice(["min", "max"]), help="Whether lower or higher is better (default: min for losses, else max).")
@click.option("--max-steps", type=opt.Count(1, maximum("max-steps")), help="The run's planned steps, if the log does not say.")
@click.option("-o", "--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def review(log: str, metric: str | None, mode: str | None, max_steps: int | None, output_format: str) -> None:
    """Review a finished run: where did the best evaluation fall?

    LOG is a Hugging Face trainer_state.json, or a CSV or JSONL log with a step column. The
    best step in the first tenth of training means max_steps is too high; in the last quarter,
    train longer. Checkpoints too sparse to choose from are flagged. Exit 1 unless the verdict
    is ok and the checkpoints are dense enough.
    """
    from ..report.review import REVIEW_RENDERERS
    from ..review import ReviewError
    from ..review import review as judge

    try:
        r = judge(log, metric, mode, max_steps)
    except ReviewError as exc:
        raise UsageFailure(str(exc)) from None
    click.echo(REVIEW_RENDERERS[output_format](r), nl=False)
    exit_with(r.verdict != "ok" or r.sparse)


COMMANDS = (estimate, plan, review)

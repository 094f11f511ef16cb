"""`ftlint check`: the door. Flags -> RunOptions -> resolve_run -> app.analyse_data, its findings
streamed to a reporter (through a baseline, when given) -> the exit code."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any

import click

from ..errors import UsageError
from . import options as opt
from .common import base_selection, config_notes, exit_with, for_workers, inputs, or_fail, reported_failing, say_run_notes
from .errors import UsageFailure

if TYPE_CHECKING:
    from ..change import Change, Layout
    from ..options import RunOptions


@click.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.TRUNCATION)
@opt.apply(opt.output_options())
@opt.MAX_ERRORS
@opt.FAIL_ON
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE", help="Findings listed in FILE (the output of `check -o json`) are known: not shown, not failing.")
@click.option("--split-by-name/--no-split-by-name", default=True, show_default=True,
              help="Judge a file named as a held-out split (valid.jsonl, sft_eval.jsonl, test-00000-of-00001.parquet, eval/...) as validation.")
@opt.apply(opt.dataset_options(pre_commit=True))
def check(paths: tuple[str, ...], output_file: str | None, output_format: str, max_errors: int | None, fail_on: str,
          baseline: str | None, split_by_name: bool, **params: Any) -> None:
    """Report every record the provider would reject, and why.

    One line per finding: path:line:col: CODE message ($.json.path). PATH may be '-' for
    standard input; .gz files are read transparently. With --dataset, PATHs are the files a
    change touches, judged as part of the repository's dataset (docs/ci.md).
    """
    from ..baseline import Baseline, BaselineError
    from ..change import judge_change
    from ..report import CHECK_REPORTERS
    from .io import OutputRefused, destination, progress_for

    run, lay = or_fail(lambda: options_of(paths, split_by_name, params))
    say_run_notes(run.run, run.run_notes)
    refuse_folders(inputs(run))
    try:
        known = Baseline.load(baseline) if baseline else None
    except BaselineError as exc:
        raise UsageFailure(str(exc)) from None
    progress = progress_for(inputs(run))
    try:
        with destination(output_file, inputs(run)) as out:
            reporter = CHECK_REPORTERS[output_format](out, max_errors)
            reporter.notes = config_notes("check") + notes_of(run, lay)
            reporter.start()
            emit = known.filter(reporter.diagnostic) if known else reporter  # a reporter takes runs of findings too
            try:
                change = or_fail(lambda: judge_change(run, lay, emit, progress=progress))
            finally:
                if progress:
                    progress.clear()
            data = change.data
            reporter.notes += dataset_notes(change)
            reporter.finish(change.checked)
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    if known and known.suppressed and output_format == "text":
        click.echo(f"{known.suppressed:,} known finding(s) in the baseline {baseline} not shown", err=True)
    exit_with(reported_failing(reporter.by_code, fail_on), data.io_errors)


def options_of(paths: tuple[str, ...], split_by_name: bool, params: dict[str, Any],
               rev: str | None = None) -> tuple[RunOptions, Layout]:
    """check's run, from its flags and configuration (the GitHub Action's too), and the layout of
    the files it reads: with --dataset, the repository's dataset and the PATHs given as the change;
    with `rev` (the Action's base), the base's files too."""
    from ..change import given_files, in_dataset, layout
    from ..repository import DatasetFiles, RepositoryError
    from .io import expand

    dataset, globs = params.pop("dataset", False), tuple(params.pop("dataset_paths", ()) or ())
    given = expand(paths)
    run = opt.run_options(params, given, base_selection(), bound_tokens=rev is None, prompts=rev is not None)
    try:
        if not dataset:
            run = held_out(for_workers(opt.with_run(run)[0]), split_by_name)
            return run, given_files(DatasetFiles(run.paths, run.validation_files), rev)
        if run.run is not None:  # the run config's model, trainer and lengths; the dataset is the repository's
            run = dataclasses.replace(opt.with_run(dataclasses.replace(run, paths=given or ("-",)))[0], paths=given)
        lay = layout(globs, run.validation, split_by_name, given or None, rev)
    except RepositoryError as exc:
        raise UsageError(str(exc)) from None
    if not lay.head.files and rev is None:
        raise UsageError("--dataset: the repository holds no data file" + (" matching dataset-paths" if globs else ""))
    return for_workers(in_dataset(run, lay.head, lay.changed)), lay


def notes_of(run: RunOptions, lay: Layout) -> list[str]:
    """What check says of the files it judged as validation, and of the files it left out."""
    from ..report.escape import shown_path
    from ..splits import held_out_by_name

    held = [p for p in lay.head.validation if p in lay.changed and held_out_by_name(p)] if lay.dataset else \
        [p for p in run.held_out if p != run.validation]
    return [*lay.notes, *(f"{shown_path(p)}: judged as validation (named as a held-out split; --no-split-by-name judges it "
                          "as training)" for p in held)]


def dataset_notes(change: Change) -> list[str]:
    """With --dataset: the dataset the changed files were judged with."""
    data = change.data
    if not data.run.options.dataset:
        return []
    train, held = data.train, data.validation

    def files(n: int, what: str) -> str:
        return f"{n:,} {what} file{'s' if n != 1 else ''}"

    said = f"{files(len(train.files), 'training')} ({train.records:,} records)"
    if held is not None:
        said += f", {files(len(held.files), 'validation')} ({held.records:,} records)"
    return [f"judged with the repository's dataset: {said}; --no-dataset judges the files given alone"]


def refuse_folders(paths: tuple[str, ...]) -> None:
    """A folder that is no dataset is one line before the run, never a summary of 0 files first."""
    from ..read.source import InputError, refuse_folder

    for path in paths:
        try:
            refuse_folder(path)
        except InputError as exc:
            raise UsageFailure(str(exc)) from None


def held_out(run: RunOptions, by_name: bool) -> RunOptions:
    """The run with its held-out files apart from its training files: the --validation file (a
    glob or a hook may pass it as a training path too), and, `by_name`, the files named as splits."""
    from ..splits import split_by_name

    given = os.path.normpath(run.validation) if run.validation else None
    paths = tuple(p for p in run.paths if os.path.normpath(p) != given)
    train, held = split_by_name(paths) if by_name else (paths, ())
    return dataclasses.replace(run, paths=train, held_out=held)


COMMANDS = (check,)

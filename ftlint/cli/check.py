"""`ftlint check`: the door. Flags -> RunOptions -> resolve_run -> app.analyse_data, its findings
streamed to a reporter (through a baseline, when given) -> the exit code."""

from __future__ import annotations

import dataclasses
import os
import sys
from typing import TYPE_CHECKING, Any

import click

from ..diagnostics import ERROR, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, WARNING
from . import options as opt
from .common import base_selection, config_notes, for_workers, inputs, or_fail, say_io_errors, say_run_notes
from .errors import UsageFailure

if TYPE_CHECKING:
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
def check(paths: tuple[str, ...], output_file: str | None, output_format: str, max_errors: int | None, fail_on: str,
          baseline: str | None, split_by_name: bool, **params: Any) -> None:
    """Report every record the provider would reject, and why.

    One line per finding: path:line:col: CODE message ($.json.path). PATH may be '-' for
    standard input; .gz files are read transparently.
    """
    from ..app import analyse_data
    from ..baseline import Baseline, BaselineError
    from ..report import CHECK_REPORTERS
    from ..report.escape import shown_path
    from ..resolve import resolve_run
    from .io import OutputRefused, destination, expand, progress_for

    run = or_fail(lambda: held_out(for_workers(opt.with_run(opt.run_options(params, expand(paths), base_selection(),
                                                                           bound_tokens=True))[0]), split_by_name))
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
            reporter.notes = config_notes("check") + [f"{shown_path(p)}: judged as validation (named as a held-out split; "
                                                     "--no-split-by-name judges it as training)" for p in run.held_out]
            reporter.start()
            emit = known.filter(reporter.diagnostic) if known else reporter  # a reporter takes runs of findings too
            try:
                data = or_fail(lambda: analyse_data(resolve_run(run), emit, progress))
            finally:
                if progress:
                    progress.clear()
            reporter.finish(data.train.files + (data.validation.files if data.validation else []))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    if known and known.suppressed and output_format == "text":
        click.echo(f"{known.suppressed:,} known finding(s) in the baseline {baseline} not shown", err=True)
    say_io_errors(data.io_errors)
    counts = {sev: sum(n for (s, _), n in reporter.by_code.items() if s == sev) for sev in (ERROR, WARNING)}
    failing = counts[ERROR] + (counts[WARNING] if fail_on == WARNING else 0)
    if data.io_errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


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

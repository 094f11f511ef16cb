"""`ftlint check`: the door. Flags -> RunOptions -> app.analyse_data, its findings streamed to a
reporter (through a baseline, when given) -> the exit code."""

from __future__ import annotations

import sys
from typing import Any

import click

from ..diagnostics import ERROR, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, WARNING
from . import options as opt
from .common import base_selection, config_notes, for_workers, inputs, or_fail, say_io_errors, say_run_notes
from .errors import UsageFailure


@click.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.TRUNCATION)
@opt.apply(opt.output_options())
@opt.MAX_ERRORS
@opt.FAIL_ON
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE", help="Findings listed in FILE (the output of `check -o json`) are known: not shown, not failing.")
def check(paths: tuple[str, ...], output_file: str | None, output_format: str, max_errors: int | None, fail_on: str,
          baseline: str | None, **params: Any) -> None:
    """Report every record the provider would reject, and why.

    One line per finding: path:line:col: CODE message ($.json.path). PATH may be '-' for
    standard input; .gz files are read transparently.
    """
    from ..app import analyse_data
    from ..baseline import Baseline, BaselineError
    from ..report import CHECK_REPORTERS
    from .io import OutputRefused, destination, expand, progress_for

    run = or_fail(lambda: for_workers(opt.with_run(opt.run_options(params, expand(paths), base_selection(), bound_tokens=True))[0]))
    say_run_notes(run.run, run.run_notes)
    try:
        known = Baseline.load(baseline) if baseline else None
    except BaselineError as exc:
        raise UsageFailure(str(exc)) from None
    progress = progress_for(inputs(run.paths, run.validation))
    try:
        with destination(output_file, inputs(run.paths, run.validation)) as out:
            reporter = CHECK_REPORTERS[output_format](out, max_errors)
            reporter.notes = config_notes("check")
            reporter.start()
            emit = known.filter(reporter.diagnostic) if known else reporter.diagnostic
            try:
                data = or_fail(analyse_data, run, emit, progress)
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


COMMANDS = (check,)

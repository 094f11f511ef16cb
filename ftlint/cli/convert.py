"""`ftlint convert PATH OUT --to FORMAT`: the door. Flags -> ConvertOptions -> app.convert_file,
its findings streamed to a reporter as check's are (every output format, --select, --ignore,
--max-errors) -> the summary of every line read -> the exit code."""

from __future__ import annotations

import click

from ..convert import TARGETS
from . import options as opt
from .common import base_selection, exit_with, or_fail
from .errors import UsageFailure


@click.command()
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=False, readable=False))
@click.argument("out", type=click.Path(dir_okay=False))
@click.option("--to", "target", required=True, type=click.Choice(sorted(TARGETS)), help="The format to write.")
@click.option("--format", "source", default="auto", show_default=True, metavar="NAME", help="The input's format (auto: detected).")
@click.option("--drop-invalid", is_flag=True, help="Leave out records with errors (the target's rules, a duplicate key), and exit 0 for what is left out (a line holding no record, a record the target cannot hold: never written).")
@opt.apply(opt.output_options())
@opt.MAX_ERRORS
@opt.apply(opt.SELECTION)
def convert(path: str, out: str, target: str, source: str, drop_invalid: bool, output_file: str | None, output_format: str,
            max_errors: int | None, select: tuple[str, ...], ignore: tuple[str, ...]) -> None:
    """Convert PATH (JSONL, Parquet, Arrow, a JSON array) from one chat format to another, into
    OUT: JSONL, or Parquet if OUT ends in .parquet (written atomically, never over an input).

    What the target cannot hold is reported (FT801), records it cannot hold at all (FT802) and
    records its own rules reject are reported with their codes; the exit code is 1 if any of them
    is written or left out without --drop-invalid, or a line holds no record (FT001, FT002, ...).
    The last line accounts for every line read: records written, left out (and why), blank.
    """
    from ..app import convert_file
    from ..options import ConvertOptions
    from ..report import CHECK_REPORTERS
    from ..selection import Selection
    from .io import OutputRefused, check_target, destination

    base = base_selection()
    options = ConvertOptions(path, out, target, source, drop_invalid, Selection(select, ignore, base.per_file, base.base_dir))
    try:
        check_target(out, (path,), "OUT")
        with destination(output_file, (path, out)) as stream:
            reporter = CHECK_REPORTERS[output_format](stream, max_errors)
            reporter.title = "ftlint convert"
            reporter.start()
            done = or_fail(convert_file, options, reporter.diagnostic)
            reporter.headline = done.summary
            reporter.finish([])
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    exit_with(done.tally.failing)


COMMANDS = (convert,)

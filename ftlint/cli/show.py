"""`ftlint show FILE:LINE`: the door. Flags (estimate's judging options, --run, --max-seq-len) ->
RunOptions -> show.show -> a renderer of report/show.py -> the exit code: 0 shown, 1 the line has
an error (its findings shown: the trainer never sees it), 2 no record there (one line)."""

from __future__ import annotations

import sys
from typing import Any

import click

from . import options as opt
from .common import base_selection, exit_with, or_fail, say_run_notes
from .errors import UsageFailure


@click.command()
@click.argument("target", metavar="FILE:LINE")
@opt.apply([*opt.JUDGING, opt.INPUTS[-2]])  # and --run
@opt.apply(opt.TRUNCATION)
@click.option("-o", "--output-format", type=click.Choice(("text", "markdown", "json")), default="text", show_default=True)
@click.option("--max-chars", type=opt.Count(0), default=2000, show_default=True, metavar="N",
              help="Show a longer part of the text by its start and end (0: whole); its tokens are counted whole.")
def show(target: str, output_format: str, max_chars: int, **params: Any) -> None:
    """One record as the trainer will see it: the rendered text (or the parts ftlint's token
    convention counts) with the trained spans marked, the cut at the max length, and the tokens
    of each part, under the same options as estimate (--model, --trainer, --run, --chat-template,
    --max-seq-len, ...).

    FILE:LINE as findings name a record (a JSON array's: any line of its element). Exit 0 shown;
    1 the line has an error (its findings are shown: the trainer never trains it); 2 no record there.
    """
    from ..report.check import use_color
    from ..report.show import render_json, render_markdown, render_text
    from ..show import show as shown_of
    from ..show.target import parse_target

    path, line = or_fail(parse_target, target)
    run = or_fail(lambda: opt.with_run(opt.run_options(params, (path,), base_selection(), dataset_rules=False))[0])
    say_run_notes(run.run, run.run_notes)
    if run.paths != (path,):
        raise UsageFailure(f"{target}: show reads one file, the one FILE:LINE names")
    shown = or_fail(shown_of, run, line)
    if output_format == "json":
        out = render_json(shown)
    elif output_format == "markdown":
        out = render_markdown(shown, max_chars)
    else:
        out = render_text(shown, max_chars, use_color(sys.stdout))
    click.echo(out, nl=False, color=output_format == "text" and use_color(sys.stdout))
    exit_with(bool(shown.rejected))


COMMANDS = (show,)

"""`ftlint diff BASE HEAD`: the door. Two files or git revisions of one -> diff.run_diff (the
pipeline and plan of check and estimate, on both sides) -> a renderer -> exit 1 when HEAD brings
a new error."""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from ..diagnostics import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE
from . import options as opt
from .common import base_selection, or_fail, say_io_errors
from .errors import UsageFailure


@click.command()
@click.argument("base")
@click.argument("head")
@opt.apply(opt.JUDGING)
@opt.apply(opt.PLAN)
@opt.apply(opt.output_options(("text", "json", "markdown")))
def diff(base: str, head: str, output_format: str, output_file: str | None, **params: Any) -> None:
    """What a data change does: records added, removed and changed, findings new in HEAD,
    and the change in tokens and cost.

    BASE and HEAD are files, or git revisions of one as REV:PATH (e.g. origin/main:data/train.jsonl;
    git reads PATH from the repository root, or from here with REV:./PATH). A BASE revision that
    has no such file (a repository's first data pull request) is an empty side: every record is
    added. Exit 1 when HEAD brings a new error.
    """
    from ..diff import DiffInputError, run_diff
    from ..report.diff import DIFF_RENDERERS
    from .io import OutputRefused, destination

    run = opt.run_options(params, (), base_selection(), prompts=True)
    plan_opts = opt.plan_options(params)
    try:
        outcome = or_fail(run_diff, base, head, run, plan_opts)
    except DiffInputError as exc:
        raise UsageFailure(str(exc)) from None
    if outcome.io_errors:
        say_io_errors(outcome.io_errors)
        sys.exit(EXIT_USAGE)
    try:
        with destination(output_file, tuple(p for p in (base, head) if os.path.exists(p))) as out:
            out.write(DIFF_RENDERERS[output_format](outcome))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    sys.exit(EXIT_FINDINGS if outcome.failing else EXIT_OK)


COMMANDS = (diff,)

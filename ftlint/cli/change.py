"""A change judged in one reading (the GitHub Action, ftlint/action.py): `check` and `estimate`'s
options parsed from their arguments and the configuration as their doors parse them, then one
judge_change (ftlint/change.py) whose findings go to two reporters at once (the annotations and
the Markdown summary), with the diff against the base and the estimate of the dataset after the
change. What cannot be judged is said as ftlint's error output, never raised."""

from __future__ import annotations

import io
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..change import Change
    from ..diagnostics import Diagnostic
    from ..report.check import Reporter
    from .config import Config


@dataclass
class Judged:
    """What the one reading gave: the change, the check's two reports, and what failed."""

    change: Change | None = None
    annotations: str = ""  # `check -o github`'s output
    check: str = ""  # `check -o markdown`'s
    errors: int = 0  # error annotations
    failing: bool = False  # a finding at --fail-on's severity
    failure: list[str] = field(default_factory=list)  # ftlint's error output (what exit 2 would say)


class _Tee:
    """Each finding to both reporters (a run of findings as a run)."""

    def __init__(self, *reporters: Reporter) -> None:
        self.reporters = reporters

    def __call__(self, d: Diagnostic) -> None:
        for reporter in self.reporters:
            reporter.diagnostic(d)

    def run(self, d: Diagnostic, last: int) -> None:
        for reporter in self.reporters:
            reporter.run(d, last)


def judge_in_one_process(checking: list[str], estimating: list[str], withheld: Sequence[str], base: str | None,
                         head_name: str) -> Judged:
    """`check CHECKING` and `estimate ESTIMATING`'s options (`withheld`: the configuration keys
    --not-from-config leaves to them), judged as one change against the commit `base`."""
    import click

    from ..errors import UsageError
    from . import read_config
    from .common import config_notes
    from .errors import UsageFailure

    judged = Judged()
    try:
        config = read_config(None, (",".join(withheld),))
        from ..report.escape import path_text

        for note in config_notes("check", config):
            print(f"ftlint: note: {path_text(note)}", file=sys.stderr)
        _judge(checking, estimating, base, head_name, config, judged)
    except UsageError as exc:
        judged.failure = [f"ftlint: error: {exc}"]
    except UsageFailure as exc:
        judged.failure = [f"ftlint: error: {exc.format_message()}"]
    except click.ClickException as exc:  # a flag's value refused, as click says it
        judged.failure = [f"Error: {exc.format_message()}"]
    return judged


def _judge(checking: list[str], estimating: list[str], base: str | None, head_name: str, config: Config, judged: Judged) -> None:
    import dataclasses

    from ..change import judge_change
    from ..report import CHECK_REPORTERS
    from . import command_context
    from . import options as opt
    from .check import dataset_notes, notes_of, options_of
    from .common import config_notes, or_fail, reported_failing

    with command_context("check", checking, config) as ctx:
        params = dict(ctx.params)
        fail_on = params.pop("fail_on")
        run, lay = or_fail(options_of, tuple(params.pop("paths")), params.pop("split_by_name"), params, base)
        notes = config_notes("check") + notes_of(run, lay)
    with command_context("estimate", estimating, config) as ctx:
        plan = opt.plan_options(dict(ctx.params))
        if run.run is not None:  # the run config's epochs, batches and lengths where estimate's flags give none
            plan = or_fail(lambda: opt.with_run(dataclasses.replace(run, paths=("-",)), plan)[1]) or plan
    github, markdown = io.StringIO(), io.StringIO()
    annotating, summarising = CHECK_REPORTERS["github"](github, None), CHECK_REPORTERS["markdown"](markdown, None)
    for reporter in (annotating, summarising):
        reporter.notes = list(notes)
        reporter.start()
    change = or_fail(lambda: judge_change(run, lay, _Tee(annotating, summarising), plan, head_name=head_name))
    for reporter in (annotating, summarising):
        reporter.notes += dataset_notes(change)
        reporter.finish(change.checked)
    judged.change, judged.annotations, judged.check = change, github.getvalue(), markdown.getvalue()
    judged.errors = sum(line.startswith("::error ") for line in judged.annotations.splitlines())
    judged.failing = reported_failing(annotating.by_code, fail_on)
    if change.data.io_errors:
        judged.failure = [f"ftlint: error: {e}" for e in change.data.io_errors]

"""`ftlint diff BASE HEAD` (or `--rev REV PATH...`): the door. Files or git revisions of one ->
diff.run_diff (the pipeline and plan of check and estimate, on both sides) -> a renderer -> exit
1 when HEAD brings a new error."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING, Any, NoReturn

import click
from click.core import ParameterSource

from . import options as opt
from .common import base_selection, exit_with, or_fail, say_run_notes
from .errors import UsageFailure

if TYPE_CHECKING:
    from ..diff import DiffResult
    from ..options import PlanOptions, RunOptions


@click.command()
@click.argument("specs", nargs=-1, metavar="BASE HEAD | PATH...")
@click.option("--rev", metavar="REV", help="Compare each PATH with its version in the git revision REV (REV:./PATH): one report per PATH, in one run.")
@opt.apply(opt.JUDGING)
@opt.RUN
@opt.apply(opt.PLAN)
@opt.apply(opt.output_options(("text", "json", "markdown")))
@opt.apply(opt.DATASET)
@opt.VALIDATION
def diff(specs: tuple[str, ...], rev: str | None, output_format: str, output_file: str | None, dataset: bool,
         dataset_paths: tuple[str, ...], **params: Any) -> None:
    """What a data change does: records added, removed and changed, findings new in HEAD,
    and the change in tokens and cost.

    BASE and HEAD are files, or git revisions of one as REV:PATH (e.g. origin/main:data/train.jsonl;
    git reads PATH from the repository root, or from here with REV:./PATH). With --rev REV, each
    PATH is compared with its version in REV, one report after another (-o json: a list). A base
    revision that has no such file (a repository's first data pull request) is an empty side:
    every record is added. With --dataset --rev REV, one report: the repository's dataset in REV
    against the working tree, its training and validation sets apart. Exit 1 when HEAD brings a
    new error; 2 when a side cannot be read (the other reports are still written).
    """
    from ..diff import DiffInputError, run_diff
    from ..report.diff import DIFF_RENDERERS, render_all
    from .io import OutputRefused, destination

    if dataset:
        _dataset_diff(specs, rev, dataset_paths, output_format, output_file, params)
    validation = params.pop("validation", None)
    if validation is not None and click.get_current_context().get_parameter_source("validation") == ParameterSource.COMMANDLINE:
        raise UsageFailure("--validation: with --dataset only (a diff of two files has no validation set)")
    pairs = _pairs(specs, rev)
    run = opt.run_options(params, (), base_selection(), prompts=True)
    plan_opts = opt.plan_options(params)
    outcomes: list[DiffResult] = []
    errors: list[str] = []
    notes: tuple[str | None, tuple[str, ...]] = (None, ())
    for base, head in pairs:
        side_run, side_plan = _with_run(run, plan_opts, head)
        notes = (side_run.run, side_run.run_notes)
        try:
            outcome = or_fail(run_diff, base, head, side_run, side_plan, rev)
        except DiffInputError as exc:
            errors.append(str(exc))
            continue
        errors += outcome.io_errors
        if not outcome.io_errors:
            outcomes.append(outcome)
    say_run_notes(*notes)
    if outcomes:
        try:
            with destination(output_file, tuple(p for p in (specs if rev else pairs[0]) if os.path.exists(p))) as out:
                out.write(render_all(outcomes, output_format) if rev is not None else DIFF_RENDERERS[output_format](outcomes[0]))
        except OutputRefused as exc:
            raise UsageFailure(str(exc)) from None
    exit_with(any(o.failing for o in outcomes), errors)


def _dataset_diff(specs: tuple[str, ...], rev: str | None, globs: tuple[str, ...], output_format: str, output_file: str | None,
                  params: dict[str, Any]) -> NoReturn:
    """`diff --dataset --rev REV`: the repository's dataset in REV against the working tree, one report."""
    from ..change import judge_change, layout
    from ..errors import UsageError
    from ..report.change import DATASET_DIFF_RENDERERS
    from ..repository import RepositoryError, commit
    from .io import OutputRefused, destination

    if rev is None:
        raise UsageFailure("--dataset: give --rev REV, the revision to compare the dataset with")
    if specs:
        raise UsageFailure("--dataset: the change is what differs from REV in git; give no PATH")
    run = opt.run_options(params, (), base_selection(), prompts=True)
    plan = opt.plan_options(params)

    def changed() -> Any:
        applied, applied_plan = opt.with_run(dataclasses.replace(run, paths=("-",)), plan) if run.run else (run, plan)
        assert applied_plan is not None
        try:
            commit(rev)
            lay = layout(globs, applied.validation, True, None, rev)
        except RepositoryError as exc:
            raise UsageError(str(exc)) from None
        return judge_change(dataclasses.replace(applied, paths=()), lay, lambda d: None, applied_plan)

    change = or_fail(changed)
    say_run_notes(run.run, run.run_notes)
    assert change.diff is not None
    try:
        with destination(output_file, change.layout.head.files) as out:
            out.write(DATASET_DIFF_RENDERERS[output_format](change.diff))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    exit_with(change.diff.failing, change.data.io_errors)


def _pairs(specs: tuple[str, ...], rev: str | None) -> list[tuple[str, str]]:
    """(BASE, HEAD) of each report: the two specs, or each PATH with itself (its base from --rev)."""
    if rev is not None:
        if not specs:
            raise UsageFailure("--rev REV: give the PATHs to compare with their versions in REV")
        return [(path, path) for path in specs]
    if len(specs) != 2:
        raise UsageFailure(f"give BASE and HEAD (got {len(specs)} argument(s)), or --rev REV and PATHs")
    return [(specs[0], specs[1])]


def _with_run(run: RunOptions, plan: PlanOptions, head: str) -> tuple[RunOptions, PlanOptions]:
    """--run's model, trainer, lengths and batches where no flag gives them, as estimate takes
    them; its datasets and validation file are not this diff's sides."""
    if run.run is None:
        return run, plan
    applied, applied_plan = or_fail(opt.with_run, dataclasses.replace(run, paths=(head,)), plan)
    assert applied_plan is not None
    return dataclasses.replace(applied, validation=None), applied_plan


COMMANDS = (diff,)

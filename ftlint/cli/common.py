"""What the commands' doors share: the configuration's selection and notes, a use case's usage
errors as exit 2, the paths a run reads, and how an exit code follows from findings."""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import TYPE_CHECKING, Any, NoReturn, TypeVar

import click

from ..diagnostics import EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, fails
from ..errors import UsageError
from ..selection import Selection
from .config import Config
from .errors import UsageFailure

if TYPE_CHECKING:
    from ..diagnostics import Diagnostic
    from ..options import RunOptions

T = TypeVar("T")


def config() -> Config:
    """The configuration the group read (an empty one without a file, or with --no-config)."""
    return click.get_current_context().find_object(Config) or Config()


def base_selection() -> Selection:
    found = config()
    return Selection(per_file=found.per_file_ignores, base_dir=found.base_dir)


def config_notes(command: str, found: Config | None = None) -> list[str]:
    """What the configuration file switches off for `command` (a weakened gate is always said)."""
    found = found or config()
    if found.path is None:
        return []
    from ..report.escape import shown_path

    return [f"{shown_path(str(found.path))}: {n}" for n in found.notes
            if n.startswith(f"{command}:") or n.startswith("files matching")] + \
        [f"{shown_path(str(found.path))}: {n}" for n in found.withheld]


def inputs(run: RunOptions) -> tuple[str, ...]:
    """Every file a run reads: its training files, then its validation files."""
    return run.paths + run.validation_files


def or_fail(func: Callable[..., T], *args: Any) -> T:
    """Run a use case; its usage errors are exit 2, one line."""
    try:
        return func(*args)
    except UsageError as exc:
        raise UsageFailure(str(exc)) from None


def for_workers(run: RunOptions) -> RunOptions:
    """A run that reads a Parquet or Arrow file beside worker processes: polars, in the main
    process, decodes with one thread (the workers have the cores; measured on 300,000 ShareGPT
    rows: 11 MiB lower peak and no slower). Before polars loads; a user's own setting wins. A
    repository's dataset (--dataset) is known by its names, so no file is opened twice."""
    if run.jobs != 1 and "polars" not in sys.modules:
        from ..engine.pipeline import reads_tables

        tables = any(p.endswith((".parquet", ".arrow")) for p in inputs(run)) if run.dataset else reads_tables(list(inputs(run)))
        if tables:
            os.environ.setdefault("POLARS_MAX_THREADS", "1")
    return run


def say_run_notes(path: str | None, notes: tuple[str, ...]) -> None:
    """What the run config says that ftlint does not model (estimate's report lists them too)."""
    from ..report.escape import path_text

    for note in notes:
        click.echo(f"ftlint: note: {path_text(f'{path}: {note}')}", err=True)


def say_io_errors(messages: list[str]) -> None:
    from ..report.escape import path_text

    for message in messages:
        click.echo(f"ftlint: error: {path_text(message)}", err=True)


def failing(findings: Iterable[Diagnostic], fail_on: str) -> bool:
    return fails((d.severity for d in findings), fail_on)


def reported_failing(by_code: Mapping[tuple[str, str], int], fail_on: str) -> bool:
    """A reporter's count of the findings it was given (severity, code -> how many), by --fail-on's rule."""
    return fails((severity for (severity, _), n in by_code.items() if n), fail_on)


def exit_with(failing: bool, io_errors: Sequence[str] = ()) -> NoReturn:
    """The exit code of a command that ran: 2 after an input it could not read (each said on
    stderr), else 1 when something fails, else 0."""
    if io_errors:
        say_io_errors(list(io_errors))
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)

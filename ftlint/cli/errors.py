"""The CLI's one kind of failure: one line on standard error and exit 2. Its own module, so that
each file of commands raises it without importing the group (which imports the commands)."""

from __future__ import annotations

from typing import IO, Any

import click

from ..diagnostics import EXIT_USAGE


class UsageFailure(click.ClickException):
    """A one-line error with exit 2 (usage, configuration or I/O)."""

    exit_code = EXIT_USAGE

    def show(self, file: IO[Any] | None = None) -> None:
        from ..report.escape import path_text  # when failing: escaping costs start-up about 3 ms

        click.echo(f"ftlint: error: {path_text(self.format_message())}", err=True)

"""Command line: the group (its configuration, read once) and the console entry point. Each
command is a thin door in a module of its group: check.py, plan.py (estimate, plan, review),
diff.py, convert.py, catalog.py (rules, formats, models): flags (and configuration) -> frozen
options -> a use case (ftlint/app.py) -> a reporter -> the exit code. Heavy imports stay inside
commands, so `ftlint --help` is instant."""

from __future__ import annotations

import os
import sys
from typing import NoReturn

import click

from .. import __version__, interrupt
from ..diagnostics import EXIT_OK, EXIT_USAGE
from . import catalog, check, convert, diff, plan, show
from .common import config_notes
from .config import Config
from .errors import UsageFailure


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="ftlint")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Read settings from FILE (an ftlint.toml, or a pyproject.toml with [tool.ftlint]) instead of searching for one.")
@click.option("--no-config", is_flag=True, help="Ignore configuration files.")
@click.option("--not-from-config", "withheld", multiple=True, metavar="KEYS",
              help="Configuration keys (comma-separated) to take from the command line and the defaults only: a value the "
                   "file sets for one is said, not used (the GitHub Action so keeps model, trainer, price and run to the workflow).")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, no_config: bool, withheld: tuple[str, ...]) -> None:
    """Preflight linter for fine-tuning datasets (JSONL, Parquet, Arrow, JSON arrays).

    \b
    ftlint check data.jsonl            which records the provider would reject, and why
    ftlint estimate data.jsonl -e 3    records, tokens, steps and cost of a run
    ftlint plan / review               a tuning study before; the best step after
    ftlint diff OLD NEW                what a data change does (files or REV:PATH)
    ftlint show FILE:LINE              one record as the trainer sees it: text, marks, cut
    ftlint convert IN OUT --to FORMAT  between formats, every line accounted for
    ftlint formats / rules / models    formats, codes, models with their sources

    Exit codes: 0 nothing failing, 1 findings, 2 usage or I/O error, 130/143 interrupted.
    Settings: ftlint.toml or [tool.ftlint] in pyproject.toml, found upwards from here.
    """
    from . import config as cfg

    ctx.obj = cfg.Config() if no_config else read_config(config_path, withheld)
    if ctx.obj.path is not None:
        ctx.default_map = ctx.obj.default_map
        from ..report.escape import path_text

        for note in config_notes(str(ctx.invoked_subcommand), ctx.obj):
            click.echo(f"ftlint: note: {path_text(note)}", err=True)


def read_config(config_path: str | None, withheld: tuple[str, ...]) -> Config:
    """The configuration (--config FILE, else found upwards from here), `withheld` keys said and not used."""
    from pathlib import Path

    from . import config as cfg

    sections = {name: cmd for name, cmd in cli.commands.items() if name in cfg.SECTIONS}
    keys = frozenset(k.strip() for value in withheld for k in value.split(",") if k.strip())
    unknown = sorted(keys - cfg.known_keys(sections))
    if unknown:
        raise UsageFailure(f"--not-from-config: {', '.join(map(repr, unknown))}: no such configuration key")
    try:
        found = cfg.load_explicit(Path(config_path)) if config_path else cfg.find(Path.cwd())
        return cfg.build(found[0], found[1], sections, explicit=config_path is not None, withheld=keys) if found else cfg.Config()
    except cfg.ConfigError as exc:
        raise UsageFailure(str(exc)) from None


def command_context(name: str, args: list[str], config: Config) -> click.Context:
    """A command's context, its parameters parsed from `args` and the configuration as its door
    gets them (the GitHub Action judges in one process: ftlint/action.py). Enter it before use."""
    command = cli.commands[name]
    return command.make_context(name, args, default_map=config.default_map.get(name), obj=config)


# each group of commands is a module of doors: parse, call a use case, pick a reporter, exit
for module in (check, plan, diff, convert, catalog, show):
    for command in module.COMMANDS:
        cli.add_command(command)


def main() -> NoReturn:
    """The console entry point. Exit codes: 0 nothing failing, 1 findings, 2 usage or I/O
    error, 130 interrupted (Ctrl-C), 143 terminated (SIGTERM)."""
    interrupt.install()
    # polars' allocator (jemalloc) keeps freed pages for reuse; returned at once, reading a
    # Parquet file's row groups one after another peaks 35-40 MiB lower. Before polars loads; a
    # user's own setting wins. (Only the CLI: the Python API leaves a caller's process alone.)
    os.environ.setdefault("_RJEM_MALLOC_CONF", "dirty_decay_ms:0,muzzy_decay_ms:0")
    if sys.stderr is None:  # started with standard error closed: errors go nowhere, as asked
        sys.stderr = open(os.devnull, "w")  # noqa: SIM115
    try:
        code = cli.main(prog_name="ftlint", standalone_mode=False)
    except click.exceptions.Exit as exc:
        _flush_or_exit(exc.exit_code)
    except click.ClickException as exc:
        exc.show()
        _flush_or_exit(EXIT_USAGE)
    except SystemExit as exc:
        _flush_or_exit(exc.code if isinstance(exc.code, int) else EXIT_USAGE)
    except (KeyboardInterrupt, click.exceptions.Abort):
        _quiet_exit("interrupted", 130)
    except interrupt.Terminated:
        _quiet_exit("terminated", 143)
    except BrokenPipeError:
        _quiet_exit(None, EXIT_USAGE)
    except OSError as exc:
        if exc.errno is not None and exc.filename is None:  # stdout or stdin closed or full
            _quiet_exit(f"cannot write the report: {exc.strerror or exc}", EXIT_USAGE)
        raise
    except Exception as exc:  # never a traceback for users; FTLINT_DEBUG=1 shows it
        if os.environ.get("FTLINT_DEBUG"):
            raise
        from ..report.escape import terminal_safe
        from ..tokens import TokenizerError

        kind = "error" if isinstance(exc, TokenizerError) else "internal error (please report)"
        _quiet_exit(f"{kind}: {type(exc).__name__}: {terminal_safe(str(exc))}", EXIT_USAGE)
    _flush_or_exit(code if isinstance(code, int) else EXIT_OK)


def _flush_or_exit(code: int) -> NoReturn:
    """Exit with `code` once standard output is flushed; an output that cannot take the report
    (closed, a full disk) is exit 2 with one line, never a traceback."""
    try:
        if sys.stdout is not None:
            sys.stdout.flush()
    except (BrokenPipeError, OSError) as exc:
        message = None if isinstance(exc, BrokenPipeError) else f"cannot write the report: {exc.strerror or exc}"
        _quiet_exit(message, EXIT_USAGE)
    sys.exit(code)


def _quiet_exit(message: str | None, code: int) -> NoReturn:
    """Exit at once: a message on stderr if it can take one, and no flushing of a broken stdout."""
    if message:
        try:
            sys.stderr.write(f"ftlint: {message}\n")
            sys.stderr.flush()
        except (OSError, ValueError):
            pass
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # whatever is buffered for a broken stdout is dropped
    except (OSError, ValueError, AttributeError):
        pass
    if code in (130, 143):
        _stop_ray()
        os._exit(code)  # interrupted: temporary files went while unwinding; nothing is left to flush
    sys.exit(code)


def _stop_ray() -> None:
    """An interrupted --engine ray run: Ray's shutdown, which os._exit would skip (ftlint/engine/ray.py `stop`)."""
    on_ray = sys.modules.get("ftlint.engine.ray")
    if on_ray is not None:
        import contextlib

        with contextlib.suppress(BaseException):  # a second signal while Ray shuts down: exit all the same
            on_ray.stop()

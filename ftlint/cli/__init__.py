"""Command line: flags (and configuration) -> frozen options -> a use case (ftlint/app.py) ->
a reporter -> the exit code. Heavy imports stay inside commands, so `ftlint --help` is instant."""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any, NoReturn

import click

from .. import __version__, interrupt
from ..diagnostics import ERROR, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, WARNING
from ..selection import Selection
from . import catalog
from . import options as opt
from .errors import UsageFailure

if TYPE_CHECKING:
    from ..convert import Tally
    from ..options import RunOptions


def _config() -> Any:
    from .config import Config

    return click.get_current_context().find_object(Config) or Config()


def _base_selection() -> Selection:
    config = _config()
    return Selection(per_file=config.per_file_ignores, base_dir=config.base_dir)


def _config_notes(command: str) -> list[str]:
    return _config_notes_of(_config(), command)


def _config_notes_of(config: Any, command: str) -> list[str]:
    """What the configuration file switches off for `command` (a weakened gate is always said)."""
    if config.path is None:
        return []
    from ..report.escape import shown_path

    return [f"{shown_path(str(config.path))}: {n}" for n in config.notes
            if n.startswith(f"{command}:") or n.startswith("files matching")]


def _inputs(paths: tuple[str, ...], validation: str | None) -> tuple[str, ...]:
    return paths + ((validation,) if validation else ())


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, "-V", "--version", prog_name="ftlint")
@click.option("--config", "config_path", type=click.Path(dir_okay=False), metavar="FILE",
              help="Read settings from FILE (an ftlint.toml, or a pyproject.toml with [tool.ftlint]) instead of searching for one.")
@click.option("--no-config", is_flag=True, help="Ignore configuration files.")
@click.pass_context
def cli(ctx: click.Context, config_path: str | None, no_config: bool) -> None:
    """Preflight linter for fine-tuning datasets (JSONL).

    \b
    ftlint check data.jsonl            which records the provider would reject, and why
    ftlint estimate data.jsonl -e 3    records, tokens, steps and cost of a run
    ftlint plan / review               a tuning study before; the best step after
    ftlint diff OLD NEW                what a data change does (files or REV:PATH)
    ftlint formats / rules / models    formats, codes, models with their sources

    Exit codes: 0 nothing failing, 1 findings, 2 usage or I/O error, 130/143 interrupted.
    Settings: ftlint.toml or [tool.ftlint] in pyproject.toml, found upwards from here.
    """
    from pathlib import Path

    from . import config as cfg

    ctx.obj = cfg.Config()
    if no_config:
        return
    try:
        found = cfg.load_explicit(Path(config_path)) if config_path else cfg.find(Path.cwd())
        if found:
            ctx.obj = cfg.build(found[0], found[1], {name: cmd for name, cmd in cli.commands.items() if name in cfg.SECTIONS},
                                explicit=config_path is not None)
            ctx.default_map = ctx.obj.default_map
            from ..report.escape import path_text

            for note in _config_notes_of(ctx.obj, str(ctx.invoked_subcommand)):
                click.echo(f"ftlint: note: {path_text(note)}", err=True)
    except cfg.ConfigError as exc:
        raise UsageFailure(str(exc)) from None


for command in catalog.COMMANDS:  # rules, formats, models: ftlint/cli/catalog.py
    cli.add_command(command)


def _analyse_or_fail(func: Any, *args: Any) -> Any:
    """Run a use case; its usage errors are exit 2, one line."""
    from ..app import UsageError

    try:
        return func(*args)
    except UsageError as exc:
        raise UsageFailure(str(exc)) from None


def _for_workers(run: RunOptions) -> RunOptions:
    """A run that reads a Parquet or Arrow file beside worker processes: polars, in the main
    process, decodes with one thread (the workers have the cores; measured on 300,000 ShareGPT
    rows: 11 MiB lower peak and no slower). Before polars loads; a user's own setting wins."""
    if run.jobs != 1 and "polars" not in sys.modules:
        from ..engine.pipeline import reads_tables

        if reads_tables([*run.paths, *([run.validation] if run.validation else [])]):
            os.environ.setdefault("POLARS_MAX_THREADS", "1")
    return run


def _io_errors(messages: list[str]) -> None:
    from ..report.escape import path_text

    for message in messages:
        click.echo(f"ftlint: error: {path_text(message)}", err=True)


@cli.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.TRUNCATION)
@opt.apply(opt.output_options())
@click.option("--max-errors", type=opt.Count(0), metavar="N", help="Show at most N findings (all are still counted for the exit code).")
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

    run = _analyse_or_fail(lambda: _for_workers(opt.run_options(params, expand(paths), _base_selection(), bound_tokens=True)))
    try:
        known = Baseline.load(baseline) if baseline else None
    except BaselineError as exc:
        raise UsageFailure(str(exc)) from None
    progress = progress_for(_inputs(run.paths, run.validation))
    try:
        with destination(output_file, _inputs(run.paths, run.validation)) as out:
            reporter = CHECK_REPORTERS[output_format](out, max_errors)
            reporter.notes = _config_notes("check")
            reporter.start()
            emit = known.filter(reporter.diagnostic) if known else reporter.diagnostic
            try:
                data = _analyse_or_fail(analyse_data, run, emit, progress)
            finally:
                if progress:
                    progress.clear()
            reporter.finish(data.train.files + (data.validation.files if data.validation else []))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    if known and known.suppressed and output_format == "text":
        click.echo(f"{known.suppressed:,} known finding(s) in the baseline {baseline} not shown", err=True)
    _io_errors(data.io_errors)
    counts = {sev: sum(n for (s, _), n in reporter.by_code.items() if s == sev) for sev in (ERROR, WARNING)}
    failing = counts[ERROR] + (counts[WARNING] if fail_on == WARNING else 0)
    if data.io_errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


def _estimate(paths: tuple[str, ...], params: dict[str, Any]) -> Any:
    from ..app import run_estimate
    from .io import expand, progress_for

    run = _analyse_or_fail(lambda: _for_workers(opt.run_options(params, expand(paths), _base_selection(),
                                                                dataset_rules=False)))
    plan = opt.plan_options(params)
    progress = progress_for(_inputs(run.paths, run.validation))
    try:
        result = _analyse_or_fail(run_estimate, run, plan, progress)
    finally:
        if progress:
            progress.clear()
    if result.data.io_errors:
        _io_errors(result.data.io_errors)
        sys.exit(EXIT_USAGE)
    return run, result


def _failing(findings: Any, fail_on: str) -> bool:
    return any(d.severity == ERROR or (fail_on == WARNING and d.severity == WARNING) for d in findings)


@cli.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.output_options())
@opt.apply(opt.PLAN)
@opt.apply(opt.GATES)
@opt.FAIL_ON
@opt.apply(opt.PLOTS)
def estimate(paths: tuple[str, ...], output_file: str | None, output_format: str, plots: bool, schedule: str,
             fail_on: str, **params: Any) -> None:
    """Records, tokens, steps, epochs and cost of a training run on PATH.

    Several paths are one dataset. Findings are not listed (use `ftlint check`); lines with
    errors are left out of the figures and named in a warning.
    """
    from ..report import ESTIMATE_RENDERERS
    from .io import OutputRefused, destination

    run, result = _estimate(paths, params)
    e = result.estimate
    try:
        with destination(output_file, _inputs(run.paths, run.validation)) as out:
            out.write(ESTIMATE_RENDERERS[output_format](result))
            if plots and output_format == "text":
                from ..plots import length_histogram, schedule_plot

                out.write("\n" + length_histogram(result.data.train.lengths, e.context_limit) + "\n"
                          + schedule_plot(e.total_steps, e.warmup_steps, e.steps_per_epoch, schedule) + "\n")
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    sys.exit(EXIT_FINDINGS if _failing(e.findings, fail_on) else EXIT_OK)


@cli.command()
@opt.apply(opt.INPUTS)
@opt.apply(opt.output_options(("text", "json")))
@opt.apply(opt.PLAN)
@opt.apply(opt.GATES)
@opt.FAIL_ON
@opt.apply(opt.STUDY)
def plan(paths: tuple[str, ...], output_file: str | None, output_format: str, fail_on: str, trials: int,
         short_fraction: float, finalists: int, **params: Any) -> None:
    """A tuning study around the production run the options describe: a round of many short
    runs (about a tenth of the production length) to choose hyperparameters, then a round of
    a few full-length runs; steps, tokens and cost of each round. Exit 1 when a gate fails.
    """
    from ..app import run_study
    from ..options import StudyOptions
    from ..report.plan import PLAN_RENDERERS
    from .io import OutputRefused, destination, expand

    run = _analyse_or_fail(lambda: _for_workers(opt.run_options(params, expand(paths), _base_selection(), dataset_rules=False)))
    plan_opts = opt.plan_options(params)
    result = _analyse_or_fail(run_study, run, plan_opts, StudyOptions(trials, short_fraction, finalists))
    production = result.production
    if production.data.io_errors:
        _io_errors(production.data.io_errors)
        sys.exit(EXIT_USAGE)
    try:
        with destination(output_file, _inputs(run.paths, run.validation)) as out:
            out.write(PLAN_RENDERERS[output_format](result))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    sys.exit(EXIT_FINDINGS if _failing(production.estimate.findings, fail_on) else EXIT_OK)


@cli.command()
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

    run = opt.run_options(params, (), _base_selection(), prompts=True)
    plan_opts = opt.plan_options(params)
    try:
        outcome = _analyse_or_fail(run_diff, base, head, run, plan_opts)
    except DiffInputError as exc:
        raise UsageFailure(str(exc)) from None
    if outcome.io_errors:
        _io_errors(outcome.io_errors)
        sys.exit(EXIT_USAGE)
    try:
        with destination(output_file, tuple(p for p in (base, head) if os.path.exists(p))) as out:
            out.write(DIFF_RENDERERS[output_format](outcome))
    except OutputRefused as exc:
        raise UsageFailure(str(exc)) from None
    sys.exit(EXIT_FINDINGS if outcome.failing else EXIT_OK)


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--metric", help="Metric to judge by (default: eval_loss, else the first eval_* column).")
@click.option("--mode", type=click.Choice(["min", "max"]), help="Whether lower or higher is better (default: min for losses, else max).")
@click.option("--max-steps", type=opt.Count(1), help="The run's planned steps, if the log does not say.")
@click.option("-o", "--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def review(log: str, metric: str | None, mode: str | None, max_steps: int | None, output_format: str) -> None:
    """Review a finished run: where did the best evaluation fall?

    LOG is a Hugging Face trainer_state.json, or a CSV or JSONL log with a step column. The
    best step in the first tenth of training means max_steps is too high; in the last quarter,
    train longer. Checkpoints too sparse to choose from are flagged. Exit 1 unless the verdict
    is ok and the checkpoints are dense enough.
    """
    from ..report.review import REVIEW_RENDERERS
    from ..review import ReviewError
    from ..review import review as judge

    try:
        r = judge(log, metric, mode, max_steps)
    except ReviewError as exc:
        raise UsageFailure(str(exc)) from None
    click.echo(REVIEW_RENDERERS[output_format](r), nl=False)
    sys.exit(EXIT_OK if r.verdict == "ok" and not r.sparse else EXIT_FINDINGS)


@cli.command()
@click.argument("path", type=click.Path(dir_okay=True, allow_dash=False, readable=False))
@click.option("--to", "target", required=True, type=click.Choice(sorted(__import__("ftlint.convert", fromlist=["TARGETS"]).TARGETS)),
              help="The format to write.")
@click.option("-o", "--output", "output", required=True, type=click.Path(dir_okay=False), metavar="OUT",
              help="The file to write: JSONL, or Parquet if it ends in .parquet (written atomically, never over an input).")
@click.option("--format", "source", default="auto", show_default=True, metavar="NAME", help="The input's format (auto: detected).")
@click.option("--drop-invalid", is_flag=True, help="Leave out records with errors (the target's rules, a duplicate key), and exit 0 for what is left out (a line holding no record, a record the target cannot hold: never written).")
def convert(path: str, target: str, output: str, source: str, drop_invalid: bool) -> None:
    """Convert PATH (JSONL, Parquet, Arrow, a JSON array) from one chat format to another.

    What the target cannot hold is reported (FT801), records it cannot hold at all (FT802) and
    records its own rules reject are reported with their codes; the exit code is 1 if any of them
    is written or left out without --drop-invalid, or a line holds no record (FT001, FT002, ...).
    The last line accounts for every line read: records written, left out (and why), blank.
    """
    from ..convert import READERS
    from ..formats.shape import DETECT_RECORDS, detect
    from ..read import InputError, read_lines
    from .io import OutputRefused, check_target

    try:
        check_target(output, (path,))
    except OutputRefused as exc:
        raise UsageFailure(str(exc).replace("--output-file", "-o")) from None
    try:
        if source == "auto":
            head = [line.value for _, line in zip(range(DETECT_RECORDS), read_lines(path), strict=False) if line.value is not None]
            source = detect(head).name
        if source not in READERS:
            raise UsageFailure(f"cannot convert from {source!r}; ftlint converts from {', '.join(sorted(READERS))} (give --format)")
        rows, report, tally = _converted(path, source, target, drop_invalid)
        _write_converted(output, rows)
    except InputError as exc:
        raise UsageFailure(str(exc)) from None
    from ..redact import redact
    from ..report.escape import terminal_safe

    for line in report:
        click.echo(terminal_safe(redact(line)))
    click.echo(f"converted {path} ({source}) to {output} ({target}): {tally.summary()}")
    sys.exit(EXIT_FINDINGS if tally.failing else EXIT_OK)


def _converted(path: str, source: str, target: str, drop_invalid: bool) -> tuple[list[bytes], list[str], Tally]:
    """Each line of PATH converted: the rows to write, the findings to print, and what became of every line."""
    from collections.abc import Iterator

    import orjson

    from ..convert import Tally, convert_lines
    from ..read import read_lines
    from ..rules import ERROR, severity
    from ..rules.file import line_hits

    tally, report, rows = Tally(drop_invalid), [], []
    own_error: dict[int, str] = {}  # a parsed line's own error (a duplicate key), until its record is converted

    def records() -> Iterator[tuple[int, dict]]:
        for line in read_lines(path):
            tally.lines += 1
            if line.blank:
                tally.blank += 1
                continue
            hits = line_hits(line)
            for code, hit in hits:
                report.append(f"{path}:{line.number}:{hit.col}: {code} {hit.message}")
            if line.value is None:
                tally.unreadable[hits[-1][0] if hits else "FT001"] += 1
                continue
            errors = [code for code, _ in hits if severity(code) == ERROR]
            if errors:
                own_error[line.number] = errors[0]
            yield line.number, line.value

    for item in convert_lines(records(), source, target):
        for where, what in item.lost:
            report.append(f"{path}:{item.number}:1: FT801 {what} ({where})")
        first_error = own_error.pop(item.number, None)
        if item.failure is not None:
            report.append(f"{path}:{item.number}:1: FT802 {item.failure}")
            tally.unconvertible += 1
            continue
        for code, message, pointer in item.rejected:
            report.append(f"{path}:{item.number}:1: {code} in the {target} record: {message}" + (f" ({pointer})" if pointer else ""))
        first_error = first_error or (item.rejected[0][0] if item.rejected else None)
        if first_error is not None:
            tally.rejected[first_error] += 1
            if drop_invalid:
                continue
        rows.append(orjson.dumps(item.record))
        tally.written += 1
    return rows, report, tally


def _write_converted(output: str, rows: list[bytes]) -> None:
    """JSONL, or Parquet for a .parquet name, by a temporary file renamed into place."""
    import contextlib
    import tempfile

    from ..atomic import _mode_for, atomic_text_writer

    if not output.endswith(".parquet"):
        with atomic_text_writer(output) as fh:
            for row in rows:
                fh.write(row.decode("utf-8", "surrogateescape") + "\n")
        return
    import polars as pl

    directory = os.path.dirname(os.path.abspath(output))
    fd, tmp = tempfile.mkstemp(prefix=".ftlint-", suffix=".parquet", dir=directory)
    os.close(fd)
    try:
        frame = pl.DataFrame([orjson_loads(r) for r in rows], infer_schema_length=None) if rows else pl.DataFrame()
        frame.write_parquet(tmp)
        os.chmod(tmp, _mode_for(output))  # as a new file would have it (mkstemp's is 0600)
        os.replace(tmp, output)
    except Exception as exc:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)
        raise UsageFailure(f"-o {output}: cannot write the records as Parquet ({str(exc).splitlines()[0][:200]}); write JSONL") from None


def orjson_loads(raw: bytes) -> object:
    import orjson

    return orjson.loads(raw)


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
    """An interrupted --engine ray run: Ray's shutdown, which os._exit would skip (ftlint/ray.py `stop`)."""
    on_ray = sys.modules.get("ftlint.ray")
    if on_ray is not None:
        import contextlib

        with contextlib.suppress(BaseException):  # a second signal while Ray shuts down: exit all the same
            on_ray.stop()

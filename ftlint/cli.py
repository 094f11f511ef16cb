"""Command line: flags -> settings -> run -> exit code. Heavy imports stay inside commands so
`ftlint --help` is instant."""

from __future__ import annotations

import contextlib
import dataclasses
import os
import sys
from collections.abc import Iterator
from fractions import Fraction
from typing import IO, NoReturn

import click

from . import __version__
from .diagnostics import ERROR, EXIT_FINDINGS, EXIT_OK, EXIT_USAGE, WARNING

OUTPUT_FORMATS = ("text", "json", "github", "sarif", "markdown")
FORMAT_CHOICES = ("auto", "openai-chat", "azure-openai-chat", "openai-preference", "openai-rft", "prompt-completion",
                  "mistral-chat", "mistral-finetune", "fireworks-chat", "together-conversational", "together-instruction",
                  "together-preference", "text", "cohere-chat", "bedrock-claude", "bedrock-nova", "vertex-gemini",
                  "trl-messages", "trl-prompt-completion", "trl-preference", "trl-unpaired")


class UsageFailure(click.ClickException):
    """A one-line error with exit 2 (usage, configuration or I/O)."""

    exit_code = EXIT_USAGE

    def show(self, file: object = None) -> None:
        click.echo(f"ftlint: error: {self.format_message()}", err=True)


class Ratio(click.ParamType):
    """A decimal from 0 to 1, kept exact (0.1 is 1/10, not 0.1000000000000000055...), so
    ceil(ratio x steps) is what arithmetic by hand gives."""

    name = "ratio"

    def convert(self, value: object, param: object, ctx: object) -> Fraction:
        if isinstance(value, Fraction):
            return value
        try:
            ratio = Fraction(str(value).strip())
        except (ValueError, ZeroDivisionError):
            self.fail(f"{value!r} is not a decimal number", param, ctx)  # type: ignore[arg-type]
        if not 0 <= ratio <= 1:
            self.fail(f"{value} is not between 0 and 1", param, ctx)  # type: ignore[arg-type]
        return ratio


def _expand(paths: tuple[str, ...]) -> tuple[str, ...]:
    """Expand globs the shell did not (quoted, or on Windows); `**` reaches into folders.
    A pattern that matches nothing is an error, as a missing file is."""
    import glob

    out: list[str] = []
    for path in paths:
        if path != "-" and not os.path.exists(path) and glob.has_magic(path):
            matches = sorted(glob.glob(path, recursive=True))
            if not matches:
                raise UsageFailure(f"{path}: no file matches")
            out.extend(m for m in matches if os.path.isfile(m))
        else:
            out.append(path)
    return tuple(out)


def _inputs(common: dict) -> tuple[str, ...]:
    return tuple(common["paths"]) + ((common["validation"],) if common["validation"] else ())


@contextlib.contextmanager
def _output(output_file: str | None, paths: tuple[str, ...]) -> Iterator[IO[str]]:
    if output_file is None:
        yield sys.stdout
        return
    target = os.path.realpath(output_file)
    if any(p != "-" and os.path.exists(p) and os.path.realpath(p) == target for p in paths):
        raise UsageFailure(f"--output-file {output_file} is one of the inputs; ftlint never writes over an input")
    from .atomic import atomic_text_writer

    try:
        with atomic_text_writer(output_file) as fh:
            yield fh
    except OSError as exc:
        raise UsageFailure(f"cannot write {output_file}: {exc.strerror or exc}") from None


class _ProgressBar:
    """One line on a terminal's stderr, redrawn at most 5 times a second; silent elsewhere."""

    def __init__(self, paths: tuple[str, ...]) -> None:
        import time

        self.clock = time.monotonic
        # a compressed file's size says nothing of how much text it holds: no share for those
        self.sizes = {p: os.stat(p).st_size for p in paths
                      if p != "-" and not p.endswith(".gz") and os.path.isfile(p)}
        self.last = 0.0
        self.drawn = False

    def __call__(self, path: str, done: int) -> None:
        now = self.clock()
        if now - self.last < 0.2:
            return
        self.last = now
        total = self.sizes.get(path)
        share = f" / {total / 1e6:,.1f} MB ({min(done / total, 1):.0%})" if total else " MB"
        sys.stderr.write(f"\rftlint: {path}: {done / 1e6:,.1f}{share}\x1b[K")
        sys.stderr.flush()
        self.drawn = True

    def clear(self) -> None:
        if self.drawn:
            sys.stderr.write("\r\x1b[K")
            sys.stderr.flush()


def _ignore_codes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    codes = tuple(c.strip().upper() for v in values for c in v.split(",") if c.strip())
    for code in codes:
        if not (code.startswith("FT") and code[2:].isdigit() and len(code) <= 5):
            raise click.BadParameter(f"{code!r} is not a code or code prefix (like FT604 or FT6)")
    return codes


def _model_and_limit(model_name: str | None, context: int | None):  # type: ignore[no-untyped-def]
    from .models import UnknownModel, get_model

    try:
        model = get_model(model_name)
    except UnknownModel as exc:
        raise UsageFailure(str(exc)) from None
    limit = context if context is not None else (int(model.context.value) if model.context else None)  # type: ignore[arg-type]
    return model, limit


def _common(func):  # type: ignore[no-untyped-def]
    options = [
        click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=True, allow_dash=True, readable=False)),
        click.option("--model", "model_name", metavar="MODEL", help="Target model: sets the tokenizer, the per-example limit and the price (see `ftlint models`)."),
        click.option("--context", type=click.IntRange(min=1), metavar="TOKENS", help="Override the model's per-example token limit."),
        click.option("--format", "format_name", type=click.Choice(FORMAT_CHOICES), default="auto", show_default=True, metavar="NAME", help="Dataset format (`ftlint formats`); auto detects it from each file's first records."),
        click.option("--max-line-bytes", type=click.IntRange(min=1), default=128 * 1024 * 1024, show_default=True, help="Longer lines are reported (FT007), not parsed."),
        click.option("--max-depth", type=click.IntRange(min=1, max=1000), default=128, show_default=True, help="Deeper nesting is reported (FT014), not checked."),
        click.option("--select", "select", multiple=True, metavar="CODES", callback=_ignore_codes, help="Report only these codes or prefixes (e.g. FT0,FT1: file and structure). --ignore still applies."),
        click.option("--ignore", "ignore", multiple=True, metavar="CODES", callback=_ignore_codes, help="Comma-separated codes or prefixes not to report (e.g. FT604,FT605 or FT6)."),
        click.option("--output-file", type=click.Path(dir_okay=False, writable=True), metavar="FILE", help="Write the report to FILE (atomically: a temporary file renamed into place) instead of standard output."),
        click.option("-j", "--jobs", type=click.IntRange(min=1), metavar="N", help="Worker processes (default: all cores; one for inputs under 4 MB)."),
        click.option("--validation", type=click.Path(dir_okay=True, allow_dash=False), metavar="FILE", help="A validation file: checked too, and its records that also appear in the training data are reported (FT404)."),
        click.option("-o", "--output-format", type=click.Choice(OUTPUT_FORMATS), default="text", show_default=True),
    ]
    for option in reversed(options):
        func = option(func)
    return func


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

    Exit codes: 0 nothing failing, 1 findings, 2 usage or I/O error.
    Settings: ftlint.toml or [tool.ftlint] in pyproject.toml, found upwards from here.
    """
    from pathlib import Path

    from . import config as cfg

    ctx.obj = cfg.Config()
    if no_config:
        return
    try:
        if config_path:
            path = Path(config_path)
            if not path.is_file():
                raise UsageFailure(f"--config {config_path}: no such file")
            data = cfg._load(path)
            table = data.get("tool", {}).get("ftlint", {}) if path.name == "pyproject.toml" else data
            found: tuple[Path, dict] | None = (path, table)
        else:
            found = cfg.find(Path.cwd())
        if found:
            ctx.obj = cfg.build(found[0], found[1], {"check": check, "estimate": estimate})
            ctx.default_map = ctx.obj.default_map
    except cfg.ConfigError as exc:
        raise UsageFailure(str(exc)) from None




def _run(common: dict, emit, dataset_rules: bool = True, prompts: bool = False):  # type: ignore[no-untyped-def]
    """Analyse the paths (and a validation file) with the common options; returns
    (training analysis, validation analysis or None, settings)."""
    from .config import Config
    from .engine import Settings, analyse, default_jobs, report_extra

    config = click.get_current_context().find_object(Config) or Config()
    model, limit = _model_and_limit(common["model_name"], common["context"])
    settings = Settings(
        model=model,
        context_limit=limit,
        context_explicit=common["context"] is not None,
        format_name=common["format_name"],
        max_line_bytes=common["max_line_bytes"],
        max_depth=common["max_depth"],
        ignore=common["ignore"],
        select=common.get("select") or (),
        per_file_ignores=config.per_file_ignores,
        config_dir=config.base_dir,
        min_examples=int(model.min_examples.value) if model.min_examples else None,  # type: ignore[arg-type]
        dataset_rules=dataset_rules,
        prompt_fingerprints=prompts,
        content_fingerprints=dataset_rules or prompts or bool(common["validation"]),
    )
    paths, validation = _expand(common["paths"]), common["validation"]
    if validation and validation in paths:
        raise UsageFailure(f"--validation {validation} is also a training path")
    jobs = common["jobs"]
    progress = _ProgressBar(paths + ((validation,) if validation else ())) if sys.stderr.isatty() else None
    try:
        result = analyse(paths, settings, emit, jobs=jobs or default_jobs(paths), progress=progress)
        held_out = None
        if validation:
            import dataclasses

            from .dataset import leakage_findings

            # a validation file may be small: the provider's minimum is about training data
            held_out = analyse([validation], dataclasses.replace(settings, minimum_check=False), emit,
                               jobs=jobs or default_jobs([validation]), progress=progress)
            leaks = leakage_findings(result.frame(), [f.path for f in result.files],
                                     held_out.frame(), [f.path for f in held_out.files])
            report_extra(held_out, settings, emit, leaks)
    finally:
        if progress:
            progress.clear()
    for message in result.io_errors + (held_out.io_errors if held_out else []):
        click.echo(f"ftlint: error: {message}", err=True)
    return result, held_out, settings


@cli.command()
@_common
@click.option("--max-errors", type=click.IntRange(min=0), metavar="N", help="Show at most N findings (all are still counted for the exit code).")
@click.option("--fail-on", type=click.Choice([ERROR, WARNING]), default=ERROR, show_default=True, help="Lowest severity that makes the exit code 1.")
@click.option("--baseline", type=click.Path(dir_okay=False), metavar="FILE", help="Findings listed in FILE (the output of `check -o json`) are known: not shown, not failing.")
def check(output_file: str | None, output_format: str, max_errors: int | None, fail_on: str, baseline: str | None,
          **common: object) -> None:
    """Report every record the provider would reject, and why.

    One line per finding: path:line:col: CODE message ($.json.path). PATH may be '-' for
    standard input; .gz files are read transparently.
    """
    from .baseline import Baseline, BaselineError
    from .report import CHECK_REPORTERS

    try:
        known = Baseline.load(baseline) if baseline else None
    except BaselineError as exc:
        raise UsageFailure(str(exc)) from None
    with _output(output_file, _inputs(common)) as out:
        reporter = CHECK_REPORTERS[output_format](out, max_errors)
        reporter.start()
        emit = known.filter(reporter.diagnostic) if known else reporter.diagnostic
        result, held_out, _ = _run(common, emit)
        if held_out is not None:
            result.absorb(held_out)
        reporter.finish(result)
    if known and known.suppressed and output_format == "text":
        click.echo(f"{known.suppressed:,} known finding(s) in the baseline {baseline} not shown", err=True)
    counts = {sev: sum(n for (s, _), n in reporter.by_code.items() if s == sev) for sev in (ERROR, WARNING)}
    failing = counts[ERROR] + (counts[WARNING] if fail_on == WARNING else 0)
    if result.io_errors:
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


PLAN_OPTIONS = [
    click.option("-e", "--epochs", type=click.IntRange(min=1), help="Epochs (default: the provider's auto rule)."),
    click.option("-b", "--batch-size", type=click.IntRange(min=1), help="Per-device batch size (default: the provider's auto rule)."),
    click.option("-g", "--grad-accum", type=click.IntRange(min=1), default=1, show_default=True, help="Gradient accumulation steps."),
    click.option("--gpus", type=click.IntRange(min=1), default=1, show_default=True, help="Data-parallel devices."),
    click.option("--warmup-ratio", type=Ratio(), metavar="R", help="Warmup as a share of total steps, 0 to 1 (rounded up)."),
    click.option("--warmup-steps", type=click.IntRange(min=0), help="Warmup in steps."),
    click.option("--drop-last", is_flag=True, help="Drop the partial last batch of each epoch (steps = floor)."),
    click.option("--price", type=click.FloatRange(min=0), metavar="USD_PER_1M_TOKENS", help="Override the model's training price."),
    click.option("--max-cost", type=click.FloatRange(min=0), metavar="USD", help="Gate: fail (FT701) if the run costs more."),
    click.option("--max-tokens", type=click.IntRange(min=0), metavar="N", help="Gate: fail (FT702) if more tokens are processed."),
    click.option("--min-records", type=click.IntRange(min=0), metavar="N", help="Gate: fail (FT703) below N training records."),
    click.option("--fail-on", type=click.Choice([ERROR, WARNING]), default=ERROR, show_default=True, help="Lowest severity that makes the exit code 1 (gates are errors, advice warnings)."),
    click.option("--trainer", type=click.Choice(["hosted", "hf"]), default="hosted", show_default=True, help="hosted: a provider's job (plain arithmetic); hf: Hugging Face Trainer's exact step arithmetic."),
    click.option("--hf-legacy", is_flag=True, help="With --trainer hf: transformers <=4.51 rounding (floor over gradient accumulation)."),
    click.option("--max-steps", type=click.IntRange(min=1), help="Total optimizer steps; overrides epochs, as in transformers."),
    click.option("--packing", is_flag=True, help="With --trainer hf: records are packed into rows of --max-seq-len tokens (TRL bfd)."),
    click.option("--max-seq-len", type=click.IntRange(min=1), metavar="TOKENS", help="Packed row length (TRL max_length)."),
    click.option("--budget-usd", type=click.FloatRange(min=0), metavar="USD", help="Show the most epochs and steps this budget buys."),
    click.option("--budget-tokens", type=click.IntRange(min=0), metavar="N", help="Show the most epochs and steps this many tokens buy."),
    click.option("--tokens-per-second", type=click.FloatRange(min=0, min_open=True), metavar="TPS", help="Self-hosted throughput of the whole job: gives wall time."),
    click.option("--gpu-hour-usd", type=click.FloatRange(min=0), metavar="USD", help="Price of one GPU for an hour: gives compute cost with --tokens-per-second."),
    click.option("--learning-rate", type=click.FloatRange(min=0, min_open=True), metavar="LR", help="The learning rate, tuned at --reference-batch-size."),
    click.option("--reference-batch-size", type=click.IntRange(min=1), metavar="B", help="Effective batch the learning rate was tuned at: shows linear and square-root scaled rates."),
    click.option("--plots", is_flag=True, help="Draw the token-length distribution and the learning-rate schedule (text output)."),
    click.option("--schedule", type=click.Choice(["linear", "cosine", "constant"]), default="linear", show_default=True, help="Decay after warmup, for --plots."),
    click.option("--min-total-steps", type=click.IntRange(min=0), default=100, show_default=True, help="FT503 below this many steps."),
    click.option("--small-dataset", type=click.IntRange(min=0), default=100, show_default=True, help="FT504: fewer records than this ..."),
    click.option("--max-epochs-small", type=click.IntRange(min=0), default=3, show_default=True, help="... with more epochs than this."),
    click.option("--max-epochs", type=click.IntRange(min=0), default=10, show_default=True, help="FT504 above this many epochs at any size."),
    click.option("--max-warmup-share", type=click.FloatRange(min=0, max=1), default=0.2, show_default=True, help="FT505 above this share of steps in warmup."),
    click.option("--max-usual-epochs", type=click.IntRange(min=0), default=3, show_default=True, help="FT506 above this many epochs."),
    click.option("--large-dataset", type=click.IntRange(min=0), default=100_000, show_default=True, help="FT508: more than one epoch over this many records."),
]


def _compute_estimate(options: dict):  # type: ignore[no-untyped-def]
    """The estimate for the command's options: (Estimate, frame, training paths, common options)."""
    from .estimate import Gates, Plan, dataset_figures, validation_figures
    from .estimate import estimate as compute
    from .formats import get_format
    from .models import user_value

    o = dict(options)
    common = {k: o.pop(k) for k in ("paths", "model_name", "context", "format_name", "max_line_bytes", "max_depth",
                                    "select", "ignore", "jobs", "validation")}
    if o["warmup_ratio"] is not None and o["warmup_steps"] is not None:
        raise UsageFailure("give --warmup-ratio or --warmup-steps, not both")
    if o["packing"] and (o["trainer"] != "hf" or not o["max_seq_len"]):
        raise UsageFailure("--packing needs --trainer hf and --max-seq-len")
    if (o["learning_rate"] is None) != (o["reference_batch_size"] is None):
        raise UsageFailure("give --learning-rate and --reference-batch-size together")
    result, held_out, settings = _run(common, lambda d: None, dataset_rules=False)
    if result.io_errors or (held_out is not None and held_out.io_errors):
        sys.exit(EXIT_USAGE)
    thresholds = {k: o[k] for k in ("min_total_steps", "small_dataset", "max_epochs_small", "max_epochs",
                                     "max_warmup_share", "max_usual_epochs", "large_dataset")}
    plan = Plan(epochs=o["epochs"], batch_size=o["batch_size"], grad_accum=o["grad_accum"], gpus=o["gpus"],
                warmup_ratio=o["warmup_ratio"], warmup_steps=o["warmup_steps"], drop_last=o["drop_last"],
                trainer=o["trainer"], hf_legacy=o["hf_legacy"], max_steps=o["max_steps"], packing=o["packing"],
                max_seq_len=o["max_seq_len"], budget_usd=o["budget_usd"], budget_tokens=o["budget_tokens"],
                tokens_per_second=o["tokens_per_second"], gpu_hour_usd=o["gpu_hour_usd"],
                learning_rate=o["learning_rate"], reference_batch_size=o["reference_batch_size"], thresholds=thresholds)
    model = settings.model
    frame = result.frame()
    limit = settings.limit_for(get_format(result.files[0].format)) if result.files else settings.context_limit
    figures = dataset_figures(frame, lines=result.lines, invalid_lines=result.invalid,
                              messages=result.messages, context_limit=limit)
    # a provider's per-token price does not apply to a self-hosted run unless asked for
    hosted_price = model.price_per_1m if o["trainer"] == "hosted" else None
    price = user_value(o["price"]) if o["price"] is not None else hosted_price
    e = compute(figures, plan, model=model.name, encoding=str(model.encoding.value),
                context_limit=limit, price=price, min_examples=_format_minimum(result),
                gates=Gates(max_cost_usd=o["max_cost"], max_tokens=o["max_tokens"], min_records=o["min_records"]),
                lengths=frame["tokens"].to_list() if o["packing"] else None)
    e.warnings = [w for w in e.warnings if not settings.ignored(w["code"])]
    if result.files:
        fmt = get_format(result.files[0].format)
        e.format, e.format_reason, e.record_rule = fmt.name, result.files[0].format_reason, fmt.record_rule
        if len({f.format for f in result.files}) > 1:
            e.format_reason += "; files differ in format: " + ", ".join(f"{f.path}: {f.format}" for f in result.files)
    if held_out is not None:
        e.validation = validation_figures(held_out, limit, result)
    return e, frame, [f.path for f in result.files], common


def _format_minimum(result) -> int | None:  # type: ignore[no-untyped-def]
    from .formats import get_format

    return get_format(result.files[0].format).min_examples if result.files else None


def _plan_options(func):  # type: ignore[no-untyped-def]
    for option in reversed(PLAN_OPTIONS):
        func = option(func)
    return func


@cli.command()
@_common
@_plan_options
def estimate(output_file: str | None, output_format: str, plots: bool, schedule: str, fail_on: str,
             **options: object) -> None:
    """Records, tokens, steps, epochs and cost of a training run on PATH.

    Several paths are one dataset. Findings are not listed (use `ftlint check`); lines with
    errors are left out of the figures and named in a warning.
    """
    from .report import ESTIMATE_RENDERERS

    e, frame, names, common = _compute_estimate(options)
    with _output(output_file, _inputs(common)) as out:
        out.write(ESTIMATE_RENDERERS[output_format](e, names))
        if plots and output_format == "text":
            from .plots import length_histogram, schedule_plot

            out.write("\n" + length_histogram(frame["tokens"], e.context_limit) + "\n"
                      + schedule_plot(e.total_steps, e.warmup_steps, e.steps_per_epoch, schedule) + "\n")
    failing = [w for w in e.warnings if w["severity"] == ERROR or fail_on == WARNING]
    sys.exit(EXIT_FINDINGS if failing else EXIT_OK)


@cli.command()
@_common
@_plan_options
@click.option("--trials", type=click.IntRange(min=1), default=12, show_default=True, help="Short runs in the exploring round.")
@click.option("--short-fraction", type=click.FloatRange(min=0, max=1, min_open=True), default=0.1, show_default=True, help="Length of a short run, as a share of the production steps.")
@click.option("--finalists", type=click.IntRange(min=0), default=3, show_default=True, help="Full-length runs in the confirming round.")
def plan(output_file: str | None, output_format: str, plots: bool, schedule: str, fail_on: str, trials: int,
         short_fraction: float, finalists: int, **options: object) -> None:
    """A tuning study around the production run the options describe: a round of many short
    runs (about a tenth of the production length) to choose hyperparameters, then a round of
    a few full-length runs; steps, tokens and cost of each round.
    """
    import orjson

    from .report.estimate import usd as money
    from .study import study

    e, _, names, common = _compute_estimate(options)
    s = study(e, trials, short_fraction, finalists)
    with _output(output_file, _inputs(common)) as out:
        if output_format == "json":
            out.write(orjson.dumps({"paths": names, "estimate": e.to_dict(), "study": s.to_dict()}, option=orjson.OPT_INDENT_2).decode() + "\n")
        else:
            out.write(f"tuning study for {', '.join(names)} on {e.model}\n")
            out.write(f"  production run   {s.production_steps:,} steps, {s.production_tokens:,} tokens, {money(s.production_cost_usd)}\n")
            for r in s.rounds:
                out.write(f"  {r.name:<8} {r.runs:>3} run(s) x {r.steps_per_run:,} steps = {r.steps:,} steps, "
                          f"{r.tokens:,} tokens, {money(r.cost_usd)}\n")
            out.write(f"  total            {s.total_steps:,} steps, {s.total_tokens:,} tokens, {money(s.total_cost_usd)} "
                      f"(= {s.cost_in_production_runs:g} production runs)\n")
    sys.exit(EXIT_OK)


@cli.command()
@click.argument("base")
@click.argument("head")
@click.option("--model", "model_name", metavar="MODEL", help="Target model (tokenizer, limit, price).")
@click.option("--context", type=click.IntRange(min=1), metavar="TOKENS", help="Override the model's per-example token limit.")
@click.option("-e", "--epochs", type=click.IntRange(min=1), help="Epochs for the cost figures (default: the provider's auto rule, per side).")
@click.option("--price", type=click.FloatRange(min=0), metavar="USD_PER_1M_TOKENS", help="Override the model's training price.")
@click.option("--ignore", "ignore", multiple=True, metavar="CODES", callback=_ignore_codes, help="Codes or prefixes not to report.")
@click.option("-o", "--output-format", type=click.Choice(("text", "json", "markdown")), default="text", show_default=True)
@click.option("--output-file", type=click.Path(dir_okay=False, writable=True), metavar="FILE", help="Write the report to FILE, atomically.")
def diff(base: str, head: str, model_name: str | None, context: int | None, epochs: int | None, price: float | None,
         ignore: tuple[str, ...], output_format: str, output_file: str | None) -> None:
    """What a data change does: records added, removed and changed, findings new in HEAD,
    and the change in tokens and cost.

    BASE and HEAD are files, or git revisions of one as REV:PATH (e.g. origin/main:data/train.jsonl;
    git reads PATH from the repository root, or from here with REV:./PATH). Exit 1 when HEAD
    brings a new error.
    """
    from .diff import DiffInputError, Side, compare, resolve
    from .estimate import Plan, dataset_figures
    from .estimate import estimate as compute
    from .models import user_value
    from .report.diff import DIFF_RENDERERS

    common = {"model_name": model_name, "context": context, "format_name": "auto",
              "max_line_bytes": 128 * 1024 * 1024, "max_depth": 128, "ignore": ignore, "jobs": None, "validation": None}
    sides, estimates = [], {}
    try:
        for label, spec in (("base", base), ("head", head)):
            with resolve(spec) as (path, shown):
                found: list = []
                result, _, settings = _run({**common, "paths": (path,)}, found.append, prompts=True)
                if result.io_errors:
                    sys.exit(EXIT_USAGE)
                frame = result.frame()
                found = [dataclasses.replace(d, path=shown) for d in found]
                line_exact = dict(zip(frame["line"].to_list(), frame["exact"].to_list(), strict=True))
                sides.append(Side(shown, found, frame["exact"].to_list(), frame["prompt"].to_list(), line_exact))
                figures = dataset_figures(frame, lines=result.lines, invalid_lines=result.invalid,
                                          messages=result.messages, context_limit=settings.context_limit)
                model = settings.model
                chosen = user_value(price) if price is not None else model.price_per_1m
                estimates[label] = compute(figures, Plan(epochs=epochs), model=model.name, encoding=str(model.encoding.value),
                                           context_limit=settings.context_limit, price=chosen).to_dict()
    except DiffInputError as exc:
        raise UsageFailure(str(exc)) from None
    outcome = compare(*sides)
    outcome.estimates = estimates
    with _output(output_file, tuple(p for p in (base, head) if os.path.exists(p))) as out:
        out.write(DIFF_RENDERERS[output_format](outcome))
    sys.exit(EXIT_FINDINGS if outcome.failing else EXIT_OK)


@cli.command()
@click.argument("log", type=click.Path(dir_okay=False))
@click.option("--metric", help="Metric to judge by (default: eval_loss, else the first eval_* column).")
@click.option("--mode", type=click.Choice(["min", "max"]), help="Whether lower or higher is better (default: min for losses, else max).")
@click.option("--max-steps", type=click.IntRange(min=1), help="The run's planned steps, if the log does not say.")
@click.option("-o", "--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def review(log: str, metric: str | None, mode: str | None, max_steps: int | None, output_format: str) -> None:
    """Review a finished run: where did the best evaluation fall?

    LOG is a Hugging Face trainer_state.json, or a CSV or JSONL log with a step column. The
    best step in the first tenth of training means max_steps is too high; in the last quarter,
    train longer. Checkpoints too sparse to choose from are flagged. Exit 1 unless the verdict
    is ok and the checkpoints are dense enough.
    """
    from .review import ReviewError
    from .review import review as judge

    try:
        r = judge(log, metric, mode, max_steps)
    except ReviewError as exc:
        raise UsageFailure(str(exc)) from None
    if output_format == "json":
        import orjson

        click.echo(orjson.dumps(r.to_dict(), option=orjson.OPT_INDENT_2).decode())
    else:
        click.echo(f"{log}: best {r.metric} {r.best_value:g} at step {r.best_step:,} of {r.max_steps:,} ({r.best_fraction:.0%})")
        click.echo(f"  verdict: {r.verdict}: {r.advice}")
        if r.sparse:
            click.echo(f"  checkpoints too sparse to choose from: {r.evaluations} evaluations, largest gap {r.largest_gap:,} steps "
                       f"(evaluate at least 5 times, no gap over a quarter of the run)")
    sys.exit(EXIT_OK if r.verdict == "ok" and not r.sparse else EXIT_FINDINGS)


@cli.command()
@click.argument("code", required=False)
def rules(code: str | None) -> None:
    """List every code, or explain one: what it checks, why it matters, an example."""
    from .rules import load_all

    registry = load_all()
    if code:
        rule = registry.get(code.upper())
        if rule is None:
            raise UsageFailure(f"unknown code {code!r}; `ftlint rules` lists them")
        click.echo(f"{rule.code} {rule.name} ({rule.severity})\n\n{rule.doc}")
        return
    for rule in sorted(registry.values(), key=lambda r: r.code):
        click.echo(f"{rule.code}  {rule.severity:<7}  {rule.name:<26}  {rule.summary}")


@cli.command()
@click.argument("name", required=False)
def formats(name: str | None) -> None:
    """List the dataset formats: what a record is, who takes it. With NAME, one in full."""
    from .formats.registry import BY_SHAPE, FORMATS

    if name:
        fmt = FORMATS.get(name)
        if fmt is None:
            raise UsageFailure(f"unknown format {name!r}; `ftlint formats` lists them")
        detected = "detected by its shape" if BY_SHAPE.get(fmt.shape) == fmt.name else f"give --format {fmt.name} (its shape is detected as {BY_SHAPE.get(fmt.shape)})"
        lines = [f"{fmt.name}: {fmt.title}", f"  providers   {fmt.providers}", f"  record      {fmt.record_rule}",
                 "  documented  " + ("yes" if fmt.documented else "no: this is ftlint's conservative reading"),
                 f"  minimum     {fmt.min_examples if fmt.min_examples else 'none known'} examples",
                 f"  schema      schemas/{fmt.schema}.schema.json", f"  detection   {detected}"]
        if fmt.notes:
            lines.append(f"  notes       {fmt.notes}")
        click.echo("\n".join(lines))
        return
    for fmt in FORMATS.values():
        mark = "" if fmt.documented else "  [record rule undocumented: conservative reading]"
        click.echo(f"{fmt.name:<24} {fmt.title}\n{'':<24} record: {fmt.record_rule}{mark}\n{'':<24} for: {fmt.providers}")


@cli.command()
def models() -> None:
    """Models ftlint knows: tokenizer, per-example token limit, training price, with sources."""
    from .models import all_models, default_model_name

    default = default_model_name()
    for model in all_models().values():
        mark = " (default)" if model.name == default else ""
        aliases = f" aliases: {', '.join(model.aliases)}" if model.aliases else ""
        click.echo(f"{model.name}{mark}  [{model.provider}]{aliases}")
        for label, value, fmt in (
            ("encoding", model.encoding, "{}"),
            ("limit", model.context, "{:,} tokens per example"),
            ("price", model.price_per_1m, "${:g} per 1M training tokens"),
            ("minimum", model.min_examples, "{} examples"),
        ):
            if value is not None:
                click.echo(f"  {label:<14}{fmt.format(value.value)}  ({value.note})")
        for name, value in model.defaults:
            click.echo(f"  {name:<14}{value.value}  ({value.note})")


def main() -> NoReturn:
    try:
        cli.main(prog_name="ftlint")
    except SystemExit:
        raise
    except Exception as exc:  # never a traceback for users; FTLINT_DEBUG=1 shows it
        if os.environ.get("FTLINT_DEBUG"):
            raise
        from .tokens import TokenizerError

        kind = "error" if isinstance(exc, TokenizerError) else "internal error (please report)"
        click.echo(f"ftlint: {kind}: {type(exc).__name__}: {exc}", err=True)
        sys.exit(EXIT_USAGE)
    sys.exit(EXIT_OK)

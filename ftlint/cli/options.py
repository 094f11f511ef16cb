"""Command-line options, declared once, and their parsing into the frozen options of
ftlint/options.py. Each command takes the groups it needs; configuration keys are these flags'
names, so a key means the same in every command that has its flag."""

from __future__ import annotations

import math
from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypeVar

import click

from ..diagnostics import ERROR, WARNING
from ..options import Gates, PlanOptions, ReadLimits, RunOptions, StudyOptions, TemplateBudget, Thresholds
from ..read import DEFAULT_MAX_DEPTH, DEFAULT_MAX_LINE_BYTES
from ..selection import Selection
from ..trust import MAX_FILE_BYTES

F = TypeVar("F", bound=Callable[..., Any])
_T, _S, _B = Thresholds(), StudyOptions(), TemplateBudget()  # the defaults, written once in ftlint/options.py
OUTPUT_FORMATS = ("text", "json", "github", "sarif", "markdown")


def format_choices() -> tuple[str, ...]:
    from ..formats.registry import FORMATS

    return ("auto", *FORMATS)


class Ratio(click.ParamType):
    """A decimal from 0 to 1, kept exact (0.1 is 1/10, not 0.1000000000000000055...), so
    ceil(ratio x steps) is what arithmetic by hand gives."""

    name = "ratio"

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> Fraction:
        if isinstance(value, Fraction):
            return value
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.fail(f"{value!r} is not a decimal number", param, ctx)
        try:
            ratio = Fraction(str(value).strip())
        except (ValueError, ZeroDivisionError):
            self.fail(f"{value!r} is not a decimal number", param, ctx)
        if not 0 <= ratio <= 1:
            self.fail(f"{value} is not between 0 and 1", param, ctx)
        return ratio


class Number(click.ParamType):
    """A finite decimal number in a range: NaN and infinity are refused (they would turn a gate
    off: every comparison with NaN is false), and so is a boolean from a config file."""

    name = "number"

    def __init__(self, minimum: float = 0.0, *, minimum_open: bool = False, maximum: float | None = None) -> None:
        self.minimum, self.minimum_open, self.maximum = minimum, minimum_open, maximum

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> float:
        if isinstance(value, bool) or not isinstance(value, (str, int, float)):
            self.fail(f"{value!r} is not a number", param, ctx)
        try:
            number = float(value)
        except ValueError:
            self.fail(f"{value!r} is not a number", param, ctx)
        if not math.isfinite(number):
            self.fail(f"{value!r} is not a finite number", param, ctx)
        low = number <= self.minimum if self.minimum_open else number < self.minimum
        if low or (self.maximum is not None and number > self.maximum):
            bound = f"above {self.minimum:g}" if self.minimum_open else f"at least {self.minimum:g}"
            if self.maximum is not None:
                bound += f" and at most {self.maximum:g}"
            self.fail(f"{value} is not {bound}", param, ctx)
        return number


class Count(click.ParamType):
    """A whole number in a range; a float or a boolean (from a config file) is refused, not cut."""

    name = "integer"

    def __init__(self, minimum: int = 0, maximum: int | None = None) -> None:
        self.minimum, self.maximum = minimum, maximum

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> int:
        if isinstance(value, (bool, float)) or not isinstance(value, (str, int)):
            self.fail(f"{value!r} is not a whole number", param, ctx)
        try:
            number = int(value)
        except ValueError:
            self.fail(f"{value!r} is not a whole number", param, ctx)
        if number < self.minimum or (self.maximum is not None and number > self.maximum):
            bound = f"at least {self.minimum}" + (f" and at most {self.maximum}" if self.maximum is not None else "")
            self.fail(f"{value} is not {bound}", param, ctx)
        return number


def codes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    found = tuple(c.strip().upper() for v in values for c in str(v).split(",") if c.strip())
    for code in found:
        if not (code.startswith("FT") and code[2:].isdigit() and len(code) <= 5):
            raise click.BadParameter(f"{code!r} is not a code or code prefix (like FT604 or FT6)")
    return found


def apply(options: list[Callable[[F], F]]) -> Callable[[F], F]:
    def wrap(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return wrap


# what to read and how to judge it (check, estimate, plan, diff)
JUDGING = [
    click.option("--model", "model_name", metavar="MODEL", help="Target model: sets the tokenizer, the per-example limit and the price (see `ftlint models`)."),
    click.option("--context", type=Count(1), metavar="TOKENS", help="Override the model's per-example token limit."),
    click.option("--format", "format_name", type=click.Choice(format_choices()), default="auto", show_default=True, metavar="NAME", help="Dataset format (`ftlint formats`); auto detects it from each file's first records."),
    click.option("--max-line-bytes", type=Count(1), default=DEFAULT_MAX_LINE_BYTES, show_default=True, help="Longer lines are reported (FT007), not parsed."),
    click.option("--max-depth", type=Count(1, 1000), default=DEFAULT_MAX_DEPTH, show_default=True, help="Deeper nesting is reported (FT014), not checked."),
    click.option("--max-file-bytes", type=Count(1), default=MAX_FILE_BYTES, show_default=True, help="A chat template, tokenizer, mapping or run config larger than this is refused (exit 2)."),
    click.option("--select", "select", multiple=True, metavar="CODES", callback=codes, help="Report only these codes or prefixes (e.g. FT0,FT1: file and structure). --ignore still applies."),
    click.option("--ignore", "ignore", multiple=True, metavar="CODES", callback=codes, help="Comma-separated codes or prefixes not to report (e.g. FT604,FT605 or FT6)."),
    click.option("-j", "--jobs", type=Count(1), metavar="N", help="Worker processes (default: all cores; one for inputs under 4 MB; never more than the cores)."),
    click.option("--engine", type=click.Choice(["local", "ray"]), default="local", show_default=True,
                 help="Where lines are judged: this machine's processes, or a Ray cluster (RAY_ADDRESS, else a local one; pip install 'ftlint[ray]'). Same findings and figures."),
    click.option("--today", metavar="YYYY-MM-DD", help="Judge model lifecycles as of this date (default: the clock, or $FTLINT_TODAY)."),
    click.option("--tokenizer", metavar="NAME|PATH", help="Count with this tokenizer: a family (o200k_base, qwen2, llama3, ...) or a file: tokenizer.json, tekken.json, a tiktoken rank file, a model folder."),
    click.option("--chat-template", metavar="FILE", help="Render records with this Jinja chat template (or a tokenizer_config.json, or a model folder holding one)."),
    click.option("--assistant-only-loss", is_flag=True, help="As TRL's assistant_only_loss: only the template's {% generation %} spans train (needs a chat template: --model of a self-hosted model, or --chat-template)."),
    click.option("--mapping", metavar="FILE[:NAME]", help="Read records as a trainer's column mapping says: LLaMA-Factory's dataset_info.json (NAME: its dataset entry)."),
    click.option("--completion-only-loss/--no-completion-only-loss", default=True, show_default=True, help="As TRL's completion_only_loss: a prompt-completion row trains on its completion only."),
    click.option("--template-max-chars", type=Count(1), default=_B.max_chars, show_default=True, help="A chat template's rendering of a record may produce this many characters, every string it builds counted; more is FT238."),
    click.option("--template-max-steps", type=Count(1), default=_B.max_steps, show_default=True, help="A chat template's rendering of a record may take this many steps (loop iterations, calls, filters); more is FT238."),
    click.option("--template-seconds", type=Number(0, minimum_open=True), default=_B.seconds, show_default=True, help="A chat template may take this long over a record's renderings; longer is FT238."),
]
# check's own: estimate and plan have --max-seq-len among the plan's options
TRUNCATION = [
    click.option("--max-seq-len", type=Count(1), metavar="TOKENS", help="Records are cut at this many tokens (TRL max_length, keep_start): targets cut off are reported (FT236)."),
]
INPUTS = [
    click.argument("paths", nargs=-1, required=True, type=click.Path(dir_okay=True, allow_dash=True, readable=False)),
    *JUDGING,
    click.option("--validation", type=click.Path(dir_okay=True, allow_dash=False), metavar="FILE", help="A validation file: checked too, and its records that also appear in the training data are reported (FT404)."),
]


def output_options(formats: tuple[str, ...] = OUTPUT_FORMATS) -> list[Callable[[F], F]]:
    return [
        click.option("--output-file", type=click.Path(dir_okay=False), metavar="FILE", help="Write the report to FILE (atomically: a temporary file renamed into place) instead of standard output."),
        click.option("-o", "--output-format", type=click.Choice(formats), default="text", show_default=True),
    ]


FAIL_ON = click.option("--fail-on", type=click.Choice([ERROR, WARNING]), default=ERROR, show_default=True, help="Lowest severity that makes the exit code 1.")

PLAN = [
    click.option("-e", "--epochs", type=Count(1), help="Epochs (default: the trainer's: a provider's auto rule, or transformers' 3)."),
    click.option("-b", "--batch-size", type=Count(1), help="Per-device batch size (default: the trainer's)."),
    click.option("-g", "--grad-accum", type=Count(1), default=1, show_default=True, help="Gradient accumulation steps."),
    click.option("--gpus", type=Count(1), default=1, show_default=True, help="Data-parallel devices."),
    click.option("--warmup-ratio", type=Ratio(), metavar="R", help="Warmup as a share of total steps, 0 to 1 (rounded up)."),
    click.option("--warmup-steps", type=Count(0), help="Warmup in steps."),
    click.option("--drop-last", is_flag=True, help="Drop the partial last batch of each epoch (steps = floor)."),
    click.option("--price", type=Number(0), metavar="USD_PER_1M_TOKENS", help="Override the model's training price."),
    click.option("--trainer", type=click.Choice(["hosted", "hf"]), default="hosted", show_default=True, help="hosted: a provider's job (plain arithmetic); hf: Hugging Face Trainer's exact step arithmetic."),
    click.option("--hf-legacy", is_flag=True, help="With --trainer hf: transformers <=4.51 (floor over gradient accumulation in max_steps)."),
    click.option("--max-steps", type=Count(1), help="Total optimizer steps; overrides epochs, as in transformers."),
    click.option("--packing", is_flag=True, help="With --trainer hf: records are packed into rows of --max-seq-len tokens (TRL bfd)."),
    click.option("--max-seq-len", type=Count(1), metavar="TOKENS", help="With --trainer hf: records are cut at this many tokens (TRL max_length), or packed into rows of it."),
    click.option("--budget-usd", type=Number(0), metavar="USD", help="Show the most epochs and steps this budget buys."),
    click.option("--budget-tokens", type=Count(0), metavar="N", help="Show the most epochs and steps this many tokens buy."),
    click.option("--tokens-per-second", type=Number(0, minimum_open=True), metavar="TPS", help="Self-hosted throughput of the whole job: gives wall time."),
    click.option("--gpu-hour-usd", type=Number(0), metavar="USD", help="Price of one GPU for an hour: gives compute cost with --tokens-per-second."),
    click.option("--learning-rate", type=Number(0, minimum_open=True), metavar="LR", help="The learning rate, tuned at --reference-batch-size."),
    click.option("--reference-batch-size", type=Count(1), metavar="B", help="Effective batch the learning rate was tuned at: shows linear and square-root scaled rates."),
    click.option("--min-total-steps", type=Count(0), default=_T.min_total_steps, show_default=True, help="FT503 below this many steps."),
    click.option("--small-dataset", type=Count(0), default=_T.small_dataset, show_default=True, help="FT504: fewer records than this ..."),
    click.option("--max-epochs-small", type=Count(0), default=_T.max_epochs_small, show_default=True, help="... with more epochs than this."),
    click.option("--max-epochs", type=Count(0), default=_T.max_epochs, show_default=True, help="FT504 above this many epochs at any size."),
    click.option("--max-warmup-share", type=Number(0, maximum=1), default=_T.max_warmup_share, show_default=True, help="FT505 above this share of steps in warmup."),
    click.option("--max-usual-epochs", type=Count(0), default=_T.max_usual_epochs, show_default=True, help="FT506 above this many epochs."),
    click.option("--large-dataset", type=Count(0), default=_T.large_dataset, show_default=True, help="FT508: more than one epoch over this many records."),
]
GATES = [
    click.option("--max-cost", type=Number(0), metavar="USD", help="Gate: fail (FT701) if the run costs more."),
    click.option("--max-tokens", type=Count(0), metavar="N", help="Gate: fail (FT702) if more tokens are processed."),
    click.option("--min-records", type=Count(0), metavar="N", help="Gate: fail (FT703) below N training records."),
]
PLOTS = [
    click.option("--plots", is_flag=True, help="Draw the token-length distribution and the learning-rate schedule (text output)."),
    click.option("--schedule", type=click.Choice(["linear", "cosine", "constant"]), default="linear", show_default=True, help="Decay after warmup, for --plots."),
]
STUDY = [
    click.option("--trials", type=Count(1), default=_S.trials, show_default=True, help="Short runs in the exploring round."),
    click.option("--short-fraction", type=Number(0, minimum_open=True, maximum=1), default=_S.short_fraction, show_default=True, help="Length of a short run, as a share of the production steps."),
    click.option("--finalists", type=Count(0), default=_S.finalists, show_default=True, help="Full-length runs in the confirming round."),
]
THRESHOLD_KEYS = ("min_total_steps", "small_dataset", "max_epochs_small", "max_epochs", "max_warmup_share", "max_usual_epochs",
                  "large_dataset")


def run_options(params: dict[str, Any], paths: tuple[str, ...], selection_base: Selection, *,
                dataset_rules: bool = True, prompts: bool = False, bound_tokens: bool = False) -> RunOptions:
    """The judging options of a command, popped from its parameters."""
    selection = Selection(params.pop("select", ()) or (), params.pop("ignore", ()) or (), selection_base.per_file,
                          selection_base.base_dir)
    return RunOptions(
        paths=paths, validation=params.pop("validation", None), model_name=params.pop("model_name"),
        context=params.pop("context"), format_name=params.pop("format_name"),
        limits=ReadLimits(params.pop("max_line_bytes"), params.pop("max_depth"), params.pop("max_file_bytes")), selection=selection,
        jobs=params.pop("jobs"), today=params.pop("today", None), tokenizer=params.pop("tokenizer", None),
        chat_template=params.pop("chat_template", None), dataset_rules=dataset_rules, prompt_fingerprints=prompts,
        assistant_only_loss=params.pop("assistant_only_loss", False), completion_only_loss=params.pop("completion_only_loss", True),
        max_seq_len=params.get("max_seq_len"),  # estimate's and plan's plan options take it too
        bound_tokens=bound_tokens, mapping=params.pop("mapping", None), engine=params.pop("engine", "local"),
        template_budget=TemplateBudget(params.pop("template_max_chars"), params.pop("template_max_steps"),
                                       params.pop("template_seconds")),
    )


def plan_options(params: dict[str, Any]) -> PlanOptions:
    """The plan options of a command, popped from its parameters."""
    thresholds = Thresholds(**{k: params.pop(k) for k in THRESHOLD_KEYS})
    gates = Gates(params.pop("max_cost", None), params.pop("max_tokens", None), params.pop("min_records", None))
    keys = ("epochs", "batch_size", "grad_accum", "gpus", "warmup_ratio", "warmup_steps", "drop_last", "trainer", "hf_legacy",
            "max_steps", "max_seq_len", "packing", "price", "budget_usd", "budget_tokens", "tokens_per_second", "gpu_hour_usd",
            "learning_rate", "reference_batch_size")
    return PlanOptions(**{k: params.pop(k) for k in keys}, thresholds=thresholds, gates=gates)

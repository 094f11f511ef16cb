"""Command-line options, declared once, and their parsing into the frozen options of
ftlint/options.py. Each command takes the groups it needs; configuration keys are these flags'
names, so a key means the same in every command that has its flag."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

import click

from .. import checked
from ..diagnostics import ERROR, WARNING
from ..maxima import maximum
from ..options import Gates, PlanOptions, ReadLimits, RunOptions, StudyOptions, TemplateBudget, Thresholds
from ..read import DEFAULT_MAX_DEPTH, DEFAULT_MAX_LINE_BYTES
from ..selection import Selection
from ..trust import MAX_FILE_BYTES
from . import told

F = TypeVar("F", bound=Callable[..., Any])
_T, _S, _B = Thresholds(), StudyOptions(), TemplateBudget()  # the defaults, written once in ftlint/options.py
OUTPUT_FORMATS = ("text", "json", "github", "sarif", "markdown")


def format_choices() -> tuple[str, ...]:
    from ..formats.registry import FORMATS

    return ("auto", *FORMATS)


class Checked(click.ParamType):
    """A flag's values, checked by the rule of ftlint/checked.py that the frozen options (and so the
    Python API) apply too: the flag, the configuration key and the keyword take the same values."""

    def __init__(self, rule: checked.Rule) -> None:
        self.rule = rule
        self.name = rule.name

    def convert(self, value: object, param: click.Parameter | None, ctx: click.Context | None) -> Any:
        try:
            return self.rule(value)
        except checked.OptionError as exc:
            self.fail(exc.reason, param, ctx)


class Count(Checked):
    """A whole number in a range, for a flag no frozen option holds (--max-errors, review's --max-steps)."""

    def __init__(self, minimum: int = 0, maximum: int | None = None) -> None:
        super().__init__(checked.Count(minimum, maximum))


def of(options: type[Any], name: str) -> Checked:
    """The type of the flag that sets the field `name` of a frozen options class: its own rule."""
    return Checked(options.RULES[name])


def choices(options: type[Any], name: str) -> click.Choice:
    """The names the field `name` of a frozen options class takes, as a flag's choice."""
    rule = options.RULES[name]
    assert isinstance(rule, checked.OneOf)
    return click.Choice(rule.choices)


def codes(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
    try:
        return checked.codes(values)
    except checked.OptionError as exc:
        raise click.BadParameter(exc.reason) from None


def whole_value(value: str, folder: Path) -> tuple[str, str] | None:
    """The file a value names: all of it."""
    return value, ""


def tokenizer_file(value: str, folder: Path) -> tuple[str, str] | None:
    """A tokenizer family's name names no file; anything else is a file or a model folder."""
    from ..tokens import FAMILIES

    return None if value in FAMILIES else (value, "")


def mapping_file(value: str, folder: Path) -> tuple[str, str] | None:
    """FILE[:NAME]: the file, and the entry's name kept as it is."""
    from ..mapping import split_spec

    file, name = split_spec(value, folder)
    return file, f":{name}" if name else ""


class Option(click.Option):
    """An option whose help is `told` when help is shown: composed from the trainers' own data
    (ftlint/cli/told.py), so that these tables name no trainer and a command that runs reads no
    trainer's profile for its help."""

    def __init__(self, *args: Any, told: Callable[[], str] | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.told = told

    def get_help_record(self, ctx: click.Context) -> tuple[str, str] | None:
        if self.told is not None:
            self.help, self.told = self.told(), None
        return super().get_help_record(ctx)


class FileOption(Option):
    """An option whose value names a file ftlint reads. A configuration file's value for it must
    lie inside the configuration's folder (ftlint/cli/config.py confines it with trust.confine);
    `file_part` says which part of a value is the path (None: the value names no file, as a
    tokenizer family). Every such option is declared with this class, and a click.Path option is
    confined as a whole value even without it, so a new path flag cannot slip past the rule
    (tests/untrusted/test_untrusted_configs.py holds every FILE- or PATH-valued option to it)."""

    def __init__(self, *args: Any, file_part: Callable[[str, Path], tuple[str, str] | None] = whole_value,
                 **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.file_part = file_part


def apply(options: list[Callable[[F], F]]) -> Callable[[F], F]:
    def wrap(func: F) -> F:
        for option in reversed(options):
            func = option(func)
        return func

    return wrap


# which codes are reported (check, estimate, plan, diff, convert)
SELECTION = [
    click.option("--select", "select", multiple=True, metavar="CODES", callback=codes, help="Report only these codes or prefixes (e.g. FT0,FT1: file and structure). --ignore still applies."),
    click.option("--ignore", "ignore", multiple=True, metavar="CODES", callback=codes, help="Comma-separated codes or prefixes not to report (e.g. FT604,FT605 or FT6)."),
]
# what to read and how to judge it (check, estimate, plan, diff)
JUDGING = [
    click.option("--model", "model_name", metavar="MODEL", help="Target model: sets the tokenizer, the per-example limit and the price (see `ftlint models`)."),
    click.option("--context", type=of(RunOptions, "context"), metavar="TOKENS", help="Override the model's per-example token limit."),
    click.option("--format", "format_name", type=click.Choice(format_choices()), default="auto", show_default=True, metavar="NAME", help="Dataset format (`ftlint formats`); auto detects it from each file's first records."),
    click.option("--max-line-bytes", type=of(ReadLimits, "max_line_bytes"), default=DEFAULT_MAX_LINE_BYTES, show_default=True, help="Longer lines are reported (FT007), not parsed."),
    click.option("--max-depth", type=of(ReadLimits, "max_depth"), default=DEFAULT_MAX_DEPTH, show_default=True, help="Deeper nesting is reported (FT014), not checked."),
    click.option("--max-file-bytes", type=of(ReadLimits, "max_file_bytes"), default=MAX_FILE_BYTES, show_default=True, help="A chat template, tokenizer, mapping or run config larger than this is refused (exit 2)."),
    *SELECTION,
    click.option("-j", "--jobs", type=of(RunOptions, "jobs"), metavar="N", help="Worker processes (default: all cores; one for inputs under 4 MB; never more than the cores)."),
    click.option("--trainer", type=choices(RunOptions, "trainer"), metavar="NAME", cls=Option, told=told.trainer),
    click.option("--trainer-version", type=of(RunOptions, "trainer_version"), metavar="VERSION", help="The trainer's release the run is modelled as (default: the one installed beside ftlint, else the one its profile models: `ftlint trainers NAME`)."),
    click.option("--transformers-version", type=of(RunOptions, "transformers_version"), metavar="VERSION", help="transformers' release under the trainer (default: installed beside the trainer, else its profile's): a run-config key it ignores or rejects is FT514 (warmup_ratio from 5.15)."),
    *(click.option(flag, type=of(RunOptions, name), metavar=metavar, cls=Option, told=told.own(name))
      for flag, name, metavar in (("--template-name", "template_name", "NAME"), ("--instruction-part", "instruction_part", "TEXT"),
                                  ("--response-part", "response_part", "TEXT"))),
    click.option("--engine", type=choices(RunOptions, "engine"), default="local", show_default=True,
                 help="Where lines are judged: this machine's processes, or a Ray cluster (RAY_ADDRESS, else a local one; pip install 'ftlint[ray]'). Same findings and figures."),
    click.option("--today", metavar="YYYY-MM-DD", help="Judge model lifecycles as of this date (default: the clock, or $FTLINT_TODAY)."),
    click.option("--tokenizer", cls=FileOption, file_part=tokenizer_file, metavar="NAME|PATH", help="Count with this tokenizer: a family (o200k_base, qwen2, llama3, ...) or a file: tokenizer.json, tekken.json, a tiktoken rank file, a model folder."),
    click.option("--chat-template", cls=FileOption, metavar="FILE", help="Render records with this Jinja chat template (or a tokenizer_config.json, or a model folder holding one)."),
    click.option("--assistant-only-loss", is_flag=True, cls=Option, told=told.own("assistant_only_loss")),
    click.option("--mapping", cls=FileOption, file_part=mapping_file, metavar="FILE[:NAME]", told=told.mapping),
    click.option("--completion-only-loss/--no-completion-only-loss", default=True, show_default=True, cls=Option,
                 told=told.own("completion_only_loss")),
    click.option("--template-max-chars", type=of(TemplateBudget, "max_chars"), default=_B.max_chars, show_default=True, help="A chat template's rendering of a record may produce this many characters, every string it builds counted; more is FT238."),
    click.option("--template-max-steps", type=of(TemplateBudget, "max_steps"), default=_B.max_steps, show_default=True, help="A chat template's rendering of a record may take this many steps (loop iterations, calls, filters); more is FT238."),
    click.option("--template-seconds", type=of(TemplateBudget, "seconds"), default=_B.seconds, show_default=True, help="A chat template may take this long over a record's renderings; longer is FT238."),
]
# check's own: estimate and plan have --max-seq-len among the plan's options
TRUNCATION = [
    click.option("--max-seq-len", type=of(RunOptions, "max_seq_len"), metavar="TOKENS", help="The trainer's max length (default: its own, `ftlint trainers NAME`): records past it are cut or dropped as the trainer does (FT236, FT240)."),
]
RUN = click.option("--run", cls=FileOption, metavar="FILE", told=told.run)
VALIDATION = click.option("--validation", cls=FileOption, type=click.Path(dir_okay=True, allow_dash=False), metavar="FILE", help="A validation file: checked too, and its records that also appear in the training data are reported (FT404).")
INPUTS = [
    click.argument("paths", nargs=-1, required=False, type=click.Path(dir_okay=True, allow_dash=True, readable=False)),
    *JUDGING,
    RUN,
    VALIDATION,
]



def _under_pre_commit(ctx: click.Context, param: click.Parameter, value: bool | None) -> bool:
    """check's --dataset when neither the flag nor the configuration gives it: on under pre-commit
    (which sets PRE_COMMIT=1 for its hooks), so an `entry:` of the user's own judges the dataset too."""
    from click.core import ParameterSource

    if value is None or (param.name and ctx.get_parameter_source(param.name) == ParameterSource.DEFAULT):
        return os.environ.get("PRE_COMMIT") == "1"
    return bool(value)


def dataset_options(pre_commit: bool = False) -> list[Callable[[F], F]]:
    """--dataset (check, estimate, diff): the files given are a change to the repository's dataset
    (ftlint/change.py); with `pre_commit` (check), on by default under pre-commit."""
    said = "off; on under pre-commit (PRE_COMMIT=1)" if pre_commit else "off"
    return [
        click.option("--dataset/--no-dataset", default=None if pre_commit else False, callback=_under_pre_commit if pre_commit else None,
                     help="Judge the repository's dataset (every data file git tracks, as the pre-commit hook matches them): "
                          "findings on the PATHs given (the changed files; none: every file), the minimum, duplicates, leakage "
                          f"and the estimate over the whole dataset. Default: {said}; the GitHub Action turns it on."),
        click.option("--dataset-paths", multiple=True, metavar="GLOB",
                     help="With --dataset: the dataset is the tracked data files matching these globs, from the repository's top "
                          "folder (`*` within a folder, `**/` any folders; default: every data file)."),
    ]


DATASET = dataset_options()


def output_options(formats: tuple[str, ...] = OUTPUT_FORMATS) -> list[Callable[[F], F]]:
    return [
        click.option("--output-file", type=click.Path(dir_okay=False), metavar="FILE", help="Write the report to FILE (atomically: a temporary file renamed into place) instead of standard output."),
        click.option("-o", "--output-format", type=click.Choice(formats), default="text", show_default=True),
    ]


MAX_ERRORS = click.option("--max-errors", type=Count(0, maximum("max-errors")), metavar="N", help="Show at most N findings (all are still counted for the exit code).")
FAIL_ON = click.option("--fail-on", type=click.Choice([ERROR, WARNING]), default=ERROR, show_default=True, help="Lowest severity that makes the exit code 1.")

PLAN = [
    click.option("-e", "--epochs", type=of(PlanOptions, "epochs"), help="Epochs (default: the trainer's: a provider's auto rule, or transformers' 3)."),
    click.option("-b", "--batch-size", type=of(PlanOptions, "batch_size"), help="Per-device batch size (default: the trainer's)."),
    click.option("--grad-accum", type=of(PlanOptions, "grad_accum"), default=1, show_default=True, help="Gradient accumulation steps."),
    click.option("--gpus", type=of(PlanOptions, "gpus"), default=1, show_default=True, help="Data-parallel devices."),
    click.option("--warmup-ratio", type=of(PlanOptions, "warmup_ratio"), metavar="R", help="Warmup as a share of total steps, 0 to 1 (rounded up)."),
    click.option("--warmup-steps", type=of(PlanOptions, "warmup_steps"), help="Warmup in steps."),
    click.option("--drop-last", is_flag=True, help="Drop the partial last batch of each epoch (steps = floor)."),
    click.option("--price", type=of(PlanOptions, "price"), metavar="USD_PER_1M_TOKENS", help="Override the model's training price."),
    click.option("--n-evals", type=of(PlanOptions, "n_evals"), metavar="N", cls=Option, told=told.own("n_evals")),
    *(click.option(flag, is_flag=True, cls=Option, told=said) for flag, said in (
        ("--full", told.own("full")), ("--no-packing", told.own("no_packing")), ("--hf-legacy", told.hf_legacy))),
    click.option("--max-steps", type=of(PlanOptions, "max_steps"), help="Total optimizer steps; overrides epochs, as in transformers."),
    click.option("--packing", is_flag=True, cls=Option, told=told.packing),
    click.option("--max-seq-len", type=of(PlanOptions, "max_seq_len"), metavar="TOKENS", cls=Option, told=told.max_seq_len),
    click.option("--budget-usd", type=of(PlanOptions, "budget_usd"), metavar="USD", help="Show the most epochs and steps this budget buys."),
    click.option("--budget-tokens", type=of(PlanOptions, "budget_tokens"), metavar="N", help="Show the most epochs and steps this many tokens buy."),
    click.option("--tokens-per-second", type=of(PlanOptions, "tokens_per_second"), metavar="TPS", help="Self-hosted throughput of the whole job: gives wall time."),
    click.option("--gpu-hour-usd", type=of(PlanOptions, "gpu_hour_usd"), metavar="USD", help="Price of one GPU for an hour: gives compute cost with --tokens-per-second."),
    click.option("--learning-rate", type=of(PlanOptions, "learning_rate"), metavar="LR", help="The learning rate, tuned at --reference-batch-size."),
    click.option("--reference-batch-size", type=of(PlanOptions, "reference_batch_size"), metavar="B", help="Effective batch the learning rate was tuned at: shows linear and square-root scaled rates."),
    click.option("--min-total-steps", type=of(Thresholds, "min_total_steps"), default=_T.min_total_steps, show_default=True, help="FT503 below this many steps."),
    click.option("--small-dataset", type=of(Thresholds, "small_dataset"), default=_T.small_dataset, show_default=True, help="FT504: fewer records than this ..."),
    click.option("--max-epochs-small", type=of(Thresholds, "max_epochs_small"), default=_T.max_epochs_small, show_default=True, help="... with more epochs than this."),
    click.option("--max-epochs", type=of(Thresholds, "max_epochs"), default=_T.max_epochs, show_default=True, help="FT504 above this many epochs at any size."),
    click.option("--max-warmup-share", type=of(Thresholds, "max_warmup_share"), default=_T.max_warmup_share, show_default=True, help="FT505 above this share of steps in warmup."),
    click.option("--max-usual-epochs", type=of(Thresholds, "max_usual_epochs"), default=_T.max_usual_epochs, show_default=True, help="FT506 above this many epochs."),
    click.option("--large-dataset", type=of(Thresholds, "large_dataset"), default=_T.large_dataset, show_default=True, help="FT508: more than one epoch over this many records."),
]
GATES = [
    click.option("--max-cost", type=of(Gates, "max_cost_usd"), metavar="USD", help="Gate: fail (FT701) if the run costs more."),
    click.option("--max-tokens", type=of(Gates, "max_tokens"), metavar="N", help="Gate: fail (FT702) if more tokens are processed."),
    click.option("--min-records", type=of(Gates, "min_records"), metavar="N", help="Gate: fail (FT703) below N training records."),
]
PLOTS = [
    click.option("--plots", is_flag=True, help="Draw the token-length distribution and the learning-rate schedule (text output)."),
    click.option("--schedule", type=click.Choice(["linear", "cosine", "constant"]), default="linear", show_default=True, help="Decay after warmup, for --plots."),
]
STUDY = [
    click.option("--trials", type=of(StudyOptions, "trials"), default=_S.trials, show_default=True, help="Short runs in the exploring round."),
    click.option("--short-fraction", type=of(StudyOptions, "short_fraction"), default=_S.short_fraction, show_default=True, help="Length of a short run, as a share of the production steps."),
    click.option("--finalists", type=of(StudyOptions, "finalists"), default=_S.finalists, show_default=True, help="Full-length runs in the confirming round."),
]
THRESHOLD_KEYS = ("min_total_steps", "small_dataset", "max_epochs_small", "max_epochs", "max_warmup_share", "max_usual_epochs",
                  "large_dataset")


def run_options(params: dict[str, Any], paths: tuple[str, ...], selection_base: Selection, *,
                dataset_rules: bool = True, prompts: bool = False, bound_tokens: bool = False) -> RunOptions:
    """The judging options of a command, popped from its parameters."""
    selection = Selection(params.pop("select", ()) or (), params.pop("ignore", ()) or (), selection_base.per_file,
                          selection_base.base_dir)
    origin = _model_origin()
    return RunOptions(
        paths=paths, validation=params.pop("validation", None), model_name=params.pop("model_name"),
        context=params.pop("context"), format_name=params.pop("format_name"),
        limits=ReadLimits(params.pop("max_line_bytes"), params.pop("max_depth"), params.pop("max_file_bytes")), selection=selection,
        jobs=params.pop("jobs"), today=params.pop("today", None), tokenizer=params.pop("tokenizer", None),
        chat_template=params.pop("chat_template", None), dataset_rules=dataset_rules, prompt_fingerprints=prompts,
        assistant_only_loss=params.pop("assistant_only_loss", False), completion_only_loss=params.pop("completion_only_loss", True),
        max_seq_len=params.get("max_seq_len"),  # estimate's and plan's plan options take it too
        bound_tokens=bound_tokens, mapping=params.pop("mapping", None), engine=params.pop("engine", "local"),
        trainer=params.pop("trainer", None), run=params.pop("run", None),
        trainer_version=params.pop("trainer_version", None), transformers_version=params.pop("transformers_version", None),
        template_name=params.pop("template_name", None), instruction_part=params.pop("instruction_part", None),
        response_part=params.pop("response_part", None),
        template_budget=TemplateBudget(params.pop("template_max_chars"), params.pop("template_max_steps"),
                                       params.pop("template_seconds")),
        model_source=origin[0], model_file=origin[1],
    )


def _model_origin() -> tuple[str, str]:
    """Where --model's value came from, when the configuration file gave it (its findings name the file)."""
    from click.core import ParameterSource

    ctx = click.get_current_context(silent=True)
    if ctx is None or "model_name" not in ctx.params or ctx.get_parameter_source("model_name") != ParameterSource.DEFAULT_MAP:
        return "", ""
    path = getattr(ctx.find_root().obj, "path", None)  # the group's Config (cli/config.py), read once
    return f"model in {path.name if path else 'the configuration file'}", str(path or "")


def plan_options(params: dict[str, Any]) -> PlanOptions:
    """The plan options of a command, popped from its parameters."""
    thresholds = Thresholds(**{k: params.pop(k) for k in THRESHOLD_KEYS})
    gates = Gates(params.pop("max_cost", None), params.pop("max_tokens", None), params.pop("min_records", None))
    keys = ("epochs", "batch_size", "grad_accum", "gpus", "warmup_ratio", "warmup_steps", "drop_last", "hf_legacy",
            "max_steps", "max_seq_len", "packing", "price", "n_evals", "full", "no_packing", "budget_usd", "budget_tokens", "tokens_per_second", "gpu_hour_usd",
            "learning_rate", "reference_batch_size")
    return PlanOptions(**{k: params.pop(k) for k in keys}, thresholds=thresholds, gates=gates)


def with_run(run: RunOptions, plan: PlanOptions | None = None) -> tuple[RunOptions, PlanOptions | None]:
    """The options with --run's values where no flag (nor ftlint.toml key) gives one; without
    --run, PATH is required."""
    from ..errors import UsageError

    if run.run is None:
        if not run.paths:
            raise UsageError("give the training files as PATH, or --run FILE naming them (docs/runs.md)")
        return run, plan
    from ..resolve.run_config import configured

    return configured(run, plan, given_options())


def given_options() -> dict[str, str]:
    """The command's options the user gave (on the command line, in the environment, or in
    ftlint.toml), each with where: what a run config does not override."""
    from click.core import ParameterSource

    ctx = click.get_current_context()
    out: dict[str, str] = {}
    for param in ctx.command.params:
        if not isinstance(param, click.Option) or param.name is None:
            continue
        source = ctx.get_parameter_source(param.name)
        flag = max(param.opts, key=len)
        if source in (ParameterSource.COMMANDLINE, ParameterSource.ENVIRONMENT):
            out[param.name] = flag
        elif source == ParameterSource.DEFAULT_MAP:
            out[param.name] = f"{flag.lstrip('-')} in the configuration file"
    return out

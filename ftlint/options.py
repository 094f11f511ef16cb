"""The options of every use case, as frozen values: each default is written once, here.

The command line (ftlint/cli/) parses flags and configuration into these; the use cases
(ftlint/app.py) and the pure layers below them only ever see these objects.

Each checks its values when it is made (RULES: ftlint/checked.py's rules, which the flags and so
the configuration file use too), raising checked.OptionError; the Python API says it as UsageError.
A value the command line has already checked passes again unchanged, at the cost of a few calls
per run (never per record).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction
from typing import ClassVar

from .checked import Count, Flag, Number, OneOf, OptionError, Ratio, Rule, Text, Version, check_fields
from .maxima import ceiling, maximum
from .parse import DEFAULT_MAX_DEPTH
from .read.base import DEFAULT_MAX_LINE_BYTES
from .selection import Selection
from .trainers import CHOICES as TRAINER_CHOICES
from .trainers.profile import TRUNCATE
from .trust import MAX_FILE_BYTES


@dataclass(frozen=True, slots=True)
class ReadLimits:
    max_line_bytes: int = DEFAULT_MAX_LINE_BYTES  # longer lines are FT007, never held whole
    max_depth: int = DEFAULT_MAX_DEPTH  # deeper nesting is FT014, never walked
    max_file_bytes: int = MAX_FILE_BYTES  # a chat template, tokenizer, mapping or run config larger than this is refused

    RULES: ClassVar[dict[str, Rule]] = {"max_line_bytes": Count(1, maximum("max-line-bytes")), "max_depth": Count(1, 1000),
                                        "max_file_bytes": Count(1, maximum("max-file-bytes"))}

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)


@dataclass(frozen=True, slots=True)
class TemplateBudget:
    """What rendering a record through a chat template may cost (a real template takes a few
    hundred steps and a few thousand characters). Over it, the record is FT238, and the run goes on."""

    max_chars: int = 16 << 20  # --template-max-chars: characters one rendering produces, every intermediate string counted
    max_steps: int = 200_000  # --template-max-steps: loop iterations, filters and calls (4 each) of one rendering
    seconds: float = 5.0  # --template-seconds: wall time of a record's renderings, a backstop to the two counts

    RULES: ClassVar[dict[str, Rule]] = {"max_chars": Count(1, maximum("template-max-chars")), "max_steps": Count(1, maximum("template-max-steps")),
                                        "seconds": Number(0, minimum_open=True, maximum=ceiling("template-seconds"))}

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)


@dataclass(frozen=True, slots=True)
class Loss:
    """What the trainer trains on (the trainers' own option names)."""

    assistant_only: bool = False  # TRL assistant_only_loss
    completion_only: bool = True  # TRL completion_only_loss (its None means on for prompt-completion rows)
    max_seq_len: int | None = None  # the trainer's max length: --max-seq-len, else its profile's default (None: the limit only)
    past_max: str = TRUNCATE  # what the trainer does with a sample past it: its Cut's name (ftlint/trainers CUTS)
    max_len_source: str = "--max-seq-len"  # where max_seq_len comes from, as the findings and the estimate say it
    # unsloth's train_on_responses_only: what follows response_part, up to the next instruction_part, trains ("": off)
    instruction_part: str = ""
    response_part: str = ""
    mask: str = ""  # the trainer whose own loss mask on the model's template trains (Trainer.masker), by name ("": TRL's)
    keys: tuple[tuple[str, object], ...] = ()  # the mapping file's keys that decide what that mask trains (Mapping.loss)


@dataclass(frozen=True, slots=True)
class RunOptions:
    """What to read and how to judge it: everything `check`, `estimate`, `plan` and `diff` share."""

    paths: tuple[str, ...]
    validation: str | None = None
    held_out: tuple[str, ...] = ()  # more files judged as validation (check: the ones named as splits, ftlint/splits.py)
    model_name: str | None = None
    # where model_name came from, as its findings (FT512, FT513) say it: "" the --model flag (the API's
    # model keyword), else "model in ftlint.toml", "base_model X from lora.yml"; and the file that named it
    model_source: str = ""
    model_file: str = ""
    context: int | None = None  # --context: wins over the format's and the model's limit
    today: str | None = None  # --today YYYY-MM-DD: model lifecycles (and dated templates) as of that day
    tokenizer: str | None = None  # --tokenizer: a family name or a file (tokenizer.json, tekken.json, rank file, folder)
    chat_template: str | None = None  # --chat-template: a Jinja file, a tokenizer_config.json, a model folder
    format_name: str = "auto"
    limits: ReadLimits = field(default_factory=ReadLimits)
    selection: Selection = field(default_factory=Selection)
    jobs: int | None = None  # None: as many as the input and the cores make worth it
    dataset_rules: bool = True  # duplicates and leakage (estimate without --validation skips them)
    prompt_fingerprints: bool = False  # only `diff` pairs changed records by their prompt
    labels: tuple[tuple[str, str], ...] = ()  # (path, the name to show for it): a git revision's temporary copy
    assistant_only_loss: bool = False  # TRL's assistant_only_loss: the template's generation spans train
    completion_only_loss: bool = True  # TRL's completion_only_loss (on by default for prompt-completion rows)
    max_seq_len: int | None = None  # TRL's max_length: targets past it are cut off (FT236)
    max_seq_len_source: str = ""  # where max_seq_len came from when not --max-seq-len (a run config)
    bound_tokens: bool = False  # check: token counts only decide FT301, so a byte bound clears most records
    mapping: str | None = None  # --mapping FILE[:NAME]: read records through a trainer's column mapping
    keep_order: bool = False  # keep each record's tokens in order: --packing's batches follow it
    engine: str = "local"  # "local": this machine's processes; "ray": a Ray cluster (ftlint/engine/ray.py)
    trainer: str | None = None  # a name of ftlint.trainers.CHOICES; None: the one the model's (or format's) provider implies
    trainer_source: str = ""  # where `trainer` came from when not --trainer (a run config)
    template_budget: TemplateBudget = field(default_factory=TemplateBudget)  # the chat template's, per record
    run: str | None = None  # --run FILE: the run config whose values fill the options not given (ftlint/resolve/run_config.py)
    run_notes: tuple[str, ...] = ()  # what the run config says that ftlint reads but does not model, and its defaults
    # the run config's findings: a key its trainer's version ignores or rejects (FT514), one ftlint cannot apply (FT515)
    run_findings: tuple[tuple[str, str], ...] = ()
    trainer_keys: tuple[tuple[str, object], ...] = ()  # the run config's keys its trainer reads itself (RunConfig.keys)
    rows_per_file: int | None = None  # read only the first rows of each file, as a trainer that takes that many (max_samples)
    trainer_version: str | None = None  # --trainer-version: the trainer's release the run is modelled as
    transformers_version: str | None = None  # --transformers-version: transformers' release under it
    template_name: str | None = None  # --template-name: a chat template by the trainer's own name (unsloth's get_chat_template)
    instruction_part: str | None = None  # --instruction-part, --response-part: unsloth's train_on_responses_only
    response_part: str | None = None
    # --dataset: the paths are a repository's dataset, judged as one: the provider's minimum (FT401) is the
    # training set's, not each file's; and findings are shown on the `changed` files only (None: on every file),
    # a dataset finding between a changed and an unchanged file on the changed one (ftlint/change.py)
    dataset: bool = False
    changed: tuple[str, ...] | None = None

    RULES: ClassVar[dict[str, Rule]] = {
        "validation": Text(path=True), "model_name": Text(), "context": Count(1, maximum("context")), "today": Text(), "tokenizer": Text(path=True),
        "chat_template": Text(path=True), "format_name": Text(), "jobs": Count(1), "dataset_rules": Flag(),
        "prompt_fingerprints": Flag(), "assistant_only_loss": Flag(), "completion_only_loss": Flag(), "max_seq_len": Count(1, maximum("max-seq-len")),
        "bound_tokens": Flag(), "mapping": Text(path=True), "keep_order": Flag(), "engine": OneOf(("local", "ray")), "trainer": OneOf(TRAINER_CHOICES),
        "trainer_source": Text(), "max_seq_len_source": Text(), "model_source": Text(), "model_file": Text(),
        "run": Text(path=True), "dataset": Flag(), "trainer_version": Version(), "transformers_version": Version(),
        "template_name": Text(), "instruction_part": Text(), "response_part": Text(),
        "rows_per_file": Count(1),  # max_samples: past a file's rows it reads them all, no harm
    }

    @property
    def validation_files(self) -> tuple[str, ...]:
        """The files judged as validation: --validation, then those `check` found named as splits."""
        return ((self.validation,) if self.validation is not None else ()) + tuple(p for p in self.held_out if p != self.validation)

    def __post_init__(self) -> None:
        if not isinstance(self.paths, tuple) or not all(isinstance(p, str) for p in self.paths):
            raise OptionError(f"{self.paths!r} is not a tuple of paths", "paths")
        for name in ("held_out", "changed"):
            value = getattr(self, name)
            if (value is not None or name == "held_out") and (not isinstance(value, tuple) or not all(isinstance(p, str) for p in value)):
                raise OptionError(f"{value!r} is not a tuple of paths", name)
        check_fields(self, self.RULES)  # the format's name is checked where formats are known (resolve_run)
        for name, kind in (("limits", ReadLimits), ("selection", Selection), ("template_budget", TemplateBudget)):
            if not isinstance(getattr(self, name), kind):
                raise OptionError(f"{getattr(self, name)!r} is not a {kind.__name__}", name)


@dataclass(frozen=True, slots=True)
class Thresholds:
    """When the plan's advice fires; each is an option (and so a config key) of the same name."""

    min_total_steps: int = 100  # FT503: fewer optimizer steps than this
    small_dataset: int = 100  # FT504: fewer records than this ...
    max_epochs_small: int = 3  # ... with more epochs than this
    max_epochs: int = 10  # FT504: more epochs than this at any size
    max_warmup_share: float = 0.2  # FT505: warmup above this share of the steps
    max_usual_epochs: int = 3  # FT506: supervised runs rarely need more (preference: 2)
    large_dataset: int = 100_000  # FT508: one epoch over this many records is plenty

    RULES: ClassVar[dict[str, Rule]] = {
        "min_total_steps": Count(0, maximum("min-total-steps")), "small_dataset": Count(0, maximum("small-dataset")),
        "max_epochs_small": Count(0, maximum("max-epochs-small")), "max_epochs": Count(0, maximum("max-epochs")),
        "max_warmup_share": Number(0, maximum=1), "max_usual_epochs": Count(0, maximum("max-usual-epochs")),
        "large_dataset": Count(0, maximum("large-dataset")),
    }

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)


@dataclass(frozen=True, slots=True)
class Gates:
    """CI thresholds: a breach is an error finding (FT7xx)."""

    max_cost_usd: float | None = None
    max_tokens: int | None = None  # tokens processed (all epochs)
    min_records: int | None = None

    RULES: ClassVar[dict[str, Rule]] = {"max_cost_usd": Number(0, maximum=ceiling("max-cost")), "max_tokens": Count(0, maximum("max-tokens")),
                                        "min_records": Count(0, maximum("min-records"))}

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)


@dataclass(frozen=True, slots=True)
class PlanOptions:
    epochs: int | None = None  # None: the trainer's default (a provider's auto rule)
    batch_size: int | None = None  # per device; None: the trainer's default
    grad_accum: int = 1
    gpus: int = 1
    warmup_ratio: Fraction | None = None  # exact: 0.1 is 1/10
    warmup_steps: int | None = None
    drop_last: bool = False
    hf_legacy: bool = False  # transformers <=4.51 arithmetic
    max_steps: int | None = None
    max_seq_len: int | None = None  # hf: records are cut to this many tokens (and packed into rows of it)
    packing: bool = False
    price: float | None = None  # --price: USD per 1M training tokens, instead of the model's
    n_evals: int | None = None  # Together's n_evals: evaluations over the validation file, billed (None: its default, 0)
    full: bool = False  # full fine-tuning, not LoRA (Together's default: LoRA)
    no_packing: bool = False  # a Together job without packing: each example a row of max_seq_length, and so billed
    budget_usd: float | None = None
    budget_tokens: int | None = None
    tokens_per_second: float | None = None  # whole job
    gpu_hour_usd: float | None = None  # per GPU
    learning_rate: float | None = None
    reference_batch_size: int | None = None  # the effective batch the learning rate was tuned at
    thresholds: Thresholds = field(default_factory=Thresholds)
    gates: Gates = field(default_factory=Gates)
    # where a value came from when not ftlint's default: ("epochs", "--epochs"), ("epochs", "num_epochs 3 from
    # lora-1b.yml"); the estimate says each figure's source from these, or the trainer's default
    sources: tuple[tuple[str, str], ...] = ()

    RULES: ClassVar[dict[str, Rule]] = {
        "epochs": Count(1, maximum("epochs")), "batch_size": Count(1, maximum("batch-size")),
        "grad_accum": Count(1, maximum("grad-accum")), "gpus": Count(1, maximum("gpus")), "warmup_ratio": Ratio(),
        "warmup_steps": Count(0, maximum("warmup-steps")), "drop_last": Flag(), "hf_legacy": Flag(),
        "max_steps": Count(1, maximum("max-steps")), "max_seq_len": Count(1, maximum("max-seq-len")), "packing": Flag(),
        "price": Number(0, maximum=ceiling("price")), "n_evals": Count(0, 100), "full": Flag(), "no_packing": Flag(),
        "budget_usd": Number(0, maximum=ceiling("budget-usd")), "budget_tokens": Count(0, maximum("budget-tokens")),
        "tokens_per_second": Number(0, minimum_open=True, maximum=ceiling("tokens-per-second")),
        "gpu_hour_usd": Number(0, maximum=ceiling("gpu-hour-usd")),
        "learning_rate": Number(0, minimum_open=True, maximum=ceiling("learning-rate")),
        "reference_batch_size": Count(1, maximum("reference-batch-size")),
    }

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)
        for name, kind in (("thresholds", Thresholds), ("gates", Gates)):
            if not isinstance(getattr(self, name), kind):
                raise OptionError(f"{getattr(self, name)!r} is not a {kind.__name__}", name)


@dataclass(frozen=True, slots=True)
class StudyOptions:
    trials: int = 12
    short_fraction: float = 0.1
    finalists: int = 3

    RULES: ClassVar[dict[str, Rule]] = {"trials": Count(1, maximum("trials")), "short_fraction": Number(0, minimum_open=True, maximum=1),
                                        "finalists": Count(0, maximum("finalists"))}

    def __post_init__(self) -> None:
        check_fields(self, self.RULES)


@dataclass(frozen=True, slots=True)
class ConvertOptions:
    """`ftlint convert PATH OUT --to TARGET`: what to read, what to write, which findings to report."""

    path: str
    output: str  # JSONL, or Parquet for a .parquet name
    target: str
    source_format: str = "auto"
    drop_invalid: bool = False  # leave out the records with errors (and exit 0 for them)
    selection: Selection = field(default_factory=Selection)
    limits: ReadLimits = field(default_factory=ReadLimits)


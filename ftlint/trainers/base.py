"""What a trainer is to the rest of ftlint: its profile (the facts, each with its source) and the
few things the generic code asks of it instead of asking its name. One package per trainer
(ftlint/trainers/<name>/) subclasses Trainer and overrides what it does otherwise than the
defaults here; the registry (ftlint/trainers/__init__.py) lists one instance of each.

    reading     reads_config / read_config / config_mapping (--run FILE), reads_mapping / mapping (--mapping FILE),
                versions (which of its versions and transformers' the run is modelled as)
    judging     cut and cut_for (past its max length), template (a renderer of its own), renderer (its own
                data pipeline), masker (its own loss mask on the model's template),
                training_template (a template it swaps in), reading (what it does to plain rows before it
                tokenizes them), pre_resize (what it makes of an image), run_options (the judging options
                only it takes), checks_as and severities
    planning    steps (its step arithmetic), default (epochs, batch), plan_options and refuses
                (the options it takes), prepare (the one way it changes the records before it batches
                them: a part read, filters, a share held out for validation, its packing and step
                count; by default the share its split holds out and --packing's rows), rows (what it
                batches), bill, validation_billing, counts_note (why its counts are an estimate)
    telling     options_help, run_config, column_mapping, max_length_key (what the flags' help says of it)

A trainer never sees the options' classes (they sit above it): what it reads of a plan is `Plan`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, ClassVar, NamedTuple, Protocol

from .cut import KEEP_START, Cut
from .profile import HF_STEPS, Profile, load

if TYPE_CHECKING:
    from collections.abc import Mapping as Keyed
    from collections.abc import Sequence

    from ..mapping import Mapping
    from ..models import Model, Sourced
    from .billing import Bill, Usage
    from .configs.base import Keys, RunConfig
    from .rendering import Masker, Renderer
    from .steps import Steps
    from .versions import Versions


class Plan(Protocol):
    """What a trainer reads of the plan options (ftlint/options.py PlanOptions)."""

    @property
    def max_seq_len(self) -> int | None: ...

    @property
    def n_evals(self) -> int | None: ...

    @property
    def full(self) -> bool: ...

    @property
    def no_packing(self) -> bool: ...

    @property
    def packing(self) -> bool: ...

    @property
    def batch_size(self) -> int | None: ...

    @property
    def gpus(self) -> int: ...


# how a trainer resizes an image before the model's processor sees it: (width, height, the processor is Qwen-VL's) -> size
Resize = Callable[[int, int, bool], tuple[int, int]]

@dataclass(frozen=True, slots=True)
class Packing:
    """--packing's rows: the records packed into rows of max_seq_len, as the trainer packs them."""

    max_seq_len: int
    rows: int  # packed sequences: the N the trainer sees
    lower_bound_rows: int  # ceil(sum of kept tokens / max_seq_len): perfect packing
    kept_tokens: int
    truncated_records: int
    truncated_tokens: int
    algorithm: str  # the trainer's, in words
    records: int | None = None  # the records in the rows, when packing leaves some out (None: every record)
    trained_tokens: int | None = None  # the trained tokens in the rows, when packing changes them (None: the records')


class RecordRow(NamedTuple):
    """One record as the judge made it, in the files' order (kept when a run's rows depend on the
    order: Trainer.prepare)."""

    tokens: int  # before the trainer's cut
    cut: int  # tokens its cut takes off
    trainable: int  # trained tokens before the cut
    cut_trainable: int
    messages: int
    targets: int
    dropped: bool  # the trainer leaves it out past its max length
    file: int  # the index of its file among the run's


@dataclass(frozen=True, slots=True)
class Split:
    """The records a trainer trains on and those it holds out for validation, each as positions in
    the files' order, in the order the trainer has them (its packing follows that order): what the
    default Trainer.prepare asks of its split."""

    train: tuple[int, ...]
    validation: tuple[int, ...]
    words: str  # how, with its source


@dataclass(frozen=True, slots=True)
class Reading:
    """What a trainer does to a row before it tokenizes it, where it does more than ftlint's formats
    say (Trainer.reading; ftlint/formats read_as applies it). The default: nothing."""

    eos: str = ""  # appended to a plain text or a completion that does not end with it ("": nothing)
    texts: bool = True  # ... to a plain text too (TRL's add_eos), or to a completion only (unsloth's own preparation)
    bos: str = ""  # put before a plain text or prompt by the tokenizer itself (add_special_tokens: Llama 3's)
    joined: bool = False  # a plain prompt and completion tokenized as one text, the completion training from the
    #                       prompt's own token count on
    speakers: bool = False  # a ShareGPT turn's speaker kept as its role (not mapped to user/assistant), every token trained

    @property
    def changes(self) -> bool:
        return bool(self.eos or self.bos) or self.joined or self.speakers


@dataclass(frozen=True, slots=True)
class Rows:
    """What a trainer batches when it is not the records: rows, and how they were counted."""

    sequences: int | None  # None: the records (or --packing's rows) as they are
    rule: str  # in words, for the estimate (rows_rule)
    length: int | None = None  # a row's length in tokens, where the bill needs it
    full: bool = False  # every row fed is `length` tokens long: the data iterator never ends (tokens processed follow)


@dataclass(frozen=True, slots=True)
class HeldOut:
    """The share a trainer holds out of the training records for validation (Prepared.validation)."""

    records: int  # the held-out records it validates on
    tokens: int  # their tokens, as cut
    lines: int | None = None  # the rows of the files it holds out, those it drops among them (None: not said as rows of the files)
    words: str = ""  # how, with its source ("": held out, said no further)


@dataclass(frozen=True, slots=True)
class Counts:
    """What a trainer trains, as its own preparation counts it where no part of the records says it
    (a share held out at random: the expected figures): they replace the judge's sums."""

    records: int  # the records it trains
    tokens: int  # their tokens, as trained (after the cut)
    trained: int  # their trained tokens
    dropped: int = 0  # records its length filter leaves out (of those it reads)
    dropped_tokens: int = 0
    dropped_trained: int = 0
    truncated: int = 0  # records it trains cut at its max length
    truncated_tokens: int = 0
    left_out: int = 0  # records it reads and leaves out for another reason (Prepared.rule says which)


@dataclass(frozen=True, slots=True)
class Prepared:
    """What a trainer makes of the records before it batches them (Trainer.prepare), the one way it
    changes them: the records it trains (the part of a dataset it reads, what its filters leave), the
    share it holds out for validation, the rows it packs. The estimate's figures are those of what
    it trains."""

    train: tuple[int, ...] | None = None  # the records it trains, as positions in the files' order, in its order (None: every one)
    counts: Counts | None = None  # its own counts of what it trains, where no part says them (they replace those of `train`)
    validation: HeldOut | None = None  # the share it holds out
    packing: Packing | None = None  # its packed rows, when it packs
    steps: Steps | None = None  # the step arithmetic for what it batches, when it is not its usual one
    ranges: tuple[tuple[str, int, int], ...] = ()  # figures it draws at random: (Estimate field, lowest, highest)
    rule: str = ""  # what it did, in words
    refusal: str | None = None  # why the run stops before it starts
    sources: tuple[tuple[str, str], ...] = ()  # where a plan figure it decides came from: ("packing", "sample_packing true from x.yml")


class Trainer:
    """A trainer with the defaults most trainers share: a hosted job billed per token, or a
    self-hosted run of the Trainer's arithmetic its profile names."""

    cut: Cut = KEEP_START  # what it does past its max length (its profile's past_max names it)
    other_cuts: tuple[Cut, ...] = ()  # the others it may do in a run (cut_for)
    run_options: frozenset[str] = frozenset()  # the judging options only some trainers take (RunOptions fields)
    run_options_source = ""  # what of the trainer those options model, as a run of another trainer is told
    aliases: tuple[str, ...] = ()  # other names a user may give it
    auto_documented = False  # its "auto" epochs and batch are the step arithmetic's own rules (ftlint/trainers/steps.py)
    checks_as: ClassVar[dict[str, str]] = {}  # a format it shares -> its own format, whose severities its checker applies to it
    severities: ClassVar[dict[str, str]] = {}  # codes it judges otherwise than the registry does, whatever the format
    # what the command line's help says of it (ftlint/cli/told.py composes the help from these: the CLI names no trainer)
    options_help: ClassVar[dict[str, str]] = {}  # the help of the options whose meaning is its own (their fields' names)
    run_config = ""  # its run config, as --run's help lists it ("": ftlint reads none; CONFIGS lists those it reads)
    column_mapping = ""  # its column mapping, as --mapping's help lists it ("": none; reads_mapping says which file is one)
    max_length_key = ""  # the key its run's max length is set with, as --max-seq-len's help lists it

    def __init__(self, name: str, package: str, file: str = "profile") -> None:
        self.name = name
        self.package, self.file = package, file  # where its profile is: FILE.toml of the package

    @cached_property
    def profile(self) -> Profile:
        """Its facts, each with its source (read once, when a run first asks)."""
        return load(self.name, self.package, self.file)

    @property
    def title(self) -> str:
        return self.profile.title

    def title_for(self, preference: bool) -> str:
        """The trainer as it runs this data (`preference`: pairs of answers, a DPO run)."""
        return self.title

    @property
    def hosted(self) -> bool:
        return self.profile.hosted

    def __repr__(self) -> str:
        return f"<trainer {self.name}>"

    # reading the user's files
    def reads_config(self, doc: dict) -> bool:
        """Whether a run config of these keys is this trainer's."""
        return False

    def read_config(self, keys: Keys) -> RunConfig:
        raise NotImplementedError(f"{self.name} has no run config")

    def config_mapping(self, config: RunConfig, paths: tuple[str, ...]) -> str | None:
        """The --mapping that reads the training files `paths` as the trainer does, from its run
        config (None: none): the config's dataset entry for the one file, or its only one."""
        from pathlib import Path

        names = {Path(p).name for p in paths}
        found = [d for d in config.datasets if d.mapping and Path(d.path).name in names]
        if len(found) == 1 and len(paths) == 1:
            return found[0].mapping
        if len(config.datasets) == 1 and len(paths) == 1:
            return config.datasets[0].mapping
        return None

    def reads_mapping(self, file: str) -> bool:
        """Whether a --mapping FILE is this trainer's column mapping."""
        return False

    def mapping(self, file: str, name: str, paths: tuple[str, ...], limit: int) -> Mapping:
        raise NotImplementedError(f"{self.name} has no column mapping")

    def versions(self, trainer: str | None = None, transformers: str | None = None) -> Versions:
        """The versions a run is modelled as: the given ones (--trainer-version, --transformers-version),
        else those installed beside ftlint where the trainer is, else its profile's (ftlint/trainers/versions.py)."""
        from .versions import resolved

        modelled = self.profile.versions.value
        return resolved(modelled if isinstance(modelled, dict) else {}, trainer, transformers)

    # judging
    def template(self, model: Model) -> str | None:
        """A renderer of its own for the model's records (None: the model's chat template)."""
        return None

    def renderer(self, keys: Keyed[str, object]) -> Renderer | None:
        """Its own renderer for the run its config's keys (RunConfig.keys) describe (None: the
        model's chat template renders, as for TRL)."""
        return None

    def masker(self, keys: Sequence[tuple[str, object]]) -> Masker | None:
        """Its own loss mask on the model's template, made with its mapping's `keys` (Mapping.loss);
        None: TRL's (ftlint/chat/tally.py)."""
        return None

    def named_template(self, name: str) -> str:
        """What ftlint renders its chat template `name` with (a family of ftlint/chat, or a file under
        ftlint/chat/templates/, NAME.jinja); ValueError when it has no such template."""
        raise ValueError(f"--template-name {name}: {self.name} names no chat templates")

    def training_template(self, template: str, assistant_only: bool, versions: Versions) -> str | None:
        """A template it renders with instead of `template` (a family of ftlint/chat), as it swaps one in
        (None: it renders with that one)."""
        return None

    def reading(self, keys: Keyed[str, object], eos: str, bos: str = "") -> Reading:
        """What it does to rows before it tokenizes them; `keys`: the run config's keys it reads
        itself (RunConfig.keys), `eos`: the model's end of text, `bos`: what its tokenizer puts
        before a text it encodes ("": nothing)."""
        return Reading()

    def cut_for(self, keys: Keyed[str, object], packing: bool, versions: Versions) -> Cut:
        """What it does past its max length in this run (`packing`: records are packed; `versions`: the run's)."""
        return self.cut

    def pre_resize(self) -> Resize | None:
        """How the trainer resizes an image before the model's processor sees it: (width, height,
        whether the processor is Qwen-VL's) -> the size it hands over (None: it hands the image over as it is)."""
        return None

    # planning
    @property
    def plan_options(self) -> frozenset[str]:
        """The plan options only some trainers take (ftlint/trainers/__init__.py refusals) that this one does."""
        if self.hosted:
            return frozenset()
        return frozenset({"max_seq_len", "packing"} if self.profile.steps == HF_STEPS else {"max_seq_len"})

    def refuses(self, plan: Plan, validation: bool) -> str | None:
        """Why the plan cannot be this trainer's run (None: it can); `validation`: a validation file was given."""
        return None

    def steps(self, legacy: bool = False) -> Steps:
        """Its step arithmetic; `legacy`: transformers <=4.51's, where it runs the Trainer's."""
        from .steps import Hosted, HuggingFace

        return HuggingFace(legacy) if self.profile.steps == HF_STEPS else Hosted()

    def default(self, name: str, records: int, steps: Steps, largest: Sourced | None = None) -> tuple[int, str]:
        """Its default epochs or batch (`name`): its profile's number, said with its source; a
        rule ("auto") is the step arithmetic's own; "max", the model's largest batch."""
        fact = getattr(self.profile, name)
        if isinstance(fact.value, int) and not isinstance(fact.value, bool):
            return fact.value, f"{self.name}'s default ({fact.source})"
        if fact.value == "max" and largest is not None:
            return int(largest.value), f"{self.name}'s default 'max': the model's largest ({largest.remark}; {largest.note})"
        if fact.value == "max":
            return 8, f"{self.name}'s default is the model's largest batch, not known here: 8 assumed; give --batch-size"
        value, rule = steps.default_epochs(records) if name == "epochs" else steps.default_batch(records)
        if fact.value == "auto" and not self.auto_documented:
            # another provider's rule standing in for one this provider does not publish, said as such
            rule = f"a stand-in for {self.name}'s own default, which it does not publish ({fact.source}): {rule}"
        return value, rule

    def prepare(self, records: Sequence[RecordRow], keys: Keyed[str, object], plan: Plan) -> Prepared | None:
        """What it makes of the records (every one, in the files' order, with what its cut did) before
        it batches them, from its run config's `keys` and the plan: by default the share its split
        holds out for validation (_split) and, under --packing, the rows it packs the others into
        (_pack); None: it batches every record as judged."""
        split = self._split(records, keys)
        train = records if split is None else [records[i] for i in split.train]
        packing = self._pack(train, plan.max_seq_len, keys) if plan.packing and plan.max_seq_len else None
        if split is None:
            return Prepared(packing=packing) if packing is not None else None
        held = [records[i] for i in split.validation]
        kept = [r for r in held if not r.dropped]
        validation = HeldOut(len(kept), sum(r.tokens - r.cut for r in kept), len(held), split.words)
        return Prepared(split.train, validation=validation, packing=packing)

    def _split(self, records: Sequence[RecordRow], keys: Keyed[str, object]) -> Split | None:
        """The records its split holds out for validation, as its config's `keys` say (None: none;
        every record trains, in the files' order)."""
        return None

    def _pack(self, records: Sequence[RecordRow], max_seq_len: int, keys: Keyed[str, object]) -> Packing:
        """--packing: the records that train, in the order it has them (those it dropped past its max
        length among them, marked), packed into rows of `max_seq_len` as it packs them; only a trainer
        whose plan_options have "packing" is asked."""
        raise NotImplementedError(f"{self.name} does not pack")

    def rows(self, records: int, tokens: int, plan: Plan, model: Model | None, method: str) -> Rows | None:
        """What it batches, when not the records (None)."""
        return None

    def bill(self, usage: Usage, rows: Rows | None, plan: Plan) -> Bill:
        from .billing import per_token

        return per_token(str(self.profile.billing.value), usage)

    def validation_billing(self, evals: int) -> tuple[bool, str] | None:
        """Whether the validation file is billed, and the note that says so (None: the default note)."""
        return None

    def counts_note(self, keys: Keyed[str, object], formatting: str) -> str:
        """Why its counts of a run (its config's `keys`, data of `formatting`) are an estimate
        whatever the model ("": they are the model's)."""
        return ""


__all__ = ["Counts", "HeldOut", "Packing", "Plan", "Prepared", "Reading", "RecordRow", "Resize", "Rows", "Split", "Trainer"]

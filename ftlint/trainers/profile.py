"""What a trainer is, to ftlint: the run it makes of a dataset, each fact with the place in the
trainer's own code (or documentation) it comes from.

A profile is data: a TOML file in each trainer's package (ftlint/trainers/<name>/profile.toml,
read by `load`), its trainer listed in one table (ftlint/trainers/__init__.py). Every figure ftlint prints for a run follows from the profile of the
trainer that runs it: the formats it takes (and, for a file of another shape, which format ftlint
would convert it to), its defaults, how it renders a conversation, what its loss trains, what it
does with a sample past its max length, whether text that spells a special token becomes that
token, packing, its step arithmetic and how it bills.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

# what a trainer does with a sample longer than its max length: the name of its Cut (ftlint/trainers/cut.py;
# a trainer's own rule is named in its package: the registry's CUTS lists them all)
TRUNCATE = "truncate"  # cut, keeping its start
REJECT = "reject"  # the job is refused (a hosted provider's validation)

# what the loss trains by default
ALL_TOKENS = "all"  # every token of the rendered sequence (language modelling on the whole conversation)
TARGETS = "targets"  # the format's targets: assistant turns, completions (ftlint's record rule)

# how a conversation becomes tokens (a renderer of a trainer's own is named in its package)
TEMPLATE = "template"  # the model's chat template, as transformers' apply_chat_template renders it
PROVIDER = "provider"  # the provider's own rendering, counted by ftlint's token convention

# how steps are counted (ftlint/trainers/steps.py; a trainer's own arithmetic is named in its package)
HOSTED_STEPS = "hosted"  # steps per epoch = ceil(sequences / effective batch), times the epochs
HF_STEPS = "hf"  # transformers' Trainer: per device, then accumulation (ftlint/trainers/steps.py HuggingFace)


@dataclass(frozen=True, slots=True)
class Fact:
    """A value of a trainer's, and where it comes from (a file and function of its code, or a page of its docs)."""

    value: object
    source: str


@dataclass(frozen=True, slots=True)
class Profile:
    name: str
    title: str
    hosted: bool  # a provider's job (billed), or a trainer the user runs
    formats: Fact  # the ftlint formats it takes (a tuple of names)
    epochs: Fact  # an int, or "auto" (the provider picks: OpenAI's cookbook rule)
    batch: Fact  # per device: an int, "auto" (a provider's rule), or "max" (the model's largest)
    max_length: Fact  # tokens per sequence (int), or None: the model's context
    past_max: Fact  # the name of its Cut (Trainer.cut)
    loss: Fact  # ALL_TOKENS or TARGETS, by default
    renderer: Fact  # TEMPLATE, PROVIDER, or a renderer of the trainer's own
    control_tokens: Fact  # True: text spelling an added token (<|im_end|>, [INST]) becomes that token
    packing: Fact  # on by default (bool)
    steps: str  # HOSTED_STEPS, HF_STEPS, or an arithmetic of the trainer's own (Trainer.steps)
    billing: Fact  # what is billed, in words ("" for a trainer the user runs)
    read: str = ""  # the code (repository@commit) or the docs these facts were read from
    providers: tuple[str, ...] = ()  # the catalog providers whose models this trainer's jobs run (hosted)
    notes: tuple[str, ...] = ()  # what the trainer does that the figures do not show
    max_steps: Fact = Fact(None, "")  # a run of this many steps by default, None: the epochs decide
    tokenizers: Fact = Fact(None, "")  # the catalog tokenizers of the models it trains (some trainers' own), None: any
    # the versions it is modelled as: {package: its distribution (read installed beside ftlint), trainer, transformers}
    versions: Fact = Fact({}, "")
    keys: tuple[tuple[str, str], ...] = ()  # the run-config keys it applies, each with what it does and where (its [keys])
    refused: tuple[tuple[str, str], ...] = ()  # keys that change the figures and that ftlint does not model: exit 2 ([refused])

    def trains(self, tokenizer: str) -> bool:
        """Whether a model of this tokenizer is one the trainer trains."""
        value = self.tokenizers.value
        return not isinstance(value, (tuple, list)) or tokenizer in value

    def takes(self, fmt: str) -> bool:
        return fmt in self.format_names

    @property
    def format_names(self) -> tuple[str, ...]:
        value = self.formats.value
        return tuple(value) if isinstance(value, (tuple, list)) else ()

    def facts(self) -> list[tuple[str, Fact]]:
        """The profile's facts, as `ftlint trainers NAME` lists them."""
        return [("formats", self.formats), ("epochs", self.epochs), ("batch", self.batch), ("max length", self.max_length),
                ("past the max length", self.past_max), ("loss", self.loss), ("renderer", self.renderer),
                ("special-token text", self.control_tokens), ("packing", self.packing), ("billing", self.billing),
                *([("max steps", self.max_steps)] if self.max_steps.value is not None else []),
                *([("versions", self.versions)] if self.versions.value else [])]


def load(name: str, package: str, file: str = "profile") -> Profile:
    """The profile of the trainer `name` in the TOML file `file` of its package: each fact a table
    of its value (absent: None) and its source; `inherits` names a file of the same package that
    it completes. Read the first time a run asks for it (ftlint/trainers/base.py Trainer.profile)."""
    data = _read(package, file)
    keys, refused = (tuple((str(k), str(v)) for k, v in data.pop(table, {}).items()) for table in ("keys", "refused"))
    fields: dict[str, Any] = {key: _fact(value) if isinstance(value, dict) else _frozen(value) for key, value in data.items()}
    return Profile(name=name, **fields, keys=keys, refused=refused)


def _read(package: str, file: str) -> dict:
    import tomllib
    from importlib import resources

    data = tomllib.loads(resources.files(package).joinpath(f"{file}.toml").read_text(encoding="utf-8"))
    base = data.pop("inherits", None)
    return {**_read(package, base), **data} if base else data


def _fact(table: dict) -> Fact:
    return Fact(_frozen(table.get("value")), table["source"])


def _frozen(value: object) -> object:
    return tuple(value) if isinstance(value, list) else value

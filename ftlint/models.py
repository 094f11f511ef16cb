"""The model catalog (ftlint/catalog/*.toml, one file per provider): for each model its
tokenizer, chat-template family, per-example limit, training price and its unit, the formats it
takes and its lifecycle dates, each value with its source, date and confidence.

A model is named by its id (`gpt-4.1-mini-2025-04-14`, `meta-llama/Llama-3.1-8B-Instruct`), an
alias (`gpt-4.1-mini`), or `provider/id` for a provider's copy of a model (`azure/gpt-4.1-mini`).
Without --model, a file is priced and limited as its format's provider's default model, if that
provider has one still open for training; otherwise it gets no price, and its tokens are counted
with o200k_base as an estimate, and the output says how to name the model.
"""

from __future__ import annotations

import datetime as dt
import os
import tomllib
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from importlib.resources.abc import Traversable

# C: a dated copy of a provider's page kept by a third party (prices-2026.md's M)
CONFIDENCE = {"V": "verified", "D": "from provider docs", "C": "from a dated copy of the provider's page", "U": "unverified"}
TRUST_ORDER = "VDCU"  # strongest first: a figure read through two values is as sure as the weaker
PRICE_UNITS = {"usd_per_1m_tokens": "per 1M training tokens", "usd_per_training_hour": "per training hour"}
RETIRING_DAYS = 60  # a model this close to its last training date is a warning (FT513)
# tokenizers no file of which can be had offline: counts with o200k_base are estimates
ESTIMATED_TOKENIZERS = {"gemini": "Gemini (SentencePiece; Google's local tokenizer downloads it)",
                        "gemma3": "Gemma 3 (SentencePiece, not a tiktoken vocabulary)",
                        "mistral-v3-spm": "Mistral v3 (SentencePiece, 32,768 pieces: not a tiktoken vocabulary)",
                        "claude": "Claude (not public)", "nova": "Amazon Nova (not public)",
                        "gemma4": "Gemma 4 (SentencePiece, not a tiktoken vocabulary)",
                        "kimi-k2": "Kimi K2 (Moonshot's tiktoken vocabulary of about 160,000 tokens, not shipped)",
                        "glm": "GLM 4.6 to 5.1 (Z.ai's tokenizer, not shipped)",
                        "deepseek-v3": "DeepSeek V3 and R1 (DeepSeek's 128K vocabulary, not shipped)",
                        "nemotron": "NVIDIA Nemotron Nano v2 (NVIDIA's tokenizer, not shipped)",
                        "mistral-v1": "Mistral 7B and Mixtral 8x7B (SentencePiece, 32,000 tokens)",
                        "unknown": "its tokenizer (not a model of ftlint's catalog, and no name rule of ftlint's matches it)"}
UNKNOWN = "unknown"  # the tokenizer of a model a run config names that ftlint does not know (unknown())


class UnknownModel(Exception):
    pass


class UnknownProvider(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Sourced:
    """A value and where it came from. confidence: V verified, D docs excerpt, U unverified;
    "user" when it came from the command line."""

    value: int | float | str
    source: str
    date: str
    confidence: str
    remark: str = ""  # the catalog's note on the value
    unit: str = ""  # prices: usd_per_1m_tokens or usd_per_training_hour

    @property
    def note(self) -> str:
        if self.confidence == "user":
            return "from the command line"
        label = CONFIDENCE.get(self.confidence, self.confidence)
        return f"{label}: {self.source}, {self.date}"


@dataclass(frozen=True, slots=True)
class Provider:
    name: str
    title: str
    formats: tuple[str, ...]
    default_model: str | None
    convention: str  # "openai": the cookbook convention; "template": the model's chat template
    status: Sourced | None
    min_examples: Sourced | None
    last_training_date: Sourced | None
    defaults: tuple[tuple[str, Sourced], ...] = ()  # (hyperparameter, its auto rule)
    moved: Sourced | None = None  # a deprecated provider's: where its users train now


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    provider: str
    tokenizer: str  # a family of ftlint.tokens.FAMILIES, or one of ESTIMATED_TOKENIZERS
    template: str  # how a record becomes tokens: "openai" (cookbook convention) or a template family
    context: Sourced | None
    price: Sourced | None
    min_examples: Sourced | None
    aliases: tuple[str, ...] = ()
    methods: tuple[str, ...] = ()
    formats: tuple[str, ...] = ()
    last_training_date: Sourced | None = None
    shutdown_date: Sourced | None = None
    status: Sourced | None = None
    licence: Sourced | None = None
    defaults: tuple[tuple[str, Sourced], ...] = ()
    assumed: bool = False  # no model was named: the format's provider's default (or none)
    # kinds of part (keys such as functionCall) the model's tuning rejects, comma-separated (FT223)
    unsupported_parts: Sourced | None = None
    # billing by method (Together, Fireworks): "sft-lora", "sft-full", "dpo-lora", "dpo-full" -> USD per 1M tokens
    rates: tuple[tuple[str, Sourced], ...] = ()
    minimum_charge: Sourced | None = None  # USD a job costs at least
    parameters: Sourced | None = None  # billions, total (a mixture of experts: all experts): the size bracket's
    max_batch: Sourced | None = None  # the largest batch (LoRA), what a batch size of "max" is
    max_batch_full: Sourced | None = None  # the same for full fine-tuning
    context_dpo: Sourced | None = None  # the max sequence length of a preference job, where it differs
    storage: Sourced | None = None  # what the provider bills besides training (a custom model's storage a month)
    # false: the counts cannot be the trainer's (its rendering is not public); the remark gives the error band measured
    exact: Sourced | None = None
    eos: Sourced | None = None  # the tokenizer's eos_token, where it is not its chat template's end of turn (a base model's)
    # a vision model's image processor (a name of ftlint.media.processors.PROCESSORS): how many tokens an image is
    processor: Sourced | None = None
    # a model a name rule resolved (names.py): why its conversations' counts are an estimate (its vocabulary is exact)
    template_doubt: str = ""
    unpriced: Sourced | None = None  # no price in the catalog: why (what was looked for, and not found)
    unnamed: bool = False  # no model named, and no provider's default open: the placeholder `default_model` makes

    def rate(self, method: str) -> Sourced | None:
        """The price per 1M tokens of a method ("sft-lora", ...), where the catalog prices by method."""
        return dict(self.rates).get(method)

    def matches(self, text: str) -> bool:
        """Whether the name or an alias holds `text`, in any case."""
        lowered = text.lower()
        return lowered in self.name.lower() or any(lowered in a.lower() for a in self.aliases)

    def rejects_part(self, key: str) -> bool:
        return self.unsupported_parts is not None and key in str(self.unsupported_parts.value).split(",")

    @property
    def encoding(self) -> str:
        """The tiktoken encoding the counts use (o200k_base where the model's is not available)."""
        return "o200k_base" if self.tokenizer in ESTIMATED_TOKENIZERS else self.tokenizer

    @property
    def tokens_exact(self) -> bool:
        return self.tokenizer not in ESTIMATED_TOKENIZERS and (self.exact is None or bool(self.exact.value))

    @property
    def price_per_1m(self) -> Sourced | None:
        """The price, if it is per token (a per-hour price cannot turn tokens into dollars)."""
        return self.price if self.price is not None and self.price.unit == "usd_per_1m_tokens" else None

    def lifecycle(self, today: dt.date) -> tuple[str, Sourced] | None:
        """("retired", date) past its last training date, ("retiring", date) within RETIRING_DAYS
        of it, else None."""
        last = self.last_training_date
        if last is None:
            return None
        day = dt.date.fromisoformat(str(last.value))
        if today > day:
            return "retired", last
        if (day - today).days <= RETIRING_DAYS:
            return "retiring", last
        return None


def user_value(value: int | float | str, unit: str = "") -> Sourced:
    return Sourced(value, "command line", "", "user", unit=unit)


def _sourced(entry: object) -> Sourced | None:
    if not isinstance(entry, dict):
        return None
    return Sourced(entry["value"], str(entry.get("source", "")), str(entry.get("date", "")), str(entry.get("confidence", "U")),
                   str(entry.get("note", "")), str(entry.get("unit", "")))


def _catalog() -> Traversable:
    return resources.files("ftlint").joinpath("catalog")


@cache
def _file_names() -> tuple[str, ...]:
    """The catalog's files, by provider name (the file's stem), in the catalog's order (catalog/order.txt)."""
    order = [line.strip() for line in _catalog().joinpath("order.txt").read_text(encoding="utf-8").splitlines()
             if line.strip() and not line.startswith("#")]
    stems = [f.name.removesuffix(".toml") for f in _catalog().iterdir() if f.name.endswith(".toml")]
    return tuple(sorted(stems, key=lambda n: (order.index(n) if n in order else len(order), n)))


def provider_names() -> tuple[str, ...]:
    """The catalog's providers, in its order, without reading their files."""
    return _file_names()


@cache
def _file(stem: str) -> dict:
    """One provider's file, parsed the first time it is needed: a small file's `check` reads
    only its format's provider."""
    data = tomllib.loads(_catalog().joinpath(f"{stem}.toml").read_text(encoding="utf-8"))
    if data["provider"]["name"] != stem:
        raise ValueError(f"catalog/{stem}.toml describes provider {data['provider']['name']!r}; a file is named after its provider")
    return data


@cache
def _provider(stem: str) -> Provider:
    p = _file(stem)["provider"]
    defaults = tuple((k.replace("_", " "), s) for k, v in p.get("defaults", {}).items() if (s := _sourced(v)))
    return Provider(p["name"], p["title"], tuple(p.get("formats", ())), p.get("default_model"),
                    p.get("convention", "openai"), _sourced(p.get("status")), _sourced(p.get("min_examples")),
                    _sourced(p.get("last_training_date")), defaults, _sourced(p.get("moved")))


@cache
def providers() -> dict[str, Provider]:
    return {stem: _provider(stem) for stem in _file_names()}


@cache
def _models_of(stem: str) -> dict[str, Model]:
    provider = _provider(stem)
    out = {}
    for name, e in _file(stem).get("models", {}).items():
        billing = _rates(e, _file(stem)["provider"].get("rates"))
        bracket_price = billing.pop("price", None)
        out[name] = Model(
            name=name, provider=provider.name, tokenizer=e["tokenizer"],
            template=e.get("template", "openai" if provider.convention == "openai" else e["tokenizer"]),
            context=_sourced(e.get("context")),
            min_examples=_sourced(e.get("min_examples")) or provider.min_examples,
            aliases=tuple(e.get("aliases", ())), methods=tuple(e.get("methods", ())),
            formats=tuple(e.get("formats", provider.formats)),
            last_training_date=_sourced(e.get("last_training_date")) or provider.last_training_date,
            shutdown_date=_sourced(e.get("shutdown_date")), status=_sourced(e.get("status")),
            licence=_sourced(e.get("licence")), defaults=provider.defaults,
            unsupported_parts=_sourced(e.get("unsupported_parts")), price=_sourced(e.get("price")) or bracket_price,
            parameters=_sourced(e.get("parameters")), max_batch=_sourced(e.get("max_batch")),
            max_batch_full=_sourced(e.get("max_batch_full")), context_dpo=_sourced(e.get("context_dpo")),
            storage=_sourced(e.get("storage")), exact=_sourced(e.get("exact")), eos=_sourced(e.get("eos")),
            processor=_sourced(e.get("processor")), unpriced=_sourced(e.get("unpriced")),
            **billing,
        )
    return out


METHODS = ("sft-lora", "sft-full", "dpo-lora", "dpo-full")


def _rates(entry: dict, table: dict | None) -> dict:
    """A model's rates by method and minimum charge: its own (`rates`), else its provider's size
    bracket's, the first whose `up_to` its total parameters do not pass; and its price (SFT LoRA)
    when it has none of its own."""
    own, size = entry.get("rates"), _sourced(entry.get("parameters"))
    found: dict | None
    if isinstance(own, dict):
        where, found, extra = own, own, ""
    elif table and size is not None:
        found = next((b for b in table["brackets"] if float(size.value) <= b["up_to"]), None)
        if found is None:
            return {}
        where = table
        extra = f"{found['name']} bracket, by {float(size.value):g}B total parameters ({size.source})"
    else:
        return {}
    confidence = max(str(where.get("confidence", "U")), size.confidence if size and extra else "V", key=TRUST_ORDER.index)
    note = "; ".join(x for x in (str(where.get("note", "")), extra) if x)

    def sourced(value: float, what: str, unit: str = "usd_per_1m_tokens") -> Sourced:
        return Sourced(float(value), str(where["source"]), str(where["date"]), confidence, f"{what}; {note}" if note else what, unit)

    rates = tuple((m, sourced(found[m], m)) for m in METHODS if m in found)
    out: dict = {"rates": rates, "price": dict(rates).get("sft-lora")}
    if "minimum" in found:
        out["minimum_charge"] = sourced(found["minimum"], "minimum charge", "usd")
    return out


@cache
def all_models() -> dict[str, Model]:
    out: dict[str, Model] = {}
    for stem in _file_names():
        out.update(_models_of(stem))
    return out


def provider_table(name: str, table: str) -> dict | None:
    """A table of a provider's file beside its fields (`[provider.media]`: ftlint/media/accepted.py)."""
    found = _file(name)["provider"].get(table)
    return found if isinstance(found, dict) else None


def provider_of(format_name: str) -> Provider | None:
    for stem in _file_names():  # in order, parsing only as far as the first provider taking the format
        provider = _provider(stem)
        if format_name in provider.formats:
            return provider
    return None


def get_model(name: str) -> Model:
    models = all_models()
    if name in models:
        return models[name]
    for model in models.values():
        if name in model.aliases:
            return model
    close = sorted(n for n, m in models.items() if m.matches(name))
    hint = f"; did you mean {', '.join(close[:5])}?" if close else "; `ftlint models` lists them"
    raise UnknownModel(f"unknown model {name!r}{hint}")


@dataclass(frozen=True, slots=True)
class Listing:
    """The models a query chose, every provider (a provider's heading and auto rules are shown
    with its models), and the day their lifecycles are judged on."""

    models: tuple[Model, ...]
    providers: dict[str, Provider]
    today: dt.date
    deprecated: tuple[str, ...] = ()  # providers asked for whose fine-tuning is gone: no model, said so


def listing(query: str | None, provider: str | None, today: dt.date) -> Listing:
    """`ftlint models`: the catalog's models whose name or an alias holds `query` (all without
    one), of one provider or of all."""
    known = providers()
    if provider is not None and provider not in known:
        raise UnknownProvider(f"unknown provider {provider!r}; known: {', '.join(known)}")
    chosen = tuple(m for m in all_models().values() if (provider is None or m.provider == provider) and (not query or m.matches(query)))
    if query and not chosen:
        raise UnknownModel(f"no model matches {query!r}; `ftlint models` lists them")
    gone = () if query else tuple(name for name, p in known.items()
                                  if p.moved is not None and (provider is None or name == provider))
    return Listing(chosen, known, today, gone)


def default_model(format_name: str, today: dt.date) -> Model:
    """The model a file of this format is priced as when none is named: its provider's default,
    while that is open for training; else a placeholder with no price (counted with o200k_base,
    as an estimate)."""
    provider = provider_of(format_name)
    if provider is not None and provider.default_model:
        model = _models_of(provider.name).get(provider.default_model) or all_models()[provider.default_model]
        state = model.lifecycle(today)
        if state is None or state[0] != "retired":
            return _replace_assumed(model)
    return Model(name="(none named)", provider=provider.name if provider else "", tokenizer="o200k_base", template="openai",
                 context=None, price=None, min_examples=provider.min_examples if provider else None, assumed=True,
                 unnamed=True)


def _replace_assumed(model: Model) -> Model:
    import dataclasses

    return dataclasses.replace(model, assumed=True)


def default_model_name() -> str:
    provider = providers()["openai"]
    return str(provider.default_model)


def today_from(value: str | None) -> dt.date:
    """Today's date: --today, else $FTLINT_TODAY (pin it for a whole CI job), else the clock (UTC)."""
    value = value or os.environ.get("FTLINT_TODAY")
    if value:
        return dt.date.fromisoformat(value)
    return dt.datetime.now(dt.UTC).date()


__all__ = ["Listing", "Model", "Provider", "Sourced", "UnknownModel", "UnknownProvider", "all_models", "default_model", "field",
           "get_model", "listing", "providers", "today_from", "user_value"]

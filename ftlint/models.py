"""The models data file (`models.toml`): prices, limits and tokenizers, each with its source."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources


class UnknownModel(Exception):
    pass


@dataclass(frozen=True, slots=True)
class Sourced:
    """A value and where it came from. confidence: V verified, D docs excerpt, U unverified;
    "user" when it came from the command line."""

    value: int | float | str
    source: str
    date: str
    confidence: str

    @property
    def note(self) -> str:
        if self.confidence == "user":
            return "from the command line"
        label = {"V": "verified", "D": "from provider docs", "U": "unverified"}[self.confidence]
        return f"{label}: {self.source}, {self.date}"


@dataclass(frozen=True, slots=True)
class Model:
    name: str
    provider: str
    encoding: Sourced
    price_per_1m: Sourced | None
    context: Sourced | None
    min_examples: Sourced | None
    aliases: tuple[str, ...] = ()
    defaults: tuple[tuple[str, Sourced], ...] = ()  # (hyperparameter, its default or auto rule)


def user_value(value: int | float | str) -> Sourced:
    return Sourced(value, "command line", "", "user")


def _sourced(entry: dict | None) -> Sourced | None:
    if entry is None:
        return None
    return Sourced(entry["value"], entry["source"], str(entry["date"]), entry["confidence"])


@cache
def _data() -> dict:
    text = resources.files("ftlint").joinpath("models.toml").read_text(encoding="utf-8")
    return tomllib.loads(text)


@cache
def all_models() -> dict[str, Model]:
    data = _data()
    out = {}
    for name, entry in data["models"].items():
        provider = entry.get("provider", "openai")
        provider_data = data.get(provider, {})
        out[name] = Model(
            name=name,
            provider=provider,
            encoding=_sourced(entry["encoding"]),  # type: ignore[arg-type]
            price_per_1m=_sourced(entry.get("price_per_1m")),
            context=_sourced(entry.get("context")),
            min_examples=_sourced(entry.get("min_examples", provider_data.get("min_examples"))),
            aliases=tuple(entry.get("aliases", ())),
            defaults=tuple((key.removeprefix("default_").replace("_", " "), _sourced(value))  # type: ignore[misc]
                           for key, value in provider_data.items() if key.startswith("default_")),
        )
    return out


def default_model_name() -> str:
    return str(_data()["default"])


def get_model(name: str | None) -> Model:
    models = all_models()
    name = name or default_model_name()
    if name in models:
        return models[name]
    for model in models.values():
        if name in model.aliases:
            return model
    known = ", ".join(sorted(models))
    raise UnknownModel(f"unknown model {name!r}; known models: {known} (see `ftlint models`)")

"""`ftlint models`: the catalog, by provider, with every value's source."""

from __future__ import annotations

import datetime as dt

import orjson

from ..models import PRICE_UNITS, Listing, Model, Provider, Sourced
from .renderer import Renderer


def _value(s: Sourced | None) -> dict[str, object] | None:
    if s is None:
        return None
    out: dict[str, object] = {"value": s.value, "source": s.source, "date": s.date, "confidence": s.confidence}
    if s.unit:
        out["unit"] = s.unit
    if s.remark:
        out["note"] = s.remark
    return out


def model_dict(m: Model, today: dt.date) -> dict[str, object]:
    state = m.lifecycle(today)
    return {
        "name": m.name, "provider": m.provider, "aliases": list(m.aliases), "tokenizer": m.tokenizer,
        "tokens_exact": m.tokens_exact, "template": m.template, "methods": list(m.methods), "formats": list(m.formats),
        "context": _value(m.context), "price": _value(m.price), "min_examples": _value(m.min_examples),
        "last_training_date": _value(m.last_training_date), "shutdown_date": _value(m.shutdown_date),
        "status": _value(m.status), "licence": _value(m.licence), "unpriced": _value(m.unpriced), "lifecycle": state[0] if state else "open",
        "processor": _value(m.processor),
        **({"template_estimate": m.template_doubt} if m.template_doubt else {}),
    }


def _deprecated_dict(name: str, provider: Provider) -> dict[str, object]:
    return {"name": name, "title": provider.title, "formats": list(provider.formats), "status": _value(provider.status),
            "moved": _value(provider.moved)}


def render_json(shown: Listing) -> str:
    data = {"today": shown.today.isoformat(), "models": [model_dict(m, shown.today) for m in shown.models],
            "deprecated_providers": [_deprecated_dict(name, shown.providers[name]) for name in shown.deprecated]}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def render_text(shown: Listing) -> str:
    """By provider, in the catalog's order: the provider's heading and auto rules, then its models."""
    lines: list[str] = []
    for name, provider in shown.providers.items():
        mine = [m for m in shown.models if m.provider == name]
        if mine:
            lines += _provider_lines(name, provider)
            lines += [line for m in mine for line in _model_lines(m, provider, shown.today)]
            lines.append("")
        elif name in shown.deprecated:
            lines += [*_provider_lines(name, provider), *_deprecated_lines(provider), ""]
    return "\n".join(lines).rstrip("\n") + "\n"


def _deprecated_lines(provider: Provider) -> list[str]:
    """A provider whose fine-tuning is gone: no model to list, its formats still checked, where its users went."""
    moved = [f"  {'moved to':<14}{provider.moved.value}  ({provider.moved.note})"] if provider.moved else []
    return [f"  no model of it can be fine-tuned; its formats ({', '.join(provider.formats)}) are still checked", *moved]


def _provider_lines(name: str, provider: Provider) -> list[str]:
    status = f"  ({provider.status.value}; {provider.status.note})" if provider.status else ""
    return [f"== {provider.title} [{name}]{status}", *(f"  {key:<14}{value.value}  ({value.note})" for key, value in provider.defaults)]


def _model_lines(m: Model, provider: Provider, today: dt.date) -> list[str]:
    state = m.lifecycle(today)
    mark = {"retired": "  [RETIRED for training]", "retiring": "  [closing soon]"}.get(state[0], "") if state else ""
    default = "  (default for its formats)" if provider.default_model == m.name else ""
    aliases = f"  aliases: {', '.join(m.aliases)}" if m.aliases else ""
    tokenizer = m.tokenizer if m.tokens_exact else f"{m.tokenizer}: not available offline, counted with o200k_base as an estimate"
    if not m.tokens_exact and m.exact is not None:
        tokenizer = f"{m.tokenizer}, an estimate: {m.exact.remark}"
    template = f"; template {m.template}" if m.template != "openai" else ""
    if m.template_doubt:  # a name rule's model (names.py): its conversations are an estimate
        template += f", an estimate: {m.template_doubt}" if template else f"; an estimate: {m.template_doubt}"
    lines = [f"{m.name}{default}{mark}{aliases}", f"  {'tokenizer':<14}{tokenizer}{template}"]
    for label, value, fmt in (("limit", m.context, "{:,} tokens per example"), ("minimum", m.min_examples, "{} examples"),
                              ("last training", m.last_training_date, "{}"), ("shutdown", m.shutdown_date, "{}"),
                              ("status", m.status, "{}"), ("licence", m.licence, "{}"), ("images", m.processor, "{}")):
        if value is not None:
            lines.append(f"  {label:<14}{fmt.format(value.value)}  ({value.note})")
    lines.append(f"  {'price':<14}{_price(m.price, m.unpriced)}")
    return lines


def _price(price: Sourced | None, unpriced: Sourced | None = None) -> str:
    if price is None and unpriced is not None:
        return f"not in the catalog: {unpriced.value}; give --price  ({unpriced.note})"
    if price is None:
        return "not in the catalog: give --price"
    remark = f"; {price.remark}" if price.remark else ""
    return f"${float(price.value):g} {PRICE_UNITS.get(price.unit, price.unit)}{remark}  ({price.note})"


MODELS_RENDERERS: dict[str, Renderer[Listing]] = {"text": render_text, "json": render_json}

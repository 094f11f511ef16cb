"""`ftlint models`: the catalog, by provider, with every value's source."""

from __future__ import annotations

import datetime as dt

import orjson

from ..models import ESTIMATED_TOKENIZERS, PRICE_UNITS, Model, Provider, Sourced


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
        "status": _value(m.status), "licence": _value(m.licence), "lifecycle": state[0] if state else "open",
    }


def render_models(models: list[Model], providers: dict[str, Provider], today: dt.date, output_format: str) -> str:
    if output_format == "json":
        return orjson.dumps({"today": today.isoformat(), "models": [model_dict(m, today) for m in models]},
                            option=orjson.OPT_INDENT_2).decode() + "\n"
    lines: list[str] = []
    for name, provider in providers.items():
        mine = [m for m in models if m.provider == name]
        if not mine:
            continue
        status = f"  ({provider.status.value}; {provider.status.note})" if provider.status else ""
        lines += [f"== {provider.title} [{name}]{status}"]
        lines += [f"  {key:<14}{value.value}  ({value.note})" for key, value in provider.defaults]
        for m in mine:
            state = m.lifecycle(today)
            mark = {"retired": "  [RETIRED for training]", "retiring": "  [closing soon]"}.get(state[0], "") if state else ""
            default = "  (default for its formats)" if provider.default_model == m.name else ""
            aliases = f"  aliases: {', '.join(m.aliases)}" if m.aliases else ""
            lines.append(f"{m.name}{default}{mark}{aliases}")
            tokenizer = m.tokenizer if m.tokens_exact else f"{m.tokenizer}: not available offline, counted with o200k_base as an estimate"
            lines.append(f"  {'tokenizer':<14}{tokenizer}" + (f"; template {m.template}" if m.template != "openai" else ""))
            for label, value, fmt in (("limit", m.context, "{:,} tokens per example"), ("minimum", m.min_examples, "{} examples"),
                                      ("last training", m.last_training_date, "{}"), ("shutdown", m.shutdown_date, "{}"),
                                      ("status", m.status, "{}")):
                if value is not None:
                    lines.append(f"  {label:<14}{fmt.format(value.value)}  ({value.note})")
            if m.price is not None:
                unit = PRICE_UNITS.get(m.price.unit, m.price.unit)
                remark = f"; {m.price.remark}" if m.price.remark else ""
                lines.append(f"  {'price':<14}${float(m.price.value):g} {unit}{remark}  ({m.price.note})")
            else:
                lines.append(f"  {'price':<14}not in the catalog: give --price")
        lines.append("")
    return "\n".join(lines).rstrip("\n") + "\n"


__all__ = ["ESTIMATED_TOKENIZERS", "model_dict", "render_models"]

"""What a provider bills for a job. Pure: the run's figures and the catalog's rates in, a frozen
Bill out.

A hosted provider's job, as each profile's billing fact says:
    bill            = training tokens x epochs x rate
A trainer that bills otherwise says so in its own package (Trainer.bill: evaluations, padded
rows, a minimum charge), through the same Bill.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Model, Sourced


@dataclass(frozen=True, slots=True)
class Bill:
    rule: str  # the provider's rule, in words
    method: str  # the rate's key: sft-lora, sft-full, dpo-lora, dpo-full ("" where the provider has one rate)
    training_tokens: int  # one epoch's, as billed
    training_rule: str  # how they were counted
    epochs: int
    validation_tokens: int  # one evaluation's
    evals: int  # evaluations billed (0 where a provider bills none)
    tokens: int  # billed, over all epochs and evaluations
    tokens_rule: str
    rate: float | None  # USD per 1M tokens
    rate_source: str
    rate_date: str
    rate_confidence: str  # V, D, C, U (ftlint/models.py CONFIDENCE), or "user" for --price
    rate_note: str  # which rate: the method, the bracket
    charge_usd: float | None  # tokens x rate
    minimum_usd: float | None  # the model's minimum charge
    minimum_applied: bool
    cost_usd: float | None  # what the provider will bill
    not_in_cost: str = ""  # what else the provider bills (storage, hosting)


@dataclass(frozen=True, slots=True)
class Usage:
    """What a run uses that a provider may bill, and the catalog's rate for it."""

    method: str  # the rate's key (method_of)
    tokens_per_epoch: int  # the file's tokens as trained
    records: int
    epochs: int
    processed: int  # tokens fed over the run
    processed_rule: str
    validation_tokens: int  # the validation file's, one pass
    rate: Sourced | None
    minimum: Sourced | None  # the model's minimum charge
    not_in_cost: str = ""


def method_of(preference: bool, full: bool) -> str:
    """The rate's key: DPO for a preference format, else SFT; LoRA unless --full."""
    return f"{'dpo' if preference else 'sft'}-{'full' if full else 'lora'}"


def rate_of(model: Model | None, method: str) -> Sourced | None:
    """The catalog's price for the method: a model priced by method (the catalog's `rates`) has
    that method's rate (its own SFT LoRA price first); any other, its one price per token."""
    if model is None:
        return None
    if not model.rates:
        return model.price_per_1m
    own = model.price_per_1m if method == "sft-lora" else None
    return own or model.rate(method)


def max_batch(model: Model | None, full: bool) -> Sourced | None:
    if model is None:
        return None
    return model.max_batch_full if full else model.max_batch


def per_token(rule: str, usage: Usage) -> Bill:
    """The tokens fed over the run (`processed`, and its rule), at the rate: what every provider
    bills that has no rule of its own."""
    return priced(rule, usage, usage.tokens_per_epoch, "the file's tokens as trained", usage.processed, usage.processed_rule)


def priced(rule: str, usage: Usage, training: int, training_rule: str, tokens: int, tokens_rule: str,
           validation_tokens: int = 0, evals: int = 0) -> Bill:
    """The bill of `tokens` at the usage's rate, at least its minimum charge."""
    rate, minimum = usage.rate, usage.minimum
    charge = tokens * float(rate.value) / 1_000_000 if rate is not None else None
    floor = float(minimum.value) if minimum is not None else None
    applied = charge is not None and floor is not None and floor > charge
    cost = (floor if applied else charge) if charge is not None else None
    return Bill(rule, usage.method if rate is not None and rate.confidence != "user" else "", training, training_rule,
                usage.epochs, validation_tokens, evals, tokens, tokens_rule,
                float(rate.value) if rate is not None else None, rate.source if rate else "", rate.date if rate else "",
                rate.confidence if rate else "", rate.remark if rate else "", round(charge, 6) if charge is not None else None,
                floor, applied, round(cost, 6) if cost is not None else None, usage.not_in_cost)


__all__ = ["Bill", "Usage", "max_batch", "method_of", "per_token", "priced", "rate_of"]

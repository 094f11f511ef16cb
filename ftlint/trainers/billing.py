"""What the provider will bill for a job. Pure: the run's figures and the catalog's rates in, a
frozen Bill out.

Together (docs.together.ai/docs/fine-tuning-pricing; support article 7922061943, 2025-11-14):
    billed tokens   = n_epochs x training tokens + n_evals x validation tokens
    training tokens = the file's tokens; with packing off, rows x max_seq_length (each example
                      is a row padded to max_seq_length)
    rate            = the model's (large and MoE models, LoRA only) or its size bracket's (total
                      parameters), by SFT or DPO and LoRA or full
    bill            = max(billed tokens x rate, the model's minimum charge)
Fireworks, Bedrock, Vertex, Azure, OpenAI (each profile's billing fact, ftlint/trainers/hosted.py):
    bill            = training tokens x epochs x rate

Together's steps (research note T9, inferred: the docs' example is "context length x batch
size x steps" tokens): a batch of "max" is the model's largest, in packed rows of max_seq_length;
with packing on, rows = ceil(training tokens / max_seq_length) (perfect packing: Together's
algorithm is not published); with packing off, one row per example.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..models import Model, Sourced

TOGETHER = "together"
PREFERENCE_FORMATS = ("together-preference", "openai-preference", "bedrock-nova-dpo", "trl-preference")


@dataclass(frozen=True, slots=True)
class Bill:
    rule: str  # the provider's rule, in words
    method: str  # the rate's key: sft-lora, sft-full, dpo-lora, dpo-full ("" where the provider has one rate)
    training_tokens: int  # one epoch's, as billed
    training_rule: str  # how they were counted
    epochs: int
    validation_tokens: int  # one evaluation's
    evals: int  # evaluations billed (Together's n_evals; 0 elsewhere)
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


def method_of(fmt: str, full: bool) -> str:
    """The rate's key: DPO for a preference format, else SFT; LoRA unless --full."""
    return f"{'dpo' if fmt in PREFERENCE_FORMATS else 'sft'}-{'full' if full else 'lora'}"


def rate_of(model: Model | None, method: str) -> Sourced | None:
    """The catalog's price for the method: a model priced by method (Together, Fireworks) has
    that method's rate (its own SFT LoRA price first); any other, its one price per token."""
    if model is None:
        return None
    if not model.rates:
        return model.price_per_1m
    own = model.price_per_1m if method == "sft-lora" else None
    return own or model.rate(method)


def max_seq_length(model: Model | None, method: str, given: int | None) -> tuple[int | None, str]:
    """Together's max_seq_length: --max-seq-len, else the model's fine-tuning context (a DPO
    job's, where the catalog has it)."""
    if given:
        return given, "--max-seq-len"
    if model is None:
        return None, ""
    context = model.context_dpo if method.startswith("dpo") and model.context_dpo else model.context
    if context is None:
        return None, ""
    return int(context.value), f"the model's {'DPO ' if context is model.context_dpo else ''}fine-tuning context ({context.source})"


def max_batch(model: Model | None, full: bool) -> Sourced | None:
    if model is None:
        return None
    return model.max_batch_full if full else model.max_batch


def together_rows(records: int, tokens: int, length: int, packing: bool) -> tuple[int, str]:
    """The rows a Together job batches: packed rows of `length` tokens, or one per example."""
    if not packing:
        return records, f"one row per example (--no-packing), each of {length:,} tokens"
    rows = -(-tokens // length)
    return rows, f"= ceil({tokens:,} tokens / {length:,}): packed rows of max_seq_length (inferred: Together's packing is not published)"


def bill(*, rule: str, method: str, tokens_per_epoch: int, records: int, epochs: int, processed: int, processed_rule: str,
         together: bool, packing: bool, length: int | None, validation_tokens: int, evals: int, rate: Sourced | None,
         minimum: Sourced | None, not_in_cost: str = "") -> Bill:
    """The bill. `processed` (tokens fed over the run, and its rule) is what every provider but
    Together bills; Together bills its own sum, with evaluations and the packing-off rows."""
    if together:
        training, training_rule = tokens_per_epoch, "the file's tokens as trained"
        if not packing and length:
            training, training_rule = records * length, f"= {records:,} rows x {length:,} max_seq_length (packing off)"
        tokens = epochs * training + evals * validation_tokens
        tokens_rule = f"= {epochs} epoch{'s' if epochs != 1 else ''} x {training:,} + {evals} eval{'s' if evals != 1 else ''} x {validation_tokens:,} validation tokens"
    else:
        training, training_rule, tokens, tokens_rule = tokens_per_epoch, "the file's tokens as trained", processed, processed_rule
    charge = tokens * float(rate.value) / 1_000_000 if rate is not None else None
    floor = float(minimum.value) if minimum is not None else None
    applied = charge is not None and floor is not None and floor > charge
    cost = (floor if applied else charge) if charge is not None else None
    return Bill(rule, method if rate is not None and rate.confidence != "user" else "", training, training_rule, epochs,
                validation_tokens if together else 0, evals if together else 0, tokens, tokens_rule,
                float(rate.value) if rate is not None else None, rate.source if rate else "", rate.date if rate else "",
                rate.confidence if rate else "", rate.remark if rate else "", round(charge, 6) if charge is not None else None,
                floor, applied, round(cost, 6) if cost is not None else None, not_in_cost)


__all__ = ["PREFERENCE_FORMATS", "TOGETHER", "Bill", "bill", "max_batch", "max_seq_length", "method_of", "rate_of", "together_rows"]

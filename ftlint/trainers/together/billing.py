"""What a Together job bills, and the rows it batches. Pure: the run's figures and the catalog's
rates in, a frozen Bill out.

Together (docs.together.ai/docs/fine-tuning-pricing; support article 7922061943, 2025-11-14):
    billed tokens   = n_epochs x training tokens + n_evals x validation tokens
    training tokens = the file's tokens; with packing off, rows x max_seq_length (each example
                      is a row padded to max_seq_length)
    rate            = the model's (large and MoE models, LoRA only) or its size bracket's (total
                      parameters), by SFT or DPO and LoRA or full
    bill            = max(billed tokens x rate, the model's minimum charge)

Together's steps (research note T9, inferred: the docs' example is "context length x batch
size x steps" tokens): a batch of "max" is the model's largest, in packed rows of max_seq_length;
with packing on, rows = ceil(training tokens / max_seq_length) (perfect packing: Together's
algorithm is not published); with packing off, one row per example.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..billing import Bill, Usage, priced
from ..steps import Hosted

if TYPE_CHECKING:
    from ...models import Model

# research note T9: the docs' example bills "context length x batch size x steps" tokens, so a step is a batch of rows
STEPS_RULE = "steps per epoch = ceil(rows / effective batch), a row max_seq_length tokens (inferred from Together's docs)"


class TogetherSteps(Hosted):
    """A provider's job's arithmetic, over rows of max_seq_length."""

    def per_epoch_rule(self, drop_last: bool) -> str:
        return STEPS_RULE


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


def rows(records: int, tokens: int, length: int, packing: bool) -> tuple[int, str]:
    """The rows a Together job batches: packed rows of `length` tokens, or one per example."""
    if not packing:
        return records, f"one row per example (--no-packing), each of {length:,} tokens"
    found = -(-tokens // length)
    return found, f"= ceil({tokens:,} tokens / {length:,}): packed rows of max_seq_length (inferred: Together's packing is not published)"


def bill(rule: str, usage: Usage, packing: bool, length: int | None, evals: int) -> Bill:
    """Together's own sum: the epochs of the training tokens (the padded rows with packing off)
    and the evaluations of the validation file."""
    training, training_rule = usage.tokens_per_epoch, "the file's tokens as trained"
    if not packing and length:
        training, training_rule = usage.records * length, f"= {usage.records:,} rows x {length:,} max_seq_length (packing off)"
    epochs = usage.epochs
    tokens = epochs * training + evals * usage.validation_tokens
    tokens_rule = (f"= {epochs} epoch{'s' if epochs != 1 else ''} x {training:,} + {evals} eval{'s' if evals != 1 else ''} x "
                   f"{usage.validation_tokens:,} validation tokens")
    return priced(rule, usage, training, training_rule, tokens, tokens_rule, usage.validation_tokens, evals)

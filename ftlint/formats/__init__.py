"""Dataset formats: each owns its JSON Schema, its record rule and its token figures.

A format turns one parsed line into training records (how many, which spans carry loss, their
tokens). Which rules apply to it is said by the rules themselves (their scope); what its provider
tolerates or rejects more strictly than the registry's default is the format's `severities`. The
registry (formats/registry.py) is an explicit table: adding a format touches the table, its
schema in schemas/ and its fixtures in fixtures/formats/NAME/.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .base import Format, LineFigures, RecordFigures

if TYPE_CHECKING:
    from ..options import Loss
    from ..trainers.base import Reading

__all__ = ["Format", "LineFigures", "RecordFigures", "get_format", "read_as", "rule_of", "trained_as"]


def get_format(name: str) -> Format:
    from .registry import FORMATS

    if name not in FORMATS:
        raise KeyError(f"unknown format {name!r}; `ftlint formats` lists them")
    return FORMATS[name]


# a trainer that trains the assistant's turns (axolotl's chat_template: roles_to_train ['assistant'],
# train_on_eos 'turn') of data whose format trains every token under TRL (trl-messages)
TARGETS_RULE = ("1 row = 1 sequence; the trainer trains the assistant turns, each with its end of turn "
                "(axolotl's chat_template: roles_to_train ['assistant'], train_on_eos 'turn')")


ASSISTANT_ONLY_RULE = ("1 row = 1 sequence; assistant_only_loss=True: only the spans the chat template marks "
                       "({% generation %}) train")


def trained_as(fmt: Format, trains_targets: bool, assistant_only: bool = False) -> Format:
    """`fmt` as the run's trainer trains it: a format whose loss covers every token (TRL's
    language modelling) trains the targets under a trainer whose loss is its targets, and says
    TRL's assistant_only_loss when it is on."""
    import dataclasses

    if getattr(fmt, "targets", None) != "all":
        return fmt
    if trains_targets:
        return dataclasses.replace(fmt, targets="roles", record_rule=TARGETS_RULE)  # type: ignore[call-arg]
    if assistant_only:
        return dataclasses.replace(fmt, record_rule=ASSISTANT_ONLY_RULE)
    return fmt


def rule_of(fmt: Format, loss: Loss) -> str:
    """The record rule as the run's trainer's own loss mask trains the format (Loss.mask), else the format's own."""
    if not loss.mask:
        return fmt.record_rule
    from ..trainers import masker as masker_of

    masker = masker_of(loss.mask, loss.keys)
    return masker.rule(fmt.shape) if masker is not None else fmt.record_rule


def read_as(fmt: Format, reading: Reading, completion_only: bool = True) -> Format:
    """`fmt` as the run's trainer reads its rows (its Reading: ftlint/trainers/base.py): a plain text
    or completion with its end of text appended, a plain prompt and completion tokenized as one
    text (the prompt trained too unless `completion_only`), ShareGPT's speakers kept as roles."""
    import dataclasses

    from .chat import ShareGPT
    from .fields import FieldsFormat

    if not reading.changes:
        return fmt
    if type(fmt) is FieldsFormat and fmt.shape in ("text", "prompt-completion"):
        return dataclasses.replace(fmt, eos=reading.eos, joined=reading.joined, prompt_trains=not completion_only,
                                   eos_texts=reading.texts, bos=1 if reading.bos else 0)
    if reading.speakers and type(fmt) is ShareGPT:
        from .spoken import SpokenShareGPT

        return SpokenShareGPT(**{f.name: getattr(fmt, f.name) for f in dataclasses.fields(fmt)})
    return fmt

"""The trainers ftlint knows, one package each, in one table: base.py says what a trainer is to
the rest of ftlint (its profile and what the generic code asks of it), profile.py what a profile
holds. Adding a trainer is its package and its line in TRAINERS (and in CONFIGS, if it has a run
config ftlint reads); nothing outside ftlint/trainers/ asks which trainer it is.

    trl  unsloth  axolotl  llama-factory  mistral-finetune        the trainers people run themselves
    openai  azure  together  fireworks  bedrock  vertex  the providers' fine-tuning jobs

A run's trainer is chosen once (ftlint/resolve/): --trainer (or a run config's, or the one whose
column mapping --mapping names), else the one a named model's provider implies (a Hugging Face
model: TRL; a Together model: Together's job), else the one the file's format's provider implies
(openai-chat: OpenAI's job); a file of a format no single trainer owns (ShareGPT, Alpaca, text)
and no trainer named: no profile, and a provider's plain job arithmetic is assumed, and said.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from . import axolotl, llama_factory, mistral_finetune, together, trl, unsloth
from .base import Plan, Rows, Trainer
from .cut import KEEP_START, Cut
from .hosted import azure, bedrock, fireworks, openai, vertex
from .profile import Fact, Profile
from .rendering import Unrendered

if TYPE_CHECKING:
    from collections.abc import Sequence

    from .rendering import Masker

TRAINERS: dict[str, Trainer] = {t.name: t for t in (
    trl.TRAINER, unsloth.TRAINER, axolotl.TRAINER, llama_factory.TRAINER, mistral_finetune.TRAINER,
    openai.TRAINER, azure.TRAINER, together.TRAINER, fireworks.TRAINER, bedrock.TRAINER, vertex.TRAINER,
)}
# the run configs ftlint reads (--run), in the order their keys are tried: the most particular first
CONFIGS: tuple[Trainer, ...] = (together.TRAINER, axolotl.TRAINER, llama_factory.TRAINER, mistral_finetune.TRAINER, trl.TRAINER)
ALIASES = {alias: t.name for t in TRAINERS.values() for alias in t.aliases}  # other names a user may give
HOSTED = "hosted"  # the named model's provider's job (or the format's), whichever provider it is
CHOICES = (*TRAINERS, *ALIASES, HOSTED)
SELF_HOSTED_PROVIDER = "hf"  # the catalog's provider of the models people fine-tune themselves
CUTS: dict[str, Cut] = {c.name: c for c in (KEEP_START, *(c for t in TRAINERS.values() for c in (t.cut, *t.other_cuts)))}

def taking(option: str) -> list[Trainer]:
    """The trainers that take a plan option only some take (Trainer.plan_options), in the registry's order."""
    return [t for t in TRAINERS.values() if option in t.plan_options]


def refusals() -> dict[str, str]:
    """The plan options only some trainers take (Trainer.plan_options), and what a run of another is
    told, in this order (made when a plan is checked: importing the registry reads no profile)."""
    packing = ", ".join(t.name for t in taking("packing"))
    return {
        "packing": f"--packing models the packing of {packing}: name one with --trainer, or a self-hosted --model",
        "max_seq_len": "--max-seq-len is the length a self-hosted trainer cuts records at (and a Together job's "
                       "max_seq_length): name it with --trainer or --model; a provider's limit is --context",
        **{option: f"{flag} is a Together job's option: name a together/ --model or --trainer together"
           for option, flag in (("n_evals", "--n-evals"), ("full", "--full"), ("no_packing", "--no-packing"))},
    }


class UnknownTrainer(Exception):
    pass


def named(name: str) -> Trainer:
    """A trainer by name or alias."""
    found = TRAINERS.get(ALIASES.get(name, name))
    if found is None:
        raise UnknownTrainer(f"unknown trainer {name!r}; ftlint knows {', '.join(TRAINERS)} (`ftlint trainers`)")
    return found


def of_provider(provider: str) -> Trainer | None:
    """The trainer whose jobs run a catalog provider's models (TRL for the self-hosted ones)."""
    if provider == SELF_HOSTED_PROVIDER:
        return TRAINERS["trl"]
    return next((t for t in TRAINERS.values() if provider in t.profile.providers), None)


def chosen(name: str | None, provider: str | None) -> tuple[Trainer | None, str]:
    """The run's trainer and why: `name` (--trainer, or a run config's; "hosted" is the provider's
    job), else the one `provider` (the named model's, or the format's) implies."""
    if name is not None and name != HOSTED:
        return named(name), f"--trainer {name}"
    found = of_provider(provider) if provider else None
    if found is None:
        return None, ""
    return found, f"{'--trainer hosted: ' if name == HOSTED else ''}the {provider} provider's"


def run_trainer(trainer: Trainer | None, why: str, provider: str, fmt: str) -> tuple[Trainer | None, str]:
    """The run's trainer and why, as every command has it: the one the run resolved (named, or
    implied by its model), else the one the training format's provider implies."""
    if trainer is not None:
        return trainer, why
    found, _ = chosen(None, provider)
    return found, f"implied by {fmt}, {provider}'s format" if found is not None else ""


def option_refusal(option: str) -> str:
    """What a run of another trainer is told of a judging option only some trainers take (a
    RunOptions field in a Trainer's run_options): whose it is."""
    owner = next(t for t in TRAINERS.values() if option in t.run_options)
    flag = "--" + option.replace("_", "-")
    return f"{flag} is {owner.name}'s ({owner.run_options_source}): name --trainer {owner.name}"


def option_help(option: str) -> str:
    """The help of an option whose meaning is one trainer's own (Trainer.options_help): its flags'
    help says it, as the trainer's package declares it."""
    return next(t.options_help[option] for t in TRAINERS.values() if option in t.options_help)


def masker(name: str, keys: Sequence[tuple[str, object]]) -> Masker | None:
    """The run's trainer's own loss mask (Loss.mask: the trainer's name; "": none, TRL's), made with
    its mapping's keys (Loss.keys)."""
    return named(name).masker(keys) if name else None


def mapping_owner(file: str) -> Trainer:
    """The trainer whose column mapping a --mapping FILE is."""
    return next(t for t in TRAINERS.values() if t.reads_mapping(file))


def cut_rule(name: str) -> Cut:
    """What a trainer does past its max length, by the rule's name (Loss.past_max)."""
    return CUTS[name]


__all__ = ["ALIASES", "CHOICES", "CONFIGS", "HOSTED", "TRAINERS", "Cut", "Fact", "Plan", "Profile", "Rows", "Trainer",
           "UnknownTrainer", "Unrendered", "chosen", "cut_rule", "mapping_owner", "masker", "named", "of_provider", "option_help",
           "option_refusal", "refusals", "run_trainer", "taking"]

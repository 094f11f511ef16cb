"""The trainers ftlint knows, one profile each (profile.py says what a profile holds), in one table.

    trl  axolotl  llama-factory  mistral-finetune        the trainers people run themselves
    openai  azure  together  fireworks  bedrock  vertex  the providers' fine-tuning jobs

A run's trainer is chosen once: --trainer (or a run config's), else the one a named model's
provider implies (a Hugging Face model: TRL; a Together model: Together's job), else the one the
file's format's provider implies (openai-chat: OpenAI's job); a file of a format no single
trainer owns (ShareGPT, Alpaca, text) and no trainer named: no profile, and a provider's plain
job arithmetic is assumed, and said.
"""

from __future__ import annotations

from . import axolotl, hosted, llama_factory, mistral_finetune, trl
from .profile import Fact, Profile

TRAINERS: dict[str, Profile] = {p.name: p for p in (trl.PROFILE, axolotl.PROFILE, llama_factory.PROFILE, mistral_finetune.PROFILE,
                                                   *hosted.PROFILES)}
# other names a user may give; "hf" (the Hugging Face Trainer's arithmetic) is TRL's
ALIASES = {"hf": "trl", "transformers": "trl", "unsloth": "trl", "llamafactory": "llama-factory", "llama_factory": "llama-factory",
           "mistral": "mistral-finetune"}
HOSTED = "hosted"  # the named model's provider's job (or the format's), whichever provider it is
CHOICES = (*TRAINERS, *ALIASES, HOSTED)
SELF_HOSTED_PROVIDER = "hf"  # the catalog's provider of the models people fine-tune themselves


class UnknownTrainer(Exception):
    pass


def named(name: str) -> Profile:
    """The profile of a trainer by name or alias."""
    found = TRAINERS.get(ALIASES.get(name, name))
    if found is None:
        raise UnknownTrainer(f"unknown trainer {name!r}; ftlint knows {', '.join(TRAINERS)} (`ftlint trainers`)")
    return found


def of_provider(provider: str) -> Profile | None:
    """The trainer whose jobs run a catalog provider's models (TRL for the self-hosted ones)."""
    if provider == SELF_HOSTED_PROVIDER:
        return TRAINERS["trl"]
    return next((p for p in TRAINERS.values() if provider in p.providers), None)


def chosen(name: str | None, provider: str | None) -> tuple[Profile | None, str]:
    """The run's trainer and why: `name` (--trainer, or a run config's; "hosted" is the provider's
    job), else the one `provider` (the named model's, or the format's) implies."""
    if name is not None and name != HOSTED:
        return named(name), f"--trainer {name}"
    found = of_provider(provider) if provider else None
    if found is None:
        return None, ""
    return found, f"{'--trainer hosted: ' if name == HOSTED else ''}the {provider} provider's"


__all__ = ["ALIASES", "CHOICES", "HOSTED", "TRAINERS", "Fact", "Profile", "UnknownTrainer", "chosen", "named", "of_provider"]

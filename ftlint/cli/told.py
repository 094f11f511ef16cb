"""The help of the flags whose meaning is the trainers' (or the catalog's providers'): composed
from the registry (the catalog) when help is shown (options.py Option's `told`), so that adding a
trainer (a provider) changes no text of the command line, and a command that runs reads no
profile for its help. A trainer's package says what is its own
(ftlint/trainers/base.py: options_help, run_config, column_mapping, max_length_key); which trainers
take an option is what they answer (plan_options, their profile's steps)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..trainers import Trainer


def _trainers() -> list[Trainer]:
    from ..trainers import TRAINERS

    return list(TRAINERS.values())


def own(option: str) -> Callable[[], str]:
    """The help of an option whose meaning is one trainer's (Trainer.options_help)."""

    def told() -> str:
        from ..trainers import option_help

        return option_help(option)

    return told


def trainer() -> str:
    """--trainer: the trainers people run, each with the other names it takes (not mere respellings), then the providers' jobs."""
    from ..trainers import HOSTED

    runs = ", ".join(_named(t) for t in _trainers() if not t.hosted)
    jobs = ", ".join(t.name for t in _trainers() if t.hosted)
    return (f"The trainer that runs the job (`ftlint trainers`): {runs}, or a provider's job ({jobs}; {HOSTED}: the "
            "model's provider's). Default: the one the model's provider implies.")


def _named(trainer: Trainer) -> str:
    squeezed = trainer.name.replace("-", "")
    other = [a for a in trainer.aliases if a.replace("-", "").replace("_", "") != squeezed]
    return f"{trainer.name} ({', '.join(other)})" if other else trainer.name


def run() -> str:
    """--run: the run configs ftlint reads (CONFIGS), as their trainers name them."""
    from ..trainers import CONFIGS

    configs = ", ".join(t.run_config for t in _trainers() if t in CONFIGS)
    return (f"The run config you launch ({configs}): its trainer, model, lengths, batches and datasets, where no flag gives "
            "them (docs/runs.md).")


def mapping() -> str:
    """--mapping: the column mappings the trainers read."""
    return f"Read records as a trainer's column mapping says: {', or '.join(t.column_mapping for t in _trainers() if t.column_mapping)}."


def max_seq_len() -> str:
    """The plan's --max-seq-len: each trainer's key for it, of those that take it."""
    from ..trainers import taking

    keys = ", ".join(f"{t.name} {t.max_length_key}" for t in taking("max_seq_len") if t.max_length_key)
    return (f"The trainer's max length ({keys}): records past it are cut or dropped as the trainer does, or packed into rows "
            "of it.")


def packing() -> str:
    """--packing: the trainers that take it."""
    from ..trainers import taking

    return f"Records are packed into rows of --max-seq-len tokens, as the trainer packs them ({', '.join(t.name for t in taking('packing'))})."


def providers() -> str:
    """models' --provider: the catalog's providers, in its order (catalog/order.txt)."""
    from ..models import provider_names

    return f"Only this provider's models ({', '.join(provider_names())})."


def hf_legacy() -> str:
    """--hf-legacy: the trainers whose steps are the Hugging Face Trainer's arithmetic, which it changes."""
    from ..trainers.profile import HF_STEPS

    arithmetic = ", ".join(t.name for t in _trainers() if t.profile.steps == HF_STEPS)
    return f"With the Trainer's arithmetic ({arithmetic}): transformers <=4.51 (floor over gradient accumulation in max_steps)."

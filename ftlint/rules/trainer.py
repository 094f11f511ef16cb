"""What the run's trainer makes of the file (FT110): a trainer named (or implied by the model
named) takes some formats only. A file of another format is not read the way ftlint counts it, or
not read at all: the provider's checker rejects it, or the trainer trains on something else."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, Hit
from . import check, register

if TYPE_CHECKING:
    from ..formats import Format
    from ..trainers import Profile

register("FT110", "format-not-taken", ERROR, """
    The file's format is not one the run's trainer takes (--trainer, or the one the named
    --model's provider implies: Together's job for a together/ model, TRL for a Hugging Face one).

    A file of the trainer's own shape is read as the trainer's format (OpenAI-style messages are
    trl-messages to TRL, together-conversational to Together); a file of another shape is this
    error, naming what the trainer takes and the `ftlint convert` command that gets there.
    Why: Together's checker rejects a ShareGPT file; TRL does not map ShareGPT's human/gpt roles;
    a gpt-4o-mini job does not take ShareGPT at all. The figures of such a file are not the run's.
    Example: ftlint check sharegpt.json --model together/meta-llama/Meta-Llama-3.1-8B-Instruct-Reference
""", kind="trainer")


@check("trainer", "FT110")
def format_taken(profile: Profile, fmt: Format, path: str) -> Iterator[Hit]:
    if profile.takes(fmt.name) or not profile.format_names:
        return
    from ..formats.registry import CONVERTIBLE

    takes = ", ".join(profile.format_names)
    target = next((name for name in profile.format_names if name in CONVERTIBLE), None)
    how = (f"; ftlint convert {path} OUT --to {target}" if target and fmt.name in CONVERTIBLE
           else "; ftlint convert cannot write it" if target is None else f"; ftlint cannot convert from {fmt.name}")
    yield Hit(f"{fmt.name} is not a format {profile.name} takes ({takes}){how}")

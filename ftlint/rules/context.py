"""What a rule sees besides its subject: the contexts the engine hands each kind of check.

Below both the rules and the engine (the engine builds these, the rules read them), so that
neither reaches into the other: a rule module imports its context from here, never from engine/.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ..models import Model
    from ..options import PlanOptions


@dataclass(frozen=True, slots=True)
class PlanContext:
    """What a plan check may read besides the estimate."""

    plan: PlanOptions
    min_examples: int | None  # the format's provider minimum
    model: Model | None = None
    today: str = ""

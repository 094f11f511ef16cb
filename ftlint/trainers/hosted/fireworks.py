"""Fireworks AI's fine-tuning job."""

from __future__ import annotations

from ..base import Trainer
from . import PACKAGE

TRAINER = Trainer("fireworks", PACKAGE, "fireworks")

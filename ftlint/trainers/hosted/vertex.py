"""Google Vertex AI's Gemini supervised tuning."""

from __future__ import annotations

from ..base import Trainer
from . import PACKAGE

TRAINER = Trainer("vertex", PACKAGE, "vertex")

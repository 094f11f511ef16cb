"""OpenAI's fine-tuning job: what its guides and its cookbook document."""

from __future__ import annotations

from ..base import Trainer
from . import PACKAGE


class OpenAI(Trainer):
    auto_documented = True  # the step arithmetic's auto rules are the cookbook's (and Azure's) own


TRAINER = OpenAI("openai", PACKAGE, "openai")

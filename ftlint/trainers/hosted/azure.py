"""Azure OpenAI's fine-tuning job (Microsoft Foundry): OpenAI's, with Azure's documented batch rule."""

from __future__ import annotations

from ..base import Trainer
from . import PACKAGE


class Azure(Trainer):
    auto_documented = True  # Azure documents the batch rule the step arithmetic's auto follows


TRAINER = Azure("azure", PACKAGE, "azure")

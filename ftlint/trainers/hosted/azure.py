"""Azure OpenAI's fine-tuning job (Microsoft Foundry): OpenAI's, with Azure's documented batch rule."""

from __future__ import annotations

from ..base import Trainer
from ..profile import HOSTED_STEPS, Fact, Profile
from . import NO_PACKING, READ, UNKNOWN_CONTROL
from .openai import OPENAI

AZURE = Profile(
    name="azure", title="Azure OpenAI fine-tuning job (Microsoft Foundry)", hosted=True,
    formats=Fact(("azure-openai-chat", "openai-preference", "openai-rft"), "learn.microsoft.com/azure/ai-foundry/openai/how-to/fine-tuning"),
    epochs=OPENAI.epochs, batch=Fact("auto", "learn.microsoft.com .../fine-tuning: batch_size -1 is about 0.2% of the examples, at most 256"),
    max_length=OPENAI.max_length, past_max=OPENAI.past_max, loss=OPENAI.loss, renderer=OPENAI.renderer,
    control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "azure-ai-docs fine-tuning-cost-management.md (2026-02-11): training tokens x "
                                             "epochs x price; at most 2B tokens x epochs a job"),
    providers=("azure",), read=READ,
)


class Azure(Trainer):
    auto_documented = True  # Azure documents the batch rule the step arithmetic's auto follows


TRAINER = Azure(AZURE)

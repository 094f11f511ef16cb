"""OpenAI's fine-tuning job: what its guides and its cookbook document."""

from __future__ import annotations

from ..base import Trainer
from ..profile import HOSTED_STEPS, PROVIDER, TARGETS, TRUNCATE, Fact, Profile
from . import NO_PACKING, READ, UNKNOWN_CONTROL

OPENAI = Profile(
    name="openai", title="OpenAI fine-tuning job (new jobs until 2027-01-06)", hosted=True,
    formats=Fact(("openai-chat", "openai-preference", "openai-rft", "prompt-completion"),
                 "platform.openai.com/docs/guides/supervised-fine-tuning (FineTuneChatRequestInput); openai-openapi"),
    epochs=Fact("auto", "n_epochs 'auto': the rule is not documented; ftlint uses the cookbook's (Chat_finetuning_data_prep.ipynb)"),
    batch=Fact("auto", "batch_size 'auto': not documented by OpenAI; Azure documents about 0.2% of the examples, at most 256"),
    max_length=Fact(None, "the model's per-example limit (the catalog's)"),
    past_max=Fact(TRUNCATE, "OpenAI cookbook: examples over the limit are truncated during fine-tuning"),
    loss=Fact(TARGETS, "assistant messages without weight 0; no prompt loss"),
    renderer=Fact(PROVIDER, "OpenAI's own, not published: ftlint's token convention (docs/estimate.md)"),
    control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "platform.openai.com/docs/pricing: tokens in the training file x epochs"),
    providers=("openai",), read=READ,
)


class OpenAI(Trainer):
    auto_documented = True  # the step arithmetic's auto rules are the cookbook's (and Azure's) own


TRAINER = OpenAI(OPENAI)

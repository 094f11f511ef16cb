"""Fireworks AI's fine-tuning job."""

from __future__ import annotations

from ..base import Trainer
from ..profile import HOSTED_STEPS, TARGETS, TEMPLATE, TRUNCATE, Fact, Profile
from . import NO_PACKING, READ, UNKNOWN_CONTROL

FIREWORKS = Profile(
    name="fireworks", title="Fireworks AI fine-tuning job", hosted=True,
    formats=Fact(("fireworks-chat", "openai-preference"), "docs.fireworks.ai/fine-tuning/fine-tuning-models"),
    epochs=Fact(1, "docs.fireworks.ai (reinforcement fine-tuning defaults; supervised defaults not documented)"),
    batch=Fact("auto", "not documented for supervised tuning (batches are sized in tokens)"),
    max_length=Fact(None, "the model's context"), past_max=Fact(TRUNCATE, "not documented"),
    loss=Fact(TARGETS, "docs.fireworks.ai: assistant messages with weight 1 (or none)"),
    renderer=Fact(TEMPLATE, "not documented; the model's chat template"), control_tokens=UNKNOWN_CONTROL,
    packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "fireworks.ai/pricing: per 1M training tokens (thinking models' conversations "
                 "unrolled per user turn first)"),
    providers=("fireworks",), read=READ,
)


TRAINER = Trainer(FIREWORKS)

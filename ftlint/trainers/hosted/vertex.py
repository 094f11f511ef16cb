"""Google Vertex AI's Gemini supervised tuning."""

from __future__ import annotations

from ..base import Trainer
from ..profile import HOSTED_STEPS, PROVIDER, TARGETS, TRUNCATE, Fact, Profile
from . import NO_PACKING, READ, UNKNOWN_CONTROL

VERTEX = Profile(
    name="vertex", title="Google Vertex AI Gemini supervised tuning", hosted=True,
    formats=Fact(("vertex-gemini",), "cloud.google.com/vertex-ai/generative-ai/docs/models/gemini-supervised-tuning-prepare"),
    epochs=Fact("auto", "cloud.google.com .../model-reference/tuning: epochCount adjusted to the dataset's size (rule not "
                        "published): ftlint uses OpenAI's cookbook rule as a stand-in"),
    batch=Fact("auto", "not exposed for Gemini"), max_length=Fact(None, "the model's limit (131,072 tokens for 2.5 Flash)"),
    past_max=Fact(TRUNCATE, "not documented"), loss=Fact(TARGETS, "not documented: ftlint counts every model turn, with "
                                                                   "what comes before it"),
    renderer=Fact(PROVIDER, "not documented"), control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "cloud.google.com .../tune-gemini: tokens in the training dataset x epochs"),
    providers=("vertex",), read=READ,
)


TRAINER = Trainer(VERTEX)

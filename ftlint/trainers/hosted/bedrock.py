"""Amazon Bedrock's model customization job: a record past the model's limit fails the job."""

from __future__ import annotations

from ..base import Trainer
from ..cut import REJECTED
from ..profile import HOSTED_STEPS, PROVIDER, REJECT, TARGETS, Fact, Profile
from . import NO_PACKING, READ

BEDROCK = Profile(
    name="bedrock", title="Amazon Bedrock model customization job", hosted=True,
    formats=Fact(("bedrock-nova", "bedrock-claude", "bedrock-converse", "prompt-completion", "bedrock-nova-dpo", "bedrock-rft"),
                 "docs.aws.amazon.com/bedrock/latest/userguide/model-customization-prepare"),
    epochs=Fact(2, "docs.aws.amazon.com .../cm-hp-nova-mm.html: epochCount 2 (Nova; Llama 3.1: 5, Claude 3 Haiku: 2)"),
    batch=Fact(1, "docs.aws.amazon.com .../cm-hp-meta-llama31.html: batchSize 1 (Nova has none; Claude 3 Haiku 32)"),
    max_length=Fact(None, "the model's per-record limit (the catalog's)"),
    past_max=Fact(REJECT, "not documented; a Llama job fails at run time past the limit (aws-samples/amazon-bedrock-workshop#224)"),
    loss=Fact(TARGETS, "not documented: ftlint counts the assistant turns"), renderer=Fact(PROVIDER, "not documented"),
    control_tokens=Fact(False, "Nova's reserved strings fail the job (FT214); otherwise not documented"),
    packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "docs.aws.amazon.com .../custom-models.html: tokens in the training data x "
                 "epochs, plus storage per model-month"),
    providers=("bedrock",), read=READ,
)


class Bedrock(Trainer):
    cut = REJECTED


TRAINER = Bedrock(BEDROCK)

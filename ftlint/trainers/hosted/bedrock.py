"""Amazon Bedrock's model customization job: a record past the model's limit fails the job."""

from __future__ import annotations

from ..base import Trainer
from ..cut import REJECTED
from . import PACKAGE


class Bedrock(Trainer):
    cut = REJECTED


TRAINER = Bedrock("bedrock", PACKAGE, "bedrock")

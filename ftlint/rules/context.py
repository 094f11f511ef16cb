"""What a rule sees besides its subject: the contexts the engine hands each kind of check.

Below both the rules and the engine (the engine builds these, the rules read them), so that
neither reaches into the other: a rule module imports its context from here, never from engine/.

  record   RecordContext   the format, the literals present, the figures, the limit, the model
  file     FileSummary     the file's counts and sums (the engine adds its chunks' up), FileContext
  plan     PlanContext     the plan options, the format's minimum, the model, the day
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from ..options import Loss

if TYPE_CHECKING:
    from ..formats import Format, LineFigures
    from ..models import Model
    from ..options import PlanOptions
    from ..tokenizing import Template


@dataclass(frozen=True, slots=True)
class PlanContext:
    """What a plan check may read besides the estimate."""

    plan: PlanOptions
    min_examples: int | None  # the format's provider minimum
    model: Model | None = None
    today: str = ""


_SUMS = ("lines", "valid", "invalid", "blank", "records", "messages", "targets", "tokens", "trainable",
         "rendered", "untrained", "truncated", "cut", "tokens_cut", "trainable_cut", "emptied", "dropped", "dropped_tokens",
         "dropped_trainable", "system_dropped")
FIRST_LINES = 5  # the line numbers a file-level finding names, of those it counts (FT237, FT239)


@dataclass(slots=True)
class FileSummary:
    path: str
    lines: int = 0
    valid: int = 0  # lines that parsed to an object with no error-severity finding
    invalid: int = 0  # lines with at least one error: their records are in no figure
    blank: int = 0
    records: int = 0  # training records of the valid lines
    messages: int = 0  # messages of the valid lines
    targets: int = 0  # spans that carry loss, over the records
    tokens: int = 0  # the records' tokens (check: their byte bound, unless a record needed the exact count)
    trainable: int = 0  # the targets' tokens the run trains (those past the trainer's cut are trainable_cut)
    format: str = ""
    format_reason: str = ""
    rendered: int = 0  # lines rendered through a chat template with the trainer's loss mask
    untrained: int = 0  # ... of which no token trains
    truncated: int = 0  # records whose trained tokens fall past the trainer's max length (cut off)
    # past the trainer's max length (engine/judge.py): records of the counts above, as the run has them
    cut: int = 0  # records cut (tokens past the max length)
    tokens_cut: int = 0  # ... the tokens it cuts off them
    trainable_cut: int = 0  # ... of which trained
    emptied: int = 0  # records left with no trained token by the cut
    dropped: int = 0  # records the trainer leaves out (its drop): in no count above
    dropped_tokens: int = 0
    dropped_trainable: int = 0
    cut_lines: list[int] = field(default_factory=list)  # the first lines whose records lose trained tokens
    dropped_lines: list[int] = field(default_factory=list)  # the first lines whose records are dropped
    system_dropped: int = 0  # rendered records of which a system message's text is not in the rendering (FT239)
    system_dropped_lines: list[int] = field(default_factory=list)  # the first FIRST_LINES of them

    def add(self, other: FileSummary) -> None:
        for name in _SUMS:
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.cut_lines = sorted({*self.cut_lines, *other.cut_lines})[:FIRST_LINES]
        self.dropped_lines = sorted({*self.dropped_lines, *other.dropped_lines})[:FIRST_LINES]
        self.system_dropped_lines = sorted({*self.system_dropped_lines, *other.system_dropped_lines})[:FIRST_LINES]


@dataclass(slots=True)
class RecordContext:
    """What a record check may read besides the record."""

    fmt: Format
    present: frozenset[bytes]  # the declared literals that occur in the record's compact JSON
    figures: LineFigures | None
    limit: int | None
    limit_owner: str  # the model, the format or --context
    enabled: Callable[[str], bool]  # whether a code is reported for this file
    model: Model | None = None  # the model named with --model (None: none named, or not in the catalog)
    # the model's added tokens that text in a record becomes, as its trainer tokenizes it (FT302);
    # None: text is plain (no chat template rendered, or a trainer that encodes content as text)
    control_tokens: re.Pattern[str] | None = None
    compact: bytes = b""  # the record's compact JSON, as the literals were found in it (b"": not given)
    # a record's exact figures, where `figures` holds the byte bound; None back: the count is
    # deferred to the main process (Recounter), which runs the same check on the exact figures
    recount: Callable[[dict], LineFigures | None] | None = None
    cut_label: str = ""  # where the trainer cuts: "--max-seq-len 512", "trl's default max length 1,024", the limit
    past_max: str = "truncate"  # what the trainer does past it (Loss.past_max)


@dataclass(frozen=True, slots=True)
class FileContext:
    fmt: Format
    training: bool
    loss: Loss = field(default_factory=Loss)
    template: Template = "openai"  # the chat template records were rendered with (Settings.template)
    template_source: str | None = None  # a TemplatePath's text, as it was read
    cut_label: str = ""  # where the trainer cuts (RecordContext.cut_label)
    dataset_files: int = 0  # the summary is a dataset's training set, this many files summed (--dataset); 0: one file's

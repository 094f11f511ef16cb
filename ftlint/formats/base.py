"""What every format is: the Format base class and the figures a format makes of a record.
The kinds (formats/chat.py, fields.py) add their shapes' details; the registry lists them."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..tokens import TokenCounter
from .conversion import Conversion

if TYPE_CHECKING:
    from ..chat.mask import Masked
    from ..chat.tally import Tally
    from ..trainers.rendering import Part


@dataclass(slots=True)
class RecordFigures:
    """One training record as the provider sees it."""

    messages: int  # messages in the record's context
    targets: int  # spans that carry loss
    tokens: int  # all tokens of the record, formatting overhead included
    trainable: int  # tokens of the targets
    cut_tokens: int = 0  # tokens the trainer cuts off past its max length (engine/judge.py sets it)
    cut_trainable: int = 0  # ... of which trained: trainable - cut_trainable is what the run trains
    dropped: bool = False  # the trainer leaves the record out (its drop) or the job refuses it (a provider's)


@dataclass(slots=True)
class LineFigures:
    records: list[RecordFigures]
    messages: int  # messages on the line (not per expanded record)
    failure: str | None = None  # the chat template could not render the record (counted by the convention)
    over_budget: bool = False  # ... because it went over its budget (FT238, not FT230)
    rendered: Masked | None = None  # the record through the chat template, with the trainer's loss mask
    system_dropped: bool = False  # a system message's text is not in the rendered sequence (FT239)
    media: Any = None  # the record's images, read and counted: a ftlint.media.plan.MediaPlan
    samples: list[Masked] | None = None  # mistral-finetune's samples of one conversation, each masked (`ftlint show`)
    parts: tuple[Part, ...] = ()  # the trainer's own renderer's pieces of the record (Sample.parts; `ftlint show`)


# What a format's provider or trainer demands of a record beyond its schema: each the scope of a
# rule in rules/ (the registry says which formats demand what, so no rule names a format).
OPENAI_PARTS = "OpenAI's tool calls and image parts"  # FT205-FT217, as on OpenAI's own formats (family "openai")
CONTENT_OR_CALLS = "an assistant message with content or tool calls"  # FT204, as on OpenAI's formats
CALLS_XOR_CONTENT = "content or tool calls, not both"  # FT225
CALLS_ANSWERED = "tool calls answered in order"  # FT202, FT226
CALL_IDS = "tool-call ids of 9 letters and digits"  # FT215
CALL_IDS_OR_LAST_NULL = "tool-call ids of 9 letters and digits, 'null' on the last message's"  # FT215
TOOL_SCHEMAS = "tools' parameters as JSON Schemas"  # FT105
ONE_SYSTEM_PROMPT = "one system prompt"  # FT224
USER_OPENS_SAMPLE = "a user message before each sample's answer"  # FT212: a tool conversation is cut at each answer
INTEGER_WEIGHTS = "weights 0 or 1, as integers"  # FT219
ONE_CONTENT_FORM = "every message's content in one form, no image message trained"  # FT221, FT222
USER_IMAGES = "images in user messages only"  # FT216
INPUT_BEFORE_ANSWER = "a preference input that ends before its answer"  # FT213
LABEL_PER_STEP = "one label per step"  # FT105


@dataclass(frozen=True)
class Format:
    """What every format has. The kinds (chat, fields, preference) add their shape's details. A
    subclass that adds or re-defaults no field is not decorated again: generating its methods costs
    start-up."""

    name: str
    title: str
    providers: str
    record_rule: str
    schema: str
    shape: str  # detection family: records of this shape suit this format
    also_shapes: tuple[str, ...] = ()  # other shapes the format accepts (not detected as it)
    min_examples: int | None = None
    documented: bool = True  # False: the record rule is ftlint's conservative reading
    notes: str = ""
    token_limit: int | None = None  # the provider's tokens per example, when the format fixes it
    # codes whose severity this format's provider sets otherwise than the registry ("off": not made)
    severities: Mapping[str, str] = field(default_factory=dict)
    family: str = ""  # "openai": OpenAI's chat format as it is, with OpenAI's content rules
    # the keys the provider reads, at the top of a record and on a message; a key its schema lets
    # through that is not among them is an FT108 warning (empty: every key the schema allows is read)
    reads_top: frozenset[str] = frozenset()
    reads_message: frozenset[str] = frozenset()
    weight_roles: tuple[str, ...] = ()  # the roles whose "weight" the provider reads (empty: all)
    label: str = ""  # the provider or trainer as a finding names it ("mistral-finetune takes one system prompt")
    demands: frozenset[str] = frozenset()  # what its provider or trainer demands beyond the schema (above)
    conversion: Conversion | None = None  # how `ftlint convert` reads and writes it (None: it does not)
    kind = "format"

    @property
    def preference(self) -> bool:
        """Pairs of answers, chosen and rejected: a preference (DPO) job's data."""
        return "preference" in self.shape

    def turns_path(self) -> tuple[str, ...]:
        """Where the turns are in a record, for JSON paths."""
        return ()

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        """The record's turns with their index (formats without turns have none)."""
        return []

    def prompt(self, record: dict) -> object:
        """What the record asks (everything before its first target): two versions of a
        record with the same prompt are one record changed, not one removed and one added."""
        return record

    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        """Where each training record's trained tokens lie: its tokens in order as (untrained,
        trained) runs (ftlint/trainers/cut.py), summing to the record's figures. Asked only of a
        record longer than the trainer's max length. Here: a format that says no better has its
        context first and its trained tokens last (a prompt, then its completion)."""
        return [[(r.tokens - r.trainable, r.trainable)] for r in self.figures(record, counter, tally).records]

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        """The record's training records and their tokens: by the model's chat template when
        `tally` is given and the format is one of messages, else by ftlint's token convention."""
        raise NotImplementedError

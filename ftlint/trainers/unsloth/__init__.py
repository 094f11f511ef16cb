"""Unsloth: TRL's SFTTrainer as unsloth patches it (unslothai/unsloth@015bdef, unsloth-zoo@ce232d6):
its chat templates by name (templates.py), its own dataset preparation (no eos appended to a text,
which is tokenized as the tokenizer does, cut at max_seq_length keeping the start), and
train_on_responses_only (ftlint/chat/mask.py responses_mask; rows that train nothing dropped)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..base import Packing, Reading, Trainer
from ..cut import KEEP_START, Cut
from .cut import RESPONSES

if TYPE_CHECKING:
    from collections.abc import Mapping as Keyed
    from collections.abc import Sequence

    from ..base import RecordRow
    from ..versions import Versions

RESPONSES_ONLY = "response_part"  # the key resolve passes to cut_for when train_on_responses_only is on


class Unsloth(Trainer):
    other_cuts = (RESPONSES,)
    run_options = frozenset({"template_name", "instruction_part", "response_part"})
    run_options_source = "get_chat_template, train_on_responses_only"
    max_length_key = "max_seq_length"  # FastLanguageModel.from_pretrained's, which it copies to the trainer's max_length
    options_help: ClassVar[dict[str, str]] = {
        "template_name": "A chat template by the trainer's own name: unsloth's get_chat_template (chatml, llama-3.1, "
                         "qwen-2.5, ...; `ftlint trainers unsloth`).",
        "instruction_part": "unsloth's train_on_responses_only: the text before a user's turn (backslash escapes read: "
                            "'<|im_start|>user\\n').",
        "response_part": "unsloth's train_on_responses_only: the text before an answer; what follows it, up to the next "
                         "--instruction-part, trains.",
    }

    def named_template(self, name: str) -> str:
        from .templates import rendered_as

        return rendered_as(name)

    def reading(self, keys: Keyed[str, object], eos: str, bos: str = "") -> Reading:
        """sft_prepare_dataset: a plain prompt and completion tokenized as one text, the completion with
        the tokenizer's eos appended unless it ends with it; a text as it is (no eos)."""
        return Reading(eos, joined=True, texts=False)

    def cut_for(self, keys: Keyed[str, object], packing: bool, versions: Versions) -> Cut:
        """train_on_responses_only drops every row whose labels are all -100 (unsloth_zoo/dataset_utils.py
        _filter_fully_masked), cut or not."""
        return RESPONSES if keys.get(RESPONSES_ONLY) and not packing else KEEP_START

    def _pack(self, records: Sequence[RecordRow], max_seq_len: int, keys: Keyed[str, object]) -> Packing:
        """TRL's pack_dataset, which sft_prepare_dataset calls with SFTConfig.packing_strategy."""
        from ..trl.packing import packed

        return packed(records, max_seq_len, keys)


TRAINER = Unsloth("unsloth", __name__)

"""TRL's SFTTrainer (transformers' Trainer underneath), as read at huggingface/trl@f2cd577
(1.10.0.dev0) over the transformers 5.24.0 wheel: its run config, what _prepare_dataset does to rows
(the eos it appends, prompt and completion tokenized as one text, the drop of rows left with no
trained token), the training templates it swaps in, and its packers."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..base import Packing, Reading, Trainer
from ..cut import KEEP_START, Cut
from ..versions import parse
from .cut import DROP_UNTRAINED, WRAPPED

if TYPE_CHECKING:
    from collections.abc import Mapping as Keyed
    from collections.abc import Sequence

    from ..base import RecordRow
    from ..configs.base import Keys, RunConfig
    from ..versions import Versions

# the templates of ftlint's families TRL recognizes and swaps, each for its training variant (trl/chat_templates/)
SWAPPED = {"qwen2.5": "qwen2_5_training.jinja", "qwen3": "qwen3_training.jinja",
           "qwen3-instruct-2507": "qwen3_instruct_2507_training.jinja", "qwen3.5": "qwen3_5_think_training.jinja",
           "qwen3.5-nothink": "qwen3_5_nothink_training.jinja", "qwen3.6": "qwen3_6_training.jinja",
           "harmony": "gptoss_training.jinja"}


class TRL(Trainer):
    aliases: tuple[str, ...] = ("hf", "transformers")  # "hf": the Hugging Face Trainer's arithmetic is TRL's
    cut = DROP_UNTRAINED
    other_cuts = (WRAPPED,)
    run_config = "a TRL SFTConfig YAML"
    max_length_key = "max_length"
    options_help: ClassVar[dict[str, str]] = {  # the flags named after SFTConfig's fields
        "assistant_only_loss": "As TRL's assistant_only_loss: only the template's {% generation %} spans train (needs a chat "
                               "template: --model of a self-hosted model, or --chat-template).",
        "completion_only_loss": "As TRL's completion_only_loss: a prompt-completion row trains on its completion only.",
    }

    def reads_config(self, doc: dict) -> bool:
        return "model_name_or_path" in doc or "dataset_name" in doc or "max_length" in doc

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys, self.versions(*keys.versions))

    def training_template(self, template: str, assistant_only: bool, versions: Versions) -> str | None:
        """With assistant_only_loss, a model's template without {% generation %} that TRL knows byte
        for byte is swapped for TRL's training variant (trl/trainer/sft_trainer.py SFTTrainer.__init__,
        trl/chat_template_utils.py get_training_chat_template; from TRL 1.1, #5470); ftlint ships those of its families."""
        swaps = assistant_only and template in SWAPPED and parse(versions.trainer) >= (1, 1)
        return f"{template}-training" if swaps else None

    def reading(self, keys: Keyed[str, object], eos: str, bos: str = "") -> Reading:
        """_prepare_dataset: the eos (SFTConfig.eos_token, else the tokenizer's) appended to a plain
        text or completion that lacks it (add_eos), a plain prompt and completion tokenized as one text
        by the tokenizer (trl/data_utils.py _tokenize: processing_class(text=...), which puts its bos
        first), a ShareGPT row's from/value renamed only (maybe_convert_to_chatml)."""
        given = keys.get("eos_token")
        return Reading(given if isinstance(given, str) else eos, joined=True, speakers=True, bos=bos)

    def cut_for(self, keys: Keyed[str, object], packing: bool, versions: Versions) -> Cut:
        """No cut where it packs (_prepare_dataset truncates only unpacked rows): bfd cuts each row in
        the packer (trl/data_utils.py _pack_bfd), wrapped cuts none; unpacked, rows left with no trained
        token are dropped from TRL 1.9 (#6320), before that kept."""
        if not packing:
            return self.cut if parse(versions.trainer) >= (1, 9) else KEEP_START
        return WRAPPED if keys.get("packing_strategy") in ("wrapped", "bfd_split") else KEEP_START

    def title_for(self, preference: bool) -> str:
        # TRL trains preference pairs with its DPOTrainer, not the SFTTrainer its profile is named for
        if preference:
            return "TRL DPOTrainer (Hugging Face Trainer; the SFTTrainer's defaults assumed)"
        return self.title

    def _pack(self, records: Sequence[RecordRow], max_seq_len: int, keys: Keyed[str, object]) -> Packing:
        from .packing import packed

        return packed(records, max_seq_len, keys)


TRAINER = TRL("trl", __name__)

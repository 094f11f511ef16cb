"""TRL's SFTTrainer (transformers' Trainer underneath; unsloth runs it too), as read at
huggingface/trl@f2cd577 (1.10.0.dev0) over the transformers 5.24.0 wheel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Packing, Trainer

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..configs.base import Keys, RunConfig

class TRL(Trainer):
    aliases = ("hf", "transformers", "unsloth")  # "hf": the Hugging Face Trainer's arithmetic is TRL's

    def reads_config(self, doc: dict) -> bool:
        return "model_name_or_path" in doc or "dataset_name" in doc or "max_length" in doc

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def title_for(self, preference: bool) -> str:
        # TRL trains preference pairs with its DPOTrainer, not the SFTTrainer its profile is named for
        if preference:
            return "TRL DPOTrainer (Hugging Face Trainer; the SFTTrainer's defaults assumed)"
        return self.title

    def pack(self, lengths: Iterable[int], max_seq_len: int) -> Packing:
        from .packing import pack

        return pack(lengths, max_seq_len)


TRAINER = TRL("trl", __name__)

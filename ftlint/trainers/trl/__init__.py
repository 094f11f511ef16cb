"""TRL's SFTTrainer (transformers' Trainer underneath; unsloth runs it too), as read at
huggingface/trl@f2cd577 (1.10.0.dev0) over the transformers 5.24.0 wheel."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Packing, Trainer
from ..profile import ALL_TOKENS, HF_STEPS, TEMPLATE, TRUNCATE, Fact, Profile

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ..configs.base import Keys, RunConfig

PROFILE = Profile(
    name="trl", title="TRL SFTTrainer (Hugging Face Trainer)", hosted=False,
    formats=Fact(("trl-messages", "trl-prompt-completion", "text", "trl-preference", "trl-prompt-only", "trl-stepwise",
                  "trl-unpaired"),
                 "trl/trainer/sft_trainer.py SFTTrainer._prepare_dataset: the first row picks text, messages or prompt + "
                 "completion (docs/source/sft_trainer.md, Expected dataset type and format); the preference, prompt-only, "
                 "stepwise and unpaired rows are DPO's, GRPO's, PRM's and KTO's trainers'"),
    epochs=Fact(3, "transformers/training_args.py TrainingArguments.num_train_epochs=3.0"),
    batch=Fact(8, "transformers/training_args.py TrainingArguments.per_device_train_batch_size=8"),
    max_length=Fact(1024, "trl/trainer/sft_config.py SFTConfig.max_length=1024"),
    past_max=Fact(TRUNCATE, "trl/trainer/sft_trainer.py SFTTrainer._prepare_dataset: input_ids and labels sliced to "
                            "[:max_length] (truncation_mode='keep_start'); from TRL 1.9 a row left with no trained token is "
                            "dropped"),
    loss=Fact(ALL_TOKENS, "trl/trainer/sft_config.py assistant_only_loss=False; completion_only_loss=None trains a "
                          "prompt-completion row's completion only"),
    renderer=Fact(TEMPLATE, "trl/data_utils.py _tokenize: processing_class.apply_chat_template(messages, tools=...)"),
    control_tokens=Fact(True, "transformers tokenization_utils_tokenizers.py: split_special_tokens=False by default; TRL sets "
                              "neither it nor apply_chat_template's sanitize_control_tokens"),
    packing=Fact(False, "trl/trainer/sft_config.py SFTConfig.packing=False (packing_strategy='bfd' when on)"),
    steps=HF_STEPS,
    billing=Fact("", "self-hosted: compute, not tokens (--tokens-per-second, --gpu-hour-usd)"),
    read="huggingface/trl@f2cd577 (1.10.0.dev0), transformers 5.24.0",
    notes=("a ShareGPT row is renamed to messages (trl/data_utils.py maybe_convert_to_chatml) but its human/gpt roles are "
           "not mapped: convert it to trl-messages",),
)


class TRL(Trainer):
    aliases = ("hf", "transformers", "unsloth")  # "hf": the Hugging Face Trainer's arithmetic is TRL's

    def reads_config(self, doc: dict) -> bool:
        return "model_name_or_path" in doc or "dataset_name" in doc or "max_length" in doc

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def pack(self, lengths: Iterable[int], max_seq_len: int) -> Packing:
        from .packing import pack

        return pack(lengths, max_seq_len)


TRAINER = TRL(PROFILE)

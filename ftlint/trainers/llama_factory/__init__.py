"""LLaMA-Factory, as read at hiyouga/LLaMA-Factory@ff6d4d1: its training YAML's defaults
(src/llamafactory/hparams/, over transformers' TrainingArguments), its dataset converters and
its own template registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Packing, Trainer
from ..profile import HF_STEPS, TARGETS, Fact, Profile
from .cut import PROPORTIONAL, PROPORTIONAL_CUT

if TYPE_CHECKING:
    from collections.abc import Iterable

    from ...mapping import Mapping
    from ..configs.base import Keys, RunConfig

LLAMA_FACTORY = "llama-factory"  # its renderer: its own template registry, by name

PROFILE = Profile(
    name="llama-factory", title="LLaMA-Factory", hosted=False,
    formats=Fact(("alpaca", "sharegpt", "text"),
                 "data/README.md; src/llamafactory/data/converter.py AlpacaDatasetConverter, SharegptDatasetConverter "
                 "(a dataset_info.json entry names the columns); stage pt reads one text column"),
    epochs=Fact(3, "transformers TrainingArguments.num_train_epochs=3.0 (src/llamafactory/hparams/ leaves it)"),
    batch=Fact(8, "transformers TrainingArguments.per_device_train_batch_size=8"),
    max_length=Fact(2048, "src/llamafactory/hparams/data_args.py DataArguments.cutoff_len=2048"),
    past_max=Fact(PROPORTIONAL, "src/llamafactory/data/processor/supervised.py _encode_data_example with "
                                "processor_utils.py infer_seqlen: each turn's prompt and answer cut to share what is left, "
                                "later turns dropped; no row dropped"),
    loss=Fact(TARGETS, "src/llamafactory/data/processor/supervised.py _encode_data_example: every turn's answer trains, "
                       "its end marker included; prompts masked (train_on_prompt=False, mask_history=False)"),
    renderer=Fact(LLAMA_FACTORY, "src/llamafactory/data/template.py register_template: the template named by `template:`"),
    control_tokens=Fact(True, "src/llamafactory/model/loader.py load_tokenizer: split_special_tokens=False by default"),
    packing=Fact(False, "src/llamafactory/hparams/data_args.py packing=None (on for stage pt only)"),
    steps=HF_STEPS,
    billing=Fact("", "self-hosted: compute, not tokens"),
    read="hiyouga/LLaMA-Factory@ff6d4d1",
)


class LlamaFactory(Trainer):
    cut = PROPORTIONAL_CUT
    aliases = ("llamafactory", "llama_factory")

    def reads_config(self, doc: dict) -> bool:
        return "stage" in doc or "cutoff_len" in doc or ("dataset" in doc and "template" in doc)

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def reads_mapping(self, file: str) -> bool:
        return not file.endswith((".yml", ".yaml"))  # a dataset_info.json: JSON, by any name

    def mapping(self, file: str, name: str, paths: tuple[str, ...], limit: int) -> Mapping:
        from .mapping import mapping_of

        return mapping_of(file, name, paths, limit)

    def pack(self, lengths: Iterable[int], max_seq_len: int) -> Packing:
        """Counted as TRL packs (best-fit decreasing); its own greedy_knapsack (processor_utils.py) is not modelled."""
        from ..trl.packing import pack

        return pack(lengths, max_seq_len)

    def counts_note(self) -> str:
        return (f"an estimate for {self.name}: it renders with its own template registry ({self.profile.renderer.source}), "
                "not compared here; counted with the model's Hugging Face template")


TRAINER = LlamaFactory(PROFILE)

"""LLaMA-Factory, as read at hiyouga/LLaMA-Factory@ff6d4d1: its training YAML's defaults
(src/llamafactory/hparams/, over transformers' TrainingArguments), its dataset converters and
its own template registry."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Packing, Trainer
from .cut import PROPORTIONAL_CUT

if TYPE_CHECKING:
    from collections.abc import Iterable
    from collections.abc import Mapping as Keyed

    from ...mapping import Mapping
    from ..configs.base import Keys, RunConfig

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

    def image_pixels(self) -> tuple[int, int] | None:
        """src/llamafactory/hparams/data_args.py image_max_pixels 768 * 768, image_min_pixels 32 * 32
        (data/mm_plugin.py MMPluginMixin._preprocess_image scales an image into them)."""
        return 768 * 768, 32 * 32

    def pack(self, lengths: Iterable[int], max_seq_len: int, keys: Keyed[str, object] | None = None) -> Packing:
        """Counted as TRL packs (best-fit decreasing); its own greedy_knapsack (processor_utils.py) is not modelled."""
        from ..trl.packing import pack

        return pack(lengths, max_seq_len)

    def counts_note(self) -> str:
        return (f"an estimate for {self.name}: it renders with its own template registry ({self.profile.renderer.source}), "
                "not compared here; counted with the model's Hugging Face template")


TRAINER = LlamaFactory("llama-factory", __name__)

"""axolotl, as read at axolotl-ai-cloud/axolotl@067b021: its YAML's defaults (pydantic schemas in
src/axolotl/utils/schemas/), the chat_template prompt strategy, and its own step count."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Trainer
from .cut import DROP_CUT

if TYPE_CHECKING:
    from ...mapping import Mapping
    from ..configs.base import Keys, RunConfig
    from ..steps import Steps

class Axolotl(Trainer):
    cut = DROP_CUT

    def reads_config(self, doc: dict) -> bool:
        return "base_model" in doc or "sequence_len" in doc or "micro_batch_size" in doc

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def config_mapping(self, config: RunConfig, paths: tuple[str, ...]) -> str | None:
        """The config itself: its `datasets:` entry by the file's name, or its only one."""
        return config.path if config.datasets else None

    def reads_mapping(self, file: str) -> bool:
        return file.endswith((".yml", ".yaml"))  # a config's `datasets:` entry

    def mapping(self, file: str, name: str, paths: tuple[str, ...], limit: int) -> Mapping:
        from .mapping import mapping_of

        return mapping_of(file, name, paths, limit)

    def steps(self, legacy: bool = False) -> Steps:
        from .steps import AxolotlSteps

        return AxolotlSteps()


TRAINER = Axolotl("axolotl", __name__)

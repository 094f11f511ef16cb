"""axolotl, as read at axolotl-ai-cloud/axolotl@067b021: its YAML's defaults (pydantic schemas in
src/axolotl/utils/schemas/), the chat_template prompt strategy, and its own step count."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ...diagnostics import WARNING
from ..base import Trainer
from ..cut import KEEP_START
from .cut import DROP_CUT

if TYPE_CHECKING:
    from collections.abc import Mapping as Keyed
    from collections.abc import Sequence

    from ...mapping import Mapping
    from ..base import Plan, Prepared, RecordRow
    from ..configs.base import Keys, RunConfig
    from ..cut import Cut
    from ..steps import Steps
    from ..versions import Versions
    from .mask import AxolotlMasker

class Axolotl(Trainer):
    cut = DROP_CUT
    run_config = "an axolotl YAML"
    column_mapping = "an axolotl YAML's datasets: entry (NAME: its index)"
    max_length_key = "sequence_len"
    # a record that trains no token is kept and trains nothing (src/axolotl/prompt_strategies/chat_template.py
    # raises no error), or, with sample_packing, is dropped (utils/trainer.py drop_no_trainable_tokens): not refused
    severities: ClassVar[dict[str, str]] = {"FT231": WARNING}

    def masker(self, keys: Sequence[tuple[str, object]]) -> AxolotlMasker:
        """Its chat_template strategy's labels and its own Alpaca prompt (mask.py)."""
        from .mask import AxolotlMasker, TurnLoss

        return AxolotlMasker(TurnLoss.of(keys))

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

    def cut_for(self, keys: Keyed[str, object], packing: bool, versions: Versions) -> Cut:
        """excess_length_strategy truncate keeps a long sample's start (utils/data/utils.py
        handle_long_seq_in_dataset); drop, its default, and raise leave it out (raise: prepare.py)."""
        return KEEP_START if keys.get("excess_length_strategy") == "truncate" else self.cut

    def prepare(self, records: Sequence[RecordRow], keys: Keyed[str, object], plan: Plan) -> Prepared | None:
        """Its split of each dataset, its length filter, its held-out share and its packing (prepare.py)."""
        if not keys:
            return None
        from .prepare import prepare

        return prepare(records, keys, plan)

    def counts_note(self, keys: Keyed[str, object], formatting: str) -> str:
        shown = keys.get("unshipped_template")
        if not shown:
            return ""
        return (f"an estimate: {shown} is axolotl's own template, which ftlint does not ship: counted with the model's "
                "own template (give --chat-template FILE with axolotl's)")

    def steps(self, legacy: bool = False) -> Steps:
        from .steps import AxolotlSteps

        return AxolotlSteps()


TRAINER = Axolotl("axolotl", __name__)

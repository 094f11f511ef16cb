"""axolotl, as read at axolotl-ai-cloud/axolotl@067b021: its YAML's defaults (pydantic schemas in
src/axolotl/utils/schemas/), the chat_template prompt strategy, and its own step count."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Trainer
from ..profile import TARGETS, TEMPLATE, Fact, Profile
from ..steps import Steps
from .cut import DROP, DROP_CUT
from .steps import AxolotlSteps

if TYPE_CHECKING:
    from ...mapping import Mapping
    from ..configs.base import Keys, RunConfig

AXOLOTL_STEPS = "axolotl"  # its own total, ceil(sequences x epochs / effective batch), as the Trainer's max_steps

PROFILE = Profile(
    name="axolotl", title="axolotl", hosted=False,
    formats=Fact(("sharegpt", "trl-messages", "alpaca", "text"),
                 "src/axolotl/prompt_strategies/chat_template.py (type: chat_template: field_messages, "
                 "message_property_mappings, roles), prompt_tokenizers.py (type: alpaca), prompt_strategies/completion.py "
                 "(type: completion); type: sharegpt is refused since (utils/schemas/validation.py "
                 "deprecate_sharegpt_datasets): ShareGPT rows are read by chat_template with the from/value mappings"),
    epochs=Fact(1, "src/axolotl/utils/schemas/training.py num_epochs=1.0"),
    batch=Fact(1, "src/axolotl/utils/schemas/training.py micro_batch_size=1"),
    max_length=Fact(512, "src/axolotl/utils/schemas/config.py sequence_len=512"),
    past_max=Fact(DROP, "src/axolotl/utils/data/utils.py handle_long_seq_in_dataset: excess_length_strategy unset is drop "
                        "(keeps rows of min_sample_len 2 to sequence_len tokens); truncate keeps the start"),
    loss=Fact(TARGETS, "src/axolotl/prompt_strategies/chat_template.py ChatTemplateStrategy: roles_to_train ['assistant'], "
                       "train_on_eos 'turn' (the turns' content spans and the end of turn after each)"),
    renderer=Fact(TEMPLATE, "src/axolotl/utils/chat_templates/base.py get_chat_template: the tokenizer's own template "
                            "(tokenizer_default) unless chat_template names one of axolotl's"),
    control_tokens=Fact(True, "src/axolotl/loaders/tokenizer.py load_tokenizer: split_special_tokens is never set"),
    packing=Fact(False, "src/axolotl/utils/schemas/config.py sample_packing=None"),
    steps=AXOLOTL_STEPS,
    billing=Fact("", "self-hosted: compute, not tokens"),
    read="axolotl-ai-cloud/axolotl@067b021",
    notes=("axolotl passes its own total as the Trainer's max_steps: ceil(records x num_epochs / (micro_batch_size x "
           "gradient_accumulation_steps x devices)) (src/axolotl/utils/trainer.py calculate_total_num_steps)",),
)


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
        return AxolotlSteps()


TRAINER = Axolotl(PROFILE)

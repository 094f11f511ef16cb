"""mistral-finetune, as read at mistralai/mistral-finetune@1943535 (it runs with mistral-common
1.3.1 to 1.5.4 only: finetune/data/tokenize.py imports names later versions removed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Plan, Rows, Trainer
from .packing import SPLIT_CUT, packed_rows

if TYPE_CHECKING:
    from ...models import Model
    from ..configs.base import Keys, RunConfig

MISTRAL_COMMON = "mistral-common"  # its renderer: mistral-common's instruct tokenizer (no Jinja)

class MistralFinetune(Trainer):
    cut = SPLIT_CUT
    aliases = ("mistral",)
    run_config = "a mistral-finetune YAML"
    max_length_key = "seq_len"

    def reads_config(self, doc: dict) -> bool:
        return "seq_len" in doc or "model_id_or_path" in doc or isinstance(doc.get("data"), dict)

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    def template(self, model: Model) -> str | None:
        """mistral-common's instruct tokenizer, for the Tekken models it trains (ftlint/chat/mistral_common.py)."""
        return MISTRAL_COMMON if model.encoding == "mistral-tekken" else None

    def rows(self, records: int, tokens: int, plan: Plan, model: Model | None, method: str) -> Rows | None:
        if not plan.max_seq_len:
            return None
        return Rows(packed_rows(tokens, plan.max_seq_len),
                    f"rows = ceil({tokens:,} tokens / seq_len {plan.max_seq_len:,}): {self.name} concatenates the samples "
                    f"into rows of seq_len, from a data iterator that never ends, so every row is full "
                    f"({self.profile.past_max.source})", plan.max_seq_len, full=True)


TRAINER = MistralFinetune("mistral-finetune", __name__)

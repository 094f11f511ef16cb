"""mistral-finetune, as read at mistralai/mistral-finetune@1943535 (it runs with mistral-common
1.3.1 to 1.5.4 only: finetune/data/tokenize.py imports names later versions removed)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..base import Plan, Rows, Trainer
from ..profile import HOSTED_STEPS, TARGETS, Fact, Profile
from .packing import SPLIT, SPLIT_CUT, packed_rows

if TYPE_CHECKING:
    from ...models import Model
    from ..configs.base import Keys, RunConfig

MISTRAL_COMMON = "mistral-common"  # its renderer: mistral-common's instruct tokenizer (no Jinja)

PROFILE = Profile(
    name="mistral-finetune", title="mistral-finetune (LoRA)", hosted=False,
    formats=Fact(("mistral-finetune", "text"), "finetune/data/tokenize.py build_instruct_sample (messages or interactions, "
                                              "system_prompt, tools), get_pretrain_sample (text or content)"),
    epochs=Fact(None, "finetune/args.py TrainArgs: no epochs; the run is max_steps=100 steps of an endless data iterator "
                      "(finetune/data/dataset.py get_dataset_iterator)"),
    batch=Fact(1, "finetune/args.py TrainArgs.batch_size=1 (sequences of seq_len tokens per GPU and micro-batch; "
                  "num_microbatches=1)"),
    max_length=Fact(2048, "finetune/args.py TrainArgs.seq_len=2048: a pack length, not a per-sample cap"),
    past_max=Fact(SPLIT, "finetune/data/dataset.py sequence_iterator: a sample continues into the next pack; pieces with no "
                         "trained token are skipped; nothing is cut, dropped or reported"),
    loss=Fact(TARGETS, "finetune/data/tokenize.py tokenize_instruct: assistant messages train (with their </s>) unless "
                       "weight 0; with tools or only_last, the last one only"),
    renderer=Fact(MISTRAL_COMMON, "finetune/data/tokenize.py: mistral-common's InstructTokenizer (the system prompt goes in "
                                  "the last user turn)"),
    control_tokens=Fact(False, "mistral-common encodes message text as plain text: [INST] or </s> in content are characters"),
    packing=Fact(True, "finetune/data/dataset.py sequence_iterator: samples are always packed into seq_len sequences"),
    steps=HOSTED_STEPS,
    billing=Fact("", "self-hosted: compute, not tokens"),
    read="mistralai/mistral-finetune@1943535 with mistral-common 1.5.4",
    max_steps=Fact(100, "finetune/args.py TrainArgs.max_steps=100: the run is that many optimizer steps, each of batch_size x "
                        "num_microbatches sequences of seq_len tokens per GPU (train.py _train)"),
    tokenizers=Fact(("mistral-tekken",), "train.py _train: MistralTokenizer.v3(is_tekken=...) chosen from the model's "
                                         "params.json, mistral-common's own Mistral tokenizers: Mistral's models only"),
)


class MistralFinetune(Trainer):
    cut = SPLIT_CUT
    aliases = ("mistral",)

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
                    f"into rows of seq_len ({self.profile.past_max.source})")


TRAINER = MistralFinetune(PROFILE)

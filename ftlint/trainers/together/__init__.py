"""Together AI's fine-tuning job, as its SDK (togethercomputer/together-python@eba5e5f) and its
docs say: a run config of FineTuning.create's keywords, rows of max_seq_length, a bill with
evaluations, and options of its own (--n-evals, --full, --no-packing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..base import Plan, Rows, Trainer
from ..billing import Bill, Usage
from ..hosted import READ
from ..profile import HOSTED_STEPS, TARGETS, TEMPLATE, TRUNCATE, Fact, Profile
from ..steps import Steps
from . import billing

if TYPE_CHECKING:
    from ...models import Model
    from ..configs.base import Keys, RunConfig

TOGETHER = Profile(
    name="together", title="Together AI fine-tuning job", hosted=True,
    formats=Fact(("together-conversational", "together-instruction", "together-preference", "text"),
                 "docs.together.ai/docs/fine-tuning-data-preparation; together/utils/files.py check_file (SDK 1.x)"),
    epochs=Fact(1, "together/resources/finetune.py FineTuning.create(n_epochs=1) (together-python@eba5e5f)"),
    batch=Fact("max", "together/resources/finetune.py FineTuning.create(batch_size='max'): the model's largest, in packed rows"),
    max_length=Fact(None, "the model's fine-tuning context (max_seq_length defaults to it)"),
    past_max=Fact(TRUNCATE, "together fine_tune_preview_row.py (SDK 3.x): truncated, 'Whether the row was truncated to the "
                            "model maximum sequence length'"),
    loss=Fact(TARGETS, "FineTuning.create(train_on_inputs='auto'): assistant messages, completions; with any weight, every "
                       "message without weight 0 (docs.together.ai data preparation, Data weights)"),
    renderer=Fact(TEMPLATE, "docs.together.ai data preparation: formatted into the model's chat template"),
    control_tokens=Fact(True, "not documented; Together tokenizes with the model's Hugging Face tokenizer, which matches "
                              "added tokens in text by default"),
    packing=Fact(True, "SDK 2.20+ FineTuning.create(packing=True); without it each example is a row of max_seq_length"),
    steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs + validation tokens x evaluations", "docs.together.ai/docs/fine-tuning-pricing: "
                 "epochs x training tokens + n_evals x validation tokens; with packing off, rows x max_seq_length; "
                 "together.ai/pricing: at least a large model's minimum charge"),
    providers=("together",), read=READ,
)


class Together(Trainer):
    # its checker judges a text file as it judges its own formats: empty text is not rejected, a BOM makes line 1
    # unreadable (together/utils/files.py check_file, together==1.6.0)
    checks_as: ClassVar[dict[str, str]] = {"text": "together-conversational"}

    def reads_config(self, doc: dict) -> bool:
        return "training_file" in doc or "n_epochs" in doc

    def read_config(self, keys: Keys) -> RunConfig:
        from .config import read

        return read(keys)

    @property
    def plan_options(self) -> frozenset[str]:
        return frozenset({"max_seq_len", "n_evals", "full", "no_packing"})

    def refuses(self, plan: Plan, validation: bool) -> str | None:
        if plan.n_evals and not validation:
            return "--n-evals needs --validation: Together evaluates (and bills) the validation file"
        return None

    def steps(self, legacy: bool = False) -> Steps:
        return billing.TogetherSteps()

    def rows(self, records: int, tokens: int, plan: Plan, model: Model | None, method: str) -> Rows | None:
        length, _ = billing.max_seq_length(model, method, plan.max_seq_len)
        if not length:
            return None
        sequences, rule = billing.rows(records, tokens, length, not plan.no_packing)
        return Rows(sequences, rule, length)

    def bill(self, usage: Usage, rows: Rows | None, plan: Plan) -> Bill:
        return billing.bill(str(self.profile.billing.value), usage, not plan.no_packing, rows.length if rows else None,
                            plan.n_evals or 0)

    def validation_billing(self, evals: int) -> tuple[bool, str] | None:
        if not evals:
            return False, "not billed: no evaluation (--n-evals 0, Together's default)"
        return True, f"billed {evals} time{'s' if evals != 1 else ''} (--n-evals {evals})"


TRAINER = Together(TOGETHER)

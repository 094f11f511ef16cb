"""Together AI's fine-tuning job, as its SDK (togethercomputer/together-python@eba5e5f) and its
docs say: a run config of FineTuning.create's keywords, rows of max_seq_length, a bill with
evaluations, and options of its own (--n-evals, --full, --no-packing)."""

from __future__ import annotations

from typing import TYPE_CHECKING, ClassVar

from ..base import Plan, Rows, Trainer

if TYPE_CHECKING:
    from ...models import Model
    from ..billing import Bill, Usage
    from ..configs.base import Keys, RunConfig
    from ..steps import Steps


class Together(Trainer):
    # its checker judges a text file as it judges its own formats: empty text is not rejected, a BOM makes line 1
    # unreadable (together/utils/files.py check_file, together==1.6.0)
    checks_as: ClassVar[dict[str, str]] = {"text": "together-conversational"}
    run_config = "a Together job's JSON"
    max_length_key = "max_seq_length"
    options_help: ClassVar[dict[str, str]] = {
        "n_evals": "A Together job's evaluations over --validation, each billed (default: Together's, 0).",
        "full": "Full fine-tuning, not LoRA (a Together job: its rate and largest batch; LoRA is Together's default).",
        "no_packing": "A Together job without packing: each example is a row of max_seq_length, and billed so.",
    }

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
        from .billing import TogetherSteps

        return TogetherSteps()

    def rows(self, records: int, tokens: int, plan: Plan, model: Model | None, method: str) -> Rows | None:
        from .billing import max_seq_length, rows

        length, _ = max_seq_length(model, method, plan.max_seq_len)
        if not length:
            return None
        sequences, rule = rows(records, tokens, length, not plan.no_packing)
        return Rows(sequences, rule, length)

    def bill(self, usage: Usage, rows: Rows | None, plan: Plan) -> Bill:
        from .billing import bill

        return bill(str(self.profile.billing.value), usage, not plan.no_packing, rows.length if rows else None,
                            plan.n_evals or 0)

    def validation_billing(self, evals: int) -> tuple[bool, str] | None:
        if not evals:
            return False, "not billed: no evaluation (--n-evals 0, Together's default)"
        return True, f"billed {evals} time{'s' if evals != 1 else ''} (--n-evals {evals})"


TRAINER = Together("together", __name__)

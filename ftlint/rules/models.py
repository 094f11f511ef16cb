"""Model codes (FT512, FT513): a model past or near its last training date. Emitted by
`ftlint estimate` and `ftlint plan` for the model the plan uses, and by `ftlint check --model`.

Lifecycle dates come from the catalog (ftlint/catalog/*.toml), each with its source; today's
date is the clock's, or --today (to pin it in CI).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit
from . import check, register

if TYPE_CHECKING:
    from ..models import Model

register("FT512", "model-retired", ERROR, """
    The model is past its last training date: the provider takes no new fine-tuning job for it.

    The date and its source come from the catalog (`ftlint models NAME`). Why: the job would be
    refused (OpenAI shut gpt-3.5-turbo, gpt-4.1-nano and o4-mini on 2026-10-23). Choose another
    model; `ftlint models --provider NAME` lists what is open. --today pins the date in CI.
""", kind="model")

register("FT513", "model-retiring", WARNING, """
    The model's last training date is within 60 days.

    Why: a run planned now may find the model closed (OpenAI takes no new job after 2027-01-06;
    its gpt-4o and gpt-4.1 models shut down on 2027-01-14). Plan the migration.
""", kind="model")


@check("model", "FT512", "FT513")
def lifecycle(model: Model, today: dt.date) -> Iterator[Hit]:
    state = model.lifecycle(today)
    if state is None:
        return
    kind, date = state
    remark = f" ({date.remark})" if date.remark else ""
    if kind == "retired":
        yield Hit(f"{model.name} takes no new fine-tuning job since {date.value}{remark}; {date.note}", code="FT512")
    else:
        days = (dt.date.fromisoformat(str(date.value)) - today).days
        yield Hit(f"{model.name} takes no new fine-tuning job after {date.value} ({days} days from {today.isoformat()}); "
                  f"{date.note}", code="FT513")

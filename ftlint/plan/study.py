"""`ftlint plan`: the cost of a hyperparameter tuning study around a production run.

Round 1 explores: many short runs, each about a tenth of the production steps, to rank
hyperparameters (learning rate, batch, epochs) by early validation loss. Round 2 confirms: the
few best settings, each run at full length. A short run costs its share of the production run's
steps (tokens in proportion).
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

from .estimate import Estimate


@dataclass
class Round:
    name: str
    runs: int
    steps_per_run: int
    tokens_per_run: int
    cost_per_run_usd: float | None
    steps: int
    tokens: int
    cost_usd: float | None


@dataclass
class Study:
    production_steps: int
    production_tokens: int
    production_cost_usd: float | None
    rounds: list[Round]
    total_steps: int
    total_tokens: int
    total_cost_usd: float | None
    cost_in_production_runs: float

    def to_dict(self) -> dict[str, object]:
        return asdict(self)


def production_cost(e: Estimate) -> float | None:
    cost = e.cost
    if cost.cost_usd is not None:
        return cost.cost_usd
    if cost.self_hosted and cost.self_hosted.compute_cost_usd is not None:
        return cost.self_hosted.compute_cost_usd
    return None


def study(e: Estimate, trials: int, short_fraction: float, finalists: int) -> Study:
    steps, tokens, cost = e.schedule.total_steps, e.schedule.tokens_processed, production_cost(e)
    short_steps = max(1, math.ceil(steps * short_fraction)) if steps else 0
    share = short_steps / steps if steps else 0.0
    short_tokens = round(tokens * share)
    short_cost = cost * share if cost is not None else None
    rounds = [
        Round("explore", trials, short_steps, short_tokens, _r(short_cost), trials * short_steps, trials * short_tokens,
              _r(short_cost * trials) if short_cost is not None else None),
        Round("confirm", finalists, steps, tokens, _r(cost), finalists * steps, finalists * tokens,
              _r(cost * finalists) if cost is not None else None),
    ]
    total_cost = sum(r.cost_usd for r in rounds) if cost is not None else None  # type: ignore[misc]
    in_runs = (trials * short_steps + finalists * steps) / steps if steps else 0.0
    return Study(steps, tokens, _r(cost), rounds, sum(r.steps for r in rounds), sum(r.tokens for r in rounds),
                 _r(total_cost), round(in_runs, 3))


def _r(value: float | None) -> float | None:
    return round(value, 6) if value is not None else None

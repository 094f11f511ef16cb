"""A dataset of the cookbook's drone data (fixtures/good/drone_training.jsonl), as large as a test
needs: its 103 records, then records that differ from them in the user's numbered request. The
tests of --dataset (test_action.py, test_change.py, test_precommit.py) build their repositories
from it: a 143-record dataset, and the changes made to it."""

from __future__ import annotations

import json

from conftest import FIXTURES

DRONE = FIXTURES / "good" / "drone_training.jsonl"


def drone(n: int, start: int = 0) -> list[dict]:
    """`n` distinct records of the drone file's shape: its own, then ones whose request is numbered."""
    own = [json.loads(line) for line in DRONE.read_text(encoding="utf-8").splitlines()]
    out = []
    for i in range(start, start + n):
        record = json.loads(json.dumps(own[i % len(own)]))
        if i >= len(own):
            user = next(m for m in record["messages"] if m["role"] == "user")
            user["content"] += f" (request {i})"
        out.append(record)
    return out


TRAIN = drone(143)  # the dataset
SHARD = drone(5, 1000)  # a valid shard, fewer records than OpenAI's minimum of 10

"""ftlint's --trainer hf schedule against what the real transformers Trainer did.

The oracle is a recording: fixtures/hf_trainer/transformers-<v>.jsonl.gz holds training runs of
the real Trainer made by tools/record_hf_trainer.py on CPU: 4.51.3 (the last version with the
old loop, --hf-legacy) and 5.23.0 over the whole one-process grid (7,719 runs) and 220 runs in
two processes under torchrun; 4.52.1 over 2,039 + 220; 5.24.0 over 1,539 + 220; 4.57.6 over
1,539 (other shuffles of the grid). Each file's first line names torch and accelerate. Running the Trainer in CI would need torch (hundreds of MB) and hours, so
the suite replays the measurements; the recorder reproduces them row for row.
"""
from __future__ import annotations

import gzip
import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ftlint.trainers.steps import HuggingFace

FIXTURES = Path(__file__).parents[2] / "fixtures" / "hf_trainer"
RUNS = {"4.51.3": 7939, "4.52.1": 2259, "4.57.6": 1539, "5.23.0": 7939, "5.24.0": 1759}


def recorded(version: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    with gzip.open(FIXTURES / f"transformers-{version}.jsonl.gz", "rt") as fh:
        lines = fh.read().splitlines()
    return json.loads(lines[0]), [json.loads(line) for line in lines[1:]]


def mismatches(version: str) -> tuple[int, list[str]]:
    header, runs = recorded(version)
    assert header["transformers"] == version
    legacy = version.startswith("4.51")
    bad = []
    for r in runs:
        hf = HuggingFace(legacy)
        s = hf.schedule(r["n"], r["epochs"], r["batch"], r["grad_accum"], r["gpus"], r["drop_last"], r["max_steps"])
        ratio = Fraction(str(r["warmup_ratio"])) if r["warmup_ratio"] is not None else None
        got = {"refused": s.refusal is not None, "global_step": s.total_steps, "epochs_begun": s.epochs_run,
               "fed": s.sequences_processed}
        want = {"refused": r["raised"] or r["global_step"] == 0, "global_step": r["global_step"],
                "epochs_begun": r["epochs_begun"], "fed": r["fed"]}
        if r["first_epoch_steps"] is not None:
            got["first_epoch_steps"], want["first_epoch_steps"] = s.steps_per_epoch, r["first_epoch_steps"]
        if r["scheduler_steps"] is not None:  # the scheduler is built only when training starts
            got["scheduler_steps"], want["scheduler_steps"] = s.schedule_steps, r["scheduler_steps"]
            got["scheduler_warmup"], want["scheduler_warmup"] = hf.warmup(s.schedule_steps, ratio, None), r["scheduler_warmup"]
        if got != want:
            bad.append(f"{r}: ftlint {got}")
    return len(runs), bad


@pytest.mark.parametrize("version", RUNS)
def test_schedule_equals_the_real_trainer_run_for_run(version: str) -> None:
    runs, bad = mismatches(version)
    assert runs == RUNS[version]
    assert not bad, f"{len(bad)} of {runs} runs differ, e.g.\n" + "\n".join(bad[:5])


def test_the_recordings_cover_what_differs_between_versions() -> None:
    # the cases that tell the loops apart are in the data: were the versions' recordings equal,
    # the test above could not catch an --hf-legacy slip
    _, old = recorded("4.51.3")
    _, new = recorded("5.23.0")  # the same grid
    differ = [(a, b) for a, b in zip(old, new, strict=True) if a["global_step"] != b["global_step"] or a["fed"] != b["fed"]]
    assert len(differ) > 100
    assert any(r["gpus"] == 2 for r in new) and any(r["raised"] for r in new) and any(r["max_steps"] for r in new)
    assert any(r["drop_last"] and r["global_step"] == 0 for r in new)  # no full batch: FT511's case

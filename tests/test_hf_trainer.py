"""ftlint's --trainer hf schedule against what the real transformers Trainer did.

The oracle is a recording: fixtures/hf_trainer/transformers-<v>.jsonl holds 2,259 training runs
of the real Trainer (2,039 in one process, 220 in two under torchrun) for each of 4.51.3 (the
last version with the old loop, --hf-legacy), 4.52.1 and 5.23.0, made by tools/record_hf_trainer.py
on CPU. Running the Trainer in CI would need torch (hundreds of MB) and about an hour a version,
so the suite replays the measurements; the recorder reproduces them row for row.
"""
from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

from ftlint.plan.trainers import HuggingFace

FIXTURES = Path(__file__).parent.parent / "fixtures" / "hf_trainer"
VERSIONS = ("4.51.3", "4.52.1", "5.23.0")


def recorded(version: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    lines = (FIXTURES / f"transformers-{version}.jsonl").read_text().splitlines()
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


@pytest.mark.parametrize("version", VERSIONS)
def test_schedule_equals_the_real_trainer_run_for_run(version: str) -> None:
    runs, bad = mismatches(version)
    assert runs == 2259
    assert not bad, f"{len(bad)} of {runs} runs differ, e.g.\n" + "\n".join(bad[:5])


def test_the_recordings_cover_what_differs_between_versions() -> None:
    # the cases that tell the loops apart are in the data: were the versions' recordings equal,
    # the test above could not catch an --hf-legacy slip
    _, old = recorded("4.51.3")
    _, new = recorded("4.52.1")
    differ = [(a, b) for a, b in zip(old, new, strict=True) if a["global_step"] != b["global_step"] or a["fed"] != b["fed"]]
    assert len(differ) > 100
    assert any(r["gpus"] == 2 for r in new) and any(r["raised"] for r in new) and any(r["max_steps"] for r in new)
    assert any(r["drop_last"] and r["global_step"] == 0 for r in new)  # no full batch: FT511's case

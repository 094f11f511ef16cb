"""Which trainer and transformers versions a run is modelled as (ftlint/trainers/versions.py), and
what a key does under each: --trainer-version and --transformers-version, else the versions
installed beside ftlint where the trainer is (its distribution's metadata, never an import), else
the profile's. The facts held here:

  transformers 5.15.0 removed TrainingArguments.warmup_ratio (5.14.1 still copies it to
  warmup_steps; the 5.15.0 wheel's training_args.py has no such field): TRL's sft.py drops a key
  its arguments lack (trl/scripts/utils.py parse_args_and_config, fail_with_unknown_args=False),
  so the run has no warmup; fixtures/trainer_runs/trl/t14 (5.23.0) and t19 (5.14.1) record both.
  transformers 5's get_warmup_steps takes a warmup_steps below 1 as ceil(ratio x total): the
  transformers installed here for the tests is asked.
  TRL 1.9 added the drop of rows left with no trained token after the cut (trl#6320; absent at
  v1.8.0's sft_trainer.py), recorded in t06.
"""

from __future__ import annotations

import dataclasses
import json
import math
import os
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run, run_process

TRL = FIXTURES / "trainer_runs" / "trl"
IDENTITY = TRL / "data" / "identity_messages.jsonl"


def estimate(*args: str) -> tuple[int, dict[str, Any]]:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)


def recorded(case: str) -> dict[str, Any]:
    return json.loads((TRL / f"{case}.recorded.json").read_text(encoding="utf-8"))


def codes(e: dict[str, Any]) -> dict[str, str]:
    return {w["code"]: w["message"] for w in e["warnings"]}


def test_warmup_ratio_is_applied_up_to_transformers_5_14_and_dropped_from_5_15() -> None:
    config = str(TRL / "t14_warmup_ratio.yaml")
    old_exit, old = estimate(str(IDENTITY), "--run", config, "--transformers-version", "5.14.1")
    new_exit, new = estimate(str(IDENTITY), "--run", config, "--transformers-version", "5.15.0")
    assert old["total_steps"] == new["total_steps"] == recorded("t14_warmup_ratio")["figures"]["total_steps"]
    assert old["warmup_steps"] == math.ceil(0.1 * old["total_steps"]) == recorded("t19_warmup_ratio_transformers_514")["figures"]["warmup_steps"]
    assert new["warmup_steps"] == 0 == recorded("t14_warmup_ratio")["figures"]["warmup_steps"]
    assert "FT514" not in codes(old) and old_exit == 0
    said = codes(new)["FT514"]
    assert "transformers 5.15.0 has no warmup_ratio" in said and "warmup_steps: 0.1" in said and "`trl sft`" in said
    assert new_exit == 1  # an error: the run is not what the config says
    assert new["sources"]["warmup"] == "warmup_ratio 0.1 dropped: transformers 5.15.0 has none"


def test_the_fix_ftlint_gives_is_what_transformers_does() -> None:
    """warmup_steps: 0.1, the key FT514 names, gives transformers' own get_warmup_steps of the total."""
    from transformers import TrainingArguments

    assert "warmup_ratio" not in {f.name for f in dataclasses.fields(TrainingArguments)}  # the installed one is 5.15+
    _, e = estimate(str(IDENTITY), "--run", str(TRL / "t15_warmup_steps_fraction.yaml"))
    args = TrainingArguments(output_dir=str(ROOT / "no-such-output"), warmup_steps=0.1)
    assert e["warmup_steps"] == args.get_warmup_steps(e["total_steps"]) == recorded("t15_warmup_steps_fraction")["figures"]["warmup_steps"]


def test_trl_before_1_9_keeps_the_rows_the_cut_leaves_untrained() -> None:
    config = str(TRL / "t06_assistant_only_cut_drops.yaml")
    rec = recorded("t06_assistant_only_cut_drops")
    dropped = [r for r in rec["per_record"] if not r["kept"]]
    _, now = estimate(str(IDENTITY), "--run", config)
    _, before = estimate(str(IDENTITY), "--run", config, "--trainer-version", "1.8.0")
    assert (now["records"], now["truncation"]["records_dropped"]) == (rec["figures"]["records_kept"], len(dropped))
    # TRL 1.8 keeps them: each cut to max_length 36, with nothing to train
    assert before["records"] == rec["figures"]["records_in"] and before["truncation"]["records_dropped"] == 0
    assert before["tokens"] == rec["figures"]["tokens"] + 36 * len(dropped)
    assert before["trainable_tokens"] == rec["figures"]["trained_tokens"]


def _dist_info(folder: Path, name: str, version: str) -> None:
    """A distribution's metadata as pip installs it (what importlib.metadata reads): no code."""
    info = folder / f"{name}-{version}.dist-info"
    info.mkdir(parents=True)
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: {version}\n", encoding="utf-8")


@pytest.mark.parametrize(("installed", "warmup", "said"), [
    ({"trl": "1.9.0", "transformers": "5.14.1"}, 7, "trl installed beside ftlint, transformers installed beside it"),
    ({"trl": "1.9.0", "transformers": "5.23.0"}, 0, "trl installed beside ftlint, transformers installed beside it"),
    ({"transformers": "5.14.1"}, 0, "the versions ftlint models"),  # no TRL here: this is not the trainer's environment
])
def test_the_versions_installed_beside_the_trainer_are_the_runs(tmp_path: Path, installed: dict[str, str], warmup: int,
                                                                said: str) -> None:
    for name, version in installed.items():
        _dist_info(tmp_path / "site", name, version)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "site"), os.environ.get("PYTHONPATH", "")])}
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "ftlint", "estimate", str(IDENTITY), "--run", str(TRL / "t14_warmup_ratio.yaml"),
                           "-o", "json"], capture_output=True, text=True, cwd=ROOT, env=env, timeout=120)
    e = json.loads(done.stdout)
    assert e["warmup_steps"] == warmup
    assert any(n.startswith("versions: ") and said in n for n in e["run_notes"]), e["run_notes"]


def test_a_version_the_user_gives_is_checked() -> None:
    r = run("estimate", str(IDENTITY), "--run", str(TRL / "t14_warmup_ratio.yaml"), "--transformers-version", "five")
    assert r.exit_code == 2 and "'five' is not a version" in r.stderr


def test_every_profile_names_the_versions_it_models() -> None:
    from ftlint.trainers import TRAINERS

    for name, trainer in TRAINERS.items():
        versions = trainer.profile.versions
        assert isinstance(versions.value, dict) and versions.value.get("trainer") and versions.source, name
    shown = run_process("trainers", "trl")
    assert "versions             trl 1.10.0.dev0, transformers 5.24.0" in shown.stdout
    for key in ("max_length", "packing_strategy", "eos_token", "assistant_only_loss", "warmup_ratio", "completion_only_loss"):
        assert f"\n    {key} " in shown.stdout, key

"""Record what TRL, LLaMA-Factory and axolotl do with the cases of fixtures/trainer_runs/cases.yaml
(docs/oracles.md). Run it with the Python of the trainer's own environment
(tools/trainer_oracle/setup_envs.sh):

    HF_HUB_OFFLINE=1 HF_DATASETS_OFFLINE=1 TRANSFORMERS_OFFLINE=1 CUDA_VISIBLE_DEVICES= \
        $ENVS/trl/bin/python tools/trainer_oracle/record.py trl [CASE ...]

For each case: the tiny model folder of the model the config names is built (once per
environment, tools/trainer_oracle/tiny_model.py) and its tokenizer checked against ftlint's ranks
on every string of the case's data; then the trainer's runner (run_<trainer>.py) runs the case in
a process of its own, in the config's folder, and fixtures/trainer_runs/<trainer>/<case>.recorded.json
is written. A case marked `refuses: true` is one the trainer stops before it trains: its
recording holds the trainer's error and where it was raised (`refusal`), and no figures. A case whose `env` names another environment (the same trainer on another
transformers) is recorded from that environment (`<envs>/<env>/bin/python record.py trl`) or by
name.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import yaml

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
RUNS = ROOT / "fixtures" / "trainer_runs"
sys.path.insert(0, str(HERE))

from common import read_records, texts_of  # noqa: E402
from tiny_model import MODELS, build, check_ids  # noqa: E402

MODEL_KEY = {"trl": "model_name_or_path", "llamafactory": "model_name_or_path", "axolotl": "base_model"}
FOLDER = {"trl": "trl", "llamafactory": "llama-factory", "axolotl": "axolotl"}
EXT = {"trl": ".yaml", "llamafactory": ".yaml", "axolotl": ".yml"}  # as each trainer's examples name theirs


def cases(trainer: str) -> list[dict[str, Any]]:
    with open(RUNS / "cases.yaml", encoding="utf-8") as fh:
        return list(yaml.safe_load(fh)[trainer])


def model_folder(name: str) -> Path:
    cache = Path(os.environ.get("ORACLE_MODELS", Path(sys.prefix) / "oracle-models"))
    return build(name, cache / name.replace("/", "--"))


def record(trainer: str, case: dict[str, Any], checked: set[tuple[str, str]]) -> None:
    folder = RUNS / FOLDER[trainer]
    config = folder / (case["case"] + EXT[trainer])
    with open(config, encoding="utf-8") as fh:
        model = yaml.safe_load(fh)[MODEL_KEY[trainer]]
    if model not in MODELS:
        raise SystemExit(f"{case['case']}: no tiny model for {model}")
    tiny = model_folder(model)
    for data in case["data"]:
        if (model, data) not in checked:
            texts = sorted({t for rec in read_records(str(folder / data)) for t in texts_of(rec)})
            check_ids(model, tiny, texts)
            checked.add((model, data))
    job = {"config": str(config), "model_dir": str(tiny), "case": case}
    with tempfile.TemporaryDirectory() as tmp:
        job_path, out_path = os.path.join(tmp, "job.json"), os.path.join(tmp, "out.json")
        with open(job_path, "w", encoding="utf-8") as fh:
            json.dump(job, fh)
        env = dict(os.environ, PYTHONPATH=str(HERE), HF_HUB_OFFLINE="1", HF_DATASETS_OFFLINE="1",
                   TRANSFORMERS_OFFLINE="1", CUDA_VISIBLE_DEVICES="", HF_DATASETS_CACHE=os.path.join(tmp, "cache"),
                   # no telemetry: axolotl's posthog client waits for a network that is not there
                   DO_NOT_TRACK="1", AXOLOTL_DO_NOT_TRACK="1", WANDB_MODE="disabled")
        runner = HERE / f"run_{trainer}.py"
        done = subprocess.run([sys.executable, str(runner), job_path, out_path], cwd=folder, env=env,
                              capture_output=True, text=True)
        log = done.stdout + done.stderr
        if done.returncode != 0 or not os.path.exists(out_path):
            Path(tmp, "..", f"oracle-{case['case']}.log").resolve().write_text(log, encoding="utf-8")
            print(f"{case['case']}: FAILED (exit {done.returncode})\n{log[-3000:]}", file=sys.stderr)
            return
        with open(out_path, encoding="utf-8") as fh:
            got = json.load(fh)
    out = {"case": case["case"], "trainer": trainer, "versions": got["versions"], "config": config.name,
           "data": case["data"], "model": model, "keys": case["keys"], "figures": got["figures"],
           "trainer_settings": got.get("trainer_settings", {}), "per_record": got["per_record"],
           "notes": case.get("notes", []) + got["notes"]}
    if "refusal" in got:  # the trainer stopped before it trained: its error, and no figures
        out["refusal"] = got["refusal"]
    with open(folder / f"{case['case']}.recorded.json", "w", encoding="utf-8") as fh:
        json.dump(out, fh, indent=1, ensure_ascii=False)
        fh.write("\n")
    if got["figures"] is None:
        print(f"{case['case']}: refused: {got['refusal']['error']}: {got['refusal']['message']} ({got['refusal']['raised_in']})")
        return
    f = got["figures"]
    print(f"{case['case']}: " + ", ".join(f"{k} {v}" for k, v in f.items()))


def main(argv: list[str]) -> int:
    trainer, wanted = argv[0], set(argv[1:])
    checked: set[tuple[str, str]] = set()
    corpus = cases(trainer)
    here = Path(sys.prefix).name
    special = {c["env"] for c in corpus if "env" in c}
    for case in corpus:
        # a case with an `env` of its own (another transformers) runs from that environment (or by
        # name), and only those cases run from it
        mine = case.get("env") == here if here in special else "env" not in case
        if case["case"] in wanted or (not wanted and mine):
            record(trainer, case, checked)
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

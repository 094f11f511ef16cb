"""A mistral-finetune YAML (example/7B.yaml), as mistralai/mistral-finetune@1943535 reads it:
finetune/args.py TrainArgs (seq_len=2048, batch_size=1, num_microbatches=1, max_steps=100,
model_id_or_path, optim: OptimArgs lr=1e-4, pct_start=0.05) and finetune/data/args.py DataArgs
(data, instruct_data, eval_instruct_data: comma-separated paths, each optionally PATH:WEIGHT)."""

from __future__ import annotations

from fractions import Fraction

from ..configs.base import DatasetRef, Keys, RunConfig, Setting
from ..configs.common import count, dataset, learning_rate, model

UNSET = {
    "max_steps": "max_steps 100: mistral-finetune's default (finetune/args.py TrainArgs.max_steps=100)",
    "max_seq_len": "seq_len 2048: mistral-finetune's default (finetune/args.py TrainArgs.seq_len=2048)",
}


def read(keys: Keys) -> RunConfig:
    run: dict[str, Setting] = {}
    plan: dict[str, Setting] = {}
    # a local folder to mistral-finetune, rendered by mistral-common, not by a template of the folder's
    model(keys, "model_id_or_path", run, folders=False)
    seq = keys.setting("seq_len", "int")
    if seq is not None:  # the pack length: samples end to end into sequences of it (finetune/data/dataset.py sequence_iterator)
        run["max_seq_len"] = plan["max_seq_len"] = seq
    count(keys, "batch_size", "batch_size", plan)
    count(keys, "num_microbatches", "grad_accum", plan)
    count(keys, "max_steps", "max_steps", plan)
    if "max_steps" not in plan:
        plan["max_steps"] = Setting(100, UNSET["max_steps"])
    optim = keys.get("optim", "dict") or {}
    learning_rate(keys, "lr", plan, optim, "optim.lr")  # type: ignore[arg-type]
    pct = keys.get("pct_start", "number", optim, "optim.pct_start")  # type: ignore[arg-type]
    share = Fraction(str(pct)) if pct is not None else Fraction(5, 100)
    plan["warmup_ratio"] = Setting(share, f"optim.pct_start {float(share):g} from {keys.name}" if pct is not None else
                                   "optim.pct_start 0.05: mistral-finetune's default (finetune/args.py OptimArgs)")
    data = keys.get("data", "dict") or {}
    datasets = tuple(_paths(keys, data, "instruct_data") + _paths(keys, data, "data"))  # type: ignore[arg-type]
    evals = _paths(keys, data, "eval_instruct_data")  # type: ignore[arg-type]
    unset = tuple(v for k, v in UNSET.items() if (k in plan and plan[k].source == v) or (k == "max_seq_len" and seq is None))
    return RunConfig("mistral-finetune", keys.path, "mistral-finetune", run, plan, datasets, evals[0] if evals else None,
                     None, tuple(keys.notes), unset)


def _paths(keys: Keys, data: dict, key: str) -> list[DatasetRef]:
    value = keys.get(key, "str", data, f"data.{key}")
    out = []
    for part in keys.bounded(f"data.{key}", str(value or "").split(",")):
        path = part.strip()
        if ":" in path and path.rsplit(":", 1)[1].replace(".", "", 1).isdigit():  # PATH:WEIGHT
            path = path.rsplit(":", 1)[0]
        if path:
            out.append(dataset(keys, path, "instruct" if key != "data" else "pretrain"))
    return out

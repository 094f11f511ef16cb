"""What every trainer's runner shares (runs inside a trainer's environment): stopping the real
Trainer once its totals are set, reading them off it, and the versions.

The stop: transformers' Trainer builds its train dataloader, sets state.max_steps and builds the
LR scheduler in _inner_training_loop, then calls the callbacks' on_train_begin, before the first
forward pass. A callback there reads the figures and raises Recorded, so no step is taken.
"""
from __future__ import annotations

import json
import math
import os
import platform
import sys
from importlib.metadata import PackageNotFoundError, version
from typing import Any

IGNORE = -100


class Recorded(Exception):
    """Raised from on_train_begin: the figures are read, training stops before its first step."""


class Capture:
    """The trainer the user's entry point built, and what it had set when training began."""

    trainer: Any = None
    figures: dict[str, Any] | None = None
    dataloader: Any = None


STEP_FIGURES = ("steps_per_epoch", "total_steps", "warmup_steps", "epochs", "effective_batch")
LOOP_SETTINGS = ("dataloader_batches", "scheduler_warmup_steps", "num_train_epochs_arg")


def case_figures(records_in: int, kept: list[dict[str, Any]], validation_rows: int, tokens: int, trained_tokens: int,
                 packed_rows: int | None, dropped_long: int) -> dict[str, Any]:
    """The figures every case records, in compare.py's order: the records, what the trainer's
    pipeline made of them, and what its Trainer had set when training began (Capture)."""
    assert Capture.figures is not None
    return {"records_in": records_in, "records_kept": len(kept), "validation_rows": validation_rows, "tokens": tokens,
            "trained_tokens": trained_tokens, "packed_rows": packed_rows, "dropped_long": dropped_long,
            "truncated_long": sum(1 for r in kept if r["cut"] > 0), **{k: Capture.figures[k] for k in STEP_FIGURES}}


def loop_settings() -> dict[str, Any]:
    """What the training loop had set besides the figures (its batches, the scheduler's warmup)."""
    assert Capture.figures is not None
    return {k: Capture.figures[k] for k in LOOP_SETTINGS}


def install_stop() -> None:
    """Wrap Trainer.train (every trainer's Trainer inherits it) to keep the trainer and add the
    stopping callback."""
    from transformers import Trainer, TrainerCallback

    class Stop(TrainerCallback):
        def on_train_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
            Capture.dataloader = kw.get("train_dataloader")
            Capture.figures = step_figures(Capture.trainer, state, Capture.dataloader)
            raise Recorded()

    original = Trainer.train

    def train(self: Any, *a: Any, **k: Any) -> Any:
        Capture.trainer = self
        self.add_callback(Stop())
        return original(self, *a, **k)

    Trainer.train = train  # type: ignore[method-assign]


def step_figures(trainer: Any, state: Any, dataloader: Any) -> dict[str, Any]:
    """The step totals as the Trainer set them: state.max_steps, steps per epoch from its own
    set_initial_training_values over its own dataloader, warmup from
    TrainingArguments.get_warmup_steps (and the scheduler's own, where it can be read)."""
    args = trainer.args
    values = trainer.set_initial_training_values(args, dataloader)
    epochs, per_epoch = values[0], values[1]
    total = state.max_steps
    world = getattr(args, "world_size", 1) or 1
    out = {
        "steps_per_epoch": int(per_epoch),
        "total_steps": int(total),
        "warmup_steps": int(args.get_warmup_steps(total)),
        "epochs": int(epochs),
        "num_train_epochs_arg": float(args.num_train_epochs),
        "effective_batch": int(args.per_device_train_batch_size * args.gradient_accumulation_steps * world),
        "dataloader_batches": len(dataloader) if dataloader is not None else None,
        "scheduler_warmup_steps": scheduler_warmup(trainer),
    }
    return out


def scheduler_warmup(trainer: Any) -> int | None:
    """num_warmup_steps the LR scheduler was built with (transformers' schedules are
    functools.partial objects over LambdaLR), or None when it cannot be read."""
    sched = getattr(trainer, "lr_scheduler", None)
    for fn in getattr(sched, "lr_lambdas", []) or []:
        kw = getattr(fn, "keywords", None) or {}
        if "num_warmup_steps" in kw:
            return int(kw["num_warmup_steps"])
    return None


def versions(trainer_pkg: str) -> dict[str, str]:
    out = {}
    for name, pkg in (("trainer", trainer_pkg), ("transformers", "transformers"), ("datasets", "datasets"),
                      ("torch", "torch"), ("accelerate", "accelerate")):
        try:
            out[name] = version(pkg)
        except PackageNotFoundError:
            out[name] = "not installed"
    out["python"] = platform.python_version()
    label = os.path.join(sys.prefix, "oracle-source")  # written by setup_envs.sh
    if os.path.isfile(label):
        with open(label, encoding="utf-8") as fh:
            out["trainer_source"] = fh.read().strip()
    return out


def trained(labels: list[int]) -> int:
    return sum(1 for x in labels if x != IGNORE)


def texts_of(value: Any) -> list[str]:
    """Every string inside a record (for the tokenizer check)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [t for v in value.values() for t in texts_of(v)]
    if isinstance(value, list):
        return [t for v in value for t in texts_of(v)]
    return []


def read_records(path: str) -> list[Any]:
    """A JSON array file or a JSONL file, as the trainers' datasets loaders read them."""
    with open(path, encoding="utf-8") as fh:
        text = fh.read()
    if text.lstrip().startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def ceil_div(a: int, b: int) -> int:
    return math.ceil(a / b)


def emit(path: str, payload: dict[str, Any]) -> None:
    with open(path, "w", encoding="utf-8") as fh:
        json.dump(payload, fh, indent=1, ensure_ascii=False)
        fh.write("\n")


def quiet() -> None:
    os.environ.setdefault("TOKENIZERS_PARALLELISM", "false")
    os.environ.setdefault("WANDB_DISABLED", "true")
    sys.setrecursionlimit(10000)

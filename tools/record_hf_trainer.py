"""Record what the real transformers Trainer does, for tests/oracles/test_hf_trainer.py.

Not part of the suite: it needs torch (a CPU wheel is enough) and one transformers version at a
time; the whole one-process grid takes a few hours. The recordings in fixtures/hf_trainer/ were made with

    python -m venv /tmp/hf && /tmp/hf/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu
    /tmp/hf/bin/pip install transformers==5.23.0 accelerate   (4.51.3: accelerate 1.6.0; 4.52.1: 1.7.0)
    /tmp/hf/bin/python tools/record_hf_trainer.py run  --out /tmp/one.jsonl
    /tmp/hf/bin/torchrun --nproc_per_node 2 tools/record_hf_trainer.py dist --out /tmp/two.jsonl
    (then the header line of one file and the rows of both, gzipped:
    fixtures/hf_trainer/transformers-<v>.jsonl.gz; 4.51.3 and 5.23.0 hold the whole grid, 4.52.1
    its first 2,000 runs, 4.57.6 --seed 13 --limit 1500, 5.24.0 --seed 11 --limit 1500)

Each row is one training run of a one-weight model on n records, measured from the Trainer
itself: optimizer steps (state.global_step), epochs begun (on_epoch_begin), records fed to the
model (counted in forward, summed over processes), whether train() raised, and the
num_training_steps and num_warmup_steps the LR scheduler was built with. first_epoch_steps comes
from a second run of one whole epoch.
"""
from __future__ import annotations

import argparse
import itertools
import json
import os
import random
import tempfile
from typing import Any

import torch
import transformers
from transformers import Trainer, TrainerCallback, TrainingArguments

VERSION = transformers.__version__
FIVE = int(VERSION.split(".")[0]) >= 5
RATIOS = (0.1, 0.07, 0.3)


class Fed:
    count = 0


class OneWeight(torch.nn.Module):
    def __init__(self) -> None:
        super().__init__()
        self.lin = torch.nn.Linear(1, 1)

    def forward(self, x: torch.Tensor, labels: torch.Tensor | None = None) -> dict[str, torch.Tensor]:
        Fed.count += int(x.shape[0])
        out = self.lin(x)
        return {"loss": ((out - labels) ** 2).mean(), "logits": out}


class Records(torch.utils.data.Dataset):  # type: ignore[type-arg]
    def __init__(self, n: int) -> None:
        self.n = n

    def __len__(self) -> int:
        return self.n

    def __getitem__(self, i: int) -> dict[str, torch.Tensor]:
        return {"x": torch.tensor([float(i)]), "labels": torch.tensor([0.0])}


class Watch(TrainerCallback):
    def __init__(self, one_epoch: bool) -> None:
        self.begun, self.steps, self.start, self.one_epoch = 0, [], 0, one_epoch

    def on_epoch_begin(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        self.begun += 1
        self.start = state.global_step

    def on_epoch_end(self, args: Any, state: Any, control: Any, **kw: Any) -> None:
        self.steps.append(state.global_step - self.start)
        if self.one_epoch:
            control.should_training_stop = True


def train(c: dict[str, Any], one_epoch: bool = False) -> dict[str, Any]:
    Fed.count = 0
    watch = Watch(one_epoch)
    with tempfile.TemporaryDirectory() as out:
        kw: dict[str, Any] = dict(
            output_dir=out, per_device_train_batch_size=c["batch"], gradient_accumulation_steps=c["grad_accum"],
            num_train_epochs=1 if one_epoch else c["epochs"], dataloader_drop_last=c["drop_last"],
            max_steps=10**4 if one_epoch else (c["max_steps"] or -1), report_to=[], save_strategy="no",
            logging_strategy="no", use_cpu=True, seed=1234, disable_tqdm=True, dataloader_num_workers=0)
        if c["warmup_ratio"] is not None and not one_epoch:
            kw["warmup_steps" if FIVE else "warmup_ratio"] = c["warmup_ratio"]  # 5.x: a float < 1 is a ratio
        trainer = Trainer(model=OneWeight(), args=TrainingArguments(**kw), train_dataset=Records(c["n"]), callbacks=[watch])
        try:
            trainer.train()
            raised = False
        except Exception:  # a refusal to start is one of the measured outcomes
            raised = True
        sched = getattr(trainer.lr_scheduler, "scheduler", trainer.lr_scheduler)
        lam = getattr(sched, "lr_lambdas", None)
        keywords = (getattr(lam[0], "keywords", None) or {}) if lam else {}
        return dict(raised=raised, global_step=trainer.state.global_step, epochs_begun=watch.begun, fed=Fed.count,
                    steps=watch.steps, scheduler_steps=keywords.get("num_training_steps"),
                    scheduler_warmup=keywords.get("num_warmup_steps"))


def cases(mode: str, seed: int, limit: int | None) -> list[dict[str, Any]]:
    """The two-process grid; or `limit` runs of the shuffled one-process grid (7,680 in all) and
    39 schedules whose length makes the rounding of ratio x steps matter (0.07 x 100 = 7.000000000000001)."""
    keys = ("n", "batch", "grad_accum", "epochs", "drop_last", "max_steps")
    if mode == "dist":
        grid = [(n, b, ga, ep, dl, ms) for n in (1, 2, 3, 5, 7, 9, 16, 17, 33, 64, 103)
                for b, ga in ((1, 1), (2, 2), (4, 3), (8, 1), (3, 2))
                for dl, ms, ep in ((False, None, 2), (True, None, 1), (False, 7, 3), (True, 7, 2))][:limit]
        return [dict(zip(keys, g, strict=True), warmup_ratio=RATIOS[i % 3]) for i, g in enumerate(grid)]
    grid = list(itertools.product((1, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 64, 81, 100, 103, 250), (1, 2, 4, 8),
                                  (1, 2, 3, 4, 5), (1, 2, 3), (False, True), (None, 1, 7, 40)))
    random.Random(seed).shuffle(grid)
    runs = [dict(zip(keys, g, strict=True), warmup_ratio=RATIOS[i % 3]) for i, g in enumerate(grid[:limit])]
    rounding = [(n, 1, 1, ep, False, None) for n, ep in ((100, 1), (100, 2), (100, 3), (250, 1), (81, 3), (103, 1), (50, 2), (57, 1))]
    rounding += [(9, 4, 1, 1, False, ms) for ms in (100, 200, 300, 57, 43)]
    return runs + [dict(zip(keys, g, strict=True), warmup_ratio=r) for g in rounding for r in RATIOS]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=["run", "dist"])
    ap.add_argument("--out", required=True)
    ap.add_argument("--limit", type=int, default=None, help="runs of the grid (default: all)")
    ap.add_argument("--seed", type=int, default=7, help="the grid's shuffle")
    a = ap.parse_args()
    world = int(os.environ.get("WORLD_SIZE", 1))
    epochs: dict[tuple[Any, ...], int | None] = {}
    rows = []
    for c in cases(a.mode, a.seed, a.limit):
        key = (c["n"], c["batch"], c["grad_accum"], c["drop_last"])
        if key not in epochs:
            probe = train(c, one_epoch=True)
            epochs[key] = None if probe["raised"] or not probe["steps"] else probe["steps"][0]
        real = train(c)
        if world > 1:
            import torch.distributed as dist
            fed: list[Any] = [None] * world
            dist.all_gather_object(fed, real["fed"])
            real["fed"] = sum(fed)
        del real["steps"]
        rows.append(dict(c, gpus=world, **real, first_epoch_steps=epochs[key]))
    if int(os.environ.get("RANK", 0)) == 0:
        with open(a.out, "w") as f:
            import accelerate

            f.write(json.dumps({"transformers": VERSION, "torch": torch.__version__, "accelerate": accelerate.__version__,
                                "mode": a.mode, "seed": a.seed}) + "\n")
            f.writelines(json.dumps(r, separators=(",", ":")) + "\n" for r in rows)


if __name__ == "__main__":
    main()

"""One axolotl case, as `axolotl train CASE.yml` runs it (axolotl.cli.train.do_cli: its config
validation, dataset loading and prompt strategies, length filter, split, packing and trainer
builder), stopped before its first step. Runs in the axolotl environment; record.py calls it:

    python tools/trainer_oracle/run_axolotl.py JOB.json OUT.json

Per record: axolotl's merge_datasets is wrapped to keep the tokenized datasets it is handed (each
in its file's order, before the shuffle, the length filter and the split); the rows the trainer
trains and validates on are then matched back to them by their token ids (a row cut by
`excess_length_strategy: truncate` is a prefix of its record's).
"""
from __future__ import annotations

import json
import sys
import tempfile
from collections import defaultdict
from typing import Any, ClassVar

import yaml
from common import (
    IGNORE,
    Capture,
    Recorded,
    case_figures,
    emit,
    install_stop,
    loop_settings,
    quiet,
    read_records,
    trained,
    versions,
)

# What the recorder changes to run a GPU config on this CPU; none of these changes a recorded
# figure (attention: see force_attention)
RUNTIME = {"load_in_8bit": False, "load_in_4bit": False, "optimizer": "adamw_torch", "bf16": False, "fp16": False,
           "tf32": False, "gradient_checkpointing": False, "lora_mlp_kernel": False, "lora_qkv_kernel": False,
           "lora_o_kernel": False, "wandb_project": None, "use_wandb": False, "save_strategy": "no",
           "dataset_num_proc": 1, "logging_steps": 1}
DROP = ("plugins", "deepspeed", "fsdp", "fsdp_config", "gradient_checkpointing_kwargs", "torch_compile",
        "loss_watchdog_threshold", "loss_watchdog_patience")


class Seen:
    tokenized: ClassVar[list[Any]] = []


def force_attention() -> None:
    """The config's attn_implementation stays in axolotl's config (it decides the packing sampler's
    bins: axolotl/utils/trainer.py calculate_total_num_steps, attn_supports_packing), but the model
    itself loads with sdpa: flash attention does not run on a CPU, and no data figure depends on
    the kernel."""
    from transformers import modeling_utils

    original = modeling_utils.PreTrainedModel.from_pretrained.__func__

    @classmethod  # type: ignore[misc]
    def from_pretrained(cls: Any, *a: Any, **k: Any) -> Any:
        if k.get("attn_implementation") not in (None, "eager", "sdpa"):
            k["attn_implementation"] = "sdpa"
        return original(cls, *a, **k)

    modeling_utils.PreTrainedModel.from_pretrained = from_pretrained


def fix_random_state() -> None:
    """A config without `seed` leaves axolotl's shuffles unseeded (utils/data/shared.py
    merge_datasets: dataset.shuffle(seed=None) draws from numpy's global state; the multipack
    sampler's RandomSampler from torch's), so which records a run holds out, and how the bins
    fall, change from run to run. The recorder fixes both global states so that a rerun records
    the same draw; the recording says so."""
    import numpy
    import torch

    numpy.random.seed(0)
    torch.manual_seed(0)


def install_hooks() -> None:
    from axolotl.utils.data import sft

    merge = sft.merge_datasets

    def merge_datasets(datasets: list[Any], cfg: Any) -> Any:
        Seen.tokenized = list(datasets)
        return merge(datasets, cfg)

    sft.merge_datasets = merge_datasets


def multipack(dataloader: Any) -> Any:
    """The MultipackBatchSampler inside the trainer's (accelerate-wrapped) dataloader, if any."""
    seen = 0
    node = getattr(dataloader, "batch_sampler", None)
    while node is not None and seen < 5:
        if type(node).__name__ == "MultipackBatchSampler":
            return node
        node = getattr(node, "batch_sampler", None)
        seen += 1
    return None


def per_record(cfg: dict[str, Any], train: Any, evals: Any) -> tuple[list[dict[str, Any]], int]:
    """Each file record: its tokenized row as axolotl's prompt strategy made it, and where it went."""
    records: list[dict[str, Any]] = []
    full_rows: list[tuple[int, ...]] = []
    total_in = 0
    for entry, tokenized in zip(cfg["datasets"], Seen.tokenized, strict=True):
        n_file = len(read_records(entry["path"]))
        n_tok = len(tokenized)
        for i in range(n_file):
            index = total_in + i
            if i < n_tok:
                ids, labels = tokenized[i]["input_ids"], tokenized[i]["labels"]
                records.append({"index": index, "tokens": len(ids), "trained": trained(labels), "kept": False,
                                "cut": 0, "split": "dropped"})
                full_rows.append(tuple(ids))
            else:
                records.append({"index": index, "tokens": 0, "trained": 0, "kept": False, "cut": 0,
                                "split": "dropped", "reason": "outside_split"})
                full_rows.append(())
        total_in += n_file
    exact: dict[tuple[int, ...], list[int]] = defaultdict(list)
    for i, row in enumerate(full_rows):
        if row:
            exact[row].append(i)
    for name, ds in (("train", train), ("validation", evals)):
        if ds is None:
            continue
        for ids, labels in zip(ds["input_ids"], ds["labels"], strict=True):
            key = tuple(ids)
            if exact.get(key):
                i = exact[key].pop(0)
            else:  # a cut row: the one record it starts, not yet placed
                i = next(j for j, row in enumerate(full_rows) if len(row) > len(key) and row[:len(key)] == key
                         and records[j]["split"] == "dropped" and "reason" not in records[j])
                exact[full_rows[i]].remove(i)
                records[i]["cut"] = len(full_rows[i]) - len(key)
            records[i].update(tokens=len(ids), trained=trained(labels), kept=name == "train", split=name)
    limit = cfg.get("sequence_len") or 2048
    for r in records:
        if r["split"] == "dropped" and "reason" not in r:
            r["reason"] = ("too_long" if r["tokens"] > limit else "no_trainable" if r["trained"] == 0 else "too_short")
    return records, total_in


def refusal(exc: BaseException) -> dict[str, str]:
    """The error axolotl stopped with, and the function of axolotl's own code that raised it (the
    innermost frame inside the axolotl package)."""
    import traceback

    frames = [f for f in traceback.extract_tb(exc.__traceback__) if "/axolotl/" in f.filename.replace("\\", "/")]
    where = ""
    if frames:
        path = frames[-1].filename.replace("\\", "/")
        where = "src/axolotl/" + path.rsplit("/axolotl/", 1)[1] + " " + frames[-1].name
    return {"error": type(exc).__name__, "message": str(exc), "raised_in": where}


def main(job_path: str, out_path: str) -> None:
    quiet()
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    with open(job["config"], encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    unseeded = cfg.get("seed") is None
    if unseeded:  # see fix_random_state
        fix_random_state()
    install_stop()
    force_attention()
    install_hooks()
    from axolotl.cli.train import do_cli

    run = dict(cfg)
    for key in DROP:
        run.pop(key, None)
    run.update(RUNTIME)
    if run.get("adapter") == "qlora":
        run["adapter"] = "lora"  # 4-bit loading needs a GPU; the adapter does not touch the data
    run["base_model"] = job["model_dir"]
    with tempfile.TemporaryDirectory() as tmp:
        run["output_dir"] = tmp + "/out"
        run["dataset_prepared_path"] = tmp + "/prepared"
        path = tmp + "/config.yml"
        with open(path, "w", encoding="utf-8") as fh:
            yaml.safe_dump(run, fh)
        sys.argv = [sys.argv[0]]
        try:
            do_cli(config=path)
            raise SystemExit("training finished without the stop")
        except Recorded:
            pass
        except Exception as exc:  # a case that says the trainer refuses it records the refusal
            if not job["case"].get("refuses"):
                raise
            emit(out_path, {"versions": versions("axolotl"), "refusal": refusal(exc), "figures": None,
                            "trainer_settings": {}, "per_record": [], "notes": []})
            return
    if job["case"].get("refuses"):
        raise SystemExit("the case says axolotl refuses it, and axolotl reached its first step")
    trainer = Capture.trainer
    train, evals = trainer.train_dataset, trainer.eval_dataset
    records, total_in = per_record(cfg, train, evals)
    kept = [r for r in records if r["kept"]]
    tokens = sum(len(x) for x in train["input_ids"])
    labels_trained = sum(sum(1 for t in x if t != IGNORE) for x in train["labels"])
    sampler = multipack(Capture.dataloader)
    packed = sum(len(batch) for batch in sampler) if sampler is not None else None
    notes = []
    if unseeded and (cfg.get("val_set_size") or sampler is not None):
        notes.append("the config sets no seed: axolotl's shuffle before the split and its packing sampler are "
                     "unseeded, so a run holds out other records and may pack other bins; the recorder fixed "
                     "numpy's and torch's global seeds to 0 (the counts of records and of held-out rows do not change)")
    if sampler is not None:
        notes.append("packed_rows: the bins of one pass of axolotl's MultipackBatchSampler over a random order "
                     f"(batch_max_len {sampler.batch_max_len}, {sampler.batch_size} bin(s) a batch); another "
                     "order can pack into another count")
    figures = case_figures(total_in, kept, len(evals) if evals is not None else 0, tokens, labels_trained, packed,
                           sum(1 for r in records if r.get("reason") == "too_long"))
    args = trainer.args
    settings = loop_settings()
    settings.update({"sample_packing": bool(cfg.get("sample_packing")), "attn_implementation": cfg.get("attn_implementation"),
                     "max_steps_arg": args.max_steps, "warmup_steps_arg": args.warmup_steps,
                     "batch_max_len": getattr(sampler, "batch_max_len", None),
                     "bins_per_batch": getattr(sampler, "batch_size", None)})
    emit(out_path, {"versions": versions("axolotl"), "figures": figures, "trainer_settings": settings,
                    "per_record": records, "notes": notes})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""One TRL case, as `python trl/scripts/sft.py --config CASE.yaml` runs it (TRL's own parser,
dataset loading and SFTTrainer), stopped before its first step. Runs in the TRL environment;
record.py calls it once per case:

    python tools/trainer_oracle/run_trl.py JOB.json OUT.json
"""
from __future__ import annotations

import copy
import json
import sys
import tempfile
from typing import Any

import yaml
from common import IGNORE, Capture, Recorded, case_figures, emit, install_stop, loop_settings, quiet, trained, versions

# What the recorder changes in a config to run it here; none of these changes a figure
RUNTIME = {"report_to": "none", "bf16": False, "fp16": False, "dataloader_num_workers": 0,
           "save_strategy": "no", "push_to_hub": False, "use_cpu": True}


def parse(job: dict[str, Any], tmp: str) -> tuple[Any, Any, Any, Any]:
    from trl.scripts.sft import make_parser

    with open(job["config"], encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    cfg.update(RUNTIME)
    cfg["model_name_or_path"] = job["model_dir"]
    cfg["output_dir"] = tmp + "/out"
    path = tmp + "/config.yaml"
    with open(path, "w", encoding="utf-8") as fh:
        yaml.safe_dump(cfg, fh)
    parser = make_parser()
    return parser.parse_args_and_config(args=["--config", path], fail_with_unknown_args=False)[:4]


def raw_train(script_args: Any, dataset_args: Any) -> Any:
    """The train split as trl/scripts/sft.py main() loads it."""
    from datasets import load_dataset
    from trl import get_dataset

    if dataset_args.datasets:
        dataset = get_dataset(dataset_args)
    else:
        dataset = load_dataset(script_args.dataset_name, name=script_args.dataset_config)
    return dataset[script_args.dataset_train_split]


def per_record(trainer: Any, raw: Any) -> list[dict[str, Any]]:
    """Each input row through SFTTrainer._prepare_dataset itself, with an index column: once
    without the length cut (the record's own tokens and trained tokens), once as the run cuts
    (truncation and the drop of rows left with nothing to train)."""
    args = trainer.args
    indexed = raw.add_column("oracle_index", list(range(len(raw))))
    uncut = copy.copy(args)
    uncut.max_length = None
    uncut.shuffle_dataset = False
    full = trainer._prepare_dataset(indexed, trainer.processing_class, uncut, False, trainer._formatting_func, "full")
    rows: dict[int, dict[str, Any]] = {}
    for ex in full:
        labels = ex["labels"]
        rows[ex["oracle_index"]] = {"index": ex["oracle_index"], "tokens": len(ex["input_ids"]),
                                    "trained": trained(labels), "kept": False, "cut": 0, "split": "dropped"}
    limit = args.max_length
    if args.packing:  # no truncation pass: the packer cuts (bfd) or wraps (wrapped, bfd_split)
        for r in rows.values():
            r["kept"], r["split"] = True, "train"
            if args.packing_strategy == "bfd" and limit is not None and r["tokens"] > limit:
                ids = full[r["index"]]["labels"][:limit]
                r["cut"] = r["tokens"] - limit
                r["tokens"], r["trained"] = limit, trained(ids)
        return [rows[i] for i in sorted(rows)]
    cut_args = copy.copy(args)
    cut_args.shuffle_dataset = False
    cut = trainer._prepare_dataset(indexed, trainer.processing_class, cut_args, False, trainer._formatting_func, "cut")
    for ex in cut:
        r = rows[ex["oracle_index"]]
        r["cut"] = r["tokens"] - len(ex["input_ids"])
        r["tokens"], r["trained"] = len(ex["input_ids"]), trained(ex["labels"])
        r["kept"], r["split"] = True, "train"
    for r in rows.values():
        if not r["kept"]:
            r["reason"] = "emptied_by_cut"  # no trained token left after the cut
    return [rows[i] for i in sorted(rows)]


def main(job_path: str, out_path: str) -> None:
    quiet()
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    install_stop()
    from trl.scripts import sft

    notes: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        script_args, training_args, model_args, dataset_args = parse(job, tmp)
        try:
            sft.main(script_args, training_args, model_args, dataset_args)
            raise SystemExit("training finished without the stop")
        except Recorded:
            pass
        trainer = Capture.trainer
        raw = raw_train(script_args, dataset_args)
        records = per_record(trainer, raw)
    train = trainer.train_dataset
    args = trainer.args
    kept = [r for r in records if r["kept"]]
    packed = args.packing
    tokens = sum(len(x) for x in train["input_ids"])
    labels_trained = sum(sum(1 for t in x if t != IGNORE) for x in train["labels"])
    eval_ds = trainer.eval_dataset
    with open(job["config"], encoding="utf-8") as fh:
        asked = yaml.safe_load(fh)
    for key, value in asked.items():
        if not hasattr(training_args, key) and not hasattr(script_args, key) and not hasattr(model_args, key) \
                and not hasattr(dataset_args, key):
            notes.append(f"{key} {value}: not a field of this TRL's or transformers' arguments; TrlParser "
                         "(fail_with_unknown_args=False, as trl/scripts/sft.py calls it) drops it")
    if trainer.chat_template is not None:
        notes.append("assistant_only_loss: the tokenizer's template has no {% generation %}; TRL swapped in its "
                     "training template (trl/chat_template_utils.py get_training_chat_template)")
    figures = case_figures(len(raw), kept, len(eval_ds) if eval_ds is not None else 0, tokens, labels_trained,
                           len(train) if packed else None, sum(1 for r in records if r.get("reason") == "emptied_by_cut"))
    extra = loop_settings()
    extra.update({"max_length": args.max_length, "packing": bool(packed),
                  "packing_strategy": args.packing_strategy if packed else None,
                  "assistant_only_loss": args.assistant_only_loss, "completion_only_loss": trainer.completion_only_loss,
                  "eos_token": trainer.processing_class.eos_token, "warmup_steps_arg": args.warmup_steps})
    emit(out_path, {"versions": versions("trl"), "figures": figures, "trainer_settings": extra,
                    "per_record": records, "notes": notes})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

"""One LLaMA-Factory case, as `llamafactory-cli train CASE.yaml` runs it (its run_exp: its own
argument parser, dataset_info.json, converters, template, dataset processors and Trainer),
stopped before its first step. Runs in the LLaMA-Factory environment; record.py calls it:

    python tools/trainer_oracle/run_llamafactory.py JOB.json OUT.json

Per record, without changing what the processors compute: each aligned dataset gets an index
column (LLaMA-Factory's preprocessing removes every column before the processor's output is
kept, so the processors never see it), and each processor's _encode_data_example is wrapped to
note, for the record it encodes, its tokens and trained tokens, and (called once more with the
cutoff lifted) what the cut removed.

`preprocessing_num_workers` stays as written: datasets' map then runs the processors in that many
forked processes, one contiguous shard each, and a packing processor packs each shard on its own
(data/loader.py _get_preprocessed_dataset), so the packed rows and the steps depend on it. The
hooks run wherever the processor runs: after each batch they append their notes to a file of
their process's own (LOG, a folder the main process reads once the Trainer has stopped).
"""
from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any, ClassVar

import yaml
from common import IGNORE, Capture, Recorded, case_figures, emit, install_stop, loop_settings, quiet, trained, versions

RUNTIME = {"report_to": "none", "bf16": False, "fp16": False, "dataloader_num_workers": 0,
           "overwrite_cache": True, "plot_loss": False, "save_strategy": "no"}
DROP = ("deepspeed",)
UNCUT = 10**7
LOG = "ORACLE_LF_LOG"  # the folder the hooks of every process write their notes to


class Hook:
    offset = 0
    queue: ClassVar[list[int]] = []
    phase = "train"
    log: ClassVar[dict[int, dict[str, Any]]] = {}  # this process's notes of the batch being processed
    files: ClassVar[list[tuple[str, int, int]]] = []  # dataset name, first global index, count
    phase_of: ClassVar[dict[int, str]] = {}  # each record's part (train, validation), told by the main process


def flush() -> None:
    """This process's notes, appended to its own file under LOG (datasets' map may run the
    processor in worker processes, whose memory the main process never sees)."""
    if Hook.log:
        with open(Path(os.environ[LOG]) / f"{os.getpid()}.jsonl", "a", encoding="utf-8") as fh:
            for note in Hook.log.values():
                fh.write(json.dumps(note) + "\n")
        Hook.log.clear()


def notes() -> dict[int, dict[str, Any]]:
    """Every process's notes, by record; a record noted twice is the recorder's fault."""
    out: dict[int, dict[str, Any]] = {}
    for path in sorted(Path(os.environ[LOG]).glob("*.jsonl")):
        for line in path.read_text(encoding="utf-8").splitlines():
            note = json.loads(line)
            if note["index"] in out:
                raise SystemExit(f"record {note['index']} noted twice")
            out[note["index"]] = note
    return out


def valid(kind: str, prompt: list[Any], response: list[Any]) -> bool:
    """The processors' own validity checks (data/processor/*.py preprocess_dataset)."""
    if kind == "supervised":
        return len(prompt) % 2 == 1 and len(response) == 1
    return len(prompt) % 2 == 1 and len(response) >= 2


def install_hooks() -> None:
    from llamafactory.data import loader
    from llamafactory.data.processor import feedback, pairwise, pretrain, supervised

    load_one = loader._load_single_dataset

    def load_single(dataset_attr: Any, *a: Any, **k: Any) -> Any:
        ds = load_one(dataset_attr, *a, **k)
        n = len(ds)
        Hook.files.append((dataset_attr.dataset_name, Hook.offset, n))
        ds = ds.add_column("_oracle_index", list(range(Hook.offset, Hook.offset + n)))
        Hook.offset += n
        return ds

    loader._load_single_dataset = load_single

    prep = loader._get_preprocessed_dataset

    def preprocessed(dataset: Any, *a: Any, is_eval: bool = False, **k: Any) -> Any:
        Hook.phase = "validation" if is_eval else "train"
        if dataset is not None:
            Hook.phase_of.update(dict.fromkeys(dataset["_oracle_index"], Hook.phase))
        return prep(dataset, *a, is_eval=is_eval, **k)

    loader._get_preprocessed_dataset = preprocessed

    for cls, kind in ((supervised.SupervisedDatasetProcessor, "supervised"),
                      (feedback.FeedbackDatasetProcessor, "feedback"), (pairwise.PairwiseDatasetProcessor, "pairwise")):
        wrap_processor(cls, kind)
    # the packing processor has its own preprocess_dataset and inherits the wrapped encoder
    wrap_processor(supervised.PackedSupervisedDatasetProcessor, "supervised", encoder=False)
    wrap_pretrain(pretrain.PretrainDatasetProcessor)


def wrap_processor(cls: Any, kind: str, encoder: bool = True) -> None:
    pre, enc = cls.preprocess_dataset, cls._encode_data_example

    def preprocess(self: Any, examples: dict[str, list[Any]]) -> Any:
        idx = examples["_oracle_index"]
        Hook.queue = [idx[i] for i in range(len(idx))
                      if valid(kind, examples["_prompt"][i], examples["_response"][i])]
        for i in range(len(idx)):
            if not valid(kind, examples["_prompt"][i], examples["_response"][i]):
                Hook.log[idx[i]] = {"index": idx[i], "tokens": 0, "trained": 0, "kept": False, "cut": 0,
                                    "split": "dropped", "reason": "invalid"}  # the processor's own check
        out = pre(self, examples)
        flush()
        return out

    def encode(self: Any, *a: Any, **k: Any) -> Any:
        out = enc(self, *a, **k)
        limit = self.data_args.cutoff_len
        self.data_args.cutoff_len = UNCUT
        try:
            full = enc(self, *a, **k)
        finally:
            self.data_args.cutoff_len = limit
        index = Hook.queue.pop(0)
        tokens, full_tokens = len(out[0]), len(full[0])
        got = trained(out[1])
        if kind == "pairwise":  # chosen and rejected, each a sequence the loss sees
            tokens, full_tokens = tokens + len(out[2]), full_tokens + len(full[2])
            got += trained(out[3])
        Hook.log[index] = {"index": index, "tokens": tokens, "trained": got, "kept": True,
                           "cut": full_tokens - tokens, "split": Hook.phase}
        if kind == "supervised" and getattr(self.data_args, "packing", False) and len(out[0]) > limit:
            Hook.log[index].update(kept=False, split="dropped", reason="too_long")  # the packer drops it
        return out

    cls.preprocess_dataset = preprocess
    if encoder:
        cls._encode_data_example = encode


def wrap_pretrain(cls: Any) -> None:
    """Stage pt tokenizes the texts of a batch and (packing) concatenates them into blocks of
    cutoff_len, dropping the remainder: per record, the tokens of its text + eos as the processor
    tokenizes them, and what of it lies in the dropped remainder."""
    pre = cls.preprocess_dataset

    def preprocess(self: Any, examples: dict[str, list[Any]]) -> Any:
        out = pre(self, examples)
        eos = "<|end_of_text|>" if self.data_args.template == "llama3" else self.tokenizer.eos_token
        lengths = [len(self.tokenizer(m[0]["content"] + eos, add_special_tokens=False)["input_ids"])
                   for m in examples["_prompt"]]
        keep = sum(lengths) // self.data_args.cutoff_len * self.data_args.cutoff_len if self.data_args.packing else None
        seen = 0
        for index, n in zip(examples["_oracle_index"], lengths, strict=True):
            cut = max(0, n - self.data_args.cutoff_len) if keep is None else n - max(0, min(n, keep - seen))
            seen += n
            Hook.log[index] = {"index": index, "tokens": n - cut, "trained": n - cut, "kept": n - cut > 0,
                               "cut": cut, "split": Hook.phase if n - cut > 0 else "dropped"}
            if n - cut == 0:
                Hook.log[index].update(reason="remainder", tokens=n, trained=n, cut=0)  # past the last whole block
        flush()
        return out

    cls.preprocess_dataset = preprocess


def sequences(ds: Any) -> tuple[int, int]:
    """Tokens and trained tokens of processed rows (chosen and rejected for preference rows)."""
    cols = ds.column_names
    pairs = [("chosen_input_ids", "chosen_labels"), ("rejected_input_ids", "rejected_labels")] \
        if "chosen_input_ids" in cols else [("input_ids", "labels" if "labels" in cols else "input_ids")]
    tokens = tokens_trained = 0
    for ids_col, lab_col in pairs:
        tokens += sum(len(x) for x in ds[ids_col])
        tokens_trained += sum(sum(1 for t in x if t != IGNORE) for x in ds[lab_col])
    return tokens, tokens_trained


def main(job_path: str, out_path: str) -> None:
    quiet()
    with open(job_path, encoding="utf-8") as fh:
        job = json.load(fh)
    with open(job["config"], encoding="utf-8") as fh:
        cfg = yaml.safe_load(fh)
    install_stop()
    install_hooks()
    from llamafactory.train.tuner import run_exp

    for key in DROP:
        cfg.pop(key, None)
    cfg.update(RUNTIME)
    cfg["model_name_or_path"] = job["model_dir"]
    with tempfile.TemporaryDirectory() as tmp:
        cfg["output_dir"] = tmp + "/out"
        os.environ[LOG] = tmp + "/notes"
        os.mkdir(os.environ[LOG])
        try:
            run_exp(args=cfg)
            raise SystemExit("training finished without the stop")
        except Recorded:
            pass
        noted = notes()
        processes = len(list(Path(os.environ[LOG]).glob("*.jsonl")))
    trainer = Capture.trainer
    train = trainer.train_dataset
    packing = bool(cfg.get("packing") or cfg.get("neat_packing"))
    stage = cfg.get("stage", "sft")
    records = [noted[i] for i in sorted(noted)]
    for r in records:
        if r["split"] != "dropped":
            r["split"] = Hook.phase_of[r["index"]]
        r["kept"] = r["split"] == "train"
    kept = [r for r in records if r["kept"]]
    tokens, labels_trained = sequences(train)
    packed_rows = None
    said: list[str] = []
    workers = cfg.get("preprocessing_num_workers")
    if isinstance(workers, int) and workers > 1:
        packed = cfg.get("packing") or cfg.get("neat_packing") or (stage == "pt" and "packing" not in cfg)  # pt packs by default
        packs = ", packing each shard on its own" if packed else ""
        said.append(f"preprocessing_num_workers {workers}, as written: datasets' map ran the processors in up to {workers} "
                    f"processes, one contiguous shard each (fewer when a split has fewer rows){packs}; the per-record "
                    "figures were noted in the process that encoded the record")
    padded = None
    if stage == "pt" and "packing" not in cfg:
        packing = True  # LLaMA-Factory packs pretraining text unless told not to (hparams/parser.py)
    if packing:
        packed_rows = len(train)
        padded = tokens
        tokens = sum(r["tokens"] for r in kept)
        if padded != tokens:
            said.append(f"packed rows are padded to cutoff_len + 1: {padded} tokens with the padding")
    eval_ds = trainer.eval_dataset
    names = [f"{name}: records {first}-{first + n - 1}" for name, first, n in Hook.files]
    # validation_rows: the held-out records (packed, they are fewer rows: trainer_settings.validation_packed_rows)
    figures = case_figures(sum(n for _, _, n in Hook.files), kept, sum(1 for r in records if r["split"] == "validation"),
                           tokens, labels_trained, packed_rows, sum(1 for r in records if r.get("reason") == "too_long"))
    args = trainer.args
    settings = loop_settings()
    settings.update({"stage": stage, "packing": packing, "padded_tokens": padded, "datasets": names,
                     "processes_noting_records": processes,
                     "validation_packed_rows": len(eval_ds) if packing and eval_ds is not None else None,
                     "warmup_ratio_arg": getattr(args, "warmup_ratio", "no such argument"),
                     "warmup_steps_arg": args.warmup_steps})
    emit(out_path, {"versions": versions("llamafactory"), "figures": figures, "trainer_settings": settings,
                    "per_record": records, "notes": said})


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

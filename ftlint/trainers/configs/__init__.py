"""`--run FILE`: the run config the user already has, read as its trainer reads it, one module
per kind of file behind one function (base.py says what a RunConfig holds):

    axolotl           an axolotl YAML (base_model, datasets, sequence_len, micro_batch_size, ...)
    llama-factory     a LLaMA-Factory training YAML with its dataset_dir's dataset_info.json
    trl               a TRL SFTConfig YAML, as `trl sft --config` takes it
    mistral-finetune  a mistral-finetune YAML (data.instruct_data, seq_len, max_steps, optim.lr)
    together          a Together fine-tuning job's parameters, as JSON (FineTuning.create's keywords)

The kind is detected from the keys only that kind has, or given. Pure: the file is read
bounded and confined (ftlint/trust.py, ftlint/documents.py); nothing is printed. Keys ftlint
does not use are ignored; a key it uses, of another type than the trainer takes, is a
RunConfigError naming the file, the key and what it takes.
"""

from __future__ import annotations

from pathlib import Path

from . import axolotl, llama_factory, mistral_finetune, together, trl
from .base import DatasetRef, Keys, RunConfig, RunConfigError, Setting

READERS = {"axolotl": axolotl.read, "llama-factory": llama_factory.read, "trl": trl.read,
           "mistral-finetune": mistral_finetune.read, "together": together.read}
KINDS = tuple(READERS)


def read_run(path: str, kind: str | None = None, limit: int | None = None) -> RunConfig:
    """The run config at `path` (one regular file of at most `limit` bytes), of `kind` or of the
    kind its keys show."""
    from ..documents import parse_json, parse_yaml
    from ..trust import MAX_FILE_BYTES, Refused, read_text

    try:
        text = read_text(path, "--run", limit or MAX_FILE_BYTES)
        doc = (parse_json if Path(path).suffix == ".json" else parse_yaml)(text, f"--run {path}")
    except Refused as exc:
        raise RunConfigError(str(exc)) from None
    if not isinstance(doc, dict) or not all(isinstance(k, str) for k in doc):
        raise RunConfigError(f"--run {path}: not a run config (a mapping of settings)")
    found = kind or detect(doc)
    if found is None:
        raise RunConfigError(f"--run {path}: not a run config ftlint knows ({', '.join(KINDS)}); its keys name no trainer")
    if found not in READERS:
        raise RunConfigError(f"--run {path}: unknown kind {found!r}; ftlint reads {', '.join(KINDS)}")
    return READERS[found](Keys(doc, path))


def detect(doc: dict) -> str | None:
    """The kind of config whose own keys `doc` has."""
    if "training_file" in doc or "n_epochs" in doc:
        return "together"
    if "base_model" in doc or "sequence_len" in doc or "micro_batch_size" in doc:
        return "axolotl"
    if "stage" in doc or "cutoff_len" in doc or ("dataset" in doc and "template" in doc):
        return "llama-factory"
    if "seq_len" in doc or "model_id_or_path" in doc or isinstance(doc.get("data"), dict):
        return "mistral-finetune"
    if "model_name_or_path" in doc or "dataset_name" in doc or "max_length" in doc:
        return "trl"
    return None


__all__ = ["KINDS", "DatasetRef", "RunConfig", "RunConfigError", "Setting", "detect", "read_run"]

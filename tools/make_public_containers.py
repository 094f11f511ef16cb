"""Build the container fixtures of real public records: the datasets library's own writers, so the
files have the layout the Hugging Face Hub serves and `datasets.save_to_disk` leaves.

- fixtures/datasets/fastchat/dummy_conversation.parquet: FastChat's 500 ShareGPT records
  (dummy_conversation.json), by `Dataset.to_parquet`, as the Hub converts a dataset to Parquet;
- fixtures/datasets/fastchat/dummy_conversation.saved/: the same, by `Dataset.save_to_disk`;
- fixtures/datasets/torchtune/alpaca_tiny.tulu.parquet: torchtune's 100 Alpaca records in Tulu 3's
  SFT columns (`id`, `messages` of role/content, `source`), written by `Dataset.to_parquet`.

`datasets` is not a dependency of ftlint or of its tests (they read these files through polars).
Run from the repository root, in an environment with datasets installed:
    python tools/make_public_containers.py
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from datasets import Dataset

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "fixtures" / "datasets"


def main() -> None:
    chats = json.loads((DATA / "fastchat" / "dummy_conversation.json").read_text())
    sharegpt = Dataset.from_list(chats)
    sharegpt.to_parquet(str(DATA / "fastchat" / "dummy_conversation.parquet"))
    saved = DATA / "fastchat" / "dummy_conversation.saved"
    shutil.rmtree(saved, ignore_errors=True)
    sharegpt.save_to_disk(str(saved))
    rows = json.loads((DATA / "torchtune" / "alpaca_tiny.json").read_text())
    tulu = [{"id": f"alpaca_tiny_{i}", "messages": [
                {"role": "user", "content": "\n".join(t for t in (r["instruction"], r["input"]) if t)},
                {"role": "assistant", "content": r["output"]}], "source": "torchtune/alpaca_tiny"}
            for i, r in enumerate(rows)]
    Dataset.from_list(tulu).to_parquet(str(DATA / "torchtune" / "alpaca_tiny.tulu.parquet"))


if __name__ == "__main__":
    main()

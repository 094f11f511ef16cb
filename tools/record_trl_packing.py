"""Record what TRL's own packer does with some row lengths: fixtures/oracle/trl_pack_dataset.json,
which tests/plan/test_plan.py holds ftlint's packing to (not run in CI: it needs TRL and datasets).

    HF_DATASETS_OFFLINE=1 /work/envs/trl/bin/python tools/record_trl_packing.py > fixtures/oracle/trl_pack_dataset.json

Rows of random lengths (seeded) are packed by trl.data_utils.pack_dataset with each of its
strategies at one seq_length, as SFTTrainer._prepare_dataset calls it; the rows and their tokens
are counted. The lengths span three of datasets.map's 1,000-row batches, so the batches show.
"""
from __future__ import annotations

import json
import random

import trl
from datasets import Dataset
from trl.data_utils import pack_dataset

SEQ_LENGTH = 256


def main() -> None:
    rng = random.Random(1)
    lengths = [rng.randint(1, 900) for _ in range(2300)]
    rows = Dataset.from_dict({"input_ids": [[1] * n for n in lengths]})
    packed = {}
    for strategy in ("bfd", "bfd_split", "wrapped"):
        out = pack_dataset(rows, SEQ_LENGTH, strategy)
        packed[strategy] = {"rows": len(out), "tokens": sum(len(ids) for ids in out["input_ids"])}
    print(json.dumps({"trl": trl.__version__, "seq_length": SEQ_LENGTH, "lengths": lengths, "packed": packed}))


if __name__ == "__main__":
    main()

"""The largest value each number ftlint takes may have, in one table: the flags, ftlint.toml,
the Python API's keywords and run configs all reach the options through the rules of
ftlint/checked.py, and every rule of a number takes its maximum from here. In CI these numbers
come from a pull request (its ftlint.toml, its run config, its Together job): a number without a
maximum is a loop, a chart or a sum as large as the pull request likes (10^8 epochs: a chart of
GiBs; a 400-digit price: no cost at all). Past its maximum a value is refused with one line
naming the key and the maximum (exit 2). docs/trust.md lists the table (a test keeps them equal).

Each maximum is well above any real run's: a provider's or a trainer's own largest value where
one is published, else a generous round figure.
"""

from __future__ import annotations

MAXIMA: dict[str, int | float] = {
    # the run: OpenAI's n_epochs goes to 50; 1,000 leaves tiny datasets room
    "epochs": 1_000,
    # optimizer steps: the longest pretraining runs take about a million; warmup is a part of them
    "max-steps": 10_000_000,
    "warmup-steps": 10_000_000,
    "min-total-steps": 10_000_000,
    # batches: per-device batch and accumulation far above any device's memory; GPUs above the
    # largest clusters (about 100,000)
    "batch-size": 65_536,
    "grad-accum": 65_536,
    "gpus": 131_072,
    "reference-batch-size": 1_000_000_000,
    # lengths in tokens: above the longest context of any model in the catalog (10,485,760)
    "max-seq-len": 16_777_216,
    "context": 16_777_216,
    # USD per 1M training tokens: the catalog's highest price is 100
    "price": 10_000.0,
    "gpu-hour-usd": 10_000.0,
    "budget-usd": 1_000_000_000.0,
    "max-cost": 1_000_000_000_000.0,
    # tokens and records: above any dataset x the epochs' maximum
    "budget-tokens": 10**18,
    "max-tokens": 10**18,
    "tokens-per-second": 1e12,
    "min-records": 10**12,
    "small-dataset": 10**12,
    "large-dataset": 10**12,
    "max-epochs": 1_000,
    "max-epochs-small": 1_000,
    "max-usual-epochs": 1_000,
    "learning-rate": 10.0,
    # a tuning study's runs
    "trials": 1_000,
    "finalists": 1_000,
    # what one line, one file or one chat-template rendering may take (defaults: 128 MiB, 64 MiB,
    # 16 Mi characters, 200,000 steps, 5 s): a repository may raise each, within reason
    "max-line-bytes": 512 << 20,
    "max-file-bytes": 256 << 20,
    "template-max-chars": 64 << 20,
    "template-max-steps": 10_000_000,
    "template-seconds": 60.0,
    "max-errors": 1_000_000_000,
}

# A run config's dataset list (LLaMA-Factory's `dataset:`, axolotl's `datasets:`): a real mixture
# names a few dozen.
MAX_RUN_DATASETS = 1_000
# One row of a `review` log (a JSONL line, a CSV row, an entry of trainer_state.json's
# log_history), a CSV header, and what a trainer_state.json holds besides its log_history: a real
# row is a few hundred bytes, a header a few kilobytes.
MAX_LOG_ROW_BYTES = 1 << 20


def maximum(key: str) -> int:
    """A whole number's maximum."""
    value = MAXIMA[key]
    assert isinstance(value, int)
    return value


def ceiling(key: str) -> float:
    """A decimal number's maximum."""
    return float(MAXIMA[key])

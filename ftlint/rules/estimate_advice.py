"""Training-plan advice (FT5xx): warnings `ftlint estimate` attaches to a plan.

Thresholds are constants in ftlint/estimate.py (ADVICE_THRESHOLDS) and documented here.
"""

from ..diagnostics import ERROR, WARNING
from . import register

register("FT501", "lines-with-errors", WARNING, """
    Some lines have errors; the estimate counts only the records it could read.

    Why: OpenAI rejects a file with any invalid line, so the run as planned cannot start.
    Run `ftlint check` for the findings.
""")

register("FT502", "below-minimum-examples", WARNING, """
    Fewer training records than the provider accepts (OpenAI: 10).

    Why: the job is refused. Add examples; do not copy the same ones.
""")

register("FT503", "too-few-steps", WARNING, """
    Too few optimizer steps for a learning-rate schedule (fewer than 100 in total).

    Why: a warmup-then-decay schedule needs room; with a few dozen updates the rate barely
    settles before it decays, and results vary a lot between runs. Lower the batch size or add
    data before adding epochs.
    Example: 156 records, batch 16, 3 epochs = 30 steps.
""")

register("FT504", "memorisation-risk", WARNING, """
    Many epochs over few records (more than 3 epochs over fewer than 100 records, or more than 10 epochs at any size).

    Why: more passes over 40 examples teach those 40 answers, not the task: the model
    memorises them and generalises worse. Add data rather than epochs.
""")

register("FT505", "warmup-eats-run", WARNING, """
    Warmup takes more than 20% of the planned steps.

    Why: a warmup given in steps is often copied from a longer run; on a short run the learning
    rate spends most of the run ramping up. Give warmup as a ratio (--warmup-ratio) instead.
    Example: --warmup-steps 100 on a 120-step run.
""")

register("FT701", "max-cost", ERROR, """
    Gate: the planned run costs more than --max-cost (or its cost is unknown).

    Why: a CI gate on data pull requests, so a change that makes training too expensive fails
    review before anyone pays for it.
""")

register("FT702", "max-tokens", ERROR, """
    Gate: more tokens would be processed (all epochs) than --max-tokens.
""")

register("FT703", "min-records", ERROR, """
    Gate: fewer training records than --min-records.
""")

register("FT506", "unusual-epochs", WARNING, """
    More epochs than supervised fine-tuning usually needs (more than 3; preference runs: 2).

    Threshold: --max-usual-epochs. Why: past a few passes the validation loss usually rises
    while the training loss keeps falling; the extra epochs cost money and generalisation.
""")

register("FT507", "batch-changed-not-lr", WARNING, """
    The effective batch size differs from the reference batch the learning rate was tuned at.

    Given --learning-rate and --reference-batch-size, ftlint shows the rate scaled linearly
    (lr x new/old, the usual rule for SGD-like regimes) and by the square root (often better for
    Adam). Why: changing the batch without the learning rate changes the size of every update.
""")

register("FT508", "one-epoch-is-plenty", WARNING, """
    More than one epoch over a very large dataset (100,000 records or more; --large-dataset).

    Why: at that size a single pass usually reaches what more passes would; later epochs mostly
    add cost and the risk of memorising.
""")

register("FT509", "packing-truncates", WARNING, """
    With --packing, some records are longer than --max-seq-len and lose their end.

    Why: the cut-off part is usually the answer, the only part that carries loss.
""")

register("FT510", "over-budget", WARNING, """
    The plan needs more than --budget-usd or --budget-tokens buys.

    The estimate shows the most whole epochs and steps the budget covers.
""")

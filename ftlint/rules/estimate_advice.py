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

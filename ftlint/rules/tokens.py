"""Token codes (FT3xx) and dataset-wide codes (FT4xx), emitted by the engine."""

from ..diagnostics import WARNING
from . import register

register("FT301", "over-context", WARNING, """
    The example has more tokens than the model's per-example training limit.

    The limit comes from the models data file (`ftlint models`) or --context. The estimate
    counts such an example at the limit.
    Why: OpenAI truncates over-long examples during fine-tuning, so their end (usually the
    assistant answer, the only part trained on) is cut off, and the rest is billed anyway.
    Example: a 70,000-token conversation for gpt-4.1-mini (limit 65,536).
""")

register("FT302", "special-token-text", WARNING, """
    Text contains a string spelled like a special token (<|...|>).

    ftlint counts it as the plain text it is (as OpenAI's training does), never as the special
    token. Why: "<|endoftext|>" or "<|im_start|>" in training text is almost always leaked
    template markup from another pipeline; the model would learn to emit it.
    Example: {"role": "assistant", "content": "Done.<|endoftext|>"}
""")

register("FT401", "too-few-examples", WARNING, """
    The file holds fewer training records than the provider's minimum.

    The minimum comes from the models data file (OpenAI: 10). Why: the job is refused before it
    starts. A validation file may legitimately be smaller; this is a warning.
""")

register("FT402", "duplicate-record", WARNING, """
    The record is identical to an earlier one (in any of the files checked together).

    Identical means the same JSON value: key order and spacing outside strings do not matter.
    The first occurrence is not reported; each later one names it.
    Why: a duplicated example is trained on twice per epoch, so it weighs double and is
    memorised sooner, and it is billed twice. Usually a merge or export mistake.
""")

register("FT403", "near-duplicate-record", WARNING, """
    The record differs from an earlier one only in upper/lower case or white space.

    Why: as FT402: for the model these are the same example, trained on twice.
""")

register("FT404", "validation-leak", WARNING, """
    A validation record also appears in the training data (up to case and white space).

    Only checked with --validation FILE.
    Why: a validation example the model trained on measures memory, not generalisation: the
    validation loss looks better than it is, and choosing a checkpoint by it picks overfit ones.
""")

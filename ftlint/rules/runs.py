"""What the run config itself says that changes the run (`--run FILE`): a key the run's trainer
version ignores or rejects (FT514), a key ftlint cannot apply (FT515). The trainer's run-config
reader finds them (ftlint/trainers/<name>/config.py); the engine reports them on the config
(ftlint/engine/phases.py), in check and estimate alike."""

from __future__ import annotations

from ..diagnostics import ERROR
from . import register

register("FT514", "key-ignored-by-version", ERROR, """
    A key of the run config that the versions the run is modelled as ignore or refuse.

    The versions are --trainer-version and --transformers-version, else those installed beside
    ftlint where the trainer is, else the ones its profile models (`ftlint trainers NAME`). The
    figures follow what that version does, and the message gives the key that does what was meant.
    Why: transformers 5.15 removed warmup_ratio; TRL's sft.py drops a key its arguments do not have
    and the run has no warmup, while `trl sft` hands it to accelerate, which refuses to start.
    Example: warmup_ratio: 0.1 under transformers 5.23: write warmup_steps: 0.1 (transformers 5
    takes a warmup_steps below 1 as a ratio).
""", kind="trainer")

register("FT515", "key-not-applied", ERROR, """
    A key of the run config that changes the figures, and that ftlint does not apply.

    The figures printed are not the run's: the key is named with what the trainer does with it.
    Why: an estimate that silently leaves out a key the run obeys (another text column, a cut that
    keeps the end) gates a run on figures it will not have.
    Example: TRL's truncation_mode: keep_end.
""", kind="trainer")

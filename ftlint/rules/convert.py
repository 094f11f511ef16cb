"""Codes of `ftlint convert` (FT8xx): what a conversion loses or cannot do. The converter
(ftlint/convert.py) emits them; a converted record the target's own rules reject is reported
with the target's codes."""

from __future__ import annotations

from ..diagnostics import ERROR, WARNING
from . import register

register("FT801", "lost-in-conversion", WARNING, """
    Something of the record the target format cannot hold: a weight (TRL messages, Gemini,
    ShareGPT writes it), reasoning (ShareGPT, Gemini, Alpaca), an image (ShareGPT, Alpaca), a tool
    call into a format without tools.

    The record is written without it. Why: a weight-0 turn becomes trained, a reasoning trace is
    no longer taught, an image is gone: know it before you train on the converted file.
""", per="file")

register("FT802", "cannot-convert", ERROR, """
    The record cannot be written in the target format at all (Alpaca takes alternating user and
    assistant text turns and no tools; ftlint writes Nova data without tool use).

    It is left out of the output; the exit code is 1 unless --drop-invalid says to leave such
    records out.
""")

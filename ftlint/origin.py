"""Where a finding about the model comes from (FT512, FT513): not a data file, but what chose the
model. On the run config or the configuration file that named it (its line 0: the file as a
whole, the key in the message); on no file when the --model flag (or the API's model keyword)
named it, or when none was named and the format's provider's default is assumed. So a GitHub
annotation is never placed on a data file that has nothing to do with it, and a text report
never says `:0:0:` with no file."""

from __future__ import annotations

import dataclasses
import os
from typing import TYPE_CHECKING

from .diagnostics import Diagnostic
from .redact import redact

if TYPE_CHECKING:
    from .models import Model


def model_codes() -> frozenset[str]:
    from .rules import checks

    return frozenset(code for c in checks("model") for code in c.codes)


def chosen_by(model: Model, source: str) -> str:
    """What chose the model, as a finding about it ends: `source` (RunOptions.model_source: ""
    for the flag), or the provider's default when none was named."""
    if model.assumed:
        return f"assumed: {model.provider}'s default for its format; name yours with --model"
    return f"chosen by {source or '--model'}"


def located(d: Diagnostic, model: Model, source: str, file: str) -> Diagnostic:
    """A model finding on the file that named the model (none: a flag, a keyword, a default), the
    message ending with what chose it."""
    return dataclasses.replace(d, path=redact(_shown(file)) if file else "", line=0, col=0,
                               message=redact(f"{d.message} ({chosen_by(model, source)})"))


def _shown(file: str) -> str:
    """A configuration's path as the findings name files: relative to the working directory below it."""
    here = os.getcwd()
    absolute = os.path.abspath(file)
    return os.path.relpath(absolute, here) if absolute.startswith(here.rstrip(os.sep) + os.sep) else file

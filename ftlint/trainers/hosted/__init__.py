"""The hosted providers' fine-tuning jobs: what each documents (or, where it does not, what its
SDK does), read 2026-12-01. A provider's server decides what its docs leave out (how it renders,
what its packing does): those facts say "not documented", and the figures follow ftlint's token
convention or the model's chat template, as the catalog says for the model.

One module each; a provider's job with a run config and a bill of its own is a package beside
this one (ftlint/trainers/<name>/)."""

from __future__ import annotations

PACKAGE = __name__  # where each provider's profile is: NAME.toml, over what the jobs share (job.toml)

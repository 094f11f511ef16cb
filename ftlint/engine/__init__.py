"""The engine: read -> chunks -> judge (rules) -> ordered merge -> an Analysis.

phases.py    every rule phase of a run, in order (records and files by the pipeline, then dataset, minimum,
             model, run config, trainer, splits), and the one place their findings are counted
pipeline.py  chunks, worker processes, the ordered merge (no codes, no messages)
judge.py     per line, per file and per dataset: the rules, their severities, the selection
result.py    the mergeable summary: FileSummary, Lengths (ftlint/lengths.py), Analysis (merge), Columns; view_of (the dataset checks' view)
"""

from __future__ import annotations

from .judge import Settings, dataset_findings
from .pipeline import analyse, default_jobs
from .result import Analysis, FileSummary, view_of

__all__ = ["Analysis", "FileSummary", "Settings", "analyse", "dataset_findings", "default_jobs", "view_of"]

"""Dataset-wide codes (FT4xx): too few examples in a file, duplicates across the files checked
together, and validation records that leak from the training data. The queries run once over
the per-line fingerprint rows (ftlint/dataset.py)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, Located
from . import check, register

if TYPE_CHECKING:
    from ..dataset import DatasetView
    from .context import FileContext, FileSummary

register("FT401", "too-few-examples", ERROR, """
    The training file holds fewer training records than its format's provider accepts.

    The minimum is the format's (`ftlint formats NAME`; OpenAI: 10). Why: the provider refuses
    the job before it starts. A validation file (--validation) may be smaller: it is not checked.
    With --dataset (the pre-commit hook, the GitHub Action) the minimum is the dataset's: its
    training files' records together, so a small shard added to a large dataset passes.
""", kind="file")

register("FT402", "duplicate-record", WARNING, """
    The record is identical to an earlier one (in any of the files checked together).

    Identical means the same JSON value: key order and spacing outside strings do not matter.
    The first occurrence is not reported; each later one names it.
    Why: a duplicated example is trained on twice per epoch, so it weighs double and is
    memorised sooner, and it is billed twice. Usually a merge or export mistake.
""", kind="dataset")

register("FT403", "near-duplicate-record", WARNING, """
    The record differs from an earlier one only in upper/lower case or white space.

    Why: as FT402: for the model these are the same example, trained on twice.
""", kind="dataset")

register("FT404", "validation-leak", WARNING, """
    A validation record also appears in the training data (up to case and white space).

    Checked with a validation file (--validation, a file named as a held-out split). With
    --dataset, a training record a change adds that a validation file already holds is the finding
    too, said on the added record.
    Why: a validation example the model trained on measures memory, not generalisation: the
    validation loss looks better than it is, and choosing a checkpoint by it picks overfit ones.
""", kind="split")


@check("file", "FT401", whole=True)
def too_few(summary: FileSummary, ctx: FileContext) -> Iterator[Hit]:
    minimum = ctx.fmt.min_examples
    if ctx.training and minimum and summary.records < minimum and summary.lines > summary.blank:
        noun = "training record" if summary.records == 1 else "training records"
        rejected = f" (and {summary.invalid:,} line{'s' if summary.invalid != 1 else ''} with errors)" if summary.invalid else ""
        n = ctx.dataset_files
        where = "" if not n else " in the dataset's one training file" if n == 1 else f" in the dataset's {n:,} training files together"
        yield Hit(f"{summary.records:,} {noun}{where}{rejected}; {summary.format} needs at least {minimum}")


DUPLICATE = ("FT402", "exact duplicate of")
NEAR = ("FT403", "near-duplicate (differs only in case or white space) of")


@check("dataset", "FT402", "FT403")
def duplicates(view: DatasetView) -> Iterator[Located]:
    from ..dataset import duplicate_pairs

    for how, (file, line, fp), (ref_file, ref_line, ref_fp) in duplicate_pairs(view):
        code, what = DUPLICATE if how == "exact" else NEAR
        first = Located(ref_file, ref_line, Hit(f"{what} {view.where(file, line)}", code=code), ref_fp)
        yield Located(file, line, Hit(f"{what} {view.where(ref_file, ref_line)}", code=code), fp, first)


@check("split", "FT404")
def leakage(train: DatasetView, validation: DatasetView) -> Iterator[Located]:
    from ..dataset import leaked

    for (file, line, fp), (t_file, t_line, t_fp) in leaked(train, validation):
        trained = Located(t_file, t_line, Hit(f"training record also in the validation data at {validation.where(file, line)}"), t_fp)
        yield Located(len(train.paths) + file, line,
                      Hit(f"validation record also in the training data at {train.where(t_file, t_line)}"), fp, trained)

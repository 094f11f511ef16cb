"""A change judged as part of the dataset it lands in (`--dataset`: the pre-commit hook, `ftlint
check --dataset`, `ftlint diff --dataset`, the GitHub Action).

A hook or a pull request hands ftlint the files that changed; the run trains on the dataset. So
the dataset (ftlint/repository.py: every data file git holds, or those `dataset-paths` names) is
read as it stands after the change, and judged as one:

- a record's findings (and a file's) are shown on the changed files only: the others are read
  for their figures and fingerprints, never reported on (`Shown`);
- the provider's minimum (FT401) is the training set's, all its files together (engine/phases.py
  `minimum_findings`, on the file `Shown.first` names);
- duplicates and leakage are found across every file; one between a changed and an unchanged file
  is said on the changed file's record, whichever came first (engine/judge.py `dataset_findings`);
  one between unchanged files was there before the change and is not said;
- the estimate, and every gate on it, is the dataset's.

Against a base revision (`diff --dataset`, the Action) the files the change did not touch are read
once and counted on both sides (`judge_change`: their analysis merges into each side's, as shards
merge); the base's versions of the others are read from git by blob id; the diff compares the
changed files' records, the only ones that can differ.
"""

from __future__ import annotations

import dataclasses
import os
from collections.abc import Callable, Sequence
from contextlib import ExitStack
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from . import repository as git
from .diagnostics import Diagnostic, fails
from .errors import UsageError
from .repository import DatasetFiles, RepositoryError
from .trust import Refused, workspace_file

if TYPE_CHECKING:
    from .app import Data, EstimateRun
    from .diff import Side
    from .engine import Analysis
    from .engine.pipeline import Progress
    from .options import PlanOptions, RunOptions
    from .resolve import Run

Emit = Callable[[Diagnostic], None]


@dataclass(frozen=True)
class Layout:
    """A change's files: the dataset after it (`head`), the files it added or changed there (their
    findings are shown), and before it (`base`, a git revision's) with the files it removed or
    changed there (read from git)."""

    head: DatasetFiles
    changed: tuple[str, ...]
    notes: tuple[str, ...] = ()
    base: DatasetFiles | None = None
    base_name: str = ""
    replaced: tuple[str, ...] = ()  # the base's files the change removed or changed
    dataset: bool = True  # False: the files given are all there is (--no-dataset), judged as they are

    @property
    def unchanged(self) -> tuple[str, ...]:
        return tuple(p for p in self.head.files if p not in self.changed)


def layout(globs: Sequence[str], validation: str | None, by_name: bool, given: Sequence[str] | None = None,
           rev: str | None = None) -> Layout:
    """The change's layout. `given`: the changed files (a hook's, the Action's); None: every file
    (without `rev`), or what differs from `rev` in the working tree (with it)."""
    top = git.toplevel()
    head = git.listed(globs, validation, by_name, None, top)
    _trusted(head, top)  # the files given are the caller's: the Action's trusted, a hook's and a user's own
    notes = [f"{p}: tracked but not in the working tree (deleted, not staged): not read" for p in head.missing]
    changed: list[str] = []
    if given is not None:
        extra: list[str] = []
        for path in dict.fromkeys(os.path.normpath(p) for p in given):
            if path in head.oids and path not in head.missing:
                changed.append(path)
            elif not os.path.lexists(path) or _in_dataset(top, path, globs):  # not there: said where it is read
                changed.append(path)
                extra.append(path)
            else:
                notes.append(f"{path}: not in the dataset{' (dataset-paths)' if globs else ''}: not checked")
        if extra:  # files the listing has not (untracked, a symlink the Action trusts): the change's own
            training, held = git.split(extra, validation, by_name)
            head = dataclasses.replace(head, training=head.training + training, validation=head.validation + held)
    if rev is None:
        return Layout(head, tuple(changed) if given is not None else head.files, tuple(notes))
    base = git.listed(globs, validation, by_name, rev, top)
    touched = git.dirty(top) | set(changed)
    same = {p for p in head.files if p not in touched and head.oids.get(p) and head.oids.get(p) == base.oids.get(p)}
    if given is None:
        changed = [p for p in head.files if p not in same]
    replaced = tuple(p for p in base.files if p not in same)
    return Layout(head, tuple(p for p in head.files if p in set(changed) - same), tuple(notes), base, rev, replaced)


def given_files(files: DatasetFiles, rev: str | None) -> Layout:
    """The layout of files judged alone (--no-dataset): all of them changed; with `rev`, their versions there the base."""
    if rev is None:
        return Layout(files, files.files, dataset=False)
    top = git.toplevel()
    names = {git.from_here(top, name): oid for name, oid in git.tracked(top, rev).items()}
    training, validation = (tuple(p for p in part if p in names) for part in (files.training, files.validation))
    base = DatasetFiles(training, validation, names)
    return Layout(files, files.files, base=base, base_name=rev, replaced=base.files, dataset=False)


def _in_dataset(top: str, path: str, globs: Sequence[str]) -> bool:
    """Whether a file the listing has not is one the dataset would hold (its name, from the top folder)."""
    name = os.path.relpath(os.path.abspath(path), top).replace(os.sep, "/")
    return not name.startswith("../") and git.is_data(name) and (not globs or any(git.glob_match(name, g) for g in globs))


def _trusted(head: DatasetFiles, top: str) -> None:
    """Every file of the dataset resolves inside the repository to a regular file, or the run stops."""
    for path in head.files:
        try:
            workspace_file(path, top)
        except Refused as exc:
            raise RepositoryError(str(exc).replace("the workspace", "the repository")) from None


def in_dataset(run: RunOptions, files: DatasetFiles, changed: Sequence[str] | None, **more: object) -> RunOptions:
    """`run` reading `files` as one dataset, its findings shown on `changed` (None: on every file)."""
    return dataclasses.replace(run, paths=files.training, validation=None, held_out=files.validation,
                               changed=tuple(changed) if changed is not None else None, dataset=True, **more)  # type: ignore[arg-type]


@dataclass
class Part:
    """The change to one of a dataset's sets (training, validation): its files and its records."""

    files: tuple[int, int]  # base, head
    files_added: int
    files_removed: int
    files_changed: int
    records: tuple[int, int]  # base, head
    added: int
    removed: int
    changed: int


@dataclass
class DatasetDiff:
    """`ftlint diff --dataset`: the dataset before and after a change, set by set."""

    base: str
    head: str
    training: Part
    validation: Part
    leaks: tuple[int, int]  # validation records also in the training data, base and head
    new_findings: list[Diagnostic] = field(default_factory=list)
    fixed_findings: int = 0
    estimates: dict[str, dict] = field(default_factory=dict)  # "base"/"head" -> the estimate, as JSON
    changed_files: tuple[str, ...] = ()
    notes: list[str] = field(default_factory=list)

    @property
    def failing(self) -> bool:
        return fails(d.severity for d in self.new_findings)


@dataclass
class Change:
    """A change judged: the dataset after it (`data`), its estimate, and the diff from the base."""

    layout: Layout
    data: Data
    estimate: EstimateRun | None = None
    diff: DatasetDiff | None = None

    @property
    def checked(self) -> list:
        """The changed files' summaries: what the change's check read line by line."""
        files = self.data.train.files + (self.data.validation.files if self.data.validation else [])
        if not self.layout.dataset:
            return files
        names = set(self.layout.changed)
        return [f for f in files if f.path in names]


def judge_change(run: RunOptions, lay: Layout, emit: Emit, plan: PlanOptions | None = None, progress: Progress | None = None,
                 head_name: str = "the working tree") -> Change:
    """The change's findings to `emit`, the dataset's estimate (with `plan`), and with a base the
    diff: the unchanged files read once for both sides."""
    from .app import analyse_data, estimate_data
    from .resolve import resolve_run

    head_run = in_dataset(run, lay.head, lay.changed, prompt_fingerprints=lay.base is not None) if lay.dataset else run
    if lay.base is None:
        empty = lay.dataset and not lay.head.files  # a dataset that holds no file: its first data change is a removal
        data = _empty(resolve_run(head_run)) if empty else analyse_data(resolve_run(head_run), emit, progress)
        return Change(lay, data, estimate_data(data, plan) if plan is not None else None)
    assert plan is not None
    found: list[Diagnostic] = []

    def shown(d: Diagnostic) -> None:
        found.append(d)
        emit(d)

    with ExitStack() as stack:
        try:
            temps = stack.enter_context(git.blobs({p: lay.base.oids.get(p, "") for p in lay.replaced}))
        except RepositoryError as exc:
            raise UsageError(str(exc)) from None
        sides = _Sides(head_run, lay, temps, progress)
        head = sides.head(shown)
        base, base_found = sides.base()
        head_estimate, base_estimate = estimate_data(head, plan), estimate_data(base, plan)
        diff = sides.diff(found, base_found, base_estimate.estimate.to_dict(), head_estimate.estimate.to_dict(), head_name)
    return Change(lay, head, head_estimate, diff)


class _Sides:
    """A change's two sides, analysed from their parts: the unchanged files once, each side's own."""

    def __init__(self, run: RunOptions, lay: Layout, temps: dict[str, str], progress: Progress | None) -> None:
        from .resolve import resolve_run

        self.run, self.lay, self.temps, self.progress = run, lay, temps, progress
        self.resolved = resolve_run(run)
        same = set(lay.unchanged)
        self.same = ([p for p in lay.head.training if p in same], [p for p in lay.head.validation if p in same])
        self.ours = ([p for p in lay.head.training if p not in same], [p for p in lay.head.validation if p not in same])
        base = lay.base
        assert base is not None
        self.theirs = ([temps[p] for p in base.training if p in temps], [temps[p] for p in base.validation if p in temps])
        self.parts: dict[str, Analysis] = {}

    def _judged(self, key: str, paths: list[str], run: Run, emit: Emit) -> Analysis:
        from .app import counted
        from .engine.phases import judged

        settings = run.settings if key.endswith("t") else dataclasses.replace(run.settings, training=False)
        if key.startswith("same"):  # the diff pairs the changed files' records by prompt, never these
            settings = dataclasses.replace(settings, prompt_fingerprints=False)
        self.parts[key] = counted(lambda: judged(tuple(paths), settings, emit, run.options, self.progress))
        return self.parts[key]

    def head(self, emit: Emit) -> Data:
        from .app import analyse_data
        from .engine import Analysis

        run = self.resolved
        for key, paths in (("same t", self.same[0]), ("same v", self.same[1])):
            self._judged(key, paths, run, lambda d: None)
        head = dataclasses.replace(self.run, paths=(*self.same[0], *self.ours[0]), held_out=(*self.same[1], *self.ours[1]))
        run = dataclasses.replace(run, options=head)
        if not head.paths and not head.held_out:
            return _empty(run)
        train = Analysis.merged([self.parts["same t"], self._judged("ours t", self.ours[0], run, emit)])
        validation = Analysis.merged([self.parts["same v"], self._judged("ours v", self.ours[1], run, emit)])
        return _without_prints(analyse_data(run, emit, None, train, validation if head.held_out else None))

    def base(self) -> tuple[Data, list[Diagnostic]]:
        from .app import analyse_data
        from .engine import Analysis
        from .resolve import resolve_run

        theirs = (*self.theirs[0], *self.theirs[1])
        labels = tuple((temp, name) for name, temp in self.temps.items())
        options = dataclasses.replace(self.run, paths=(*self.same[0], *self.theirs[0]), held_out=(*self.same[1], *self.theirs[1]),
                                      changed=theirs, labels=(*self.run.labels, *labels))
        found: list[Diagnostic] = []
        if not options.paths and not options.held_out:
            return _empty(self.resolved), found
        run = resolve_run(options)
        train = Analysis.merged([self.parts["same t"], self._judged("theirs t", list(self.theirs[0]), run, found.append)])
        validation = Analysis.merged([self.parts["same v"], self._judged("theirs v", list(self.theirs[1]), run, found.append)])
        return _without_prints(analyse_data(run, found.append, None, train, validation if options.held_out else None)), found

    def diff(self, head_found: list[Diagnostic], base_found: list[Diagnostic], base: dict, head: dict, head_name: str) -> DatasetDiff:
        from .diff import compare

        lay = self.lay
        parts = []
        for i, key in enumerate(("t", "v")):
            ours, theirs = self.parts.get(f"ours {key}"), self.parts.get(f"theirs {key}")
            found = compare(_side(theirs, base_found if key == "t" else []), _side(ours, head_found if key == "t" else []))
            same = self.parts[f"same {key}"].records
            head_files = (lay.head.training, lay.head.validation)[i]
            base_files = (lay.base.training, lay.base.validation)[i] if lay.base else ()
            added = sum(p not in base_files for p in head_files)
            removed = sum(p not in head_files for p in base_files)
            changed = sum(p in base_files and p in lay.changed for p in head_files)
            parts.append((Part((len(base_files), len(head_files)), added, removed, changed,
                               (same + found.records_base, same + found.records_head), found.added, found.removed, found.changed),
                          found))
        training, validation = parts
        return DatasetDiff(lay.base_name, head_name, training[0], validation[0], (_leaks(base), _leaks(head)),
                           training[1].new_findings, training[1].fixed_findings, {"base": base, "head": head}, lay.changed,
                           list(lay.notes))


def _without_prints(data: Data) -> Data:
    """A side whose dataset findings are made: its merged fingerprints (a copy of the unchanged
    files' and its own, 40 bytes a line) go, before the other side's are merged."""
    for analysis in (data.train, data.validation):
        if analysis is not None:
            analysis.chunks, analysis.rows = [], None
    return data


def _leaks(estimate: dict) -> int:
    """Validation records also in the training data, as an estimate's JSON holds them."""
    return int((estimate.get("validation") or {}).get("records_in_training", 0))


def _side(analysis: Analysis | None, found: list[Diagnostic]) -> Side:
    from .diff import Side, per_record

    if analysis is None or not analysis.files:
        return Side("", found, [], [])
    prints = analysis.fingerprints()
    return Side("", found, per_record(prints, "exact"), per_record(prints, "prompt"))


def _empty(run: Run) -> Data:
    """A side that holds no data file (a repository's first data change)."""
    from .app import Data
    from .engine import Analysis
    from .models import default_model

    model = run.model or default_model("openai-chat", run.today)
    return Data(run, model, Analysis(), None, today=run.today.isoformat())

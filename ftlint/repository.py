"""The repository's dataset (`--dataset`): the data files git holds, as the pre-commit hook and the
GitHub Action judge a change to them.

Which files are data has one definition, DATA_FILES and NOT_DATA; .pre-commit-hooks.yaml's `files`
and `exclude` repeat it (YAML cannot import it: tests/commands/test_action.py holds the three equal). The
dataset is every such file git tracks, listed with `git ls-files` (the index: HEAD in a fresh
checkout, what is staged under pre-commit) or, for a base revision, `git ls-tree`; narrowed to the
`dataset-paths` globs when given; split as `check` splits files: the --validation file and the
files named as held-out splits (ftlint/splits.py) are its validation set, the rest its training set.

git runs with its arguments as a list, never a shell, from the repository's top folder; names come
back as bytes (`-z`: a newline or a byte that is not UTF-8 is part of a name) and are read as the
file system takes them back. The listing is streamed and only data files are kept, at most
MAX_DATASET_FILES of them. Only regular files are listed: a committed symlink is not part of the
dataset (pre-commit's `types: [file]` passes none either), so none leads a read out of the
repository; and each file listed is read only when it still resolves inside the repository to a
regular file (trust.workspace_file, asked with stat before anything is opened). A base revision's
files are read from git by their blob ids, streamed to a temporary file, never by a name.
"""

from __future__ import annotations

import os
import re
import subprocess
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field

from .splits import held_out_by_name

# Files ftlint reads, as .pre-commit-hooks.yaml matches them (tests/commands/test_action.py holds them equal).
DATA_FILES = re.compile(r"(\.(jsonl|ndjson|json)(\.gz|\.zst)?|\.(parquet|arrow))$")
NOT_DATA = re.compile(
    r"(^|/)(dataset_info|state|dataset_dict|tokenizer|tokenizer_config|special_tokens_map|added_tokens|config"
    r"|generation_config|preprocessor_config|adapter_config|trainer_state|vocab|tekken|params|package|package-lock"
    r"|tsconfig|composer|deno|renovate|\.?eslintrc|launch|settings|extensions|devcontainer)\.json$"
    r"|(^|/)\.(vscode|github|devcontainer)/")
MAX_DATASET_FILES = 100_000  # data files in one dataset: far above a Hub dataset's shards
GIT_TIMEOUT = 600  # seconds for one git command (a listing of a large repository, a large blob)
_REGULAR = (b"100644", b"100755")  # git's modes of a regular file (120000: a symlink, 160000: a submodule)
_BLOCK = 1 << 20


class RepositoryError(Exception):
    """No repository, a revision git does not know, more data files than ftlint reads: one line, exit 2."""


def is_data(path: str) -> bool:
    """Whether the hook (and so --dataset) takes `path` for a data file."""
    return DATA_FILES.search(path) is not None and NOT_DATA.search(path) is None


def glob_match(path: str, pattern: str) -> bool:
    """A git-style glob: `*` and `?` stay within a folder, `**/` is any number of folders, `**`
    anything. Matched by following every place in the pattern at once (a Thompson simulation),
    so time is the path's length times the pattern's, never exponential; any character of a
    name (a newline too) is a character."""
    tokens = re.findall(r"\*\*/|\*\*|\*|\?|.", pattern, re.DOTALL)
    end = len(tokens)

    def closure(places: set[int]) -> set[int]:
        # a star of any kind may match nothing
        more, todo = set(places), list(places)
        while todo:
            i = todo.pop()
            if i < end and tokens[i] in ("*", "**", "**/") and i + 1 not in more:
                more.add(i + 1)
                todo.append(i + 1)
        return more

    places, folders = closure({0}), set[int]()  # folders: "**/" tokens inside a folder name, before its "/"
    for ch in path:
        after: set[int] = set()
        inside: set[int] = set()
        for i in places | folders:
            token = tokens[i] if i < end else None
            if token == "**/" or i in folders:
                inside.add(i)
                if ch == "/":
                    after.add(i + 1)
            elif token == "**" or (token == "*" and ch != "/"):
                after.add(i)
            elif (token == "?" and ch != "/") or token == ch:
                after.add(i + 1)
        places, folders = closure(after), inside
        if not places and not folders:
            return False
    return end in places


def git(*args: str, cwd: str | None = None) -> bytes:
    """git's standard output; its last line of error output as a RepositoryError."""
    try:
        done = subprocess.run(["git", *args], cwd=cwd, capture_output=True, stdin=subprocess.DEVNULL, timeout=GIT_TIMEOUT,
                              check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        raise RepositoryError(f"cannot run git: {getattr(exc, 'strerror', None) or exc}") from None
    if done.returncode:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise RepositoryError(f"git {args[0]}: {said[-1] if said else 'failed'}")
    return done.stdout


def toplevel() -> str:
    """The top folder of the repository the working directory is in."""
    try:
        top = git("rev-parse", "--show-toplevel").rstrip(b"\n")
    except RepositoryError:
        raise RepositoryError("--dataset: not in a git repository (the dataset is the data files git tracks; "
                              "--no-dataset judges the files given)") from None
    return os.fsdecode(top)


def commit(rev: str) -> str:
    """The commit `rev` names, checked as a revision: `rev` is never an option."""
    if rev.startswith("-"):
        raise RepositoryError(f"{rev!r}: a revision may not start with '-'")
    try:
        return git("rev-parse", "--verify", "--quiet", "--end-of-options", f"{rev}^{{commit}}").decode("ascii").strip()
    except RepositoryError:
        raise RepositoryError(f"{rev!r} is not a commit in this repository") from None


def _entries(args: Sequence[str], top: str) -> Iterator[tuple[bytes, str, bytes]]:
    """(mode, blob id, name) of each entry git lists (`ls-files -s -z` or `ls-tree -r -z`), streamed."""
    with tempfile.TemporaryFile() as errors:
        try:
            proc = subprocess.Popen(["git", *args], cwd=top, stdout=subprocess.PIPE, stderr=errors, stdin=subprocess.DEVNULL)
        except OSError as exc:
            raise RepositoryError(f"cannot run git: {exc.strerror or exc}") from None
        assert proc.stdout is not None
        try:
            pending = b""
            while block := proc.stdout.read(_BLOCK):
                *whole, pending = (pending + block).split(b"\0")
                for entry in whole:
                    yield _entry(entry, args[0])
            if pending:
                yield _entry(pending, args[0])
        finally:
            proc.stdout.close()
            code = proc.wait(timeout=GIT_TIMEOUT)
        if code:
            errors.seek(0)
            said = errors.read(4096).decode("utf-8", "replace").strip().splitlines()
            raise RepositoryError(f"git {args[0]}: {said[-1] if said else 'failed'}")


def _entry(entry: bytes, command: str) -> tuple[bytes, str, bytes]:
    meta, _, name = entry.partition(b"\t")
    parts = meta.split(b" ")
    oid = parts[1] if command == "ls-files" else parts[2] if len(parts) > 2 else b""
    return parts[0], oid.decode("ascii", "replace"), name


def tracked(top: str, rev: str | None = None, globs: Sequence[str] = ()) -> dict[str, str]:
    """The regular data files git holds (the index, or the commit `rev`), matching `globs` when
    given: their names in the repository (from its top folder) -> blob ids. A path in conflict
    (several stages) has no id: it is changed, whatever the base holds."""
    args = ["ls-files", "-s", "-z"] if rev is None else ["ls-tree", "-r", "-z", "--full-tree", "--end-of-options", rev]
    found: dict[str, str] = {}
    for mode, oid, raw in _entries(args, top):
        name = os.fsdecode(raw)
        if mode not in _REGULAR or not is_data(name) or (globs and not any(glob_match(name, g) for g in globs)):
            continue
        found[name] = "" if name in found else oid
        if len(found) > MAX_DATASET_FILES:
            raise RepositoryError(f"--dataset: the repository holds over {MAX_DATASET_FILES:,} data files"
                                  f"{' matching dataset-paths' if globs else ''}, more than ftlint reads as one dataset; "
                                  "name the dataset's files with dataset-paths")
    return found


@dataclass(frozen=True)
class DatasetFiles:
    """A dataset's files (named from the working directory), split into its training and validation sets."""

    training: tuple[str, ...]
    validation: tuple[str, ...]
    oids: Mapping[str, str] = field(default_factory=dict)  # each file's blob id in git ("": not known)
    missing: tuple[str, ...] = ()  # tracked, but not in the working tree (deleted, not yet staged): not read

    @property
    def files(self) -> tuple[str, ...]:
        return self.training + self.validation


def split(paths: Sequence[str], validation: str | None, by_name: bool) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """(training, validation) of `paths`: the --validation file, and with `by_name` those named as held-out splits."""
    given = os.path.normpath(validation) if validation else None
    held = tuple(p for p in paths if os.path.normpath(p) == given or (by_name and held_out_by_name(p)))
    return tuple(p for p in paths if p not in held), held


def from_here(top: str, name: str) -> str:
    """A repository name as the working directory names it (findings name files so)."""
    return os.path.normpath(os.path.relpath(os.path.join(top, name)))


def listed(globs: Sequence[str], validation: str | None, by_name: bool, rev: str | None = None,
           top: str | None = None) -> DatasetFiles:
    """The dataset git holds now (the index, read from the working tree) or in the commit `rev`."""
    top = top or toplevel()
    names = tracked(top, rev, globs)
    oids = {from_here(top, name): oid for name, oid in sorted(names.items())}
    missing = () if rev is not None else tuple(p for p in oids if not os.path.lexists(p))
    present = [p for p in oids if p not in missing]
    training, held = split(present, validation, by_name)
    return DatasetFiles(training, held, oids, missing)


def dirty(top: str) -> set[str]:
    """The tracked files whose working tree differs from the index (not staged), named from here."""
    return {from_here(top, os.fsdecode(n)) for n in git("diff", "--name-only", "--no-renames", "-z", cwd=top).split(b"\0") if n}


@contextmanager
def blobs(oids: Mapping[str, str]) -> Iterator[dict[str, str]]:
    """Each file's blob (name -> id) streamed from git into a temporary file, kept with the
    name's own data suffixes (a .parquet stays Parquet): name -> the temporary file, removed after."""
    with tempfile.TemporaryDirectory(prefix="ftlint-base-") as folder:
        out = {}
        for i, (name, oid) in enumerate(oids.items()):
            if not re.fullmatch(r"[0-9a-f]{40}|[0-9a-f]{64}", oid):
                raise RepositoryError(f"{name}: git gave no blob id for it")
            suffix = DATA_FILES.search(name)
            path = os.path.join(folder, f"{i}{suffix.group(0) if suffix else '.jsonl'}")
            with open(path, "wb") as fh:
                try:
                    done = subprocess.run(["git", "cat-file", "blob", "--end-of-options", oid], stdout=fh, stderr=subprocess.PIPE,
                                          stdin=subprocess.DEVNULL, timeout=GIT_TIMEOUT, check=False)
                except (OSError, subprocess.TimeoutExpired) as exc:
                    raise RepositoryError(f"cannot run git: {getattr(exc, 'strerror', None) or exc}") from None
            if done.returncode:
                raise RepositoryError(f"{name}: git cannot show it ({done.stderr.decode('utf-8', 'replace').strip()[-200:]})")
            out[name] = path
        yield out

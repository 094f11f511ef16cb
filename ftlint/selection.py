"""Which codes are reported: --select, --ignore and [per-file-ignores], as one filter.

A code is reported when it is selected (no --select selects all), not ignored, and not ignored
for its file by a [per-file-ignores] glob (globs are relative to the configuration file).
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Selection:
    select: tuple[str, ...] = ()  # code prefixes: "FT1" is the structure family
    ignore: tuple[str, ...] = ()
    per_file: tuple[tuple[str, tuple[str, ...]], ...] = ()  # (glob, code prefixes)
    base_dir: str | None = None  # where per-file globs start

    def allows(self, code: str, path: str | None = None) -> bool:
        if self.ignore and code.startswith(self.ignore):
            return False
        if self.select and not code.startswith(self.select):
            return False
        extra = self.ignored_for(path) if path is not None else ()
        return not (extra and code.startswith(extra))

    def for_path(self, path: str) -> Callable[[str], bool]:
        """`allows` for one file, with its per-file globs matched once."""
        extra = self.ignored_for(path)
        ignore = self.ignore + extra
        select = self.select

        def allows(code: str) -> bool:
            return not (ignore and code.startswith(ignore)) and not (select and not code.startswith(select))

        return allows

    def ignored_for(self, path: str) -> tuple[str, ...]:
        """The codes [per-file-ignores] ignores for `path`."""
        if not self.per_file or path == "<stdin>" or self.base_dir is None:
            return ()
        relative = os.path.relpath(os.path.abspath(path), self.base_dir)
        codes: list[str] = []
        for pattern, ignored in self.per_file:
            if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
                codes.extend(ignored)
        return tuple(codes)

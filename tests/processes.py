"""Process trees of real runs, read from /proc: what a run started, and what of it still runs.
The tests end only what they started, by pid (never by name: other Ray processes on the
machine may be a user's)."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path


def tree(root: int) -> list[int]:
    """`root`'s descendants, all generations (Ray's workers are the raylet's children)."""
    found, todo = [], [root]
    while todo:
        pid = todo.pop()
        for task in _listing(f"/proc/{pid}/task"):
            try:
                children = Path(f"/proc/{pid}/task/{task}/children").read_text().split()
            except OSError:
                continue
            fresh = [int(c) for c in children if int(c) not in found]
            found += fresh
            todo += fresh
    return found


def _listing(path: str) -> list[str]:
    try:
        return os.listdir(path)
    except OSError:
        return []


def title(pid: int) -> str:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")[0].decode("utf-8", "replace").strip()
    except OSError:
        return ""


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except (OSError, IndexError):
        return False


def survivors(pids: dict[int, str], grace: float = 20) -> dict[int, str]:
    """Those of `pids` still running after a grace period (a deadline, checked every 0.2 s)."""
    deadline = time.monotonic() + grace
    while any(alive(p) for p in pids) and time.monotonic() < deadline:
        time.sleep(0.2)
    return {p: t for p, t in pids.items() if alive(p)}


def end(pids: dict[int, str]) -> None:
    """The test's own leftovers, by pid (never by name: other Ray processes may be a user's)."""
    for pid in pids:
        if alive(pid):
            os.kill(pid, signal.SIGKILL)

"""Hostile inputs for the untrusted-data tests (issue 12): fake secrets of every kind the
scanners know (built at run time, so this repository holds no string a secret scanner would
take for a real one), a process-tree memory sampler, and file names that read as the commands' flags."""

from __future__ import annotations

import os
import threading
import time
from pathlib import Path

import click


def _repeat(alphabet: str, n: int) -> str:
    return (alphabet * (n // len(alphabet) + 1))[:n]


ALNUM = "a1B2c3D4e5F6g7H8i9J0kLmNoPqRsTuVwXyZ"

SECRETS: dict[str, str] = {
    "aws": "AKIA" + "Z7Q4W2E8R6T1Y3U5",  # not AWS's documented example, which the rule's own doc quotes
    "github": "ghp" + "_" + _repeat(ALNUM, 36),
    "gitlab": "glpat" + "-" + _repeat(ALNUM, 20),
    "slack": "xoxb" + "-" + "1234567890-" + _repeat(ALNUM, 24),
    "stripe": "sk" + "_live_" + _repeat(ALNUM, 24),
    "openai": "sk" + "-proj-" + _repeat(ALNUM, 60) + "T3Blbk" + "FJ" + _repeat(ALNUM, 60),
    "openai-legacy": "sk" + "-" + _repeat(ALNUM, 48),
    "anthropic": "sk" + "-ant-api03-" + _repeat(ALNUM, 40),
    "google": "AIza" + "SyA-" + _repeat(ALNUM, 31),
    "huggingface": "hf" + "_" + _repeat(ALNUM, 34),
    "password-url": "postgres://admin:" + "s3cr3t-" + "Pa55word" + "@db.internal:5432/prod",
    "email": "jane.doe" + "@" + "gmail.com",
    "jwt": "eyJ" + "hbGciOiJIUzI1NiJ9" + ".eyJ" + "zdWIiOiIxMjM0NTY3ODkwIn0" + "." + "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
}
# the part of each that must never be printed (a URL's password, an address's local part)
SECRET_CORE = {name: value for name, value in SECRETS.items()}
SECRET_CORE["password-url"] = "s3cr3t-Pa55word"
SECRET_CORE["email"] = "jane.doe@gmail"


def tree_peak_rss(pid: int, stop: threading.Event, interval: float = 0.02) -> list[int]:
    """Sample the summed resident memory (KiB) of `pid` and its descendants until `stop`; the
    result list gets the peak at index 0 (updated in place)."""
    peak = [0]

    def children(root: int) -> list[int]:
        out, todo = [], [root]
        while todo:
            p = todo.pop()
            out.append(p)
            try:
                with open(f"/proc/{p}/task/{p}/children") as fh:
                    todo.extend(int(c) for c in fh.read().split())
            except OSError:
                pass
        return out

    def rss(p: int) -> int:
        try:
            with open(f"/proc/{p}/status") as fh:
                for line in fh:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1])
        except OSError:
            pass
        return 0

    def sample() -> None:
        while not stop.is_set():
            peak[0] = max(peak[0], sum(rss(p) for p in children(pid)))
            time.sleep(interval)

    threading.Thread(target=sample, daemon=True).start()
    return peak


def descendants(pid: int) -> list[int]:
    found = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as fh:
                    fields = fh.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    found.append(int(entry))
            except (OSError, IndexError, ValueError):
                pass
    return found


def run_limited(args: list[str], *, memory_mib: int = 1536, timeout: float = 120, cwd: str | None = None,
                env: dict[str, str] | None = None, python: list[str] | None = None) -> tuple[int, str, str, int]:
    """Run `python -m ftlint ARGS` (or `python` + the given argv) in a child process whose address
    space is capped at `memory_mib` (RLIMIT_AS: a bomb fails fast instead of taking the machine),
    sampling the resident memory of its process tree. Returns (exit code, stdout, stderr, peak
    RSS in MiB). A run that outlives `timeout` is killed and fails the test."""
    import resource
    import subprocess
    import sys

    limit = memory_mib << 20

    def cap() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (limit, limit))

    argv = [sys.executable, *(python or ["-m", "ftlint", *args])]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, cwd=cwd, env=env, preexec_fn=cap)
    stop = threading.Event()
    peak = tree_peak_rss(proc.pid, stop)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"ftlint {' '.join(args)} ran past {timeout} s") from None
    finally:
        stop.set()
    return proc.returncode, out.decode("utf-8", "replace"), err.decode("utf-8", "replace"), peak[0] >> 10


def flags() -> list[str]:
    """Every flag of the commands the Action runs (and the group's), from click itself."""
    from ftlint.cli import cli

    found: set[str] = set()
    for command in (cli, *(cli.commands[name] for name in ("check", "diff", "estimate"))):
        for param in command.params:
            if isinstance(param, click.Option):
                found.update(param.opts + param.secondary_opts)
    return sorted(found | {"--no-such-flag", "--"})


def flag_names(outside: Path) -> list[str]:
    """Names a pull request can commit that read as flags: `FLAG.jsonl`, and `FLAG=/abs/x.jsonl`
    (a folder `FLAG=` holding the absolute path's folders), aimed at a folder outside."""
    aimed = str(outside / "x.jsonl").lstrip("/")
    return [name for flag in flags() for name in (f"{flag}.jsonl", f"{flag}=/{aimed}")]

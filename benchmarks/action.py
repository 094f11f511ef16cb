"""Benchmark: the GitHub Action (python -m ftlint.action) on a pull request that changes N small
data files, as the runner runs it (a git clone, the runner's environment). Prints the wall time
of each round and their median: what the number of changed files costs (issue 35: one `ftlint
diff` process per file took over 45 s for 80 files). Works in a temporary folder.

    python benchmarks/action.py [--files 80] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", "-c", "user.name=b", "-c", "user.email=b@example.com", "-c", "init.defaultBranch=main", *args],
                   cwd=cwd, check=True, capture_output=True)


def records(n: int, tag: str) -> str:
    return "".join(json.dumps({"messages": [{"role": "user", "content": f"{tag} question {i}"},
                                            {"role": "assistant", "content": f"{tag} answer {i}"}]}) + "\n" for i in range(n))


def pull_request(root: Path, files: int) -> Path:
    """origin: `files` files of 20 records; the clone's branch adds 5 records to each."""
    origin, work = root / "origin", root / "work"
    (origin / "data").mkdir(parents=True)
    git(origin, "init", "-q")
    for f in range(files):
        (origin / "data" / f"part-{f:03d}.jsonl").write_text(records(20, f"f{f}"), encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(root, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    for f in range(files):
        (work / "data" / f"part-{f:03d}.jsonl").write_text(records(25, f"f{f}"), encoding="utf-8")
    git(work, "commit", "-q", "-am", "pr")
    return work


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=80)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = pull_request(Path(tmp), args.files)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
        env.update({"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(Path(tmp) / "summary.md"),
                    "GITHUB_OUTPUT": str(Path(tmp) / "output.txt"), "INPUT_MODEL": "gpt-4o-mini"})
        walls = []
        for _ in range(args.rounds):
            start = time.perf_counter()
            done = subprocess.run([sys.executable, "-m", "ftlint.action"], cwd=work, env=env, capture_output=True, text=True)
            walls.append(time.perf_counter() - start)
            print(f"exit {done.returncode}: {walls[-1]:.1f} s")
        print(f"{args.files} changed files: median {statistics.median(walls):.1f} s over {args.rounds} rounds")


if __name__ == "__main__":
    main()

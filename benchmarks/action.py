"""Benchmark: the GitHub Action (python -m ftlint.action) on a pull request that changes N small
data files, as the runner runs it (a git clone, the runner's environment). Prints the wall time
of each round and their median: what the number of changed files costs (issue 35: one `ftlint
diff` process per file took over 45 s for 80 files). With --dataset-mb, the repository also holds
an unchanged file of that size, and the Action's time is compared with one reading of the whole
dataset (`ftlint estimate --dataset` in the checkout): the Action judges the dataset (issue 37)
and should cost about one reading of it. Works in a temporary folder.

    python benchmarks/action.py [--files 80] [--rounds 3] [--dataset-mb 0]
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


def pull_request(root: Path, files: int, megabytes: int = 0) -> Path:
    """origin: `files` files of 20 records (and `megabytes` of records in data/big.jsonl); the
    clone's branch adds 5 records to each of the small files."""
    origin, work = root / "origin", root / "work"
    (origin / "data").mkdir(parents=True)
    git(origin, "init", "-q")
    if megabytes:
        block = records(10_000, "big")
        with open(origin / "data" / "big.jsonl", "w", encoding="utf-8") as out:
            for n in range(megabytes * (1 << 20) // len(block) + 1):
                out.write(block.replace("big question", f"big{n} question"))
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
    parser.add_argument("--dataset-mb", type=int, default=0, help="an unchanged file of this size beside the changed ones")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = pull_request(Path(tmp), args.files, args.dataset_mb)
        env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
        env.update({"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(Path(tmp) / "summary.md"),
                    "GITHUB_OUTPUT": str(Path(tmp) / "output.txt"), "INPUT_MODEL": "gpt-4o-mini"})
        action = [sys.executable, "-m", "ftlint.action"]
        walls, cpus = timed(action, work, env, args.rounds)
        print(f"{args.files} changed files: median {statistics.median(walls):.1f} s, {statistics.median(cpus):.1f} CPU s "
              f"over {args.rounds} rounds")
        if args.dataset_mb:
            reading = [sys.executable, "-m", "ftlint", "estimate", "--dataset", "--model", "gpt-4o-mini"]
            once, once_cpu = timed(reading, work, env, args.rounds)
            print(f"one reading of the dataset ({args.dataset_mb} MB and the changed files): median {statistics.median(once):.1f} s, "
                  f"{statistics.median(once_cpu):.1f} CPU s; the Action: "
                  f"{statistics.median(cpus) / statistics.median(once_cpu):.2f} readings in CPU time")


def timed(argv: list[str], cwd: Path, env: dict[str, str], rounds: int) -> tuple[list[float], list[float]]:
    """Wall and CPU seconds (the process and its workers: a shared machine's load moves the wall time) of each round."""
    import resource

    walls, cpus = [], []
    for _ in range(rounds):
        before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
        done = subprocess.run(argv, cwd=cwd, env=env, capture_output=True, text=True)
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        walls.append(time.perf_counter() - start)
        cpus.append(after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime)
        print(f"{argv[2]}: exit {done.returncode}: {walls[-1]:.1f} s, {cpus[-1]:.1f} CPU s")
    return walls, cpus

if __name__ == "__main__":
    main()

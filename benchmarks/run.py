"""Benchmark: ftlint against the bare tokenizer loop and a cookbook-style script, on the same
generated files, in one run. Prints wall time, MB/s, peak memory (PSS summed over the whole
process tree, sampled every 100 ms from /proc: sampling costs CPU, which ftlint, using every core, would feel) and ratios. Data goes to benchmarks/data/ (not in git).

    python benchmarks/run.py [--mb 40] [--jobs N] [--rounds 3] [--ray]

Measures at two sizes (--mb and 4x --mb) to show whether memory stays flat. The machines here
are shared and their speed drifts by tens of percent from one minute to the next, so each
command runs --rounds times, the commands taking turns (bare, cookbook, check, estimate, bare,
...), and the fastest time of each is reported: every ratio compares runs made minutes apart
at most, under the same drift.
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import generate  # noqa: E402

TEMPLATE = HERE.parent / "fixtures" / "templates" / "trl" / "qwen3_training.jinja"


def _pss_kib(pid: int) -> int:
    """Proportional set size: pages shared by forked workers are split between them, not
    counted once per process as RSS would."""
    try:
        with open(f"/proc/{pid}/smaps_rollup") as fh:
            for line in fh:
                if line.startswith("Pss:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def _tree_pids(root: int) -> list[int]:
    """`root` and all its descendants (Linux /proc)."""
    children: dict[int, list[int]] = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as fh:
                ppid = int(fh.read().rsplit(")", 1)[1].split()[1])
            children.setdefault(ppid, []).append(int(entry))
        except (OSError, IndexError, ValueError):
            continue
    found, stack = [], [root]
    while stack:
        pid = stack.pop()
        found.append(pid)
        stack.extend(children.get(pid, []))
    return found


def _tree_memory_kib(root: int) -> int:
    """Memory of `root` and all its descendants, in KiB."""
    return sum(_pss_kib(pid) for pid in _tree_pids(root))


def measure(cmd: list[str]) -> tuple[float, float]:
    """(wall seconds, peak MiB of the process tree)."""
    start = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    peak = 0
    done = threading.Event()

    def sample() -> None:
        nonlocal peak
        while not done.is_set():
            peak = max(peak, _tree_memory_kib(proc.pid))
            done.wait(0.1)

    sampler = threading.Thread(target=sample)
    sampler.start()
    _, err = proc.communicate()
    wall = time.perf_counter() - start
    done.set()
    sampler.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-500:]}")
    return wall, peak / 1024


def together_copy(path: Path, out: Path) -> None:
    """The benchmark data as Together's v1 checker accepts all of it: `ftlint convert --to
    together-conversational --drop-invalid` (records with image URLs go: Together takes base64
    images only), then without the `tools` key and the tool-calling records, which the v1 SDK
    checker rejects although Together's docs accept them (the README's table of disagreements)."""
    import json

    converted = out.with_suffix(".converted.jsonl")
    subprocess.run([sys.executable, "-m", "ftlint", "convert", str(path), str(converted), "--to", "together-conversational",
                    "--drop-invalid"], check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    with open(converted, encoding="utf-8") as src, open(out, "w", encoding="utf-8") as dst:
        for line in src:
            record = json.loads(line)
            record.pop("tools", None)
            if not any(m.get("tool_calls") or m.get("role") == "tool" for m in record["messages"]):
                dst.write(json.dumps(record, ensure_ascii=False) + "\n")
    converted.unlink()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ray", action="store_true", help="add `check` and `estimate` with --engine ray (a local Ray cluster "
                        "started per run, as the CLI does: pip install '.[ray]')")
    args = parser.parse_args()
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    py = sys.executable
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    for mb in (args.mb, args.mb * 4):
        path = data / f"chat_{mb:g}mb.jsonl"
        if not path.exists():
            generate(str(path), mb)
        size_mb = path.stat().st_size / 1e6
        with open(path, "rb") as fh:
            records = sum(1 for _ in fh)
        # the same conversations as ShareGPT, in JSONL and in Parquet (a Parquet column holds one type,
        # so the data goes through `ftlint convert`: text parts become text, images are dropped)
        sharegpt = {ext: data / f"{path.stem}.sharegpt.{ext}" for ext in ("jsonl", "parquet")}
        for out in sharegpt.values():
            if not out.exists():
                subprocess.run([py, "-m", "ftlint", "convert", str(path), str(out), "--to", "sharegpt"],
                               check=False, stdout=subprocess.DEVNULL)
        together = data / f"{path.stem}.together.jsonl"
        if not together.exists():
            together_copy(path, together)
        runs = {
            "bare tokenizer loop (1 core)": [py, str(HERE / "bare.py"), str(path)],
            "cookbook-style script": [py, str(HERE / "cookbook.py"), str(path)],
            "ftlint check": [py, "-m", "ftlint", "check", str(path), *jobs],
            "ftlint estimate": [py, "-m", "ftlint", "estimate", str(path), *jobs],
            # rendering on: each record through Qwen 3's own template, then TRL's training variant with
            # assistant_only_loss (the loss mask: tokens with their offsets)
            "ftlint estimate, rendered": [py, "-m", "ftlint", "estimate", str(path), "--model", "Qwen/Qwen3-8B", *jobs],
            "estimate, sharegpt JSONL": [py, "-m", "ftlint", "estimate", str(sharegpt["jsonl"]), *jobs],
            "estimate, sharegpt Parquet": [py, "-m", "ftlint", "estimate", str(sharegpt["parquet"]), *jobs],
            "ftlint estimate, masked": [py, "-m", "ftlint", "estimate", str(path), "--format", "trl-messages", "--tokenizer",
                                        "qwen2", "--chat-template", str(TEMPLATE), "--assistant-only-loss", *jobs],
        }
        # Together's SDK v1 checker and ftlint on the same Together-format copy (both accept all of it)
        runs["together check_file (v1)"] = [py, str(HERE / "together_check.py"), str(together)]
        runs["ftlint check, together copy"] = [py, "-m", "ftlint", "check", "--format", "together-conversational", str(together),
                                               *jobs]
        if args.ray:
            runs["ftlint check --engine ray"] = [py, "-m", "ftlint", "check", "--engine", "ray", str(path), *jobs]
            runs["ftlint estimate --engine ray"] = [py, "-m", "ftlint", "estimate", "--engine", "ray", str(path), *jobs]
        walls: dict[str, list[float]] = {name: [] for name in runs}
        peaks: dict[str, float] = dict.fromkeys(runs, 0.0)
        for _ in range(args.rounds):
            for name, cmd in runs.items():
                wall, peak = measure(cmd)
                walls[name].append(wall)
                peaks[name] = max(peaks[name], peak)
        results = {name: (min(walls[name]), peaks[name]) for name in runs}
        bare, cookbook = results["bare tokenizer loop (1 core)"][0], results["cookbook-style script"][0]
        print(f"\n{path.name}: {size_mb:.1f} MB, {records:,} records (fastest of {args.rounds} rounds)")
        print(f"  {'':30} {'wall s':>7} {'MB/s':>6} {'rec/s':>8} {'peak MiB':>9} {'/ bare':>7} {'cookbook /':>10}")
        for name, (wall, peak) in results.items():
            print(f"  {name:30} {wall:7.2f} {size_mb / wall:6.1f} {records / wall:8,.0f} {peak:9.0f} {wall / bare:7.2f} "
                  f"{cookbook / wall:10.2f}")
        t_mb = together.stat().st_size / 1e6
        ratio = results["ftlint check, together copy"][0] / results["together check_file (v1)"][0]
        print(f"  Together copy: {t_mb:.1f} MB (MB/s above are of the chat file); ftlint check / together check_file = {ratio:.2f}")


if __name__ == "__main__":
    main()

"""Benchmark: ftlint against the bare tokenizer loop, a cookbook-style script, Together's v1
checker and the Hugging Face `datasets` route, on the same generated files, in one run. Prints,
per command, the median over the rounds of its wall time and of the CPU seconds of its whole
process tree (user + sys of the process and every child it waited for, from
getrusage(RUSAGE_CHILDREN) around the run: far steadier than wall time on a loaded machine), its
peak memory (PSS summed over the process tree, sampled every 100 ms from /proc: sampling costs
CPU, which ftlint, using every core, would feel; the sampler's CPU is not in the figures), and
its ratios to the bare loop. Data goes to benchmarks/data/ (not in git).

    python benchmarks/run.py [--mb 40] [--jobs N] [--rounds 3] [--core] [--ray] [--tail 0.01 | --long-context]

Measures at two sizes (--mb and 4x --mb) to show whether memory stays flat, each on the chat data
as it is and on a copy with the near-limit tail (generate.py: 1% of records at 50-100% of the
65,536-token limit; --tail 0 leaves it out, --long-context takes generate.py's long-context mix
instead), and ends with issue 39's goals, each ratio against its bound, and the machine's load
average at the start and end of each file's rounds. The machines here
are shared and their speed drifts by tens of percent from one minute to the next, so each
command runs --rounds times, the commands taking turns (bare, cookbook, check, estimate, bare,
...); a ratio is the median of the per-round ratios (each command against the bare loop of its
own round), so every ratio compares runs made minutes apart at most, under the same drift.
--core keeps the rows the speed goals are set on (bare loop, check, estimate, Together, datasets).
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import resource
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from generate import LONG_CONTEXT, Tail, generate  # noqa: E402

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


def _children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def measure(cmd: list[str]) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds of the process tree, peak MiB of the process tree). One command
    runs at a time, so the growth of RUSAGE_CHILDREN over the run is this command's tree: the
    process and the descendants it reaped (ftlint's pool workers are joined; a descendant left
    to init, as Ray's daemons are, is not counted)."""
    cpu0 = _children_cpu()
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
    cpu = _children_cpu() - cpu0
    done.set()
    sampler.join()
    if proc.returncode not in (0, 1):
        raise SystemExit(f"{' '.join(cmd)} failed ({proc.returncode}): {err.decode()[-500:]}")
    return wall, cpu, peak / 1024


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


BARE = "bare tokenizer loop (1 core)"
TOGETHER, TOGETHER_COPY = "together check_file (v1)", "ftlint check, together copy"
CORE = (BARE, "ftlint check", "ftlint estimate", TOGETHER, TOGETHER_COPY, "hf datasets map(num_proc=2)")
# issue 39's goals: (what, bound), each a ratio read from one file's results
GOALS = (("check CPU / bare loop's", 0.8), ("check wall / Together check_file's", 0.8), ("estimate wall / bare loop's", 0.8),
         ("estimate CPU / bare loop's", 1.2))


def commands(path: Path, together: Path, sharegpt: dict[str, Path], jobs: list[str], ray: bool) -> dict[str, list[str]]:
    py = sys.executable
    runs = {
        BARE: [py, str(HERE / "bare.py"), str(path)],
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
        # Together's SDK v1 checker and ftlint on the same Together-format copy (both accept all of it)
        "together check_file (v1)": [py, str(HERE / "together_check.py"), str(together)],
        "ftlint check, together copy": [py, "-m", "ftlint", "check", "--format", "together-conversational", str(together), *jobs],
    }
    if importlib.util.find_spec("datasets") is not None:
        # the chat file itself: datasets 5 reads a column of mixed types (content a string or a list
        # of parts) as its Json feature; the total equals bare.py's
        runs["hf datasets map(num_proc=2)"] = [py, str(HERE / "hf_datasets.py"), str(path), "2"]
    if ray:
        runs["ftlint check --engine ray"] = [py, "-m", "ftlint", "check", "--engine", "ray", str(path), *jobs]
        runs["ftlint estimate --engine ray"] = [py, "-m", "ftlint", "estimate", "--engine", "ray", str(path), *jobs]
    return runs


def prepare(data: Path, mb: float, tail: Tail | None = None, sharegpt_rows: bool = True) -> tuple[Path, Path, dict[str, Path]]:
    """The chat file at `mb` (with `tail`'s long records), its Together copy and (for their rows)
    its ShareGPT copies, made once."""
    kind = "" if tail is None else ".long" if tail == LONG_CONTEXT else f".tail{tail.share:g}"
    path = data / f"chat_{mb:g}mb{kind}.jsonl"
    if not path.exists():
        generate(str(path), mb, tail=tail)
    # the same conversations as ShareGPT, in JSONL and in Parquet (a Parquet column holds one type,
    # so the data goes through `ftlint convert`: text parts become text, images are dropped)
    sharegpt = {ext: data / f"{path.stem}.sharegpt.{ext}" for ext in ("jsonl", "parquet")}
    for out in sharegpt.values():
        if sharegpt_rows and not out.exists():
            subprocess.run([sys.executable, "-m", "ftlint", "convert", str(path), str(out), "--to", "sharegpt"],
                           check=False, stdout=subprocess.DEVNULL)
    together = data / f"{path.stem}.together.jsonl"
    if not together.exists():
        together_copy(path, together)
    return path, together, sharegpt


def bench(runs: dict[str, list[str]], rounds: int) -> dict[str, dict[str, float]]:
    """Per command: median wall and CPU, and the medians of the per-round ratios to the bare loop
    (and, for the Together copy, to Together's checker of the same round)."""
    got: dict[str, list[tuple[float, float, float]]] = {name: [] for name in runs}
    for _ in range(rounds):
        for name, cmd in runs.items():
            got[name].append(measure(cmd))
    bare = got[BARE]
    out = {}
    if TOGETHER in got:
        pairs = list(zip(got[TOGETHER_COPY], got[TOGETHER], strict=True))
        out["together ratios"] = {"wall": statistics.median(f[0] / t[0] for f, t in pairs),
                                  "cpu": statistics.median(f[1] / t[1] for f, t in pairs)}
    for name, samples in got.items():
        out[name] = {
            "wall": statistics.median(w for w, _, _ in samples),
            "cpu": statistics.median(c for _, c, _ in samples),
            "peak": max(p for _, _, p in samples),
            "wall_ratio": statistics.median(w / b[0] for (w, _, _), b in zip(samples, bare, strict=True)),
            "cpu_ratio": statistics.median(c / b[1] for (_, c, _), b in zip(samples, bare, strict=True)),
        }
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--mb", type=float, default=40)
    parser.add_argument("--jobs", type=int, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--core", action="store_true", help="only the rows the speed goals are set on")
    parser.add_argument("--ray", action="store_true", help="add `check` and `estimate` with --engine ray (a local Ray cluster "
                        "started per run, as the CLI does: pip install '.[ray]')")
    parser.add_argument("--tail", type=float, default=0.01, help="the share of records in the near-limit tail of the "
                        "second data set (0: the chat data only)")
    parser.add_argument("--long-context", action="store_true", help="the second data set is generate.py's long-context mix")
    args = parser.parse_args()
    data = HERE / "data"
    data.mkdir(exist_ok=True)
    jobs = ["--jobs", str(args.jobs)] if args.jobs else []
    compiled()
    print(f"machine: {os.cpu_count()} cores; python {sys.version.split()[0]}")
    if importlib.util.find_spec("datasets") is None:
        print("(no `datasets` installed: the Hugging Face row is left out; pip install datasets)")
    tails: list[Tail | None] = [None]
    if args.long_context:
        tails.append(LONG_CONTEXT)
    elif args.tail > 0:
        tails.append(Tail(share=args.tail))
    goals: dict[str, dict[float, dict[str, float]]] = {}
    for tail in tails:
        label = "no tail" if tail is None else "long-context" if tail == LONG_CONTEXT else f"{tail.share:.0%} tail"
        goals[label] = {}
        for mb in (args.mb, args.mb * 4):
            results = measure_file(data, mb, tail, jobs, args)
            goals[label][mb] = {"peak": results["ftlint check"]["peak"], **read_goals(results)}
    report_goals(goals, args.mb)


def compiled() -> None:
    """ftlint's bytecode written, as an install has it: an editable install under
    PYTHONDONTWRITEBYTECODE=1 (this project's sandboxes) would compile every module on every run,
    0.1-0.15 CPU s that a user's install never pays."""
    import compileall

    import ftlint

    compileall.compile_dir(str(Path(ftlint.__file__).parent), quiet=1)


def measure_file(data: Path, mb: float, tail: Tail | None, jobs: list[str], args: argparse.Namespace) -> dict[str, dict[str, float]]:
    """One file's rounds, printed as a table."""
    path, together, sharegpt = prepare(data, mb, tail, sharegpt_rows=not args.core)
    size_mb = path.stat().st_size / 1e6
    with open(path, "rb") as fh:
        records = sum(1 for _ in fh)
    runs = commands(path, together, sharegpt, jobs, args.ray)
    if args.core:
        runs = {name: cmd for name, cmd in runs.items() if name in CORE}
    load = os.getloadavg()[0]
    results = bench(runs, args.rounds)
    print(f"\n{path.name}: {size_mb:.1f} MB, {records:,} records (medians of {args.rounds} rounds, interleaved; load average "
          f"{load:.1f} at the start, {os.getloadavg()[0]:.1f} at the end)")
    print(f"  {'':30} {'wall s':>7} {'CPU s':>6} {'MB/s':>6} {'peak MiB':>9} {'wall/bare':>9} {'CPU/bare':>8}")
    for name, r in results.items():
        if name in runs:
            print(f"  {name:30} {r['wall']:7.2f} {r['cpu']:6.2f} {size_mb / r['wall']:6.1f} {r['peak']:9.0f} "
                  f"{r['wall_ratio']:9.2f} {r['cpu_ratio']:8.2f}")
    if "together ratios" in results:
        ratio = results["together ratios"]
        print(f"  Together copy: {together.stat().st_size / 1e6:.1f} MB (MB/s above are of the chat file); ftlint check / "
              f"together check_file (medians of the rounds' ratios): wall {ratio['wall']:.2f}, CPU {ratio['cpu']:.2f}")
    return results


def read_goals(results: dict[str, dict[str, float]]) -> dict[str, float]:
    """Issue 39's ratios, from one file's results (those it has the rows for)."""
    found = {GOALS[0][0]: results["ftlint check"]["cpu_ratio"]}
    if "together ratios" in results:
        found[GOALS[1][0]] = results["together ratios"]["wall"]
    if "ftlint estimate" in results:
        found[GOALS[2][0]] = results["ftlint estimate"]["wall_ratio"]
        found[GOALS[3][0]] = results["ftlint estimate"]["cpu_ratio"]
    return found


def report_goals(goals: dict[str, dict[float, dict[str, float]]], mb: float) -> None:
    """Each goal of issue 39 on each data set and size, against its bound."""
    labels = [f"{label}, {size:g} MB" for label, sizes in goals.items() for size in sizes]
    print("\nissue 39's goals (medians of the rounds' ratios; * = met)")
    print(f"  {'':44}" + "".join(f"{label:>22}" for label in labels))
    for what, bound in GOALS:
        cells = [sizes[size].get(what) for sizes in goals.values() for size in sizes]
        print(f"  {what + f' <= {bound}':44}" + "".join(f"{'-':>21} " if v is None else f"{v:21.2f}{'*' if v <= bound else ' '}"
                                                      for v in cells))
    for label, sizes in goals.items():
        ratio = sizes[mb * 4]["peak"] / sizes[mb]["peak"]
        print(f"  check's peak memory, {mb * 4:g} MB / {mb:g} MB ({label}) <= 1.1: {ratio:.2f}{'*' if ratio <= 1.1 else ''}")


if __name__ == "__main__":
    main()

"""Where a record's time goes: each stage of `ftlint check` timed on its own, in one process,
over the same file, in microseconds per record (CPU time, best of --repeat passes, as machines here are
noisy). Run it before and after changing the hot path. The last two rows are the worker with the
fused clean-record pass (ftlint/engine/fused.py) and without it (the full path for every line).

    python benchmarks/stages.py FILE [--records 5000] [--repeat 5] [--turns 9] [--estimate]
"""

from __future__ import annotations

import argparse
import dataclasses
import datetime as dt
import time
from collections.abc import Callable

from ftlint.dataset import fingerprints
from ftlint.engine.judge import LineJudge, Settings
from ftlint.engine.pipeline import Chunk, Worker
from ftlint.engine.result import Columns, FileSummary
from ftlint.formats import get_format
from ftlint.literals import present as literals_in
from ftlint.parse import parse_line
from ftlint.rules import checks, registry
from ftlint.rules import secrets as secrets_rules
from ftlint.schemas import fast_validator
from ftlint.tokens import ByteBound, TokenCounter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", default="openai-chat")
    parser.add_argument("--checks", action="store_true", help="also time each record check on its own")
    parser.add_argument("--turns", type=int, default=0, help="only the worker with the fused pass and without, taking "
                        "turns for this many rounds (min and median of each)")
    parser.add_argument("--estimate", action="store_true", help="only estimate's worker (every text counted, no "
                        "fingerprints) against the bare loop (benchmarks/bare.py's walk), taking turns for --repeat rounds")
    args = parser.parse_args()
    with open(args.file, "rb") as fh:
        raws = [line.rstrip(b"\n") for _, line in zip(range(args.records), fh, strict=False)]
    registry()
    settings = Settings(encoding="o200k_base", model_name="", today=dt.date.today().isoformat(), format_name=args.format,
                        bound_tokens=True)
    fmt = get_format(args.format)
    lines = [parse_line(i + 1, raw) for i, raw in enumerate(raws)]
    values = [line.value for line in lines]
    compacts = [line.compact for line in lines]
    validator = fast_validator(fmt.schema)
    codes = frozenset(c for c in registry() if c.startswith("FT6"))
    exact = TokenCounter(settings.encoding)  # loaded before timing
    bound = ByteBound(settings.encoding)

    def judge() -> LineJudge:
        return LineJudge(fmt, bound, settings, FileSummary("x", format=fmt.name), Columns(), 0, exact=lambda: exact)

    def whole(fused: bool = True) -> None:
        worker = Worker(dataclasses.replace(settings, fused=fused))
        worker.run(Chunk(0, "x", list(enumerate(raws, 1)), fmt.name, "bench"))

    ctx = judge().context
    presents = [literals_in(c) for c in compacts]

    def run_checks(selected: list) -> None:
        for value, found in zip(values, presents, strict=True):
            ctx.present = found
            ctx.figures = fmt.figures(value, bound)
            for c in selected:
                if c.needs and found.isdisjoint(c.needs):
                    continue
                for _ in c.func(value, ctx):
                    pass

    record_checks = [c for c in checks("record") if c.applies(fmt)]
    stages: dict[str, Callable[[], object]] = {
        "parse_line (orjson + checks)": lambda: [parse_line(i + 1, raw) for i, raw in enumerate(raws)],
        "schema is_valid (jsonschema-rs)": lambda: [validator.is_valid(v) for v in values],
        "literal scan (Aho-Corasick)": lambda: [literals_in(c) for c in compacts],
        "figures (byte bound)": lambda: [fmt.figures(v, bound) for v in values],
        "figures (tokens, cold cache)": lambda: [fmt.figures(v, c) for c in [TokenCounter(settings.encoding)] for v in values],
        "secrets scan": lambda: [list(secrets_rules.scan(v, codes, found)) for v, found in zip(values, presents, strict=True)],
        "record checks (all, with bound)": lambda: run_checks(record_checks),
        "fingerprints": lambda: [fingerprints(c) for c in compacts],
        "whole line, check (Worker.run)": whole,
        "whole line, full path (fused off)": lambda: whole(False),
    }
    if args.checks:
        for c in record_checks:
            stages[f"  check {c.codes[0]} {c.func.__name__}"[:34]] = lambda c=c: run_checks([c])
    n = len(raws)
    if args.estimate:
        _estimate(raws, settings, args.repeat)
        return
    if args.turns:
        _turns(n, args.turns, whole)
        return
    print(f"{args.file}: {n:,} records, {sum(map(len, raws)) / n:,.0f} bytes each on average")
    for name, stage in stages.items():
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            stage()
            best = min(best, time.process_time() - start)
        print(f"  {name:34} {best / n * 1e6:8.1f} us/record")


def _estimate(raws: list[bytes], settings: Settings, rounds: int) -> None:
    """estimate's worker (a fresh one each round: its cache of repeated texts starts empty, as a
    run's does) and the bare loop on the same lines, in turns: CPU microseconds a record, and the
    worker's share of what the bare loop takes, the pair's fixed costs (imports, the tokenizer's
    load) left out."""
    import statistics

    import orjson
    from bare import walker  # benchmarks/ is the script's folder, first on the path

    from ftlint.tokens import get_encoding

    walk = walker(get_encoding(settings.encoding).encode_ordinary)
    counting = dataclasses.replace(settings, bound_tokens=False, content_fingerprints=False)

    def bare() -> None:
        for raw in raws:
            walk(orjson.loads(raw))

    def worker() -> None:
        Worker(counting).run(Chunk(0, "x", list(enumerate(raws, 1)), counting.format_name, "bench"))

    times: dict[str, list[float]] = {"bare": [], "estimate": []}
    worker()
    for r in range(rounds):
        for name, run in (("bare", bare), ("estimate", worker)) if r % 2 == 0 else (("estimate", worker), ("bare", bare)):
            start = time.process_time()
            run()
            times[name].append(time.process_time() - start)
    n = len(raws)
    for name, got in times.items():
        print(f"  {name:9} min {min(got) / n * 1e6:7.1f}  median {statistics.median(got) / n * 1e6:7.1f} us/record")
    print(f"  estimate / bare: {statistics.median(e / b for e, b in zip(times['estimate'], times['bare'], strict=True)):.2f}")


def _turns(n: int, rounds: int, whole: Callable[[bool], None]) -> None:
    """The worker with the fused pass and without, alternating (the machine's drift hits both)."""
    import statistics

    times: dict[bool, list[float]] = {True: [], False: []}
    whole(True)
    whole(False)  # caches warm
    for r in range(rounds):
        for fused in (True, False) if r % 2 == 0 else (False, True):
            start = time.process_time()
            whole(fused)
            times[fused].append(time.process_time() - start)
    for fused, name in ((True, "fused pass"), (False, "full path")):
        print(f"  worker, {name:11} min {min(times[fused]) / n * 1e6:6.1f}  median {statistics.median(times[fused]) / n * 1e6:6.1f} us/record")


if __name__ == "__main__":
    main()

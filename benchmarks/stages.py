"""Where a record's time goes: each stage of `ftlint check` timed on its own, in one process,
over the same file, in microseconds per record (CPU time, best of --repeat passes, as machines here are
noisy). Run it before and after changing the hot path.

    python benchmarks/stages.py FILE [--records 5000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import time
from collections.abc import Callable

from ftlint.dataset import fingerprints
from ftlint.engine import Settings, _Columns, _LineJudge
from ftlint.formats.registry import get_format
from ftlint.literals import present
from ftlint.models import get_model
from ftlint.read import parse_line
from ftlint.rules import load_all
from ftlint.rules import secrets as secrets_rules
from ftlint.schemas import fast_validator
from ftlint.tokens import TokenCounter


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file")
    parser.add_argument("--records", type=int, default=5000)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--format", default="openai-chat")
    args = parser.parse_args()
    with open(args.file, "rb") as fh:
        raws = [line.rstrip(b"\n") for _, line in zip(range(args.records), fh, strict=False)]
    load_all()
    model = get_model(None)
    settings = Settings(model=model, context_limit=int(model.context.value) if model.context else None)
    fmt = get_format(args.format)
    lines = [parse_line(i + 1, raw) for i, raw in enumerate(raws)]
    values = [line.value for line in lines]
    presents = [present(line.compact) for line in lines]
    validator = fast_validator(fmt.schema)
    codes = frozenset(c for c in load_all() if c.startswith("FT6"))

    def fresh_counter() -> TokenCounter:
        return TokenCounter(str(settings.model.encoding.value))

    def whole() -> None:
        from ftlint.engine import FileSummary

        judge = _LineJudge(fmt, fresh_counter(), settings, FileSummary("x", format=fmt.name), _Columns(), 0, codes)
        for i, raw in enumerate(raws):
            judge(parse_line(i + 1, raw))

    stages: dict[str, Callable[[], object]] = {
        "parse_line (orjson + checks)": lambda: [parse_line(i + 1, raw) for i, raw in enumerate(raws)],
        "schema is_valid (jsonschema-rs)": lambda: [validator.is_valid(v) for v in values],
        "literal scan (Aho-Corasick)": lambda: [present(line.compact) for line in lines],
        "findings (schema + rules)": lambda: [fmt.findings(line.value, found) for line, found in zip(lines, presents, strict=True)],
        "secrets scan": lambda: [list(secrets_rules.scan(line.value, codes, found)) for line, found in zip(lines, presents, strict=True)],
        "figures (tokens, cold cache)": lambda: [fmt.figures(v, c) for c in [fresh_counter()] for v in values],
        "fingerprints": lambda: [fingerprints(line.compact) for line in lines],
        "whole line (all of the above)": whole,
    }
    fresh_counter()  # load the encoding before timing
    n = len(raws)
    print(f"{args.file}: {n:,} records, {sum(map(len, raws)) / n:,.0f} bytes each on average")
    for name, stage in stages.items():
        best = float("inf")
        for _ in range(args.repeat):
            start = time.process_time()
            stage()
            best = min(best, time.process_time() - start)
        print(f"  {name:34} {best / n * 1e6:8.1f} us/record")


if __name__ == "__main__":
    main()

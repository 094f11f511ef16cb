"""Microseconds per record of the secrets scan (rules/secrets.py `scan`), as the engine calls it:
the record's literals found beforehand (the engine's one Aho-Corasick pass, not counted here).

Two sets of records from benchmarks/generate.py (seed 7): as generated, and with one realistic
sentence (an e-mail, a URL and a phone number) added to the first user turn, as issue 28 measured.
CPU time of this process (time.process_time), median of interleaved rounds; run against another checkout with PYTHONPATH=THAT_CHECKOUT.

    python benchmarks/secrets_scan.py [--records 10000] [--rounds 7]
"""

from __future__ import annotations

import argparse
import copy
import random
import statistics
import sys
import time
from pathlib import Path

from ftlint.literals import present
from ftlint.parse import compact_json
from ftlint.rules.secrets import scan

sys.path.insert(0, str(Path(__file__).parent))
from generate import record  # the benchmark's generator, beside this file

SENTENCE = ("Please write to me at jane.doe@gmail.com, the order page is https://shop.acme-bikes.com/orders/8812?ref=mail"
            " and my number is +1 415-555-0132 if anything is unclear.")


def with_sentence(rec: dict) -> dict:
    rec = copy.deepcopy(rec)
    for message in rec["messages"]:
        if message["role"] == "user":
            if isinstance(message["content"], str):
                message["content"] += " " + SENTENCE
            else:
                message["content"].insert(0, {"type": "text", "text": SENTENCE})
            break
    return rec


def per_record_us(items: list[tuple[dict, frozenset[bytes]]]) -> float:
    start = time.process_time()
    for rec, found in items:
        for _ in scan(rec, None, found):
            pass
    return (time.process_time() - start) / len(items) * 1e6


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--records", type=int, default=10_000)
    parser.add_argument("--rounds", type=int, default=7)
    args = parser.parse_args()
    rng = random.Random(7)
    plain = [record(rng, n) for n in range(args.records)]
    sets = {"generated": plain, "generated + sentence": [with_sentence(r) for r in plain]}
    items = {name: [(r, present(compact_json(r))) for r in recs] for name, recs in sets.items()}
    hits = {name: sum(1 for r, f in its for _ in scan(r, None, f)) for name, its in items.items()}
    times: dict[str, list[float]] = {name: [] for name in items}
    for _ in range(args.rounds):
        for name, its in items.items():
            times[name].append(per_record_us(its))
    print("scan:", scan.__module__, sys.modules[scan.__module__].__file__)
    for name, values in times.items():
        print(f"{name:22} {statistics.median(values):6.1f} us/record  (min {min(values):.1f}, {hits[name]} findings)")


if __name__ == "__main__":
    main()

"""The benchmark's generator makes the mix docs/performance.md says it makes: each kind of content
in the share measured on the public samples (benchmarks/proportions.py), and the same bytes for
the same seed. Not a timed test."""

from __future__ import annotations

import hashlib
import json
import math
import random
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))
from generate import generate, record  # noqa: E402

# the pooled shares docs/performance.md gives (4,554 public records), phone raised to 0.1%
MEASURED = {"tool_call": 0.165, "image_url": 0.004, "non_latin": 0.318, "code": 0.049, "url": 0.014, "email": 0.006,
            "phone": 0.001}
N = 20_000
NON_LATIN = re.compile(r"[\u0400-\u04ff\u0600-\u06ff\u3040-\u30ff\u4e00-\u9fff]")
EMAIL = re.compile(r"\b[\w.]+@[\w-]+\.[a-z]{2,}\b")
PHONE = re.compile(r"\+\d{1,3} \d{3} \d{3} \d{4}\b")


def _texts(rec: dict) -> list[str]:
    out = []
    for message in rec["messages"]:
        content = message.get("content")
        if isinstance(content, str):
            out.append(content)
        elif isinstance(content, list):
            out += [part["text"] for part in content if part.get("type") == "text"]
    return out


def _kinds(rec: dict) -> set[str]:
    text = "\n".join(_texts(rec))
    found = set()
    if any(m.get("tool_calls") for m in rec["messages"]):
        found.add("tool_call")
    if any(isinstance(m.get("content"), list) and any(p.get("type") == "image_url" for p in m["content"])
           for m in rec["messages"]):
        found.add("image_url")
    checks = {"non_latin": NON_LATIN.search(text), "code": "```" in text, "url": "https://" in text,
              "email": EMAIL.search(text), "phone": PHONE.search(text)}
    return found | {kind for kind, hit in checks.items() if hit}


def test_each_kind_comes_in_its_measured_share() -> None:
    rng = random.Random(7)
    counts = dict.fromkeys(MEASURED, 0)
    for n in range(N):
        for kind in _kinds(record(rng, n)):
            counts[kind] += 1
    for kind, share in MEASURED.items():
        # 4 standard deviations of a binomial count: 4% to 12% of the share of the common kinds, a third
        # to nine tenths of the rare ones' (whose share missing or doubled fails)
        assert abs(counts[kind] - N * share) <= 4 * math.sqrt(N * share * (1 - share)), (kind, counts[kind] / N)


def test_the_same_seed_and_size_make_the_same_bytes(tmp_path: Path) -> None:
    digests = []
    for name in ("a.jsonl", "b.jsonl"):
        lines = generate(str(tmp_path / name), 0.2, seed=3)
        data = (tmp_path / name).read_bytes()
        assert data.count(b"\n") == lines and all(json.loads(line) for line in data.splitlines())
        digests.append(hashlib.sha256(data).hexdigest())
    assert digests[0] == digests[1]
    assert (tmp_path / "a.jsonl").stat().st_size >= 0.2 * 1024 * 1024


def test_the_tail_adds_long_records_and_leaves_the_others_as_they_were(tmp_path: Path) -> None:
    import tiktoken

    from ftlint.tokens import get_encoding
    from generate import Tail

    encode: tiktoken.Encoding = get_encoding("o200k_base")
    tail = Tail(share=0.05, limit=4096)
    plain, tailed = tmp_path / "plain.jsonl", tmp_path / "tail.jsonl"
    generate(str(plain), 0.3, seed=5)
    generate(str(tailed), 0.3, seed=5, tail=tail)
    before = plain.read_bytes().splitlines()
    long, others = [], 0
    for line in tailed.read_bytes().splitlines():
        if others < len(before) and line == before[others]:  # the other records: the file without the tail, in order
            others += 1
            continue
        rec = json.loads(line)
        # OpenAI's convention, counted here with tiktoken itself: 3 a record, 3 + role + content a message
        long.append(3 + sum(3 + len(encode.encode_ordinary(m["role"])) + len(encode.encode_ordinary(m["content"]))
                            for m in rec["messages"]))
    assert long and all(tail.lo * tail.limit <= n <= tail.hi * tail.limit for n in long), long
    records = len(long) + others
    assert abs(len(long) - records * tail.share) <= 4 * math.sqrt(records * tail.share), (len(long), records)

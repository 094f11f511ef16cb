"""Build fixtures/shards/: a sharded dataset for the merge and Ray tests, cut from the
repository's own fixtures/good/drone_training.jsonl (103 tool-calling records), with the
things a real corpus has between shards: an exact duplicate in another shard, a near-duplicate
(case and white space), a blank line, broken JSON, a schema error, CRLF line ends, a gzip shard,
a Parquet shard and a shard too small for the provider's minimum. Run from the repository root:
    .venv/bin/python tools/make_shards.py
"""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import polars as pl

ROOT = Path(__file__).resolve().parent.parent
OUT = ROOT / "fixtures" / "shards"


def main() -> None:
    lines = (ROOT / "fixtures" / "good" / "drone_training.jsonl").read_text(encoding="utf-8").splitlines()
    OUT.mkdir(exist_ok=True)
    # shard 0: records 1-40, a blank line, broken JSON, an exact duplicate of its own record 3
    s0 = [*lines[:20], "", *lines[20:40], '{"messages": [', lines[2]]
    (OUT / "shard-000.jsonl").write_text("\n".join(s0) + "\n", encoding="utf-8")
    # shard 1: records 41-90 with CRLF line ends, an exact duplicate of shard 0's record 5 and a
    # near-duplicate (upper case, extra spaces) of shard 0's record 7
    near = json.loads(lines[6])
    for m in near["messages"]:
        if isinstance(m.get("content"), str):
            m["content"] = "  " + m["content"].upper()
    s1 = [*lines[40:90], lines[4], json.dumps(near)]
    (OUT / "shard-001.jsonl").write_bytes(("\r\n".join(s1) + "\r\n").encode())
    # shard 2 (gzip): records 91-100 and one with a schema error (a message without a role)
    bad = json.loads(lines[0])
    del bad["messages"][0]["role"]
    s2 = [*lines[90:100], json.dumps(bad)]
    (OUT / "shard-002.jsonl.gz").write_bytes(gzip.compress(("\n".join(s2) + "\n").encode(), mtime=0))
    # shard 3 (Parquet): records 1-12 again (all duplicates of shard 0's), as nested columns
    rows = [json.loads(x) for x in lines[:12]]
    pl.DataFrame(rows, infer_schema_length=None).write_parquet(OUT / "shard-003.parquet")
    # shard 4: three records: under openai-chat's minimum of 10
    (OUT / "shard-004.jsonl").write_text("\n".join(lines[100:103]) + "\n", encoding="utf-8")


if __name__ == "__main__":
    main()

"""ftlint on a real local Ray cluster (no mocks): the Ray engine, the single-process run and the
merged per-shard runs agree finding by finding and figure by figure."""

from __future__ import annotations

import dataclasses
import json
import os
import shutil
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray

import ftlint
from conftest import FIXTURES, ROOT, run
from ftlint import ray as on_ray
from ftlint.engine import Settings, analyse

SHARDS = sorted(str(p.relative_to(ROOT)) for p in (FIXTURES / "shards").iterdir())
HOSTILE = sorted(str(p) for p in (FIXTURES / "hostile").iterdir() if p.is_file())


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    on_ray.connect(num_cpus=2)
    yield
    ray.shutdown()


def test_check_on_ray_prints_what_check_prints(cluster: None) -> None:
    local = run("check", *SHARDS)
    on = run("check", "--engine", "ray", *SHARDS)
    assert on.stdout == local.stdout and on.exit_code == local.exit_code == 1
    assert "shard-001.jsonl:51:1: FT402 exact duplicate of fixtures/shards/shard-000.jsonl:5" in on.stdout
    local_json = run("check", "-o", "json", *SHARDS)
    assert run("check", "--engine", "ray", "-o", "json", *SHARDS).stdout == local_json.stdout
    assert len(json.loads(local_json.stdout)) == 19


def test_estimate_on_ray_gives_the_same_figures(cluster: None) -> None:
    args = ["estimate", "-o", "json", "--epochs", "2", *SHARDS]
    local = json.loads(run(*args).stdout)
    assert json.loads(run("estimate", "--engine", "ray", *args[1:]).stdout) == local
    assert local["records"] == 118


@pytest.mark.parametrize("range_bytes", [1000, 50_000])
def test_small_ranges_on_ray_equal_one_process(cluster: None, range_bytes: int) -> None:
    paths = [*(str(ROOT / p) for p in SHARDS), *HOSTILE, str(FIXTURES / "missing.jsonl")]
    settings = Settings("o200k_base", "", model_limit=2000)
    local: list = []
    want = analyse(paths, settings, local.append, jobs=1)
    got: list = []
    result = on_ray.analyse(paths, settings, got.append, range_bytes=range_bytes)
    assert got == local and len(got) > 40
    assert result.files == want.files and result.lengths == want.lengths and result.counts == want.counts
    assert result.fingerprints().equals(want.fingerprints())
    assert result.io_errors == want.io_errors == [f"{FIXTURES / 'missing.jsonl'}: no such file"]
    assert len(on_ray.pieces(paths, settings, range_bytes)) > len(paths)  # the files were cut


def test_ray_the_api_and_merged_summaries_agree(cluster: None) -> None:
    paths = [str(ROOT / p) for p in SHARDS]
    on = ftlint.check(paths, engine="ray")
    assert on.findings == ftlint.check(paths).findings
    assert on.findings == ftlint.check(ftlint.merge([ftlint.summarise(p) for p in paths])).findings
    e = ftlint.estimate(paths, engine="ray", epochs=3)
    assert dataclasses.asdict(e) == dataclasses.asdict(ftlint.estimate(paths, epochs=3))


def test_standard_input_is_refused_in_one_line(cluster: None) -> None:
    r = run("check", "--engine", "ray", "-", input=b"{}\n")
    assert r.exit_code == 2 and r.stderr.strip() == "ftlint: error: --engine ray reads files, not standard input"


def _dataset_shards(tmp: Path) -> list[str]:
    """Three JSONL shards Ray's reader can parse (no broken lines: Ray parses before ftlint sees a
    row), with a schema error, a duplicate across shards and a shard under the minimum."""
    lines = (FIXTURES / "good" / "drone_training.jsonl").read_text(encoding="utf-8").splitlines()
    bad = json.loads(lines[0])
    bad["messages"][1]["role"] = "robot"
    parts = [lines[:30], [*lines[30:60], json.dumps(bad), lines[3]], lines[60:65]]
    paths = []
    for k, part in enumerate(parts):
        path = tmp / f"part-{k}.jsonl"
        path.write_text("\n".join(part) + "\n", encoding="utf-8")
        paths.append(str(path))
    return paths


def test_a_ray_dataset_of_records_is_checked_at_each_rows_file_and_row(cluster: None, tmp_path: Path) -> None:
    paths = _dataset_shards(tmp_path)
    ds = ray.data.read_json(paths, include_paths=True)
    on = on_ray.check(ds)
    local = ftlint.check(paths)
    assert [d.code for d in local.findings] == ["FT104", "FT401", "FT402"]  # the bad role, the small shard, the duplicate
    shown = [dataclasses.replace(d, path=str(Path(d.path))) for d in on.findings]
    assert [(d.path, d.line, d.code, d.message) for d in shown] == [(d.path, d.line, d.code, d.message) for d in local.findings]
    assert [f.records for f in on.files] == [f.records for f in local.files] == [30, 31, 5]
    e = on_ray.estimate(ray.data.read_json(paths), epochs=2, batch_size=8)
    assert (e.records, e.tokens, e.total_steps) == (lambda x: (x.records, x.tokens, x.total_steps))(ftlint.estimate(paths, epochs=2, batch_size=8))
    parquet = tmp_path / "shard.parquet"
    import polars as pl

    pl.read_ndjson(paths[0]).write_parquet(parquet)
    from_parquet = on_ray.check(ray.data.read_parquet(str(parquet), include_paths=True))
    assert from_parquet.findings == [] and from_parquet.records == 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_an_existing_cluster_named_by_ray_address_is_used() -> None:
    """`ray start --head` (a cluster outside the test process), then ftlint in a new process
    with RAY_ADDRESS=auto (Ray's name for the cluster `ray start` made on this machine; an
    ip:port names a remote one the same way): it joins that cluster rather than starting its own."""
    ray.shutdown()  # this process's own cluster goes first: `ray stop` below stops every Ray process
    ray_cli = shutil.which("ray", path=os.path.dirname(sys.executable))
    assert ray_cli, "the ray command comes with the ray extra"
    port = _free_port()
    env = {**os.environ, "RAY_USAGE_STATS_ENABLED": "0"}
    subprocess.run([ray_cli, "start", "--head", f"--port={port}", "--num-cpus=2", "--include-dashboard=false"],
                   check=True, capture_output=True, env=env, timeout=120)
    try:
        env["RAY_ADDRESS"] = "auto"
        code = ("import ray, ftlint; r = ftlint.check(%r, engine='ray'); "
                "print(len(r.findings), ray.get_runtime_context().gcs_address.rsplit(':', 1)[1])") % [str(ROOT / p) for p in SHARDS]
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.split() == ["19", str(port)]
    finally:
        subprocess.run([ray_cli, "stop", "--force"], capture_output=True, env=env, timeout=120)

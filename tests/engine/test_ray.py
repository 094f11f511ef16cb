"""ftlint on a real local Ray cluster (no mocks): the Ray engine, the single-process run and the
merged per-shard runs agree finding by finding and figure by figure; an existing cluster is
joined and left with nothing of the run alive. Every cluster here is one the tests start (a
local one in this process, a `ray start --head` on its own port, temp dir and token) and end
by its own handle or pid: never `ray stop`, which stops every Ray process on the machine."""

from __future__ import annotations

import contextlib
import dataclasses
import faulthandler
import json
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
import ray
from processes import alive, end, survivors, title, tree

import ftlint
from conftest import FIXTURES, ROOT, run
from ftlint import ray as on_ray
from ftlint.engine import Settings, analyse
from ftlint.engine import ray as ray_engine

pytestmark = [pytest.mark.xdist_group("ray"), pytest.mark.slow]  # one Ray cluster at a time on the machine: the tests of Ray run in one worker

SHARDS = sorted(str(p.relative_to(ROOT)) for p in (FIXTURES / "shards").iterdir())
HOSTILE = sorted(str(p) for p in (FIXTURES / "hostile").iterdir() if p.is_file())


LEFT_BY_CONNECT: dict[str, object] = {}


@pytest.fixture(scope="module")
def cluster() -> Iterator[None]:
    """A local cluster this process starts (RAY_ADDRESS, a user's cluster, is not joined), and
    what connecting did to handlers the caller had set."""
    def mine(signum: int, frame: object) -> None:
        raise AssertionError("not delivered in these tests")

    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    faults = faulthandler.is_enabled()
    signal.signal(signal.SIGINT, mine)
    signal.signal(signal.SIGTERM, mine)
    faulthandler.disable()
    try:
        with pytest.MonkeyPatch.context() as patch:
            patch.delenv("RAY_ADDRESS", raising=False)
            ray_engine.connect(num_cpus=2)
        LEFT_BY_CONNECT.update(sigint=signal.getsignal(signal.SIGINT) is mine, sigterm=signal.getsignal(signal.SIGTERM) is mine,
                               faulthandler=faulthandler.is_enabled())
    finally:
        signal.signal(signal.SIGINT, saved[0])
        signal.signal(signal.SIGTERM, saved[1])
        if faults:
            faulthandler.enable()
    yield
    ray.shutdown()  # the cluster this process started, and only it


def test_connecting_leaves_the_callers_signal_handlers(cluster: None) -> None:
    # ray.init puts its own in: SIGTERM exits 15 after a stack dump, and faulthandler is enabled
    assert LEFT_BY_CONNECT == {"sigint": True, "sigterm": True, "faulthandler": False}


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
    result = ray_engine.analyse(paths, settings, got.append, range_bytes=range_bytes)
    assert got == local and len(got) > 40
    assert result.files == want.files and result.lengths == want.lengths and result.counts == want.counts
    assert result.fingerprints().equals(want.fingerprints())
    assert result.io_errors == want.io_errors == [f"{FIXTURES / 'missing.jsonl'}: no such file"]
    assert len(ray_engine.pieces(paths, settings, range_bytes)) > len(paths)  # the files were cut


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
    assert (e.data.records, e.counts.tokens, e.schedule.total_steps) == (lambda x: (x.data.records, x.counts.tokens, x.schedule.total_steps))(ftlint.estimate(paths, epochs=2, batch_size=8))
    parquet = tmp_path / "shard.parquet"
    import polars as pl

    pl.read_ndjson(paths[0]).write_parquet(parquet)
    from_parquet = on_ray.check(ray.data.read_parquet(str(parquet), include_paths=True))
    assert from_parquet.findings == [] and from_parquet.records == 30


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def own_head(env: dict[str, str]) -> Iterator[tuple[str, int]]:
    """`ray start --head --block` on a free port, with its own temp dir and token: a cluster outside
    this process, which the test alone uses, and ends by the pid of its `ray start`. Yields its
    address and that pid."""
    ray_cli = shutil.which("ray", path=os.path.dirname(sys.executable))
    assert ray_cli, "the ray command comes with the ray extra"
    port = _free_port()
    temp = tempfile.mkdtemp(prefix="ftl-", dir="/tmp")  # short: Ray's socket paths under it must fit in 107 bytes
    log = Path(temp) / "head.log"
    with open(log, "wb") as out:
        head = subprocess.Popen([ray_cli, "start", "--head", "--block", f"--port={port}", f"--temp-dir={temp}", "--num-cpus=2",
                                 "--include-dashboard=false"], stdout=out, stderr=subprocess.STDOUT,
                                env={**env, "RAY_GRACEFUL_SHUTDOWN_DRAIN_TIMEOUT_S": "0"})  # SIGTERM: down at once
    started: dict[int, str] = {}
    try:
        deadline = time.monotonic() + 120
        while b"Ray runtime started" not in log.read_bytes():
            assert head.poll() is None and time.monotonic() < deadline, log.read_text(errors="replace")
            time.sleep(0.2)
        yield f"127.0.0.1:{port}", head.pid
    finally:
        started = {p: title(p) for p in tree(head.pid)}
        head.terminate()
        head.wait(timeout=120)
        left = survivors(started)
        end(left)
        shutil.rmtree(temp, ignore_errors=True)
    assert left == {}, left  # the head took down everything it started


def test_an_existing_cluster_is_joined_and_left_with_nothing_of_the_run_alive(tmp_path: Path) -> None:
    """ftlint in new processes with RAY_ADDRESS naming a cluster `ray start` made: it joins that
    cluster rather than starting its own; and when a run's driver is killed (SIGKILL: no code of
    it runs) Ray ends every actor of the run, for the run owns them all and made none detached
    (Ray Data's executor left three detached actors in the cluster: _StatsActor,
    AutoscalingCoordinator, ActorLocationTracker)."""
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env |= {"RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN": secrets.token_hex(32)}
    fifo = tmp_path / "held.jsonl"
    os.mkfifo(fifo)  # the killed run's judge waits on it: the run is certainly in the middle of judging
    with own_head(env) as (address, head):
        before = set(tree(head))
        env["RAY_ADDRESS"] = address
        code = ("import ray, ftlint; r = ftlint.check(%r, engine='ray'); "
                "print(len(r.findings), ray.get_runtime_context().gcs_address.rsplit(':', 1)[1])") % [str(ROOT / p) for p in SHARDS]
        out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=300, cwd=ROOT)
        assert out.returncode == 0, out.stderr[-2000:]
        assert out.stdout.split() == ["19", address.rsplit(":", 1)[1]]

        driver = subprocess.Popen([sys.executable, "-m", "ftlint", "check", "--engine", "ray", str(fifo)], cwd=ROOT, env=env,
                                  stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            deadline = time.monotonic() + 180
            while not any("Judge" in title(p) for p in tree(head)) and time.monotonic() < deadline:
                assert driver.poll() is None
                time.sleep(0.05)
            assert any("Judge" in title(p) for p in tree(head)), "the run's judge never started"
        finally:
            driver.kill()
            driver.wait()
        run_processes = {p: title(p) for p in tree(head) if p not in before and alive(p)}
        left = survivors({p: t for p, t in run_processes.items() if t != "ray::IDLE"})  # idle workers are the cluster's pool
        assert left == {}, left

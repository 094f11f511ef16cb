"""Untrusted data in CI (issue 12): ftlint runs on strangers' pull requests. No secret echoed,
no injected command or markup, no overwritten file, no unbounded memory, no traceback."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
import urllib.parse
from pathlib import Path

import pytest
from untrusted import SECRET_CORE, SECRETS, descendants, tree_peak_rss

from conftest import ROOT, run, run_process
from ftlint import interrupt

FORMATS = ("text", "json", "github", "sarif", "markdown")


def chat(user: str = "hi", answer: str = "hello") -> dict:
    return {"messages": [{"role": "user", "content": user}, {"role": "assistant", "content": answer}]}


def write(path: Path, records: list, raw: list[bytes] | None = None) -> Path:
    lines = [json.dumps(r).encode() for r in records] + (raw or [])
    path.write_bytes(b"".join(line + b"\n" for line in lines))
    return path


def places(secret: str) -> dict[str, dict | bytes]:
    """The secret where a finding quotes data: a key, a role, a tool-call id, a function name,
    a duplicate key's value."""
    call = {"id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}}
    return {
        "key": {"messages": [{"role": "user", "content": "hi", secret: 1}, {"role": "assistant", "content": "ok"}]},
        "role": {"messages": [{"role": secret, "content": "hi"}, {"role": "assistant", "content": "ok"}]},
        "tool_call_id": {"messages": [{"role": "user", "content": "hi"}, {"role": "tool", "tool_call_id": secret, "content": "x"},
                                      {"role": "assistant", "content": "ok"}]},
        "function": {"tools": [{"type": "function", "function": {"name": "g", "parameters": {}}}],
                     "messages": [{"role": "user", "content": "hi"},
                                  {"role": "assistant", "tool_calls": [{**call, "function": {"name": secret, "arguments": "{}"}}]},
                                  {"role": "tool", "tool_call_id": "c1", "content": "x"}, {"role": "assistant", "content": "ok"}]},
        "duplicate": ('{"messages": [{"role": "user", "content": "a", "content": ' + json.dumps(secret) + '},'
                      ' {"role": "assistant", "content": "b"}]}').encode(),
    }


@pytest.mark.parametrize("kind", sorted(SECRETS))
def test_no_secret_is_echoed_in_any_output(kind: str, tmp_path: Path) -> None:
    secret, core = SECRETS[kind], SECRET_CORE[kind]
    records, raw = [], []
    for value in places(secret).values():
        (raw if isinstance(value, bytes) else records).append(value)
    data = write(tmp_path / "data.jsonl", [chat(f"q{i}") for i in range(10)] + records, raw)
    for fmt in FORMATS:
        r = run("check", str(data), "-o", fmt)
        assert core not in r.stdout + r.stderr, (fmt, r.stdout)
    found = json.loads(run("check", str(data), "-o", "json").stdout)
    key_line = 11  # the first hostile record: the secret as a key is a finding of its own
    assert any(f["code"].startswith("FT6") and f["line"] == key_line for f in found), found
    baseline = tmp_path / "known.json"
    run("check", str(data), "-o", "json", "--output-file", str(baseline))
    assert core not in baseline.read_text()
    for fmt in ("text", "json", "markdown"):
        assert core not in run("diff", str(data), str(data), "-o", fmt).stdout
    assert core not in run("estimate", str(data), "-o", "json").stdout


def test_a_secret_in_a_file_name_is_masked(tmp_path: Path) -> None:
    secret = SECRETS["aws"]
    data = write(tmp_path / f"{secret}.jsonl", [{"messages": [{"role": "user", "content": "hi"}]}])
    for fmt in FORMATS:
        assert secret not in run("check", str(data), "-o", fmt).stdout
        assert secret not in run("estimate", str(data), "-o", fmt).stdout


INJECT = "x\n::error file=evil.jsonl,line=1::forged\n::add-mask::a\n::stop-commands::t\n\x1b[2J\x1b]52;c;ZXZpbA==\x07\x1b]8;;http://evil\x1b\\l"


def test_text_output_is_one_line_per_finding_and_carries_no_control_character(tmp_path: Path) -> None:
    data = write(tmp_path / "d.jsonl", [{"messages": [{"role": INJECT, "content": "hi", INJECT: 1}, {"role": "assistant", "content": "ok"}]}])
    text = run("check", str(data), "--ignore", "FT401").stdout
    findings = json.loads(run("check", str(data), "--ignore", "FT401", "-o", "json").stdout)
    lines = text.splitlines()
    assert len(lines) == len(findings) + 2  # the findings, then the two summary lines
    assert all(line.startswith(f"{data}:") for line in lines[:-2])
    assert not re.search(r"[\x00-\x08\x0b-\x1f\x7f]", text)
    assert "x\\n::error" in text  # shown, escaped


def test_github_output_cannot_start_a_workflow_command(tmp_path: Path) -> None:
    name = tmp_path / "a,b:c\n::add-mask::x.jsonl"
    data = write(name, [{"messages": [{"role": INJECT, "content": "hi", INJECT: 1}, {"role": "assistant", "content": "ok"}]}])
    for command in (("check", str(data), "-o", "github"), ("estimate", str(data), "-o", "github")):
        out = run(*command).stdout
        for line in out.splitlines():
            assert not line.startswith("::") or re.match(r"::(error|warning) (file=[^,:\n]*,)?(line=\d+,)?(col=\d+,)?title=ftlint FT\d{3}::", line), line
        assert not re.search(r"^::(add-mask|stop-commands)", out, re.M)  # data never starts a line
        assert "\x1b" not in out


def test_markdown_keeps_data_inside_code(tmp_path: Path) -> None:
    evil = "```\n</details><img src=x onerror=alert(1)>\n# Heading\n[link](http://evil) @admin `span` | cell"
    data = write(tmp_path / "m.jsonl", [{"messages": [{"role": "user", "content": "hi", evil: 1}, {"role": "assistant", "content": "ok"}]}])
    out = run("check", str(data), "-o", "markdown").stdout
    fence = re.search(r"^(`{3,})$", out, re.M)
    assert fence is not None
    inside = out.split(fence.group(1) + "\n", 1)[1].split("\n" + fence.group(1), 1)[0]
    outside = out.replace(inside, "")
    assert "<img" not in outside and "@admin" not in outside and "\n# Heading" not in outside
    assert "\n" not in inside.replace("\n", "", inside.count("\n"))  # each finding one line
    assert all(len(run_) < len(fence.group(1)) for run_ in re.findall(r"`+", inside))  # nothing inside closes it
    for line in out.splitlines():
        if line.startswith("|"):
            assert len(re.findall(r"(?<!\\)\|", line)) == 5, line  # four columns: no cell broken
    md = run("diff", str(data), str(data), "-o", "markdown").stdout + run("estimate", str(data), "-o", "markdown").stdout
    assert "<img" not in md


@pytest.mark.parametrize("name", ["a b.jsonl", "a#b.jsonl", "50%.jsonl", "q?.jsonl", "back\\slash.jsonl", "ünï.jsonl", "c:x.jsonl"])
def test_sarif_uris_are_rfc3986(name: str, tmp_path: Path) -> None:
    data = write(tmp_path / name, [{"messages": [{"role": "user", "content": "hi"}]}])
    log = json.loads(run("check", str(data), "-o", "sarif").stdout)
    uris = {loc["physicalLocation"]["artifactLocation"]["uri"] for r in log["runs"][0]["results"] for loc in r.get("locations", [])}
    assert uris
    for uri in uris:
        assert re.fullmatch(r"[A-Za-z0-9\-._~:/%!$&'()*+,;=@]*", uri), uri  # only unreserved, reserved and %XX
        assert urllib.parse.unquote(urllib.parse.urlsplit(uri).path) == str(data)


def test_non_utf8_file_name_gives_valid_json(tmp_path: Path) -> None:
    name = os.fsencode(tmp_path) + b"/\xff\xfe.jsonl"
    with open(name, "wb") as fh:
        fh.write(json.dumps({"messages": [{"role": "user", "content": "hi"}]}).encode() + b"\n")
    path = os.fsdecode(name)
    for args in (("check", path, "-o", "json"), ("check", path, "-o", "sarif"), ("estimate", path, "-o", "json")):
        r = run_process(*args)
        assert "Traceback" not in r.stderr and "internal error" not in r.stderr
        json.loads(r.stdout)
    report = tmp_path / "r.json"
    assert run_process("check", path, "-o", "json", "--output-file", str(report)).exit_code == 1
    json.loads(report.read_text())


def test_output_file_never_replaces_an_input(tmp_path: Path) -> None:
    folder = tmp_path / "dir"
    folder.mkdir()
    a = write(folder / "a.jsonl", [chat()])
    before = a.read_bytes()
    os.link(a, tmp_path / "hard.jsonl")
    (tmp_path / "soft.jsonl").symlink_to(a)
    attempts = [
        ("check", str(folder / "*.jsonl"), "--output-file", str(a)),  # a glob ftlint expands
        ("check", str(folder / "[ab].jsonl"), "--output-file", str(a)),
        ("check", str(tmp_path / "**" / "*.jsonl"), "--output-file", str(a)),
        ("check", str(a), "--output-file", str(tmp_path / "hard.jsonl")),
        ("check", str(a), "--output-file", str(tmp_path / "soft.jsonl")),
        ("estimate", str(a), "--output-file", str(tmp_path / "hard.jsonl")),
        ("plan", str(a), "--output-file", str(a)),
    ]
    for args in attempts:
        r = run(*args)
        assert r.exit_code == 2 and "never writes over an input" in r.stderr, args
        assert a.read_bytes() == before
    with open(a, "rb") as stdin:
        r = subprocess.run([sys.executable, "-m", "ftlint", "check", "-", "--output-file", str(a)], stdin=stdin,
                           capture_output=True, cwd=ROOT)
    assert r.returncode == 2 and a.read_bytes() == before


def test_output_file_never_replaces_a_device_or_a_pipe(tmp_path: Path) -> None:
    data = write(tmp_path / "d.jsonl", [chat()])
    for target in ("/dev/null", "/proc/self/fd/1"):
        r = run_process("check", str(data), "--output-file", target)
        assert r.exit_code == 2 and ("not a regular file" in r.stderr or "symbolic link" in r.stderr)
    link = tmp_path / "stdout-link"
    link.symlink_to("/proc/self/fd/1")
    assert run_process("check", str(data), "--output-file", str(link)).exit_code == 2 and link.is_symlink()
    assert os.path.exists("/dev/null") and not os.path.isfile("/dev/null")


def test_output_file_follows_the_umask(tmp_path: Path) -> None:
    data = write(tmp_path / "d.jsonl", [chat()])
    report = tmp_path / "r.txt"
    old = os.umask(0o022)
    try:
        run_process("check", str(data), "--output-file", str(report))
    finally:
        os.umask(old)
    assert report.stat().st_mode & 0o777 == 0o644


def _project(tmp_path: Path, config: str) -> Path:
    (tmp_path / "ftlint.toml").write_text(config)
    return write(tmp_path / "train.jsonl", [{"messages": [{"role": "user", "content": f"q{i}"}]} for i in range(12)])


def test_a_config_that_switches_the_gate_off_is_said(tmp_path: Path) -> None:
    for config in ('ignore = ["FT0", "FT1", "FT2", "FT3", "FT4", "FT5", "FT6", "FT7"]\n', 'select = ["FT9"]\n',
                   '[per-file-ignores]\n"**" = ["FT0", "FT1", "FT2", "FT4"]\n', '[check]\nignore = ["FT2"]\n'):
        data = _project(tmp_path, config)
        r = run_process("check", data.name, cwd=tmp_path)
        assert "note:" in r.stderr and "switched off" in r.stderr, config
        assert "switched off" in r.stdout  # and in the report's summary


@pytest.mark.parametrize(("config", "key"), [
    ('output-file = "victim.txt"\n', "output-file"), ("[estimate]\nprice = nan\n", "price"),
    ("[estimate]\nmax-cost = inf\n", "max-cost"), ("[estimate]\nepochs = 2.5\n", "epochs"),
    ("[estimate]\nepochs = 1979-05-27\n", "epochs"), ("[estimate]\nepochs = {a = 1}\n", "epochs"),
    ("[estimate]\nbudget-usd = nan\n", "budget-usd"), ("jobs = true\n", "jobs"), ("[check]\nfail-on = 3\n", "fail-on"),
    ('[check]\nbaseline = "known.json"\n', "baseline"),
])
def test_config_values_are_as_strict_as_flags(tmp_path: Path, config: str, key: str) -> None:
    data = _project(tmp_path, config)
    r = run_process("estimate" if "estimate" in config else "check", data.name, cwd=tmp_path)
    assert r.exit_code == 2 and key in r.stderr and r.stderr.count("\n") == 1, r.stderr
    assert not (tmp_path / "victim.txt").exists()


@pytest.mark.parametrize("flag", [("--price", "nan"), ("--max-cost", "nan"), ("--max-cost", "inf"), ("--budget-usd", "-1"),
                                  ("--epochs", "2.5"), ("--warmup-ratio", "nan")])
def test_flags_refuse_nan_infinity_and_fractions(flag: tuple[str, str]) -> None:
    assert run_process("estimate", "fixtures/good/drone_training.jsonl", *flag).exit_code == 2


def test_a_huge_jobs_value_forks_no_more_workers_than_cores_and_chunks(tmp_path: Path) -> None:
    data = write(tmp_path / "small.jsonl", [chat(f"q{i}") for i in range(20)])
    (tmp_path / "ftlint.toml").write_text("jobs = 100000000\n")
    start = time.monotonic()
    r = run_process("check", data.name, cwd=tmp_path)
    assert r.exit_code == 0 and time.monotonic() - start < 30


def _run_sampled(args: list[str], timeout: float = 300) -> tuple[subprocess.CompletedProcess[bytes], int]:
    proc = subprocess.Popen([sys.executable, "-m", "ftlint", *args], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    stop = threading.Event()
    peak = tree_peak_rss(proc.pid, stop)
    _, err = proc.communicate(timeout=timeout)
    stop.set()
    return subprocess.CompletedProcess(args, proc.returncode, b"", err), peak[0]


def test_review_of_a_long_log_keeps_a_few_bytes_an_evaluation(tmp_path: Path) -> None:
    # a million evaluations (46 MB of CSV): kept as rows, they took 170 MiB; kept as 8-byte
    # steps and running bests, the whole process stays under 100 MiB
    path = tmp_path / "log.csv"
    with open(path, "w") as fh:
        fh.write("step,eval_loss,loss,learning_rate,epoch,grad_norm\n")
        for start in range(0, 1_000_000, 10_000):
            fh.write("".join(f"{i},{2.0 - i * 1e-7:.8f},2.1,0.0001,{i / 1e6:.6f},1.25\n" for i in range(start, start + 10_000)))
    r, peak_kib = _run_sampled(["review", str(path), "-o", "json"])
    assert r.returncode == 1  # train-longer: the loss fell to the end
    assert peak_kib < 100 * 1024, peak_kib


def test_chunks_are_bounded_in_lines_not_only_in_bytes(tmp_path: Path) -> None:
    from ftlint.engine import pipeline
    from ftlint.engine.judge import Settings
    from ftlint.read import LineBlock

    path = tmp_path / "blank.jsonl"
    path.write_bytes(b"\n" * (3 * 1024 * 1024))  # one megabyte read is a million lines
    sizes = [sum(item.n_lines if isinstance(item, LineBlock) else 1 for _, item in chunk.items)
             for chunk in pipeline.chunks([str(path)], Settings("o200k_base", "m"), [])]
    assert sum(sizes) == 3 * 1024 * 1024 and max(sizes) <= pipeline.CHUNK_MAX_LINES


@pytest.mark.parametrize("fmt", ["text", "sarif", "json"])
def test_a_flood_of_blank_lines_keeps_memory_bounded(tmp_path: Path, fmt: str) -> None:
    """Memory does not grow with findings: three times the findings (a blank line is one each, in
    more workers than cores; both files fill the chunks in flight) take no more memory than a
    third of them, give or take 20 MiB (measured: 6-8 MiB), where findings kept anywhere would be
    100 bytes each at least, 40 MiB more (a JSON reporter keeping its findings: 120 MiB more)."""
    peaks = []
    for n in (200_000, 600_000):
        path = tmp_path / f"blank-{n}.jsonl"
        path.write_bytes(b"\n" * n)
        r, peak_kib = _run_sampled(["check", str(path), "-j", "8", "-o", fmt])
        assert r.returncode == 1 and b"Traceback" not in r.stderr
        peaks.append(peak_kib)
    assert peaks[1] - peaks[0] < 20 * 1024, (fmt, peaks)
    assert peaks[1] < 400 * 1024, (fmt, peaks)


def test_a_baseline_that_is_a_device_is_refused_at_once() -> None:
    start = time.monotonic()
    r = run_process("check", "fixtures/good/drone_training.jsonl", "--baseline", "/dev/zero")
    assert r.exit_code == 2 and "not a regular file" in r.stderr and time.monotonic() - start < 10


def test_a_long_string_without_white_space_is_linear(tmp_path: Path) -> None:
    path = write(tmp_path / "long.jsonl", [chat(answer="x" * (8 * 1024 * 1024))])
    start = time.monotonic()
    r = run_process("estimate", str(path), "-o", "json")
    assert r.exit_code == 0 and time.monotonic() - start < 60
    assert json.loads(r.stdout)["records_over_limit"] == 1


def test_nesting_deeper_than_orjson_writes_is_checked(tmp_path: Path) -> None:
    path = tmp_path / "deep.jsonl"
    path.write_bytes(b'{"messages": [{"role": "user", "content": "hi", "x": ' + b"[" * 280 + b"]" * 280 + b"}]}\n")
    r = run_process("check", str(path), "--max-depth", "300", "-o", "json")
    assert "internal error" not in r.stderr and r.exit_code == 1
    assert "FT103" in {f["code"] for f in json.loads(r.stdout)}


def test_a_line_of_nul_bytes_is_not_a_utf16_file(tmp_path: Path) -> None:
    path = tmp_path / "nul.jsonl"
    path.write_bytes(b"\x00" * 16 + b"\n" + b"".join(json.dumps(chat(f"q{i}")).encode() + b"\n" for i in range(120)))
    out = run("check", str(path)).stdout
    assert "121 lines: 120 valid, 1 with errors" in out and "FT010" in out and "FT008" not in out


def test_a_duplicate_key_hidden_by_escaped_colons_is_found(tmp_path: Path) -> None:
    path = tmp_path / "dup.jsonl"
    path.write_bytes(b'{"messages": [{"role": "user", "content": "x", "content": "\\u003a\\u003a\\u003a"}, '
                     b'{"role": "assistant", "content": "ok"}]}\n')
    assert "FT013" in run("check", str(path)).stdout


def test_closed_or_full_standard_streams_are_one_line_errors(tmp_path: Path) -> None:
    data = str(ROOT / "fixtures/good/drone_training.jsonl")
    cmd = [sys.executable, "-m", "ftlint", "check"]
    closed_in = subprocess.run([*cmd, "-"], stdin=subprocess.DEVNULL, capture_output=True, close_fds=True,
                               preexec_fn=lambda: os.close(0))
    assert closed_in.returncode == 2 and b"standard input is closed" in closed_in.stderr
    closed_out = subprocess.run([*cmd, data], stderr=subprocess.PIPE, preexec_fn=lambda: os.close(1))
    full = subprocess.run([*cmd, data], stdout=open("/dev/full", "w"), stderr=subprocess.PIPE)  # noqa: SIM115
    for r in (closed_out, full):
        assert r.returncode == 2 and b"Traceback" not in r.stderr and b"internal error" not in r.stderr
        assert r.stderr.count(b"\n") <= 1


def _big(tmp_path: Path) -> Path:
    return write(tmp_path / "big.jsonl", [chat(f"question {i} " + "w " * 400) for i in range(30_000)])


def test_sigterm_stops_the_workers_removes_the_temporary_report_and_exits_143(tmp_path: Path) -> None:
    data = _big(tmp_path)
    report = tmp_path / "report.txt"
    proc = subprocess.Popen([sys.executable, "-m", "ftlint", "check", str(data), "-j", "2", "--output-file", str(report)],
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, cwd=ROOT)
    deadline = time.monotonic() + 60
    while not descendants(proc.pid) and time.monotonic() < deadline:
        time.sleep(0.05)
    workers = descendants(proc.pid)
    assert workers
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=30) == 143
    time.sleep(1)
    assert not [w for w in workers if os.path.exists(f"/proc/{w}") and "Z" not in Path(f"/proc/{w}/stat").read_text().split()[2]]
    assert not list(tmp_path.glob(".ftlint-*.tmp")) and not report.exists()


def test_sigint_exits_130_and_sigkill_takes_the_workers_along(tmp_path: Path) -> None:
    data = _big(tmp_path)
    for sig, code in ((signal.SIGINT, 130), (signal.SIGKILL, -9)):
        proc = subprocess.Popen([sys.executable, "-m", "ftlint", "check", str(data), "-j", "2"], stdout=subprocess.DEVNULL,
                                stderr=subprocess.PIPE, cwd=ROOT)
        deadline = time.monotonic() + 60
        while not descendants(proc.pid) and time.monotonic() < deadline:
            time.sleep(0.05)
        workers = descendants(proc.pid)
        proc.send_signal(sig)
        assert proc.wait(timeout=30) == code
        end = time.monotonic() + 10
        while any(os.path.exists(f"/proc/{w}") for w in workers) and time.monotonic() < end:
            time.sleep(0.1)
        assert not any(os.path.exists(f"/proc/{w}") for w in workers), sig


@pytest.fixture
def signal_handlers() -> object:
    saved = signal.getsignal(signal.SIGINT), signal.getsignal(signal.SIGTERM)
    interrupt.install()
    yield
    signal.signal(signal.SIGINT, saved[0])
    signal.signal(signal.SIGTERM, saved[1])
    interrupt._received = None


def test_a_ctrl_c_python_swallows_still_stops_the_run(signal_handlers: object, monkeypatch: pytest.MonkeyPatch) -> None:
    # Python prints and drops an exception raised in its own handlers (logging's at-fork hooks
    # when a worker starts, a finaliser): the run must still stop at its next safe point
    swallowed: list[type] = []
    monkeypatch.setattr(sys, "unraisablehook", lambda u: swallowed.append(u.exc_type))

    class Finaliser:
        def __del__(self) -> None:
            os.kill(os.getpid(), signal.SIGINT)
            for _ in range(1000):  # the handler runs between two of these bytecodes, here
                pass

    obj = Finaliser()
    del obj
    assert swallowed == [KeyboardInterrupt]
    with pytest.raises(KeyboardInterrupt):
        interrupt.check()


def test_a_signal_while_workers_start_is_raised_after_the_start(signal_handlers: object) -> None:
    reached = False
    with pytest.raises(interrupt.Terminated), interrupt.deferred():
        os.kill(os.getpid(), signal.SIGTERM)
        for _ in range(1000):
            pass
        reached = True
    assert reached


def _repo(tmp_path: Path) -> Path:
    env = {"GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@e.com", "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@e.com",
           "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)}
    subprocess.run(["git", "init", "-q"], cwd=tmp_path, check=True, env=env)
    write(tmp_path / "train.jsonl", [chat(f"q{i}") for i in range(12)])
    subprocess.run(["git", "add", "train.jsonl"], cwd=tmp_path, check=True, env=env)
    subprocess.run(["git", "commit", "-qm", "v1"], cwd=tmp_path, check=True, env=env)
    return tmp_path


def test_git_options_cannot_be_injected(tmp_path: Path) -> None:
    repo = _repo(tmp_path)
    target = tmp_path / "written"
    for spec in (f"--output={target}:x", "-p:train.jsonl"):  # a revision starting with '-': refused
        r = run_process("diff", "--", spec, "train.jsonl", cwd=repo)
        assert r.exit_code == 2 and not target.exists(), spec
    # a path starting with '-' is a path (git reads it after --end-of-options): none such in HEAD
    r = run_process("diff", "--", f"HEAD:--output={target}", "train.jsonl", cwd=repo)
    assert r.exit_code == 0 and not target.exists() and "no such file in that revision" in r.stdout


def test_review_refuses_nonsense_and_reads_an_excel_csv(tmp_path: Path) -> None:
    bom = tmp_path / "log.csv"
    bom.write_bytes(b"\xef\xbb\xbfstep,eval_loss\n" + b"".join(f"{s},{1 / s}\n".encode() for s in range(10, 110, 10)))
    r = run_process("review", str(bom), "-o", "json")
    assert r.exit_code == 1 and json.loads(r.stdout)["best_step"] == 100
    negative = tmp_path / "neg.csv"
    negative.write_text("step,eval_loss\n-100,0.5\n-50,0.1\n")
    r = run_process("review", str(negative))
    assert r.exit_code == 2 and "%" not in r.stdout
    assert run_process("review", str(bom), "--max-steps", "0").exit_code == 2
    named = tmp_path / "n.jsonl"
    named.write_text(json.dumps({"step": 1, "eval_x\ny": 0.5}) + "\n")
    r = run_process("review", str(named), "--metric", "eval_x\ny")
    assert "\ny" not in r.stdout

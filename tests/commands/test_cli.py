"""The command line as users and CI meet it: exit codes, errors, entry points."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import ROOT, run, run_process
from ftlint import __version__

OK = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]})


def test_version_and_module_entry_point() -> None:
    r = run_process("--version")
    assert r.exit_code == 0 and __version__ in r.stdout


def test_missing_file_is_exit_2_with_one_line() -> None:
    r = run_process("check", "no/such/file.jsonl")
    assert r.exit_code == 2
    assert r.stderr.strip() == "ftlint: error: no/such/file.jsonl: no such file"
    assert "Traceback" not in r.stderr


def test_directory_is_exit_2() -> None:
    r = run_process("check", "fixtures")
    assert r.exit_code == 2 and "is a directory" in r.stderr


def test_other_files_are_still_checked_when_one_is_missing() -> None:
    r = run("check", "missing.jsonl", "fixtures/bad/ft201_no_target.jsonl")
    assert r.exit_code == 2
    assert "FT201" in r.stdout


def test_unknown_model_is_exit_2() -> None:
    r = run_process("estimate", "fixtures/good/openai_chat_basic.jsonl", "--model", "gpt-9")
    assert r.exit_code == 2 and "unknown model 'gpt-9'" in r.stderr


def test_bad_option_is_exit_2() -> None:
    assert run_process("estimate", "fixtures/good/openai_chat_basic.jsonl", "--epochs", "0").exit_code == 2


def test_max_errors_caps_output_not_exit_code() -> None:
    r = run("check", "fixtures/bad/ft001_invalid_json.jsonl", "--max-errors", "2")
    assert r.stdout.count(": FT001 ") == 2
    assert "more finding(s) not shown" in r.stdout
    assert r.exit_code == 1
    j = run("check", "fixtures/bad/ft001_invalid_json.jsonl", "--max-errors", "2", "-o", "json")
    assert len(json.loads(j.stdout)) == 2



def test_max_errors_says_how_many_it_hid_in_each_plain_output() -> None:
    """The text and github outputs each say, in their words, how many findings --max-errors hid: all
    the findings (as the JSON lists them) but the 2 shown."""
    path = "fixtures/bad/ft001_invalid_json.jsonl"
    hidden = len(json.loads(run("check", path, "-o", "json").stdout)) - 2
    assert hidden > 0
    text = run("check", path, "--max-errors", "2").stdout.splitlines()
    github = run("check", path, "--max-errors", "2", "-o", "github").stdout.splitlines()
    assert text[2] == f"... {hidden} more finding(s) not shown (--max-errors 2)" and text[3].startswith("checked 1 file")
    assert github[2] == f"ftlint: {hidden} more finding(s) not annotated (--max-errors 2)" and github[3].startswith("checked 1 file")

def test_warnings_fail_only_with_fail_on_warning() -> None:
    path = "fixtures/bad/ft208_untrained_tail.jsonl"
    assert run("check", path, "--ignore", "FT401").exit_code == 0
    assert run("check", path, "--ignore", "FT401", "--fail-on", "warning").exit_code == 1


def test_the_api_fails_where_the_cli_exits_1() -> None:
    """One rule for --fail-on (diagnostics.fails): CheckResult.failing() is the CLI's exit code, on
    an error, on warnings alone (a duplicate made by the dataset phase) and on a clean file."""
    import ftlint

    cases = [("fixtures/bad/ft402_duplicate_record.jsonl", ()), ("fixtures/bad/ft402_duplicate_record.jsonl", ("FT401",)),
             ("fixtures/good/openai_chat_basic.jsonl", ("FT401",))]
    seen = set()
    for path, ignore in cases:
        for fail_on in ("error", "warning"):
            code = run("check", path, *(f"--ignore={c}" for c in ignore), "--fail-on", fail_on).exit_code
            assert ftlint.check(path, ignore=ignore).failing(fail_on) == (code == 1), (path, ignore, fail_on)
            seen.add(code)
    assert seen == {0, 1}


def test_many_files_one_summary() -> None:
    r = run("check", "fixtures/good/openai_chat_basic.jsonl", "fixtures/good/openai_chat_tools.jsonl")
    assert "checked 2 files (openai-chat), 24 lines: 24 valid" in r.stdout


def test_hostile_bytes_never_traceback(tmp_path: Path) -> None:
    path = tmp_path / "hostile.jsonl"
    path.write_bytes(b"\x00\x01\xff\xfe{\n" + b"[" * 5000 + b"\n" + b'{"a": "\\ud800"}\n' + b"\r\r\n" + OK.encode())
    r = run_process("check", str(path))
    assert r.exit_code == 1
    assert "Traceback" not in r.stderr and r.stderr == ""
    assert [ln.split(":")[1] for ln in r.stdout.splitlines() if ": FT0" in ln] == ["1", "2", "3", "4"]


def test_rules_lists_and_explains() -> None:
    listing = run("rules").stdout
    assert "FT201" in listing and "FT001" in listing
    one = run("rules", "ft201")
    assert one.exit_code == 0 and "Why:" in one.stdout
    assert run("rules", "FT999").exit_code == 2


def test_models_lists_prices_with_sources() -> None:
    out = run("models").stdout
    assert "gpt-4.1-mini-2025-04-14  (default for its formats)" in out
    assert "$5 per 1M training tokens" in out and "unverified" in out
    assert "$100 per training hour" in out  # o4-mini RFT: not per token


def test_readme_first_command_fixture_runs_clean() -> None:
    readme = (ROOT / "README.md").read_text()
    assert "fixtures/good/drone_training.jsonl" in readme
    r = run("check", "fixtures/good/drone_training.jsonl")
    assert r.exit_code == 0


def test_output_file_is_written_atomically_and_never_over_an_input(tmp_path: Path) -> None:
    report = tmp_path / "report.json"
    report.write_text("old")
    r = run("check", "fixtures/bad/ft201_no_target.jsonl", "-o", "json", "--output-file", str(report))
    assert r.exit_code == 1 and r.stdout == ""
    assert {f["code"] for f in json.loads(report.read_text())} == {"FT201", "FT401"}
    assert [p.name for p in tmp_path.iterdir()] == ["report.json"]  # no temporary file left behind
    est = tmp_path / "estimate.json"
    assert run("estimate", "fixtures/good/openai_chat_basic.jsonl", "-o", "json", "--output-file", str(est)).exit_code == 0
    assert json.loads(est.read_text())["records"] == 13
    data = tmp_path / "data.jsonl"
    data.write_text(OK + "\n")
    clash = run("check", str(data), "--output-file", str(data))
    assert clash.exit_code == 2 and "never writes over an input" in clash.stderr
    assert data.read_text() == OK + "\n"


def test_failed_write_leaves_the_old_report(tmp_path: Path) -> None:
    from ftlint.atomic import atomic_text_writer

    target = tmp_path / "r.txt"
    target.write_text("old")
    try:
        with atomic_text_writer(str(target)) as fh:
            fh.write("half")
            raise RuntimeError("interrupted")
    except RuntimeError:
        pass
    assert target.read_text() == "old"
    assert [p.name for p in tmp_path.iterdir()] == ["r.txt"]


def test_progress_bar_on_a_terminal_only(tmp_path: Path) -> None:
    import shutil
    import subprocess
    import sys

    if not shutil.which("script"):
        import pytest

        pytest.skip("util-linux `script` is needed to give ftlint a terminal")
    path = tmp_path / "big.jsonl"
    path.write_text((OK + "\n") * 26_000)  # 2.6 MB: more than one chunk
    cmd = f"{sys.executable} -m ftlint check {path} --jobs 1"
    tty = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, cwd=ROOT, timeout=120)
    assert b"ftlint: " in tty.stdout and b" MB (" in tty.stdout  # drawn on the terminal
    piped = run_process("check", str(path), "--jobs", "1")
    assert piped.stderr == ""


def test_baseline_fails_only_on_new_findings(tmp_path: Path) -> None:
    bad = json.dumps({"messages": [{"role": "user", "content": "hi"}]})
    data = tmp_path / "data.jsonl"
    data.write_text(f"{OK}\n{bad}\n")
    baseline = tmp_path / "baseline.json"
    assert run("check", str(data), "-o", "json", "--output-file", str(baseline)).exit_code == 1
    known = run("check", str(data), "--baseline", str(baseline))
    assert known.exit_code == 0 and ": FT" not in known.stdout
    data.write_text(f"{OK}\n{OK.replace('hi', 'hey')}\n{bad}\n{bad.replace('hi', 'yo')}\n")  # known one moved to line 3
    new = run("check", str(data), "--baseline", str(baseline), "-o", "json", "--ignore", "FT401")
    assert new.exit_code == 1
    assert [(f["line"], f["code"]) for f in json.loads(new.stdout)] == [(4, "FT201")]
    assert run("check", str(data), "--baseline", str(tmp_path / "nope.json")).exit_code == 2
    (tmp_path / "junk.json").write_text("{}")
    assert run("check", str(data), "--baseline", str(tmp_path / "junk.json")).exit_code == 2


def test_colour_on_a_terminal_unless_no_color(tmp_path: Path) -> None:
    import os
    import shutil
    import subprocess
    import sys

    import pytest

    if not shutil.which("script"):
        pytest.skip("util-linux `script` is needed to give ftlint a terminal")
    cmd = f"{sys.executable} -m ftlint check fixtures/bad/ft201_no_target.jsonl"
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, cwd=ROOT, env=env, timeout=120)
    assert b"\x1b[" in coloured.stdout and b"FT201" in coloured.stdout
    plain = subprocess.run(["script", "-qec", cmd, "/dev/null"], capture_output=True, cwd=ROOT, env={**env, "NO_COLOR": "1"}, timeout=120)
    assert b"\x1b[" not in plain.stdout and b"FT201 no assistant message" in plain.stdout
    assert "\x1b[" not in run_process("check", "fixtures/bad/ft201_no_target.jsonl").stdout  # piped: plain


def test_select_reports_only_chosen_families() -> None:
    args = ("check", "fixtures/bad/ft101_missing_key.jsonl", "-o", "json")
    all_codes = {f["code"] for f in json.loads(run(*args).stdout)}
    assert {"FT101", "FT103", "FT208", "FT401"} <= all_codes
    assert {f["code"] for f in json.loads(run(*args, "--select", "FT1").stdout)} == {"FT101", "FT103"}
    assert {f["code"] for f in json.loads(run(*args, "--select", "FT1", "--ignore", "FT103").stdout)} == {"FT101"}


def test_quoted_globs_are_expanded() -> None:
    r = run("check", "fixtures/good/openai_chat_*.jsonl", "--ignore", "FT4")
    assert "checked 5 files" in r.stdout  # basic, crlf, legacy_functions, tools, vision
    missing = run("check", "fixtures/good/nothing_*.jsonl")
    assert missing.exit_code == 2 and "no file matches" in missing.stderr


def test_models_show_auto_rules_as_heuristics() -> None:
    out = run("models").stdout
    assert "epochs        auto: 3, kept within 100-25,000" in out and "(heuristic)" in out


def test_checking_a_small_file_imports_nothing_heavy() -> None:
    """The hook's case: a small file's check needs neither polars (its duplicates are searched
    in Python), nor the tokenizer (the byte bound clears every record), nor python-jsonschema, nor
    what only `estimate`, `convert` or a chat template use."""
    import subprocess
    import sys

    code = ("import sys\nfrom ftlint.cli import main\nsys.argv = ['ftlint', 'check', 'fixtures/good/drone_training.jsonl']\n"
            "try:\n    main()\nexcept SystemExit as e:\n    code = e.code\n"
            "print(code, sorted(m for m in ('polars', 'tiktoken', 'jsonschema', 'jinja2', 'yaml', 'zstandard', 'ftlint.plan.estimate', "
            "'ftlint.plan.figures', 'ftlint.report.estimate', 'ftlint.chat') if m in sys.modules),\n"
            "      'catalog files read:', sys.modules['ftlint.models']._file.cache_info().currsize)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.splitlines()[-1] == "0 [] catalog files read: 1", out.stdout + out.stderr  # openai.toml alone
    dup = subprocess.run([sys.executable, "-m", "ftlint", "check", "fixtures/shards/shard-000.jsonl"], capture_output=True,
                         text=True, cwd=ROOT, timeout=120)
    assert "FT402 exact duplicate of fixtures/shards/shard-000.jsonl:3" in dup.stdout  # found without polars too

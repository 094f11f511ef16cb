"""The GitHub Action on a stranger's pull request (issue 35), run as the runner runs it (a real
git clone, the runner's environment, `python -m ftlint.action`): file names that read as flags,
symlinks out of the workspace, names that are not UTF-8 or hold a newline, a repository
configuration that changes what the gate relies on, Markdown in error output, and the gates
when there is nothing to estimate. Every figure asserted is derived here from the data written."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_action import GPT_4O_MINI, git, lines, record, run_action
from test_hosted import auto_epochs, openai_tokens, usd
from untrusted import flag_names

from ftlint.action import glob_match
from ftlint.report.escape import github_property

MARKER = "OUTSIDE_MARKER_7f3a"  # in every file outside the workspace: never in any output
GPT_4_1_MINI = 5.00  # USD per 1M training tokens, the default OpenAI model (ftlint/catalog/openai.toml)
BAD = json.dumps({"messages": [{"role": "user", "content": "no answer"}]}) + "\n"  # FT201 on its line


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """origin: main with 12 good records in data/train.jsonl; the clone on branch `pr`."""
    origin, work = tmp_path / "origin", tmp_path / "work"
    (origin / "data").mkdir(parents=True)
    git(origin, "init", "-q")
    (origin / "data" / "train.jsonl").write_text(lines([record(i) for i in range(12)]), encoding="utf-8")
    git(origin, "add", ".")
    git(origin, "commit", "-q", "-m", "base")
    git(tmp_path, "clone", "-q", str(origin), str(work))
    git(work, "checkout", "-q", "-b", "pr")
    (tmp_path / "outside").mkdir()
    return work


def commit_all(work: Path) -> None:
    git(work, "add", "-A")
    git(work, "commit", "-q", "-m", "pr")


def annotated(stdout: str, name: str, line: int) -> bool:
    return any(a.startswith(f"::error file={github_property(name)},line={line},") for a in stdout.splitlines())


def outside_code(markdown: str) -> str:
    """The summary's text outside fenced blocks and code spans: where Markdown renders."""
    kept, fence = [], None
    for line in markdown.splitlines():
        run = re.fullmatch(r"(`{3,})\s*", line)
        if fence is None and run:
            fence = run.group(1)
        elif fence is not None and run and len(run.group(1)) >= len(fence):
            fence = None
        elif fence is None:
            kept.append(re.sub(r"`[^`]*`", "", line))
    return "\n".join(kept)


# 1. a file's name is never a flag


def test_files_named_like_every_flag_are_checked_as_files(repo: Path) -> None:
    """On main: `--output-file=/abs/x.jsonl` wrote the annotations outside (errors=0), and the
    other names stopped every command with a usage error."""
    outside = repo.parent / "outside"
    names = flag_names(outside)
    for name in names:
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text(BAD, encoding="utf-8")
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="gpt-4o-mini")
    assert list(outside.iterdir()) == []  # nothing written outside the workspace
    assert done.returncode == 1, done.stdout[-2000:] + done.stderr[-2000:]
    assert [n for n in names if not annotated(done.stdout, n, 1)] == []  # each file's FT201 on its line
    assert outputs["files"] == str(len(names)) and int(outputs["errors"]) >= len(names)
    assert summary.count("### ftlint diff ") == 1 and "ftlint exited" not in summary  # one diff: the dataset's
    assert "### ftlint estimate" in summary


def test_a_file_named_output_file_is_annotated_not_written_to(repo: Path) -> None:
    """The name alone (no other name stops the command first): on main the report went to the
    absolute path it names, and the step said errors=0."""
    outside = repo.parent / "outside"
    name = f"--output-file={outside / 'x.jsonl'}"
    (repo / name).parent.mkdir(parents=True)
    (repo / name).write_text(BAD + lines([record(i) for i in range(100, 112)]), encoding="utf-8")
    (repo / "data" / "train.jsonl").write_text(lines([record(i) for i in range(12)]) + BAD, encoding="utf-8")
    commit_all(repo)
    done, _, outputs = run_action(repo, model="gpt-4o-mini")
    assert list(outside.iterdir()) == []
    assert annotated(done.stdout, name, 1) and annotated(done.stdout, "data/train.jsonl", 13)
    assert outputs["errors"] == "2" and done.returncode == 1


def test_the_base_input_is_a_revision_never_an_option(repo: Path) -> None:
    """On main: `base: --output=PATH` reached `git diff` as an option (it wrote PATH; exit 0)."""
    (repo / "data" / "more.jsonl").write_text(BAD, encoding="utf-8")
    commit_all(repo)
    written = repo.parent / "outside" / "diff.txt"
    done, summary, _ = run_action(repo, base=f"--output={written}")
    assert not written.exists()
    assert done.returncode == 2 and done.stdout.startswith("::error title=ftlint::base '--output=")
    assert len(done.stdout.splitlines()) == 1 and "not a commit in this checkout" in summary


# 2. one trust rule for the files read


def test_symlinks_out_of_the_workspace_are_refused_by_name_and_never_read(repo: Path) -> None:
    """On main the outside file's keys and text came back in the annotations and the summary."""
    outside = repo.parent / "outside"
    (outside / "x.jsonl").write_text(json.dumps({MARKER: MARKER}) + "\n", encoding="utf-8")
    (repo / "data" / "leak.jsonl").symlink_to("../../outside/x.jsonl")
    (repo / "data" / "abs.jsonl").symlink_to(outside / "x.jsonl")
    (repo / "data" / "mine.jsonl").symlink_to("train.jsonl")  # inside: read
    (repo / "data" / "train.jsonl").write_text(lines([record(i) for i in range(12)]) + BAD, encoding="utf-8")
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="gpt-4o-mini")
    everything = done.stdout + done.stderr + summary
    assert MARKER not in everything
    assert done.returncode == 2
    for name in ("data/leak.jsonl", "data/abs.jsonl"):
        refusals = [a for a in done.stdout.splitlines() if a.startswith(f"::error file={name},title=ftlint::{name} (a symlink)")]
        assert len(refusals) == 1 and "leads outside the workspace" in refusals[0]
        assert f"- `{name} (a symlink): leads outside the workspace" in summary
    assert annotated(done.stdout, "data/train.jsonl", 13) and annotated(done.stdout, "data/mine.jsonl", 13)
    assert outputs["files"] == "2" and outputs["errors"] == str(2 + 2)  # 2 refused; line 13's FT201 in each file read


def test_a_symlink_to_a_device_or_a_fifo_never_blocks(repo: Path) -> None:
    """On main a link to /dev/zero or to a FIFO hung the job until its timeout."""
    fifo = repo.parent / "outside" / "fifo"
    os.mkfifo(fifo)
    os.mkfifo(repo / "pipe")  # in the workspace, not committed (git holds no FIFO): a link to it is
    (repo / "data" / "zero.jsonl").symlink_to("/dev/zero")
    (repo / "data" / "fifo.jsonl").symlink_to(fifo)
    (repo / "data" / "pipe.jsonl").symlink_to("../pipe")
    git(repo, "add", "data")
    git(repo, "commit", "-q", "-m", "pr")
    done, summary, outputs = run_action(repo, model="gpt-4o-mini")
    assert done.returncode == 2 and outputs["files"] == "0" and outputs["errors"] == "3"
    assert "- `data/pipe.jsonl: a FIFO, not a regular file`" in summary
    assert "- `data/zero.jsonl (a symlink): leads outside the workspace" in summary
    assert "- `data/fifo.jsonl (a symlink): leads outside the workspace" in summary


def test_a_name_that_is_not_utf8_is_checked_and_the_step_ends_cleanly(repo: Path) -> None:
    """On main: UnicodeDecodeError, a traceback, no summary and no outputs."""
    name = b"data/caf\xe9.jsonl"
    with open(os.path.join(os.fsencode(repo), name), "wb") as out:
        out.write(BAD.encode())
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="gpt-4o-mini")
    assert "Traceback" not in done.stderr and done.returncode == 1
    assert annotated(done.stdout, os.fsdecode(name), 1)
    assert "::error file=data/caf\\xe9.jsonl,line=1," in done.stdout  # the byte shown, not lost
    assert outputs["files"] == "1" and "`data/caf\\xe9.jsonl`" in summary


def test_a_name_with_a_newline_is_not_hidden_from_the_globs(repo: Path) -> None:
    """On main `data/**` did not match it (a regex `.` stops at a newline): "No data file changed", exit 0."""
    (repo / "data" / "new\nline.jsonl").write_text(BAD, encoding="utf-8")
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="gpt-4o-mini", paths="data/**")
    assert done.returncode == 1 and outputs["files"] == "1" and "No data file changed" not in summary
    assert annotated(done.stdout, "data/new\nline.jsonl", 1) and "::error file=data/new%0Aline.jsonl,line=1," in done.stdout


# 4. the gates belong to the workflow


def test_a_gate_with_nothing_to_estimate_fails_saying_why(repo: Path) -> None:
    """On main no estimate ran when every changed file is named as a held-out split, and the gates passed.
    Judged with the dataset, the gate is the dataset's: its unchanged training file is estimated."""
    (repo / "data" / "eval").mkdir()
    (repo / "data" / "eval" / "train.jsonl").write_text(lines([record(i) for i in range(50)]), encoding="utf-8")
    commit_all(repo)
    done, summary, _ = run_action(repo, model="gpt-4o-mini", max_cost="0.01", min_records="1", dataset="false")
    assert done.returncode == 1
    why = "no estimate: every changed data file is named as a held-out split, none as training"
    assert "### ftlint gates ❌" in summary and summary.count(why) == 2
    assert done.stdout.count(f"::error title=ftlint max-cost::{why}") == 1
    done, summary, outputs = run_action(repo, model="gpt-4o-mini", max_cost="0.01", min_records="1")
    assert done.returncode == 0 and outputs["records"] == "12" and "### ftlint gates ✅" in summary
    git(repo, "rm", "-q", "data/train.jsonl")  # a dataset of validation files only: nothing to train, the gates fail
    commit_all(repo)
    done, summary, _ = run_action(repo, model="gpt-4o-mini", max_cost="0.01")
    why = "no estimate: the dataset holds no training file (every data file is named as a held-out split)"
    assert done.returncode == 1 and summary.count(why) == 1 and done.stdout.count(f"::error title=ftlint max-cost::{why}") == 1


def test_the_repositorys_price_does_not_change_the_gate(repo: Path) -> None:
    """On main `price = 0` in the pull request's ftlint.toml made the cost $0: the gate passed silently."""
    train = [record(i) for i in range(13)]
    (repo / "data" / "train.jsonl").write_text(lines(train), encoding="utf-8")
    (repo / "ftlint.toml").write_text("price = 0\n[estimate]\nmax-cost = 1000\n", encoding="utf-8")
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="gpt-4o-mini", max_cost="0.001")
    tokens = sum(openai_tokens(r)[0] for r in train) * auto_epochs(13)
    cost = usd(tokens, GPT_4O_MINI)  # the catalog's price, not the repository's
    assert cost > 0.001 and outputs["cost"] == f"{cost:.4f}"
    assert done.returncode == 1 and f"| max-cost | $0.001 | ${cost:,.4f} | ❌ the run costs ${cost:,.4f}, over the limit |" in summary
    assert "ftlint.toml: price = 0 not used: --not-from-config leaves price to the command line and ftlint's defaults" in summary


def test_the_repositorys_model_does_not_change_the_gate(repo: Path) -> None:
    """Without a model in the workflow, a model the pull request's ftlint.toml names was the one
    priced on main; the gate is the catalog's default (gpt-4.1-mini for OpenAI chat data)."""
    train = [record(i) for i in range(13)]
    (repo / "data" / "train.jsonl").write_text(lines(train), encoding="utf-8")
    (repo / "ftlint.toml").write_text('model = "gpt-4o-mini"\n', encoding="utf-8")  # cheaper than the default
    commit_all(repo)
    done, summary, outputs = run_action(repo, max_tokens="100000")
    cost = usd(sum(openai_tokens(r)[0] for r in train) * auto_epochs(13), GPT_4_1_MINI)
    assert outputs["cost"] == f"{cost:.4f}" and "`gpt-4.1-mini-2025-04-14`" in summary
    assert "ftlint.toml: model = 'gpt-4o-mini' not used" in summary
    assert done.returncode == 0 and "### ftlint gates ✅" in summary


def test_the_repositorys_configuration_cannot_switch_a_gate_off(repo: Path) -> None:
    """On main `ignore = ["FT7"]` in the pull request's ftlint.toml silenced FT702: the step passed."""
    train = [record(i) for i in range(13)]
    (repo / "data" / "train.jsonl").write_text(lines(train), encoding="utf-8")
    (repo / "ftlint.toml").write_text('ignore = ["FT7"]\n', encoding="utf-8")
    commit_all(repo)
    done, summary, _ = run_action(repo, model="gpt-4o-mini", max_tokens="100", min_records="14")
    tokens = sum(openai_tokens(r)[0] for r in train) * auto_epochs(13)
    assert done.returncode == 1
    assert f"| max-tokens | 100 | {tokens:,} | ❌ {tokens:,} tokens processed, over the limit |" in summary
    assert "| min-records | 14 | 13 | ❌ 13 training records, under the limit |" in summary


def test_a_gate_on_a_model_without_a_price_fails_saying_why(repo: Path) -> None:
    (repo / "data" / "train.jsonl").write_text(lines([record(i) for i in range(13)]), encoding="utf-8")
    commit_all(repo)
    done, summary, outputs = run_action(repo, model="meta-llama/Llama-3.1-8B-Instruct", max_cost="5")
    assert done.returncode == 1 and outputs["cost"] == ""
    assert "| max-cost | $5 | none | ❌ no estimate of the cost: the model has no price" in summary


# 5. one reading of every file; globs in linear time


def test_every_data_file_is_opened_once(repo: Path) -> None:
    """The dataset is read once for check, diff and estimate together: on main each changed file was
    read by five processes (check twice, estimate twice, diff once). Counted by Python's audit hook
    for `open`, in the Action's own process (inputs this small are read without worker processes)."""
    (repo / "data" / "more.jsonl").write_text(lines([record(i) for i in range(100, 103)]), encoding="utf-8")
    (repo / "data" / "-x.jsonl").write_text(lines([record(i) for i in range(200, 203)]), encoding="utf-8")
    commit_all(repo)
    counter = ("import collections, os, sys\n"
               "seen = collections.Counter()\n"
               "def hook(event, args):\n"
               "    if event == 'open' and isinstance(args[0], str) and args[0].endswith('.jsonl'):\n"
               "        seen[os.path.basename(args[0])] += 1\n"
               "sys.addaudithook(hook)\n"
               "from ftlint.action import main\n"
               "code = main()\n"
               "print(sorted(seen.items()), file=sys.stderr)\n"
               "sys.exit(code)\n")
    done, _, outputs = run_action(repo, model="gpt-4o-mini", script=counter)
    opened = dict(eval(done.stderr.strip().splitlines()[-1]))
    assert outputs["files"] == "2" and done.returncode == 0, done.stdout + done.stderr
    assert opened["train.jsonl"] == 1 and opened["more.jsonl"] == 1 and opened["-x.jsonl"] == 1  # train.jsonl: unchanged
    assert sum(n for name, n in opened.items() if name[0].isdigit()) == 0  # no base file: the base's versions, from git


def test_a_glob_never_backtracks() -> None:
    """On main `data/*_*_*_*_*_v2.jsonl` against 200 underscores never ended (the timeout is a guard, not a measure)."""
    code = "from ftlint.action import glob_match; print(glob_match('data/' + '_' * 200, 'data/*_*_*_*_*_v2.jsonl'))"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.stdout == "False\n"


def _oracle(path: str, pattern: str) -> bool:
    """The glob as a backtracking regex (main's translation, with `.` matching a newline)."""
    regex, i = "", 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            regex, i = regex + "(?:.*/)?", i + 3
        elif pattern.startswith("**", i):
            regex, i = regex + ".*", i + 2
        elif pattern[i] == "*":
            regex, i = regex + "[^/]*", i + 1
        elif pattern[i] == "?":
            regex, i = regex + "[^/]", i + 1
        else:
            regex, i = regex + re.escape(pattern[i]), i + 1
    return re.fullmatch(regex, path, re.DOTALL) is not None


@settings(max_examples=400, deadline=None)
@given(st.text("ab/_\n", max_size=12), st.lists(st.sampled_from(["a", "b", "/", "_", "*", "**", "**/", "?", "\n"]), max_size=7))
def test_the_glob_matches_as_the_regex_does(path: str, parts: list[str]) -> None:
    pattern = "".join(parts)
    assert glob_match(path, pattern) is _oracle(path, pattern)


# 6. and 7. error output in a fence; never a traceback


def test_error_output_is_fenced_in_the_summary(repo: Path) -> None:
    """On main ftlint's error output was pasted raw after `> ftlint:`: a file name's HTML, link and
    heading rendered, and a usage error's later lines left the quote."""
    name = "data/<img src=x onerror=alert(1)>[link](http:evil) ``` # head.parquet"
    (repo / name).write_bytes(b"PAR1" + b"\0" * 64 + b"PAR1")  # a Parquet file ftlint cannot read: exit 2, naming it
    commit_all(repo)
    done, summary, _ = run_action(repo, model="gpt-4o-mini")
    rendered = outside_code(summary)
    assert "<img" not in rendered and "[link]" not in rendered and "# head" not in rendered
    assert done.returncode == 2 and "ftlint exited 2:" in summary and "<img src=x" in summary
    usage, usage_summary, _ = run_action(repo, trainer="<b>bogus</b>")
    assert usage.returncode == 2
    rendered = outside_code(usage_summary)
    assert "<b>" not in rendered and "Error: Invalid value for '--trainer'" not in rendered
    assert "Error: Invalid value for '--trainer'" in usage_summary  # said, inside the fence


def test_an_output_file_that_cannot_be_written_is_one_line(repo: Path) -> None:
    """On main: IsADirectoryError's traceback (the summary was written, the outputs were not)."""
    (repo / "data" / "more.jsonl").write_text(BAD, encoding="utf-8")
    commit_all(repo)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("GITHUB_", "INPUT_"))}
    summary = repo.parent / "summary.md"
    env.update({"GITHUB_BASE_REF": "main", "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_OUTPUT": str(repo.parent)})
    done = subprocess.run([sys.executable, "-m", "ftlint.action"], cwd=repo, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 2 and "Traceback" not in done.stderr
    assert done.stdout.splitlines()[-1].startswith("::error title=ftlint::GITHUB_OUTPUT: cannot write it")
    assert "### ftlint check ❌" in summary.read_text(encoding="utf-8")


# 8. the run config reaches diff


def test_the_run_input_reaches_every_diff(repo: Path) -> None:
    """On main diff had no --run: every diff section was a usage error."""
    (repo / "sft.yaml").write_text("model_name_or_path: Qwen/Qwen2.5-0.5B\nnum_train_epochs: 2\nper_device_train_batch_size: 2\n",
                                   encoding="utf-8")
    (repo / "data" / "train.jsonl").write_text(lines([record(i) for i in range(14)]), encoding="utf-8")
    commit_all(repo)
    done, summary, _ = run_action(repo, run="sft.yaml")
    assert done.returncode == 0, summary
    assert "### ftlint diff ✅ the dataset at `origin/main` -> the pull request" in summary
    assert "| records | 12 -> 14 (2 added, 0 removed, 0 changed) |" in summary and "| epochs | 2 -> 2 |" in summary

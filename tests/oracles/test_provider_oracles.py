"""The providers' own checkers as oracles (issue 14).

mistral-finetune is not on PyPI (a git repository, archived), so it cannot be installed here as
a test dependency; its own validation code (finetune/data/tokenize.py and mistral-common's
validator, as utils/validate_data.py runs them, CPU only) was run on the fixtures of
fixtures/peer-cases/mistral-finetune/ by tools/record_mistral_finetune.py, and its verdicts are
replayed below: a line's verdict, and the number of samples training makes of each valid line
(dynamic_chunk_fn_call).

Together's SDK v1 file checker (`together.utils.check_file`, installed from PyPI as a test
dependency; it mirrors the rules of Together's server) runs on every line of every fixture of the
Together formats, each line alone in a file, and on every whole fixture file. ftlint's verdict on
the same line (an error on that line or not) must be the checker's, unless the line is listed in
docs/check.md's table "Where ftlint and the providers' checkers disagree", which gives Together's
documentation as the source for ftlint's side. A listed line that comes to agree fails too, so the
table stays exact.
"""

from __future__ import annotations

import json
import os
import re
from functools import cache
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run
from test_peer_cases import together_format

os.environ.setdefault("TQDM_DISABLE", "1")
files = pytest.importorskip("together.utils.files", reason="the test extra installs together<2")
from together.utils import check_file  # noqa: E402

TOGETHER_FORMATS = ("together-conversational", "together-preference", "together-instruction")


def together_fixtures() -> list[tuple[Path, str]]:
    out = []
    for name in TOGETHER_FORMATS:
        out += [(p, name) for p in sorted((FIXTURES / "formats" / name).glob("*.jsonl"))]
    out += [(p, together_format(p)) for p in sorted((FIXTURES / "peer-cases" / "together").glob("*.jsonl"))]
    out += [(p, "together-conversational") for p in sorted((FIXTURES / "provider-cases" / "together").glob("*.jsonl"))]
    out += [(p, p.with_suffix(".args").read_text().split()[1]) for p in sorted((FIXTURES / "bad").glob("*together*.jsonl"))]
    out.append((FIXTURES / "good" / "drone_training.jsonl", "together-conversational"))
    return out


def rel(p: Path) -> str:
    return str(p.relative_to(ROOT))


def lines_of(path: Path) -> list[bytes]:
    raw = path.read_bytes()
    lines = raw.split(b"\n")
    return lines[:-1] if lines and lines[-1] == b"" else lines


def together_verdict(data: bytes, tmp: Path) -> tuple[bool, str]:
    probe = tmp / "probe.jsonl"
    probe.write_bytes(data)
    report = check_file(probe)
    return bool(report["is_check_passed"]), str(report.get("message", ""))


@cache
def ftlint_errors(path: Path, fmt: str, other_format: bool = False) -> dict[int, list[str]]:
    """Lines with an error under ftlint (dataset-wide codes, plan advice and secrets aside: the
    checker has none of them; FT106, a line of another format than the file's, is decided by the
    whole file, below, unless `other_format`: a file of one case is judged as a whole by each line)."""
    r = run("check", rel(path), "--format", fmt, "-o", "json", "--ignore", "FT4,FT5,FT6")
    errors: dict[int, list[str]] = {}
    for finding in json.loads(r.stdout):
        if finding["severity"] == "error" and (other_format or finding["code"] != "FT106"):
            errors.setdefault(finding["line"], []).append(finding["code"])
    return errors


TABLE_ROW = re.compile(r"^\| `(?P<file>[^`:]+):(?P<first>\d+)(?:-(?P<last>\d+))?` \| (?P<checker>[^|]+) \|")


@cache
def documented() -> dict[str, str]:
    """docs/check.md's disagreement table: `file:line` -> the checker it names (a row may give a
    range of lines, `file:1-103`)."""
    table: dict[str, str] = {}
    text = (ROOT / "docs" / "check.md").read_text()
    start = text.index("## Where ftlint and the providers' checkers disagree")
    for line in text[start:].splitlines()[1:]:
        if line.startswith("#"):
            break
        m = TABLE_ROW.match(line)
        if m:
            for n in range(int(m["first"]), int(m["last"] or m["first"]) + 1):
                table[f"{m['file']}:{n}"] = m["checker"].strip()
    return table


CASES = [(path, fmt, n) for path, fmt in together_fixtures() for n in range(1, len(lines_of(path)) + 1)]


@pytest.mark.parametrize(("path", "fmt", "n"), CASES, ids=[f"{rel(p)}:{n}" for p, _, n in CASES])
def test_together_line_verdict(path: Path, fmt: str, n: int, tmp_path: Path) -> None:
    line = lines_of(path)[n - 1]
    theirs, message = together_verdict(line + b"\n", tmp_path)
    ours = n not in ftlint_errors(path, fmt)
    where = f"{rel(path)}:{n}"
    if where in documented():
        assert ours != theirs, f"{where} now agrees with Together's checker: remove it from docs/check.md's table"
        assert documented()[where].startswith("together"), documented()[where]
    else:
        assert ours == theirs, (f"{where}: Together's checker says {'pass' if theirs else 'FAIL: ' + message}; "
                                f"ftlint says {'pass' if ours else ftlint_errors(path, fmt)[n]}")


@pytest.mark.parametrize(("path", "fmt"), together_fixtures(), ids=[rel(p) for p, _ in together_fixtures()])
def test_together_file_verdict(path: Path, fmt: str, tmp_path: Path) -> None:
    """The whole file: what the checker decides across lines (one format for all lines, an empty
    file) is decided alike, unless a line of the file is a documented difference."""
    theirs, message = together_verdict(path.read_bytes(), tmp_path)
    r = run("check", rel(path), "--format", fmt, "--ignore", "FT402,FT403,FT5,FT6")
    ours = r.exit_code == 0
    if any(w.startswith(rel(path) + ":") for w in documented()):
        return  # decided line by line above
    assert ours == theirs, f"Together's checker: {message}\nftlint:\n{r.stdout}"


def test_every_documented_difference_is_a_fixture_line() -> None:
    known = {f"{rel(p)}:{n}" for p, _, n in CASES}
    together_rows = {w for w, checker in documented().items() if checker.startswith("together")}
    assert together_rows, "docs/check.md's table lists no difference with Together's checker"
    assert together_rows <= known, sorted(together_rows - known)


MISTRAL = FIXTURES / "peer-cases" / "mistral-finetune"
MISTRAL_MANIFEST = json.loads((MISTRAL / "manifest.json").read_text())
# mistral-finetune's modes: instruct data is ftlint's mistral-finetune format; pretraining data
# ({"text": ...}) its text format
MISTRAL_FORMAT = {"instruct": "mistral-finetune", "pretrain": "text"}
MISTRAL_CASES = [(c, lv) for c in MISTRAL_MANIFEST["cases"] for lv in c["line_verdicts"]]


def mistral_documented(where: str, mode: str) -> bool:
    checker = documented().get(where, "")
    return checker.startswith("mistral-finetune") and (mode == "instruct") != ("pretrain" in checker)


@pytest.mark.parametrize(("case", "verdict"), MISTRAL_CASES,
                         ids=[f"{c['file']}:{lv['line']}[{c['mode']}]" for c, lv in MISTRAL_CASES])
def test_mistral_finetune_line_verdict(case: dict, verdict: dict) -> None:
    """mistral-finetune's verdict: the line passes its validation and training can chunk it
    (a chunk that fails to encode fails the run, though validate_data.py does not chunk)."""
    path = MISTRAL / case["file"]
    theirs = verdict["ok"] and "chunk_error" not in verdict
    errors = ftlint_errors(path, MISTRAL_FORMAT[case["mode"]], other_format=True)
    ours = verdict["line"] not in errors
    where = f"{rel(path)}:{verdict['line']}"
    if mistral_documented(where, case["mode"]):
        assert ours != theirs, f"{where} now agrees with mistral-finetune: remove it from docs/check.md's table"
    else:
        said = verdict.get("error") or verdict.get("chunk_error")
        assert ours == theirs, f"{where}: mistral-finetune says {'ok' if theirs else said}; ftlint {errors}"


def test_mistral_finetune_whole_files() -> None:
    """Files with no line to judge (empty, not UTF-8): rejected by both."""
    for case in MISTRAL_MANIFEST["cases"]:
        if not case["line_verdicts"]:
            r = run("check", rel(MISTRAL / case["file"]), "--format", MISTRAL_FORMAT[case["mode"]])
            assert (r.exit_code == 0) == case["expected_pass"], case["file"]


SAMPLED = [c for c in MISTRAL_MANIFEST["cases"] if c["mode"] == "instruct" and c["line_verdicts"]
           and all(lv["ok"] and "chunk_error" not in lv for lv in c["line_verdicts"])
           and not any(mistral_documented(f"{rel(MISTRAL / c['file'])}:{lv['line']}", "instruct") for lv in c["line_verdicts"])]


@pytest.mark.parametrize("case", SAMPLED, ids=[c["file"] for c in SAMPLED])
def test_mistral_finetune_records_are_the_samples_training_makes(case: dict) -> None:
    """Each valid line is one sample, plus the extra samples dynamic_chunk_fn_call cuts from it
    (recorded from finetune/data/dataset.py's maybe_chunk_lines)."""
    r = run("estimate", rel(MISTRAL / case["file"]), "--format", "mistral-finetune", "-e", "1", "-o", "json")
    assert json.loads(r.stdout)["records"] == sum(1 + lv.get("chunks", 0) for lv in case["line_verdicts"])


def test_every_documented_mistral_difference_is_a_case() -> None:
    known = {f"{rel(MISTRAL / c['file'])}:{lv['line']}" for c, lv in MISTRAL_CASES}
    rows = {w for w, checker in documented().items() if checker.startswith("mistral-finetune")}
    assert rows and rows <= known, sorted(rows - known)

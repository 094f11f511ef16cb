"""Every shipped fixture against its golden output. Set FTLINT_UPDATE_GOLDENS=1 to rewrite the
goldens after a deliberate change, then review the diff."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from ftlint.rules import registry

BAD = sorted((FIXTURES / "bad").glob("*.jsonl"))
GOOD = sorted(p for p in (FIXTURES / "good").iterdir() if p.name.endswith((".jsonl", ".jsonl.gz")))


def _args(path: Path) -> list[str]:
    extra = path.with_name(path.name.split(".")[0] + ".args")
    return extra.read_text().split() if extra.exists() else []


def _rel(path: Path) -> str:
    return str(path.relative_to(FIXTURES.parent))


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_bad_fixture_matches_golden(path: Path) -> None:
    result = run("check", _rel(path), *_args(path))
    golden = path.with_suffix(".expected")
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        golden.write_text(result.stdout)
    assert result.stdout == golden.read_text()
    code = path.name.split("_")[0].upper()
    assert re.search(rf":\d+:\d+: {code} ", result.stdout), f"{path.name} no longer shows {code}"
    # the exit code follows the errors the summary counts (a format may set a code's severity:
    # a BOM is an error under Together's formats)
    has_error = not result.stdout.rstrip().splitlines()[-1].startswith("0 errors")
    assert result.exit_code == (1 if has_error else 0)


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.name)
def test_good_fixture_is_clean(path: Path) -> None:
    result = run("check", _rel(path), "--fail-on", "warning")
    assert result.exit_code == 0, result.stdout
    assert result.stdout.endswith("0 errors, 0 warnings\n")
    assert ": FT" not in result.stdout


def test_every_code_check_emits_has_a_fixture() -> None:
    from hostile import HOSTILE

    covered = {p.name.split("_")[0].upper() for p in BAD}
    covered |= {code for _, findings in HOSTILE.values() for _, code in findings}
    for golden in [*(FIXTURES / "formats").glob("*/bad.expected"), *(FIXTURES / "bad").glob("*.expected")]:
        covered |= set(re.findall(r":\d+:\d+: (FT\d{3}) ", golden.read_text()))
    covered |= {"FT007", "FT401", "FT404"}  # 300 MB line: test_hostile; FT401: every bad golden; FT404: test_dataset
    emitted_by_check = {c for c in registry() if not c.startswith(("FT5", "FT7", "FT8"))}  # estimate only; convert only (test_convert)
    assert emitted_by_check - covered == set()


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.name)
def test_json_output_carries_the_same_findings(path: Path) -> None:
    text = run("check", _rel(path), *_args(path))
    as_json = run("check", _rel(path), *_args(path), "-o", "json")
    findings = json.loads(as_json.stdout)
    assert as_json.exit_code == text.exit_code
    assert all(set(f) == {"path", "line", "col", "code", "severity", "message", "pointer", "fingerprint"} for f in findings)
    assert all(len(f["fingerprint"]) == (16 if f["line"] else 0) for f in findings)
    # a finding on no file (the model chosen by --model) has no place: "FT513 ..."
    lines = [ln for ln in text.stdout.splitlines() if re.match(r"(.+:\d+:\d+: )?FT\d{3} ", ln)]
    assert _as_text(findings) == lines


def _as_text(findings: list[dict]) -> list[str]:
    """The text report of the JSON findings: a per-file rule's findings (Rule.per) said once per file
    and message, after the file's other findings, with the records counted and their first 5 lines."""
    per_file = {code for code, r in registry().items() if r.per == "file"}
    rendered: list[str] = []
    groups: dict[tuple, list[dict]] = {}
    path = None
    for f in [*findings, None]:
        if f is None or f["path"] != path:
            rendered += [_group_line(group) for group in groups.values()]
            groups, path = {}, f and f["path"]
        if f is not None and f["code"] in per_file:
            groups.setdefault((f["path"], f["severity"], f["code"], f["message"]), []).append(f)
        elif f is not None:
            rendered.append(_line(f, f["message"], f["pointer"]))
    return rendered


def _line(f: dict, message: str, pointer: str | None) -> str:
    place = f"{f['path']}:{f['line']}:{f['col']}: " if f["path"] else ""
    return f"{place}{f['code']} {message}" + (f" ({pointer})" if pointer else "")


def _group_line(group: list[dict]) -> str:
    first = group[0]
    if len(group) == 1:
        return _line(first, first["message"], first["pointer"])
    lines = sorted({g["line"] for g in group})
    s, more = "s" if len(lines) > 1 else "", ", ..." if len(lines) > 5 else ""
    message = f"{first['message']}; {len(lines)} record{s} (line{s} {', '.join(map(str, lines[:5]))}{more})"
    return _line(first, message, first["pointer"] if all(g["pointer"] == first["pointer"] for g in group) else None)


def _all_fixture_records() -> list[dict]:
    import orjson

    records = []
    for path in BAD + [p for p in GOOD if p.suffix == ".jsonl"]:
        for raw in path.read_bytes().splitlines():
            try:
                value = orjson.loads(raw)
            except orjson.JSONDecodeError:
                continue
            if isinstance(value, dict):
                records.append(value)
    return records


def test_fast_and_explaining_validators_agree_on_every_fixture_record() -> None:
    from ftlint.schemas import fast_validator, validator

    records = _all_fixture_records()
    assert len(records) > 150
    for record in records:
        assert fast_validator("openai-chat").is_valid(record) == validator("openai-chat").is_valid(record), record

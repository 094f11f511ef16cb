"""One finding per problem (issue 29): a fact of the file or its template, found in every record, is
said once per file with the count and the first lines in text, GitHub and Markdown output; JSON and
SARIF list every record's finding. On main `convert` printed one FT801 line per record."""

from __future__ import annotations

import json
import re
from pathlib import Path

from conftest import FIXTURES, run

FT235 = FIXTURES / "bad" / "ft235_empty_think_trained.jsonl"
FT235_ARGS = ("--format", "trl-messages", "--tokenizer", "qwen2", "--chat-template",
              "fixtures/templates/trl/qwen3_training.jinja", "--assistant-only-loss")
FINDING = re.compile(r".+:\d+:\d+: FT\d{3} ")


def _records(path: Path, n: int, **extra: object) -> Path:
    with path.open("w") as fh:
        for i in range(n):
            fh.write(json.dumps({"id": i, **extra, "messages": [{"role": "user", "content": f"question {i}"},
                                                                  {"role": "assistant", "content": f"answer {i}"}]}) + "\n")
    return path


def _findings(text: str) -> list[str]:
    return [line for line in text.splitlines() if FINDING.match(line)]


def test_ft801_on_500_records_is_one_line_in_text_and_500_in_json(tmp_path: Path) -> None:
    source = _records(tmp_path / "chat.jsonl", 500)
    text = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt")
    # every record holds an 'id' ShareGPT has no field for: one fact, said once, at the first record
    assert _findings(text.stdout) == [f"{source}:1:1: FT801 'id' is not carried into the converted record; "
                                      "500 records (lines 1, 2, 3, 4, 5, ...) ($.id)"]
    assert text.stdout.splitlines()[-1] == "0 errors, 500 warnings (FT801 x500)"  # the summary counts every finding
    as_json = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "-o", "json")
    findings = json.loads(as_json.stdout)
    assert [(f["code"], f["line"], f["pointer"]) for f in findings] == [("FT801", n, "$.id") for n in range(1, 501)]
    assert as_json.exit_code == text.exit_code == 0


def test_sarif_keeps_every_finding_and_markdown_says_it_once(tmp_path: Path) -> None:
    source = _records(tmp_path / "chat.jsonl", 12)
    sarif = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "-o", "sarif")
    assert len(json.loads(sarif.stdout)["runs"][0]["results"]) == 12
    markdown = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "-o", "markdown").stdout
    assert "| FT801 | warning | 12 |" in markdown
    assert markdown.count(": FT801 ") == 1  # one line among the first findings
    assert "12 records (lines 1, 2, 3, 4, 5, ...)" in markdown
    github = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "-o", "github").stdout
    assert [line for line in github.splitlines() if line.startswith("::warning")] == [
        f"::warning file={source},line=1,col=1,title=ftlint FT801::'id' is not carried into the converted record; "
        "12 records (lines 1, 2, 3, 4, 5, ...) ($.id)"]


def test_ft235_a_template_property_is_said_once_for_the_fixture() -> None:
    lines = FT235.read_text().splitlines()
    text = run("check", str(FT235.relative_to(FIXTURES.parent)), *FT235_ARGS)
    assert _findings(text.stdout) == [
        "fixtures/bad/ft235_empty_think_trained.jsonl:1:1: FT235 an empty <think></think> block is trained: the model "
        f"learns to skip its reasoning; {len(lines)} records (lines 1, 2, 3, 4, 5, ...)"]
    assert f"0 errors, {len(lines)} warnings (FT235 x{len(lines)})" in text.stdout
    as_json = json.loads(run("check", str(FT235.relative_to(FIXTURES.parent)), *FT235_ARGS, "-o", "json").stdout)
    assert [f["line"] for f in as_json if f["code"] == "FT235"] == list(range(1, len(lines) + 1))


def test_a_record_holding_the_fact_twice_counts_once_and_the_pointer_that_varies_is_left_out(tmp_path: Path) -> None:
    source = tmp_path / "weights.jsonl"
    record = {"messages": [{"role": "user", "content": "a"}, {"role": "assistant", "content": "b", "weight": 0},
                           {"role": "user", "content": "c"}, {"role": "assistant", "content": "d", "weight": 0}]}
    source.write_text((json.dumps(record) + "\n") * 3)
    text = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "vertex-gemini")
    # two weights per record, three records: 6 findings, one line naming 3 records, no single JSON path
    assert _findings(text.stdout) == [f"{source}:1:1: FT801 a weight: Gemini tuning has none; 3 records (lines 1, 2, 3)"]
    assert "6 warnings (FT801 x6)" in text.stdout
    findings = json.loads(run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "vertex-gemini", "-o", "json").stdout)
    assert [f["pointer"] for f in findings] == ["$.messages[1].weight", "$.messages[3].weight"] * 3


def test_max_errors_counts_the_summarised_line_once(tmp_path: Path) -> None:
    source = _records(tmp_path / "chat.jsonl", 40)
    shown = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "--max-errors", "1").stdout
    assert len(_findings(shown)) == 1 and "... " not in shown  # the one line says all 40
    hidden = run("convert", str(source), str(tmp_path / "out.jsonl"), "--to", "sharegpt", "--max-errors", "0").stdout
    assert _findings(hidden) == [] and "... 40 more finding(s) not shown (--max-errors 0)" in hidden


def test_each_file_says_its_own_count(tmp_path: Path) -> None:
    first, second = _records(tmp_path / "a.jsonl", 3, thinking="x"), _records(tmp_path / "b.jsonl", 2, thinking="x")
    text = run("check", str(first), str(second), "--format", "together-conversational")
    ft108 = [line for line in _findings(text.stdout) if " FT108 " in line and "'id'" in line]
    assert ft108 == [f"{first}:1:1: FT108 'id' is not read by Together AI: it does not reach training; 3 records (lines 1, 2, 3) ($.id)",
                     f"{second}:1:1: FT108 'id' is not read by Together AI: it does not reach training; 2 records (lines 1, 2) ($.id)"]

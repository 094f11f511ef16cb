"""`ftlint convert` (issue 16): round trips keep every message, a converted file checks clean
under its target, what a target cannot hold is a finding, and nothing is written over an input."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from conftest import FIXTURES, run
from ftlint.convert import convert_record

words = st.text(alphabet="abcdefghij klmnopé中", min_size=1, max_size=30).map(lambda t: t.strip() or "x")


@st.composite
def conversations(draw: st.DrawFn) -> dict:
    messages: list[dict] = []
    if draw(st.booleans()):
        messages.append({"role": "system", "content": draw(words)})
    tools = None
    for turn in range(draw(st.integers(1, 3))):
        messages.append({"role": "user", "content": draw(words)})
        if draw(st.booleans()) and turn == 0:
            name = draw(st.sampled_from(["get_time", "lookup"]))
            messages.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{turn}", "type": "function", "function": {"name": name, "arguments": json.dumps({"q": draw(words)})}}]})
            messages.append({"role": "tool", "tool_call_id": f"call_{turn}", "content": json.dumps({"answer": draw(words)})})
            tools = [{"type": "function", "function": {"name": n, "description": "d", "parameters": {"type": "object", "properties": {}}}}
                     for n in ("get_time", "lookup")]
        answer: dict = {"role": "assistant", "content": draw(words)}
        if draw(st.booleans()):
            answer["weight"] = draw(st.sampled_from([0, 1]))
        messages.append(answer)
    if all(m.get("weight") == 0 for m in messages if m["role"] == "assistant" and "tool_calls" not in m):
        messages[-1]["weight"] = 1
    return {"messages": messages, **({"tools": tools} if tools else {})}


def essence(record: dict) -> list[tuple]:
    """What a conversation says: roles, text, tool calls (name and arguments), tool results, weights."""
    out = []
    for m in record["messages"]:
        calls = tuple((c["function"]["name"], json.loads(c["function"]["arguments"])) for c in m.get("tool_calls") or [])
        content = m.get("content") or ""
        if m["role"] == "tool":  # Gemini holds a tool's result as an object: the same JSON value comes back
            content = json.loads(content)
        out.append((m["role"], content, calls, m.get("weight", 1)))
    return out


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(conversations(), st.sampled_from(["sharegpt", "vertex-gemini"]))
def test_round_trips_keep_every_message(record: dict, middle: str) -> None:
    there, lost, failure = convert_record(record, "openai-chat", middle)
    assert failure is None and there is not None
    back, lost_back, failure = convert_record(there, middle, "openai-chat")
    assert failure is None and back is not None
    weights_lost = [w for w in lost if "weight" in w[0]]  # Gemini has no weights: said, never silent
    expected = essence(record)
    if middle == "vertex-gemini":
        expected = [(r, c, calls, 1) for r, c, calls, _ in expected]
        assert len(weights_lost) == sum(1 for m in record["messages"] if m.get("weight") == 0)
    assert essence(back) == expected
    assert not lost_back


def test_a_converted_file_checks_clean_under_its_target(tmp_path: Path) -> None:
    source = FIXTURES / "good" / "drone_training.jsonl"
    for target in ("sharegpt", "vertex-gemini", "together-conversational", "trl-messages", "openai-chat"):
        out = tmp_path / f"{target}.jsonl"
        r = run("convert", str(source), str(out), "--to", target)
        assert r.exit_code == 0, r.stdout
        assert "103 records written" in r.stdout
        check = run("check", str(out), "--format", target, "--ignore", "FT4")
        assert check.exit_code == 0, (target, check.stdout)


def test_what_the_target_cannot_hold_is_said(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text(json.dumps({"messages": [
        {"role": "user", "content": "Hi"}, {"role": "assistant", "content": "draft", "weight": 0},
        {"role": "user", "content": "Again"}, {"role": "assistant", "content": "Hello.", "reasoning_content": "be kind"}]}) + "\n")
    r = run("convert", str(data), str(tmp_path / "t.jsonl"), "--to", "trl-messages")
    assert ":1:1: FT801 a weight (0) on an assistant message: trl-messages cannot hold it" in r.stdout
    r = run("convert", str(data), str(tmp_path / "s.jsonl"), "--format", "fireworks-chat", "--to", "sharegpt")
    assert "FT801 reasoning: ShareGPT has no field for it" in r.stdout


def test_records_the_target_cannot_take_fail_unless_dropped(tmp_path: Path) -> None:
    source = FIXTURES / "good" / "drone_training.jsonl"
    r = run("convert", str(source), str(tmp_path / "a.jsonl"), "--to", "alpaca")
    assert r.exit_code == 1 and "FT802" in r.stdout
    r = run("convert", str(source), str(tmp_path / "a.jsonl"), "--to", "alpaca", "--drop-invalid")
    assert r.exit_code == 0 and "103 left out" in r.stdout


def test_never_over_an_input_and_parquet_out(tmp_path: Path) -> None:
    data = tmp_path / "d.jsonl"
    data.write_text((FIXTURES / "good" / "drone_training.jsonl").read_text())
    before = data.read_bytes()
    r = run("convert", str(data), str(data), "--to", "sharegpt")
    assert r.exit_code == 2 and data.read_bytes() == before
    out = tmp_path / "d.parquet"
    assert run("convert", str(data), str(out), "--to", "sharegpt").exit_code == 0
    check = run("estimate", str(out), "-o", "json")
    e = json.loads(check.stdout)
    assert (e["format"], e["records"]) == ("sharegpt", 103)


json_values = st.recursive(st.none() | st.booleans() | st.integers() | st.text(max_size=8),
                           lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(
                               ["messages", "role", "content", "tool_calls", "function", "name", "arguments", "conversations", "from",
                                "value", "weight", "contents", "parts", "text", "functionCall", "system", "history", "instruction",
                                "output", "tools", "reasoning_content", "candidates"]), inner, max_size=4), max_leaves=12)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(["messages", "conversations", "contents", "instruction", "output", "system", "tools", "history"]),
                       json_values, max_size=4),
       st.sampled_from(sorted(__import__("ftlint.convert", fromlist=["READERS"]).READERS)), st.sampled_from(["sharegpt", "openai-chat",
       "alpaca", "vertex-gemini", "bedrock-nova"]))
def test_any_record_converts_or_says_why_never_raises(record: dict, source: str, target: str) -> None:
    converted, _, failure = convert_record(record, source, target)
    assert (converted is None) == (failure is not None)


def test_an_image_is_said_and_the_text_beside_it_kept() -> None:
    record = {"messages": [{"role": "user", "content": [{"type": "text", "text": "What is this?"},
                                                       {"type": "image_url", "image_url": {"url": "https://x/y.png"}}]},
                           {"role": "assistant", "content": "A cat."}]}
    for target in ("sharegpt", "vertex-gemini", "bedrock-nova"):
        converted, lost, failure = convert_record(record, "openai-chat", target)
        assert failure is None and converted is not None
        assert any("an image or other media" in what for _, what in lost), target
        assert "What is this?" in json.dumps(converted), target


def test_convert_reports_through_every_output_format_and_the_selection(tmp_path: Path) -> None:
    """convert's findings are diagnostics like check's (issue 25): -o is the output format here too
    (OUT is the converted file), JSON lists every finding with its code and line, --select and
    --ignore filter them, --max-errors caps what is shown, and the last lines account for every line."""
    source, out = FIXTURES / "good" / "drone_training.jsonl", tmp_path / "a.jsonl"
    found = json.loads(run("convert", str(source), str(out), "--to", "alpaca", "-o", "json").stdout)
    assert len(found) >= 103 and {f["code"] for f in found} >= {"FT802", "FT801"}
    assert [f["line"] for f in found if f["code"] == "FT802"] == list(range(1, 104))
    assert all(f["severity"] == ("error" if f["code"] == "FT802" else "warning") for f in found)
    only = json.loads(run("convert", str(source), str(out), "--to", "alpaca", "-o", "json", "--select", "FT802").stdout)
    assert {f["code"] for f in only} == {"FT802"} and len(only) == 103
    quiet = run("convert", str(source), str(out), "--to", "alpaca", "--ignore", "FT801")
    assert "FT801" not in quiet.stdout and quiet.exit_code == 1  # the records are still not convertible
    capped = run("convert", str(source), str(out), "--to", "alpaca", "--max-errors", "1").stdout.splitlines()
    # the first line is a record's: FT801, one fact of every record, is said once after them (tests/records/test_once_per_file.py)
    assert capped[0].endswith(":1:1: FT802 tool calls, tool results or a second system message: Alpaca has no room for them")
    assert capped[1].startswith("... ") and capped[-2].startswith("converted ") and "103 left out" in capped[-2]
    assert capped[-1].startswith("103 errors (FT802 x103), ")
    sarif = json.loads(run("convert", str(source), str(out), "--to", "alpaca", "-o", "sarif").stdout)
    assert len(sarif["runs"][0]["results"]) == len(found)
    github = run("convert", str(source), str(out), "--to", "alpaca", "-o", "github").stdout
    assert "::error file=" in github and "FT802" in github


# --- issue 35: OUT's errors, the last line in Markdown, and what a blank line is ---

def _data(tmp_path: Path) -> Path:
    data = tmp_path / "in.jsonl"
    data.write_text("".join(json.dumps({"messages": [{"role": "user", "content": f"q{i}"},
                                                     {"role": "assistant", "content": "a"}]}) + "\n" for i in range(10)))
    return data


@pytest.mark.parametrize(("out", "says"), [("no/such/dir/o.jsonl", "no such folder"), ("newdir/", "names a folder"),
                                           ("/proc/self/mem", "cannot write it"), ("no/such/o.parquet", "no such folder")])
def test_an_out_that_cannot_be_written_is_one_line(out: str, says: str, tmp_path: Path) -> None:
    data = _data(tmp_path)
    r = subprocess.run([sys.executable, "-m", "ftlint", "convert", str(data), out, "--to", "sharegpt"], capture_output=True,
                       text=True, cwd=tmp_path, timeout=60)
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and says in r.stderr and "Traceback" not in r.stderr, r.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["in.jsonl"]  # nothing made, no temporary file left


def test_the_last_line_in_markdown_renders_no_name_as_markup(tmp_path: Path) -> None:
    data = _data(tmp_path)
    out = tmp_path / "<img src=x onerror=alert(1)>[a](https:evil)#.jsonl"
    r = run("convert", str(data), str(out), "--to", "sharegpt", "-o", "markdown")
    line = next(line for line in r.stdout.splitlines() if "converted" in line)
    # a code span holds it whole (no backtick inside can close it): no HTML, link or heading renders
    assert line.startswith("`converted ") and line.endswith("`") and line.count("`") == 2, line
    assert r.exit_code == 0 and out.exists()


def test_a_line_of_control_bytes_is_not_blank(tmp_path: Path) -> None:
    data = _data(tmp_path)
    data.write_bytes(b"\x0b\x0c\n" + data.read_bytes() + b" \t \n")  # vertical tab and form feed: not JSON's white space
    r = run("convert", str(data), str(tmp_path / "o.jsonl"), "--to", "sharegpt")
    assert "12 lines read: 10 records written, 1 left out (1 unreadable: FT001 1), 1 blank" in r.stdout, r.stdout
    check = json.loads(run("check", str(data), "-o", "json").stdout)
    assert [(f["line"], f["code"]) for f in check if f["code"] in ("FT001", "FT005")] == [(1, "FT001"), (12, "FT005")]

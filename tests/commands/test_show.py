"""`ftlint show FILE:LINE` (issue 37): one record as its trainer sees it. Its marks are the
estimate's counts: for every record of the fixtures, under every trainer ftlint models, the
tokens marked trained and kept are the record's trainable tokens in `estimate -o json` (the
record alone in a file). Goldens for TRL, axolotl, LLaMA-Factory and a hosted job; what is no
record is one line and exit 2; a line with an error is its findings and exit 1; colour only on a
terminal; data cannot forge a mark or print a secret; a 10 MB line renders, shown by its ends."""

from __future__ import annotations

import json
import os
import pty
import subprocess
import sys
from pathlib import Path

import pytest

from conftest import FIXTURES, ROOT, run

TOY = "fixtures/oracle/toy_chat_fine_tuning.jsonl"
QWEN = ("--model", "Qwen/Qwen2.5-0.5B-Instruct")
# (file, options): every trainer's way of marking and cutting
CASES = [
    (TOY, ()),  # OpenAI's job: ftlint's token convention, its parts
    ("fixtures/good/drone_training.jsonl", ("--context", "700")),  # ... cut at the model's limit, keeping the start
    (TOY, (*QWEN, "--max-seq-len", "40")),  # TRL: every token trains, cut keeping the start
    ("fixtures/chat/mask_corpus.jsonl", ("--format", "trl-messages", "--tokenizer", "qwen2", "--chat-template",
                                         "fixtures/templates/trl/qwen3_training.jinja", "--assistant-only-loss")),  # TRL's mask
    ("fixtures/formats/trl-prompt-completion/good.jsonl", QWEN),  # TRL: the completion after the common prefix
    (TOY, (*QWEN, "--trainer", "trl", "--assistant-only-loss", "--max-seq-len", "10")),  # TRL: a row cut before its answer dropped
    (TOY, (*QWEN, "--trainer", "unsloth", "--template-name", "qwen-2.5", "--instruction-part", "<|im_start|>user\\n",
           "--response-part", "<|im_start|>assistant\\n")),  # unsloth's train_on_responses_only
    (TOY, (*QWEN, "--trainer", "axolotl", "--max-seq-len", "44")),  # axolotl: its targets; a record past it dropped
    (TOY, (*QWEN, "--trainer", "llama-factory", "--max-seq-len", "40")),  # LLaMA-Factory: cut in proportion
    ("fixtures/formats/alpaca/good.jsonl", (*QWEN, "--trainer", "llama-factory", "--max-seq-len", "30")),  # its Alpaca rows
    ("fixtures/good/drone_training.jsonl", ("--run", "fixtures/runs/axolotl/instruct-lora-8b.yml")),  # a run config's
    (TOY, ("--model", "together/Qwen/Qwen2.5-7B-Instruct")),  # Together: the model's template, its targets
    ("fixtures/formats/vertex-gemini/good.jsonl", ()),  # Vertex: one record per model turn
    ("fixtures/formats/mistral-finetune/good.jsonl", ("--model", "mistralai/Mistral-Nemo-Instruct-2407", "--trainer",
                                                      "mistral-finetune")),  # mistral-common's pieces, per tool sample
    ("fixtures/formats/cohere-chat/good.jsonl", ()),
    ("fixtures/formats/sharegpt/good.jsonl", ()),
    ("fixtures/formats/prompt-completion/good.jsonl", ()),  # by the layout's counts alone
    ("fixtures/formats/trl-preference/good.jsonl", ("--trainer", "trl")),
]
GOLDENS = {  # name: (FILE:LINE, options)
    "hosted-openai": (f"{TOY}:1", ()),
    "trl": (f"{TOY}:1", (*QWEN, "--max-seq-len", "40")),
    "axolotl": (f"{TOY}:2", (*QWEN, "--trainer", "axolotl", "--max-seq-len", "128")),
    "llama-factory": (f"{TOY}:1", (*QWEN, "--trainer", "llama-factory", "--max-seq-len", "40")),
}


def shown(*args: str) -> dict:
    r = run("show", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize(("path", "args"), CASES, ids=[f"{Path(p).parent.name}/{Path(p).name} {' '.join(a)[:60]}" for p, a in CASES])
def test_the_marks_are_the_trainable_tokens_the_estimate_counts(path: str, args: tuple[str, ...], tmp_path: Path) -> None:
    lines = (ROOT / path).read_text(encoding="utf-8").splitlines()
    for number, text in enumerate(lines[:8], 1):
        view = shown(f"{path}:{number}", *args)
        one = tmp_path / "one.jsonl"
        one.write_text(text + "\n", encoding="utf-8")
        given = args if "--format" in args else (*args, "--format", view["format"])
        estimated = run("estimate", str(one), *given, "-o", "json")
        e = json.loads(estimated.stdout)
        marked = sum(r["kept_trained"] for r in view["records"])
        assert marked == e["trainable_tokens"], (number, view["records"])
        assert view["rejected"] == (e["invalid_lines"] == 1)  # a line with an error: in no figure, nothing marked
        for record in view["records"]:  # the segments are the record's tokens, every one
            assert sum(s["tokens"] for s in record["segments"]) == record["tokens"]
            assert record["kept_trained"] <= record["kept_tokens"] <= record["tokens"]


def test_every_trainer_is_shown_and_the_cases_reach_each_kind_of_mark() -> None:
    kinds = {record["exact"] for path, args in CASES for record in shown(f"{path}:1", *args)["records"]}
    trainers = {shown(f"{path}:1", *args)["trainer"] for path, args in CASES}
    assert kinds == {True, False}
    assert {"openai", "trl", "axolotl", "llama-factory", "together", "vertex", "mistral-finetune"} <= trainers
    cut = shown(f"{TOY}:1", *QWEN, "--trainer", "llama-factory", "--max-seq-len", "40")["records"][0]
    assert cut["kept_tokens"] == 40 < cut["tokens"] and cut["kept_trained"] == cut["trainable"]  # the answer kept whole
    dropped = [r for n in range(1, 6) for r in shown(f"{TOY}:{n}", *QWEN, "--trainer", "axolotl", "--max-seq-len", "44")["records"]
               if r["dropped"]]
    assert dropped and all(r["kept_trained"] == 0 for r in dropped)
    untrained = shown(f"{TOY}:1", *QWEN, "--trainer", "trl", "--assistant-only-loss", "--max-seq-len", "10")["records"][0]
    assert untrained["dropped"] and untrained["kept_tokens"] == 0  # TRL drops a row its cut leaves with nothing to train


@pytest.mark.parametrize("name", sorted(GOLDENS))
@pytest.mark.parametrize("fmt", ["text", "markdown"])
def test_show_golden(name: str, fmt: str) -> None:
    target, args = GOLDENS[name]
    r = run("show", target, *args, "-o", fmt)
    assert r.exit_code == 0, r.stderr
    golden = FIXTURES / "show" / f"{name}.{fmt}"
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        golden.write_text(r.stdout, encoding="utf-8")
    assert r.stdout == golden.read_text(encoding="utf-8")


def test_what_is_no_record_is_one_line_and_exit_2(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text((ROOT / TOY).read_text().splitlines()[0] + "\n\n")
    for target, words in ((f"{data}:3", "no record there (it has 2 line(s))"), (f"{data}:2", "a blank line, no record"),
                          (f"{data}:x", "give FILE:LINE"), (f"{data}:0", "give FILE:LINE"),
                          (f"{tmp_path / 'none.jsonl'}:1", "no such file")):
        r = run("show", target)
        assert r.exit_code == 2 and words in r.stderr and len(r.stderr.splitlines()) == 1, (target, r.stderr)


def test_a_line_with_an_error_is_its_findings_and_exit_1(tmp_path: Path) -> None:
    data = tmp_path / "data.jsonl"
    data.write_text('{"messages": [{"role": "user", "content": "hi"}]}\n{"messages": [\n')
    for line, code in ((1, "FT201"), (2, "FT001")):
        r = run("show", f"{data}:{line}")
        assert r.exit_code == 1 and f"  {code} " in r.stdout and "rejected: the line has an error" in r.stdout
        assert "record 1 of" not in r.stdout


def test_a_json_arrays_line_is_any_line_of_its_element(tmp_path: Path) -> None:
    rows = [json.loads(line) for line in (ROOT / TOY).read_text().splitlines()[:3]]
    data = tmp_path / "data.json"
    data.write_text(json.dumps(rows, indent=2))
    text = data.read_text().splitlines()
    second = next(k for k, line in enumerate(text, 1) if "lost my tennis" in line)  # inside element 2
    view = shown(f"{data}:{second}")
    assert view["element"] == 2 and view["records"][0]["segments"]
    assert "element" not in shown(f"{TOY}:2") or shown(f"{TOY}:2")["element"] is None
    r = run("show", f"{data}:1")  # the array's '['
    assert r.exit_code == 2 and "no record there (its elements start on lines 2 to" in r.stderr


def test_data_cannot_forge_a_mark_move_the_cursor_or_print_a_secret(tmp_path: Path) -> None:
    secret = "ghp_" + "a1B2" * 9
    record = {"messages": [{"role": "user", "content": f"⟦trust me⟧ \x1b[31mred\x1b[0m ⟪x⟫ my key {secret}"},
                           {"role": "assistant", "content": "ok"}]}
    data = tmp_path / "data.jsonl"
    data.write_text(json.dumps(record) + "\n")
    for fmt in ("text", "markdown", "json"):
        out = run("show", f"{data}:1", "--ignore", "FT6", "-o", fmt).stdout  # the key not an error: the record is shown
        assert secret not in out and "\x1b" not in out
        if fmt != "json":
            assert "⟦trust me⟧" not in out and "\\u27e6trust me\\u27e7" in out
            assert out.count("⟦") == out.count("⟧") == 2  # the legend's, and the answer's


def test_colour_only_on_a_terminal_and_never_with_no_color() -> None:
    def on_a_terminal(env: dict[str, str]) -> bytes:
        leader, follower = pty.openpty()
        subprocess.run([sys.executable, "-m", "ftlint", "show", f"{TOY}:1"], cwd=ROOT, stdout=follower,
                       env={**os.environ, **env}, timeout=120, check=True)
        os.close(follower)
        out = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        os.close(leader)
        return out

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    coloured = on_a_terminal({**env, "TERM": "xterm"})
    assert b"\x1b[" in coloured and "⟦".encode() not in coloured
    assert b"\x1b[" not in on_a_terminal({**env, "NO_COLOR": "1"})
    assert "\x1b[" not in run("show", f"{TOY}:1").stdout  # not a terminal


def test_a_ten_megabyte_line_is_shown_by_its_ends_and_a_template_stays_within_its_budget(tmp_path: Path) -> None:
    text = ("All work and no play makes a dull model. " * 260_000)[:10 << 20]
    data = tmp_path / "big.jsonl"
    data.write_text(json.dumps({"messages": [{"role": "user", "content": text}, {"role": "assistant", "content": "ok"}]}) + "\n")
    r = run("show", f"{data}:1")  # OpenAI's job: the convention's parts, counted whole
    assert r.exit_code == 0, r.stderr
    assert len(r.stdout) < 10_000 and "characters]…" in r.stdout  # shown by its ends (--max-chars)
    view = shown(f"{data}:1")
    assert view["records"][0]["tokens"] > 2_000_000 and view["records"][0]["kept_tokens"] == 65_536  # the model's limit
    # through a chat template, the rendering stops at the budget (FT238, an error): the record is refused, not shown
    templated = shown(f"{data}:1", *QWEN)
    assert templated["rejected"] and "FT238" in {f["code"] for f in templated["findings"]}

"""Unsloth as a trainer of its own (--trainer unsloth), held to unsloth's code (read at
unslothai/unsloth@015bdef and unslothai/unsloth-zoo@ce232d6) and to transformers' tokenizers
(tests/mask_reference.py):

  get_chat_template(tokenizer, chat_template=NAME) sets CHAT_TEMPLATES[NAME] with its default
  system message (unsloth/chat_templates.py): --template-name NAME;
  train_on_responses_only(trainer, instruction_part, response_part) (unsloth_zoo/dataset_utils.py,
  force_match=True by default) tokenizes each part on its own, and in each row trains what follows
  every run of the response part's tokens up to where the instruction part's tokens next begin, or
  to the row's end; a row with no trained token is dropped (_filter_fully_masked) and none left is
  a ValueError ("masked every label to -100");
  sft_prepare_dataset tokenizes a text as it is: no eos appended (TRL's own add_eos appends one).
The matching below is this file's own code, written from those facts, over token ids transformers
gives: not ftlint's.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run
from mask_reference import hf_render, hf_tokenizer

IDENTITY = FIXTURES / "trainer_runs" / "trl" / "data" / "identity_messages.jsonl"
C4 = FIXTURES / "trainer_runs" / "trl" / "data" / "c4_demo.jsonl"
UNSLOTH = ROOT / "ftlint" / "chat" / "templates" / "unsloth"
QWEN = ("--trainer", "unsloth", "--model", "Qwen/Qwen2.5-0.5B-Instruct")
CHATML = ("<|im_start|>user\n", "<|im_start|>assistant\n")
LLAMA = ("<|start_header_id|>user<|end_header_id|>\n\n", "<|start_header_id|>assistant<|end_header_id|>\n\n")


def rows(path: Path, n: int | None = None) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()[:n] if line.strip()]


def trained_by_unsloth(ids: list[int], question: list[int], answer: list[int]) -> int:
    """How many labels train_on_responses_only leaves on: each span after the answer part to the
    next question part (or the end)."""
    trained, j, n = 0, 0, len(ids)
    while j < n:
        if ids[j:j + len(answer)] == answer:
            k = j + len(answer)
            q = next((i for i in range(k, n - 1) if ids[i:i + len(question)] == question), None)
            trained += (q if q is not None else n) - k
            j = q + len(question) if q is not None else n
        j += 1
    return trained


def estimate(*args: str) -> tuple[int, dict[str, Any]]:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return r.exit_code, json.loads(r.stdout)


def test_the_response_mask_follows_train_on_responses_only() -> None:
    from ftlint.chat.mask import responses_mask

    q, a = [1, 2], [3, 4]
    #        sys  Q    user  A     answer   Q    user  A     answer to the end
    ids = [9, 9, 1, 2, 7, 7, 3, 4, 5, 5, 6, 1, 2, 8, 3, 4, 6, 6]
    assert [i for i, bit in enumerate(responses_mask(ids, q, a)) if bit] == [8, 9, 10, 16, 17]
    assert not any(responses_mask([9, 1, 2, 7, 3, 9, 4], q, a))  # the answer part's tokens apart: never matched
    assert sum(responses_mask([3, 4, 5, 1, 2, 6, 1], q, a)) == 1  # up to where the next question part begins
    assert sum(responses_mask([3, 4, 5, 6, 1, 2], q, a)) == 2


@pytest.mark.parametrize(("name", "template"), [("chatml", UNSLOTH / "chatml.jinja"),
                                                ("qwen-2.5", FIXTURES / "templates" / "trl" / "qwen2_5.jinja")])
def test_unsloth_trains_what_follows_the_response_part(tmp_path: Path, name: str, template: Path) -> None:
    """unsloth's qwen-2.5 renders as Qwen 2.5's own template (ftlint/chat/templates/SOURCES.md): the
    fixture copy of it is what transformers renders here."""
    data = rows(IDENTITY, 30)
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in data), encoding="utf-8")
    tok = hf_tokenizer("qwen2.5")
    question, answer = (tok(part, add_special_tokens=False).input_ids for part in CHATML)
    tokens = trained = 0
    for r in data:
        _, ids, _ = hf_render(template, "qwen2.5", r["messages"], None, "", "<|im_end|>")
        tokens += len(ids)
        trained += trained_by_unsloth(ids, question, answer)
    code, e = estimate(str(path), *QWEN, "--template-name", name, "--instruction-part", r"<|im_start|>user\n",
                       "--response-part", r"<|im_start|>assistant\n")
    assert (e["trainer"], e["records"], e["tokens"], e["trainable_tokens"]) == ("unsloth", len(data), tokens, trained)
    assert code == 0 and 0 < trained < tokens


def test_parts_that_are_not_in_the_rendered_text_train_nothing_and_say_what_the_template_writes() -> None:
    """The failure users hit most: another model's headers (Llama 3's) on a ChatML-rendered run."""
    args = (str(IDENTITY), *QWEN, "--template-name", "chatml", "--instruction-part", LLAMA[0], "--response-part", LLAMA[1])
    r = run("check", *args)
    assert r.exit_code == 1
    found = [line for line in r.stdout.splitlines() if ":0:0: FT241 " in line]
    assert len(found) == 1 and found[0].startswith(f"{IDENTITY}:0:0:")
    said = found[0]
    assert repr(LLAMA[1]) in said and repr(LLAMA[0]) in said  # the parts, as given
    assert repr("<|im_end|>\n<|im_start|>assistant\n") in said and repr("<|im_end|>\n<|im_start|>user\n") in said
    code, e = estimate(*args)
    assert code == 1 and e["trainable_tokens"] == 0
    assert any(w["code"] == "FT511" and w["severity"] == "error" for w in e["warnings"])


def test_a_row_without_the_response_part_is_dropped(tmp_path: Path) -> None:
    data = rows(IDENTITY, 5)
    no_answer = {"messages": [m for m in data[0]["messages"] if m["role"] != "assistant"]}
    path = tmp_path / "train.jsonl"
    path.write_text("".join(json.dumps(r) + "\n" for r in [*data, no_answer]), encoding="utf-8")
    _, e = estimate(str(path), *QWEN, "--template-name", "chatml", "--instruction-part", CHATML[0], "--response-part", CHATML[1])
    _, kept = estimate(str(tmp_path / "train.jsonl"), *QWEN, "--template-name", "chatml")
    assert e["records"] == len(data) and kept["records"] == len(data) + 1  # only train_on_responses_only drops it


def test_a_text_is_tokenized_as_it_is_where_trl_appends_the_eos() -> None:
    tok = hf_tokenizer("qwen2.5")
    texts = [r["text"] for r in rows(C4)]
    own = sum(len(tok(t).input_ids) for t in texts)
    args = (str(C4), "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--max-seq-len", "100000")
    assert estimate(*args, "--trainer", "unsloth")[1]["tokens"] == own
    assert estimate(*args, "--trainer", "trl")[1]["tokens"] == own + len(texts)  # <|im_end|> after each


def test_unsloths_llama_3_1_is_metas_format_untrimmed_and_dated_26_july_2024(tmp_path: Path) -> None:
    """unsloth/chat_templates.py llama31_template: "No trimming in Llama 3.1 Instruct!", date_string
    "26 July 2024", an empty default system message: Meta's template (the test fixture) so changed."""
    meta = (FIXTURES / "templates" / "llama-3.1-8b-instruct.jinja").read_text(encoding="utf-8")
    theirs = meta.replace("|trim", "").replace(" | trim", "").replace('"26 Jul 2024"', '"26 July 2024"')
    assert theirs.count("trim") == 0 and theirs != meta
    template = tmp_path / "unsloth-llama-3.1.jinja"
    template.write_text(theirs, encoding="utf-8")
    case = {"messages": [{"role": "system", "content": "  Be brief.  "}, {"role": "user", "content": " Hi \n"},
                         {"role": "assistant", "content": "\nHello.  "}]}
    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps(case) + "\n", encoding="utf-8")
    _, ids, _ = hf_render(template, "llama3", case["messages"], None, "<|begin_of_text|>", "<|eot_id|>")
    _, e = estimate(str(data), "--trainer", "unsloth", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--template-name", "llama-3.1")
    _, trimmed = estimate(str(data), "--trainer", "trl", "--model", "meta-llama/Llama-3.1-8B-Instruct")
    assert e["tokens"] == len(ids) and trimmed["tokens"] < len(ids)


def test_unsloth_is_a_trainer_of_its_own_and_its_options_are_its_own() -> None:
    shown = run("trainers", "unsloth").stdout
    assert shown.startswith("unsloth: Unsloth") and "versions             unsloth 2026.8.19" in shown
    for option in ("--template-name", "--instruction-part", "--response-part", "--max-seq-len"):
        assert f"\n    {option} " in shown, option
    r = run("estimate", str(IDENTITY), "--trainer", "trl", "--model", "Qwen/Qwen2.5-0.5B-Instruct", "--response-part", "x")
    assert r.exit_code == 2 and "--response-part is unsloth's" in r.stderr
    r = run("estimate", str(IDENTITY), *QWEN, "--response-part", "x")
    assert r.exit_code == 2 and "together" in r.stderr
    for name, said in (("gemma-3", "not one ftlint renders"), ("no-such", "not a template unsloth's get_chat_template knows")):
        r = run("estimate", str(IDENTITY), *QWEN, "--template-name", name)
        assert r.exit_code == 2 and said in r.stderr, r.stderr

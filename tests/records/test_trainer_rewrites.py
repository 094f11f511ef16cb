"""What the trainer silently does to the text (issue 26): the system prompt a template drops
(FT239, read from the rendering), content that the trainer's tokenizer reads as a control token
(FT302, per trainer), and mistral-finetune's own rendering (--trainer mistral-finetune), compared
record by record with mistral-common.

The oracles are the references themselves: transformers' Jinja renderer on the shipped template,
mistral-common's Tekkenizer and its encode_chat_completion in finetuning mode (1.13 here; the
V3 Tekken encoding is the same in 1.5.4, the last version mistral-finetune imports: the figures
of these fixtures were compared under both)."""

from __future__ import annotations

import functools
import json
import re
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run

NEMO = "mistralai/Mistral-Nemo-Instruct-2407"
QWEN = "Qwen/Qwen2.5-7B-Instruct"
SILENT = FIXTURES / "silent"
TOY = FIXTURES / "oracle" / "toy_chat_fine_tuning.jsonl"  # the OpenAI cookbook's, with a system prompt on each line


@functools.cache
def _mistral() -> tuple[Any, Any]:
    """mistral-common's V3 Tekken tokenizer (the file mistral-finetune's MistralTokenizer.v3(is_tekken=True)
    loads), in finetuning mode, and its Tekkenizer."""
    import mistral_common
    from mistral_common.protocol.instruct.validator import ValidationMode
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    path = Path(mistral_common.__file__).parent / "data" / "tekken_240718.json"
    tokenizer = MistralTokenizer.from_file(str(path), mode=ValidationMode.finetuning)
    return tokenizer, tokenizer.instruct_tokenizer.tokenizer


def _mistral_common(record: dict) -> tuple[int, int]:
    """(tokens, trained tokens) of a record as mistral-finetune encodes it: mistral-common's
    encoding of the conversation, and every assistant message trained with its </s>
    (finetune/data/tokenize.py tokenize_instruct), its text stripped of trailing spaces."""
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    tokenizer, tekken = _mistral()
    tokens = tokenizer.encode_chat_completion(ChatCompletionRequest(messages=record["messages"], tools=record.get("tools")))
    trained = sum(len(tekken.encode(m["content"].rstrip(" "), bos=False, eos=True))
                  for m in record["messages"] if m["role"] == "assistant")
    return len(tokens.tokens), trained


def _hf_tokens(messages: list[dict]) -> tuple[str, int]:
    """The text transformers renders with Nemo's template (ftlint's shipped copy), and its tokens as
    a Hugging Face tokenizer makes them: each of the vocabulary's special tokens found in the text is
    one token, the text between them is encoded with the Tekken ranks."""
    from transformers.utils.chat_template_utils import render_jinja_template

    template = (ROOT / "ftlint" / "chat" / "templates" / "mistral-v3-tekken.jinja").read_text()
    (text,), _ = render_jinja_template(conversations=[messages], chat_template=template, bos_token="<s>", eos_token="</s>",
                                       add_generation_prompt=False)
    _, tekken = _mistral()
    specials = [tekken.id_to_piece(i) for i in range(tekken.num_special_tokens)]
    pieces = re.split("(" + "|".join(map(re.escape, sorted(specials, key=len, reverse=True))) + ")", text)
    return text, sum(len(tekken.encode(p, bos=False, eos=False)) for p in pieces[0::2] if p) + len(pieces) // 2


def _findings(*args: str) -> list[dict]:
    result = run("check", *args, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def _estimate(*args: str) -> dict:
    result = run("estimate", *args, "-o", "json")
    assert result.exit_code in (0, 1), result.stderr
    return json.loads(result.stdout)


def _lines(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_nemo_template_drops_the_system_prompt_and_ftlint_says_so_with_its_lines() -> None:
    path = str(SILENT / "nemo_system.jsonl")
    found = [f for f in _findings(path, "--model", NEMO) if f["code"] == "FT239"]
    assert len(found) == 1 and found[0]["line"] == 0 and found[0]["severity"] == "warning"
    # lines 1 and 3 have a system prompt, and both end with the answer: the template drops both
    assert "drops the system prompt of 2 records (lines 1, 3)" in found[0]["message"]
    assert "mistral-v3-tekken" in found[0]["message"]


def test_nemo_counts_under_trl_are_the_template_s_without_the_system_text() -> None:
    records = _lines(SILENT / "nemo_system.jsonl")
    expected = 0
    for record in records:
        text, tokens = _hf_tokens(record["messages"])
        system = [m["content"] for m in record["messages"] if m["role"] == "system"]
        assert all(s not in text for s in system)  # the reference renderer drops it too
        expected += tokens
    estimate = _estimate(str(SILENT / "nemo_system.jsonl"), "--model", NEMO)
    assert estimate["trainer"] == "trl"
    assert estimate["tokens"] == expected
    assert estimate["trainable_tokens"] == expected  # TRL's default loss: every token


def test_the_toy_chat_file_loses_every_system_prompt_to_the_nemo_template() -> None:
    found = _findings(str(TOY), "--model", NEMO)
    # line 3 has no system prompt; line 4 (a system prompt, then an answer) the template refuses (FT230)
    assert [f["line"] for f in found if f["code"] == "FT230"] == [4]
    (dropped,) = [f for f in found if f["code"] == "FT239"]
    assert "of 3 records (lines 1, 2, 5)" in dropped["message"]


def test_mistral_finetune_keeps_the_system_prompt_and_counts_as_mistral_common() -> None:
    path = SILENT / "nemo_system.jsonl"
    assert not [f for f in _findings(str(path), "--model", NEMO, "--trainer", "mistral-finetune") if f["code"] == "FT239"]
    estimate = _estimate(str(path), "--model", NEMO, "--trainer", "mistral-finetune")
    assert estimate["format"] == "mistral-finetune"
    figures = [_mistral_common(r) for r in _lines(path)]
    assert estimate["tokens"] == sum(t for t, _ in figures)
    assert estimate["trainable_tokens"] == sum(n for _, n in figures)


@pytest.mark.parametrize("line", [1, 2, 3, 5])  # line 4 (a system prompt, then an answer) mistral-finetune refuses
def test_mistral_finetune_record_by_record_on_the_cookbook_data(line: int, tmp_path: Path) -> None:
    record = _lines(TOY)[line - 1]
    path = tmp_path / "one.jsonl"
    path.write_text(json.dumps(record) + "\n")
    estimate = _estimate(str(path), "--model", NEMO, "--trainer", "mistral-finetune")
    assert (estimate["tokens"], estimate["trainable_tokens"]) == _mistral_common(record)


def test_mistral_finetune_tool_samples_each_train_their_last_answer(tmp_path: Path) -> None:
    # with tools, mistral-finetune makes one sample per assistant message, each training only its
    # last message (only_last; dataset.py maybe_chunk_lines), the trained call's id removed
    # (tokenize.py maybe_remove_call_id)
    from mistral_common.protocol.instruct.request import ChatCompletionRequest

    (record,) = _lines(SILENT / "nemo_tools.jsonl")
    tokenizer, tekken = _mistral()
    call = json.loads(json.dumps(record["messages"][1]))
    del call["tool_calls"][0]["id"]
    first = ChatCompletionRequest(messages=[record["messages"][0], call], tools=record["tools"])
    first_tokens = len(tokenizer.encode_chat_completion(first).tokens)
    answer = len(tekken.encode(record["messages"][3]["content"], bos=False, eos=True))
    whole = len(tokenizer.encode_chat_completion(ChatCompletionRequest(messages=record["messages"], tools=record["tools"])).tokens)
    # the call trained: [TOOL_CALLS], the call's JSON without its id, </s>
    function = record["messages"][1]["tool_calls"][0]["function"]
    dumped = json.dumps([{"name": function["name"], "arguments": json.loads(function["arguments"])}], ensure_ascii=False)
    call_trained = 1 + len(tekken.encode(dumped, bos=False, eos=True))
    estimate = _estimate(str(SILENT / "nemo_tools.jsonl"), "--model", NEMO, "--trainer", "mistral-finetune")
    assert estimate["records"] == 2
    assert estimate["tokens"] == first_tokens + whole
    assert estimate["trainable_tokens"] == call_trained + answer


def test_inst_in_user_text_is_a_control_token_under_trl() -> None:
    found = [f for f in _findings(str(SILENT / "nemo_inst.jsonl"), "--model", NEMO) if f["code"] == "FT302"]
    assert [(f["line"], f["pointer"]) for f in found] == [(1, "$.messages[0].content")]
    assert "[INST], [/INST]" in found[0]["message"] and "control token" in found[0]["message"]
    # and it is counted as the one token it becomes
    expected = sum(_hf_tokens(r["messages"])[1] for r in _lines(SILENT / "nemo_inst.jsonl"))
    estimate = _estimate(str(SILENT / "nemo_inst.jsonl"), "--model", NEMO)
    assert (estimate["tokens"], estimate["trainable_tokens"]) == (expected, expected)  # TRL's default loss: every token


def test_inst_in_user_text_is_plain_text_under_mistral_finetune() -> None:
    path = SILENT / "nemo_inst.jsonl"
    assert not [f for f in _findings(str(path), "--model", NEMO, "--trainer", "mistral-finetune") if f["code"] == "FT302"]
    estimate = _estimate(str(path), "--model", NEMO, "--trainer", "mistral-finetune")
    figures = [_mistral_common(r) for r in _lines(path)]
    assert estimate["tokens"] == sum(t for t, _ in figures)  # "[INST]" counted as its characters' tokens
    assert estimate["trainable_tokens"] == sum(n for _, n in figures)
    _, tekken = _mistral()
    assert len(tekken.encode("[INST]", bos=False, eos=False)) > 1  # so the two counts differ


def test_im_end_in_a_qwen_record_is_the_model_s_control_token_and_eot_id_is_not() -> None:
    found = [f for f in _findings(str(SILENT / "qwen_im_end.jsonl"), "--model", QWEN) if f["code"] == "FT302"]
    assert [(f["line"], f["pointer"]) for f in found] == [(1, "$.messages[0].content"), (2, "$.messages[0].content")]
    assert "control token <|im_end|>" in found[0]["message"]
    # Llama's marker is text to Qwen's tokenizer: the plain-text warning, not a control token
    assert "control token" not in found[1]["message"] and "plain text" in found[1]["message"]


def test_without_a_template_special_token_text_stays_the_plain_text_warning() -> None:
    found = [f for f in _findings(str(SILENT / "qwen_im_end.jsonl"), "--format", "trl-messages") if f["code"] == "FT302"]
    assert len(found) == 2 and all("plain text" in f["message"] and f["severity"] == "warning" for f in found)


def test_openai_rejects_a_file_that_spells_a_special_token(tmp_path: Path) -> None:
    """OpenAI's validation: "Example 6174 message contains an invalid token: <|fim_suffix|>"
    (johny-b/llmcomp#59, 2026-02). An error in OpenAI's own formats: the line is rejected."""
    lines = [{"messages": [{"role": "user", "content": "complete <|fim_suffix|>"}, {"role": "assistant", "content": "ok"}]},
             {"input": {"messages": [{"role": "user", "content": "<|im_start|>hi"}]},
              "preferred_output": [{"role": "assistant", "content": "a"}], "non_preferred_output": [{"role": "assistant", "content": "b"}]}]
    chat, preference = tmp_path / "chat.jsonl", tmp_path / "pref.jsonl"
    chat.write_text(json.dumps(lines[0]) + "\n")
    preference.write_text(json.dumps(lines[1]) + "\n")
    found = [f for f in _findings(str(chat), "--format", "openai-chat") if f["code"] == "FT302"]
    assert [(f["severity"], f["pointer"]) for f in found] == [("error", "$.messages[0].content")]
    assert "<|fim_suffix|>, a special token of OpenAI's tokenizers: OpenAI rejects the file" in found[0]["message"]
    assert run("check", str(chat), "--format", "openai-chat", "--select", "FT302").exit_code == 1
    # a spelling that is no token of OpenAI's: an error too, and said to be a reading of an unpublished rule
    found = [f for f in _findings(str(preference), "--format", "openai-preference") if f["code"] == "FT302"]
    assert [f["severity"] for f in found] == ["error"] and "which spellings is not published" in found[0]["message"]
    # Azure's format keeps the plain-text warning: OpenAI's rejection was seen on OpenAI's own jobs
    assert [f["severity"] for f in _findings(str(chat), "--format", "azure-openai-chat") if f["code"] == "FT302"] == ["warning"]


def test_openais_special_tokens_are_those_of_its_tokenizers() -> None:
    from ftlint.rules.tokens import OPENAI_SPECIAL
    from ftlint.tokens import get_encoding

    for name in ("cl100k_base", "o200k_base"):
        assert all(OPENAI_SPECIAL.fullmatch(token) for token in get_encoding(name).special_tokens_set)
    assert not OPENAI_SPECIAL.fullmatch("<|im_start|>") and not OPENAI_SPECIAL.fullmatch("<|eot_id|>")


def test_mistral_finetune_s_top_level_system_prompt_is_the_sample_s() -> None:
    # build_instruct_sample reads data["system_prompt"] as the sample's system prompt, as it would a system message
    path = FIXTURES / "peer-cases" / "mistral-finetune" / "valid_system_prompt_key.jsonl"
    (record,) = _lines(path)
    as_message = {"messages": [{"role": "system", "content": record["system_prompt"]}, *record["messages"]]}
    estimate = _estimate(str(path), "--model", NEMO, "--trainer", "mistral-finetune")
    assert (estimate["tokens"], estimate["trainable_tokens"]) == _mistral_common(as_message)

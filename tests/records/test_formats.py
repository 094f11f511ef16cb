"""Formats (issue 3): detection, goldens, and records / targets / tokens counted independently."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import FIXTURES, run
from ftlint.formats.registry import BY_SHAPE, FORMATS
from ftlint.tokens import get_encoding

DIRS = sorted(p for p in (FIXTURES / "formats").iterdir() if p.is_dir() and p.name != "mixed")
ENC = get_encoding("o200k_base")


def n(text: object) -> int:
    return len(ENC.encode_ordinary(text)) if isinstance(text, str) else 0


def compact(value: object) -> int:
    return n(json.dumps(value, separators=(",", ":"), ensure_ascii=False)) if value else 0


def args(d: Path) -> list[str]:
    f = d / "format.args"
    return f.read_text().split() if f.exists() else []


def rel(p: Path) -> str:
    return str(p.relative_to(FIXTURES.parent))


def estimate(path: Path, *extra: str, exits: tuple[int, ...] = (0,)) -> dict:
    r = run("estimate", rel(path), "-e", "1", "-o", "json", *extra)
    assert r.exit_code in exits, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("d", DIRS, ids=lambda d: d.name)
def test_good_fixture_is_clean_under_its_format(d: Path) -> None:
    r = run("check", rel(d / "good.jsonl"), *args(d), "--fail-on", "warning", "--ignore", "FT401")
    assert r.exit_code == 0, r.stdout
    assert estimate(d / "good.jsonl", *args(d))["format"] == d.name


@pytest.mark.parametrize("d", DIRS, ids=lambda d: d.name)
def test_detection_picks_the_format_of_the_shape(d: Path) -> None:
    # detected without --format, a file of a shared shape may be another format's, whose rules reject
    # every line: the estimate then fails (FT511, nothing would train), and still says the format
    detected = estimate(d / "good.jsonl", exits=(0, 1))
    expected = BY_SHAPE[FORMATS[d.name].shape] if args(d) else d.name  # shared shapes need --format
    if d.name == "bedrock-rft":
        expected = "openai-rft"  # within the messages shape, prompts with grader fields are RFT: OpenAI's is the default
    assert detected["format"] == expected
    if FORMATS[d.name].shape == "messages" and args(d):  # the reason names the formats sharing the shape
        assert "name yours with --format" in detected["format_reason"]


@pytest.mark.parametrize("d", [*DIRS, FIXTURES / "formats" / "mixed"], ids=lambda d: d.name)
def test_bad_fixture_golden(d: Path) -> None:
    r = run("check", rel(d / "bad.jsonl"), *args(d))
    golden = d / "bad.expected"
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        golden.write_text(r.stdout)
    assert r.stdout == golden.read_text()
    assert r.exit_code == 1


def test_mixed_file_is_flagged_by_line() -> None:
    out = json.loads(run("check", "fixtures/formats/mixed/bad.jsonl", "-o", "json").stdout)
    assert [(f["line"], f["code"]) for f in out] == [(11, "FT106"), (12, "FT106")]
    assert "prompt-completion" in out[0]["message"]


def _turns_tokens(turns: list[dict], content_key: str = "content") -> list[tuple[int, int]]:
    """(turn tokens with overhead, text tokens) by the documented convention."""
    out = []
    for t in turns:
        value = t.get(content_key)
        if isinstance(value, str):
            body = n(value)
        else:  # text parts by their text; a Gemini function call or response by its compact JSON
            body = sum(n(p["text"]) if "text" in p else sum(compact(p[k]) for k in ("functionCall", "functionResponse") if k in p)
                       for p in value or [])
        out.append((3 + n(t.get("role", "")) + body, body))  # a single turn may give no role (Gemini)
    return out


def test_cohere_expands_one_record_per_chatbot_turn() -> None:
    path = FIXTURES / "formats" / "cohere-chat" / "good.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    tokens = trainable = 0
    for rec in lines:
        sizes = _turns_tokens(rec["messages"])
        # Chatbot turns at 2 and 4: records are turns 0-2 and turns 0-4, each with 3 to prime
        tokens += (3 + sum(s for s, _ in sizes[:3])) + (3 + sum(s for s, _ in sizes[:5]))
        trainable += sizes[2][1] + sizes[4][1]
    e = estimate(path)
    assert (e["lines"], e["records"], e["targets"], e["messages"]) == (3, 6, 6, 15)
    assert (e["tokens"], e["trainable_tokens"]) == (tokens, trainable)


def test_vertex_expands_one_record_per_model_turn() -> None:
    path = FIXTURES / "formats" / "vertex-gemini" / "good.jsonl"
    tokens = 0
    records = 0
    for rec in (json.loads(x) for x in path.read_text().splitlines()):
        sizes = _turns_tokens(rec["contents"], "parts")
        base = 3 + compact(rec.get("systemInstruction") or rec.get("system_instruction")) + compact(rec.get("tools"))  # both spellings
        for k, turn in enumerate(rec["contents"]):
            if turn.get("role") == "model":
                tokens += base + sum(s for s, _ in sizes[: k + 1])
                records += 1
    e = estimate(path)
    # 16 lines of two model turns, one of two (a tool call, then the answer), one single turn without a user role
    assert (e["lines"], e["records"], e["targets"]) == (18, records, records) == (18, 35, 35)
    assert e["tokens"] == tokens


def test_mistral_finetune_expands_only_with_tools() -> None:
    path = FIXTURES / "formats" / "mistral-finetune" / "good.jsonl"
    e = estimate(path, "--format", "mistral-finetune")
    # 3 tool conversations with 2 assistant turns each -> 6 records; 7 plain ones -> 7
    assert (e["lines"], e["records"], e["targets"]) == (10, 13, 13)
    plain = estimate(path, "--format", "openai-chat")
    assert (plain["records"], plain["targets"]) == (10, 13)  # OpenAI: one record, both turns train


def test_multi_target_single_record_and_weights() -> None:
    path = FIXTURES / "formats" / "fireworks-chat" / "good.jsonl"
    e = estimate(path, "--format", "fireworks-chat")
    # 3 lines of user, assistant (weight 0), user, assistant: 1 record, 1 target each; 1 line of
    # user and an assistant tool call with reasoning_content (Fireworks documents both)
    assert (e["lines"], e["records"], e["targets"], e["messages"]) == (4, 4, 4, 14)
    recs = [json.loads(x) for x in path.read_text().splitlines()]
    plain, tool = recs[:3], recs[3]["messages"][1]
    call = tool["tool_calls"][0]["function"]
    # the reasoning trace trains with its turn, as the call's name and arguments do
    assert e["trainable_tokens"] == (sum(n(r["messages"][3]["content"]) for r in plain)
                                     + n(tool["reasoning_content"]) + n(call["name"]) + n(call["arguments"]))
    tools_line = 3 + compact(recs[3]["tools"]) + 3 + n("user") + n(recs[3]["messages"][0]["content"]) \
        + 3 + n("assistant") + n(tool["reasoning_content"]) + n(call["name"]) + n(call["arguments"])
    assert e["tokens"] == sum(3 + sum(3 + n(m["role"]) + n(m["content"]) for m in r["messages"]) for r in plain) + tools_line


def test_preference_and_prompt_completion_counts() -> None:
    pref = FIXTURES / "formats" / "openai-preference" / "good.jsonl"
    recs = [json.loads(x) for x in pref.read_text().splitlines()]
    e = estimate(pref)
    assert (e["records"], e["targets"]) == (10, 10)
    outputs = [(3 + n("assistant") + n(r[k][0]["content"]), n(r[k][0]["content"])) for r in recs for k in ("preferred_output", "non_preferred_output")]
    assert e["trainable_tokens"] == sum(b for _, b in outputs)
    assert e["tokens"] == sum(3 + sum(3 + n(m["role"]) + n(m["content"]) for m in r["input"]["messages"]) for r in recs) + sum(t for t, _ in outputs)
    pc = FIXTURES / "formats" / "prompt-completion" / "good.jsonl"
    recs = [json.loads(x) for x in pc.read_text().splitlines()]
    e = estimate(pc)
    assert (e["records"], e["targets"]) == (10, 10)
    assert (e["tokens"], e["trainable_tokens"]) == (sum(n(r["prompt"]) + n(r["completion"]) for r in recs), sum(n(r["completion"]) for r in recs))


def test_azure_accepts_a_bom_that_openai_reports() -> None:
    path = "fixtures/formats/azure-openai-chat/good.jsonl"
    assert "FT004" not in run("check", path, "--format", "azure-openai-chat").stdout
    assert "FT004" in run("check", path, "--format", "openai-chat").stdout


def test_formats_command() -> None:
    listing = run("formats").stdout
    assert all(name in listing for name in FORMATS)
    one = run("formats", "vertex-gemini")
    assert one.exit_code == 0 and "documented  no" in one.stdout
    assert run("formats", "nope").exit_code == 2


def test_a_format_limit_applies_unless_context_is_given(tmp_path: Path) -> None:
    long = " ".join(["word"] * 17_000)  # about 17,000 tokens: over Cohere's 16,384, under gpt-4.1-mini's 65,536
    path = tmp_path / "c.jsonl"
    path.write_text("".join(json.dumps({"messages": [{"role": "User", "content": f"{long} {i}"}, {"role": "Chatbot", "content": "ok"}]}) + "\n" for i in range(2)))
    out = run("check", str(path)).stdout
    assert "FT301" in out and "16,384-token limit of cohere-chat" in out
    assert "FT301" not in run("check", str(path), "--context", "100000").stdout
    e = json.loads(run("estimate", str(path), "-e", "1", "-o", "json").stdout)
    assert (e["context_limit"], e["records_over_limit"], e["tokens"]) == (16_384, 2, 2 * 16_384)


def test_nova_dpo_pair_counts_both_candidates_as_targets() -> None:
    path = FIXTURES / "formats" / "bedrock-nova-dpo" / "good.jsonl"
    tokens = trainable = 0
    for rec in (json.loads(x) for x in path.read_text().splitlines()):
        tokens += 3 + compact(rec["system"])
        for turn in rec["messages"]:
            if "candidates" in turn:
                for cand in turn["candidates"]:
                    body = sum(n(b["text"]) for b in cand["content"])
                    tokens, trainable = tokens + 3 + n("assistant") + body, trainable + body
            else:
                tokens += 3 + n(turn["role"]) + sum(n(b["text"]) for b in turn["content"])
    e = estimate(path)
    assert e["format"] == "bedrock-nova-dpo"  # detected: the last turn holds candidates
    assert (e["lines"], e["records"], e["tokens"], e["trainable_tokens"]) == (3, 3, tokens, trainable)


def test_reasoning_fields_are_counted_as_what_the_turn_trains(tmp_path: Path) -> None:
    """Together documents reasoning / reasoning_content on assistant messages: their tokens are the
    assistant turn's, so trainable (a message without weight 0)."""
    path = FIXTURES / "formats" / "together-conversational" / "good.jsonl"
    lines = [json.loads(x) for x in path.read_text().splitlines()]
    with_reasoning = [r for r in lines if any("reasoning" in m or "reasoning_content" in m for m in r["messages"])]
    assert len(with_reasoning) == 2
    expected = sum(n(m["content"]) + n(m.get("reasoning") or m.get("reasoning_content"))
                   for r in with_reasoning for m in r["messages"] if m["role"] == "assistant")
    data = tmp_path / "reasoning.jsonl"
    data.write_text("".join(json.dumps(r) + "\n" for r in with_reasoning))
    r = run("estimate", str(data), "--format", "together-conversational", "-e", "1", "-o", "json")
    assert json.loads(r.stdout)["trainable_tokens"] == expected


@pytest.mark.parametrize("name", ["together-conversational", "vertex-gemini", "bedrock-converse", "azure-openai-chat", "trl-messages"])
def test_formats_name_shows_the_catalogs_models_and_its_rules_sources(name: str) -> None:
    from ftlint.models import all_models

    out = run("formats", name).stdout
    models = [m.name for m in all_models().values() if name in m.formats]
    for model in models:
        assert model in out
    if not models:
        assert "none in the catalog" in out
    assert "schema from" in out
    cited = {"together-conversational": ("FT221 mixed-content-kinds (together/utils/files.py)",),
             "vertex-gemini": ("FT223 part-not-supported (github.com/googleapis/python-aiplatform/issues/6127)",),
             "bedrock-converse": ("FT216 media-outside-user-turn (docs.aws.amazon.com/bedrock/latest/userguide/model-customization-prepare)",)}
    for line in cited.get(name, ()):
        assert line in out


def test_nova2_reasoning_content_trains_with_its_turn(tmp_path: Path) -> None:
    """Nova 2's guide: the loss covers reasoning and answer tokens when reasoning is present."""
    path = FIXTURES / "formats" / "bedrock-nova" / "good.jsonl"
    line = [x for x in path.read_text().splitlines() if "reasoningContent" in x]
    assert len(line) == 1
    data = tmp_path / "nova2.jsonl"
    data.write_text(line[0] + "\n")
    r = run("estimate", str(data), "-e", "1", "-o", "json")
    blocks = json.loads(line[0])["messages"][1]["content"]
    assert json.loads(r.stdout)["trainable_tokens"] == compact(blocks[0]["reasoningContent"]) + n(blocks[1]["text"])


LF = FIXTURES / "datasets" / "llama-factory"


def test_sharegpt_real_file_records_targets_and_tokens() -> None:
    """LLaMA-Factory's glaive tool-call demo (a JSON array of ShareGPT conversations): one record per
    conversation; gpt and function_call turns are the targets; tokens by the convention."""
    data = json.loads((LF / "glaive_toolcall_en_demo.sample.json").read_text())
    e = estimate(LF / "glaive_toolcall_en_demo.sample.json")
    role = {"human": "user", "gpt": "assistant", "function_call": "assistant", "observation": "tool", "system": "system"}
    tokens = trainable = targets = 0
    for r in data:
        tokens += 3 + compact(r.get("tools"))
        for t in r["conversations"]:
            tokens += 3 + n(role[t["from"]]) + n(t["value"])
            if role[t["from"]] == "assistant":
                targets, trainable = targets + 1, trainable + n(t["value"])
    assert e["format"] == "sharegpt" and "sharegpt shape" in e["format_reason"]
    assert (e["lines"], e["records"], e["targets"], e["tokens"], e["trainable_tokens"]) == (40, 40, targets, tokens, trainable)


def test_alpaca_is_detected_as_alpaca_and_counted() -> None:
    """An Alpaca `input` string is not a preference input (the misdetection of LLaMA-Factory#5503):
    instruction and input make the user turn, output the target, history earlier turns."""
    data = json.loads((LF / "identity.json").read_text())
    e = estimate(LF / "identity.json")
    tokens = sum(3 + (3 + n("user") + n("\n".join(t for t in (r["instruction"], r["input"]) if t)))
                 + (3 + n("assistant") + n(r["output"])) for r in data)
    assert e["format"] == "alpaca"
    assert (e["records"], e["targets"], e["tokens"], e["trainable_tokens"]) == (91, 91, tokens, sum(n(r["output"]) for r in data))
    hist = estimate(FIXTURES / "formats" / "alpaca" / "good.jsonl")
    assert hist["targets"] == 5  # 4 outputs and the history answer, as LLaMA-Factory trains them (mask_history off)


def test_public_sharegpt_and_alpaca_arrays_are_read_as_their_trainers_read_them() -> None:
    """FastChat's own ShareGPT array (500 records) and torchtune's Alpaca array (100 records, with
    an extra `text` column trainers ignore): detected, valid, and counted as the convention says."""
    datasets = FIXTURES / "datasets"
    chats = json.loads((datasets / "fastchat" / "dummy_conversation.json").read_text())
    e = estimate(datasets / "fastchat" / "dummy_conversation.json")
    role = {"human": "user", "gpt": "assistant"}
    tokens = sum(3 + sum(3 + n(role[t["from"]]) + n(t["value"]) for t in r["conversations"]) for r in chats)
    trained = [t["value"] for r in chats for t in r["conversations"] if t["from"] == "gpt"]
    assert (e["format"], e["records"], e["invalid_lines"]) == ("sharegpt", 500, 0)
    assert (e["targets"], e["tokens"], e["trainable_tokens"]) == (1000, tokens, sum(map(n, trained)))
    rows = json.loads((datasets / "torchtune" / "alpaca_tiny.json").read_text())
    a = estimate(datasets / "torchtune" / "alpaca_tiny.json")
    tokens = sum(3 + (3 + n("user") + n("\n".join(t for t in (r["instruction"], r["input"]) if t)))
                 + (3 + n("assistant") + n(r["output"])) for r in rows)
    assert (a["format"], a["records"], a["invalid_lines"]) == ("alpaca", 100, 0)
    assert (a["targets"], a["tokens"], a["trainable_tokens"]) == (100, tokens, sum(n(r["output"]) for r in rows))
    for path in ("fastchat/dummy_conversation.json", "torchtune/alpaca_tiny.json"):
        r = run("check", str(datasets / path))
        assert r.exit_code == 0 and "0 errors, 0 warnings" in r.stdout


def test_public_records_in_the_hubs_containers_count_as_their_json_does() -> None:
    """FastChat's 500 ShareGPT records as the datasets library writes them (to_parquet, the Hub's
    Parquet; save_to_disk, an Arrow folder) and torchtune's Alpaca records in Tulu 3's columns
    (id, messages, source; to_parquet): read through polars, with the JSON array's figures, and the
    Tulu-style file counted as TRL's SFTTrainer reads it by default (the loss on every token;
    tools/make_public_containers.py wrote them)."""
    datasets = FIXTURES / "datasets"
    array = estimate(datasets / "fastchat" / "dummy_conversation.json")
    keys = ("format", "lines", "records", "targets", "tokens", "trainable_tokens", "invalid_lines")
    for container in ("dummy_conversation.parquet", "dummy_conversation.saved"):
        e = estimate(datasets / "fastchat" / container)
        assert [e[k] for k in keys] == [array[k] for k in keys], container
        assert "0 errors, 0 warnings" in run("check", str(datasets / "fastchat" / container)).stdout
    rows = json.loads((datasets / "torchtune" / "alpaca_tiny.json").read_text())
    tulu = estimate(datasets / "torchtune" / "alpaca_tiny.tulu.parquet", "--format", "trl-messages")
    prompts = ["\n".join(t for t in (r["instruction"], r["input"]) if t) for r in rows]
    tokens = sum(3 + (3 + n("user") + n(p)) + (3 + n("assistant") + n(r["output"])) for p, r in zip(prompts, rows, strict=True))
    assert (tulu["records"], tulu["targets"], tulu["invalid_lines"]) == (100, 200, 0)  # TRL's default: every message trains
    assert (tulu["tokens"], tulu["trainable_tokens"]) == (tokens, tokens)
    assert "0 errors, 0 warnings" in run("check", str(datasets / "torchtune" / "alpaca_tiny.tulu.parquet"), "--format", "trl-messages").stdout


def test_sharegpt_weights_leave_turns_out() -> None:
    e = estimate(FIXTURES / "formats" / "sharegpt" / "good.jsonl")
    rows = [json.loads(x) for x in (FIXTURES / "formats" / "sharegpt" / "good.jsonl").read_text().splitlines()]
    trained = [t for r in rows for t in r["conversations"] if t["from"] in ("gpt", "function_call") and t.get("weight") != 0]
    assert e["targets"] == len(trained) and e["trainable_tokens"] == sum(n(t["value"]) for t in trained)


def test_stepwise_counts_each_step_and_prompt_only_trains_no_span() -> None:
    path = FIXTURES / "formats" / "trl-stepwise" / "good.jsonl"
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    e = estimate(path)
    steps = sum(n(s) for r in rows for s in r["completions"])
    assert (e["records"], e["targets"], e["trainable_tokens"]) == (3, 6, steps)
    assert e["tokens"] == sum(3 + n(r["prompt"]) for r in rows) + steps
    po = estimate(FIXTURES / "formats" / "trl-prompt-only" / "good.jsonl")
    assert (po["format"], po["records"], po["targets"], po["trainable_tokens"]) == ("trl-prompt-only", 4, 0, 0)


MAPPING = FIXTURES / "mapping"


def test_llama_factory_mapping_reads_the_data_as_llama_factory_does() -> None:
    """--mapping dataset_info.json: renamed Alpaca columns and ShareGPT tags are read through the
    entry whose file_name is the input; a required column the record lacks is FT109."""
    info = str(MAPPING / "dataset_info.json")
    qa = run("check", str(MAPPING / "qa.json"), "--mapping", info, "--ignore", "FT4")
    assert "qa.json:8:1: FT109 the mapping qa reads the output from column 'answer'" in qa.stdout  # element 2 starts on line 8
    assert "(element 1" not in qa.stdout  # context (the query) and sys are read as Alpaca's input and system
    e = json.loads(run("estimate", str(MAPPING / "qa.json"), "--mapping", info, "-o", "json").stdout)
    rec = json.loads((MAPPING / "qa.json").read_text())[0]
    assert (e["format"], e["records"]) == ("alpaca", 1)
    assert e["tokens"] == 3 + (3 + n("system") + n(rec["sys"])) + (3 + n("user") + n(rec["question"])) + (3 + n("assistant") + n(rec["answer"]))
    chats = run("check", str(MAPPING / "chats.jsonl"), "--mapping", info, "--ignore", "FT4")
    assert "chats.jsonl:1:" not in chats.stdout and ':2:1: FT104 from "bot" is not allowed' in chats.stdout
    assert run("check", str(MAPPING / "chats.jsonl"), "--mapping", info, "--format", "openai-chat").exit_code == 2
    assert "no dataset 'nope'" in run("check", str(MAPPING / "qa.json"), "--mapping", info + ":nope").stderr


def test_a_mappings_missing_columns_are_checked_on_the_record_as_read(tmp_path: Path) -> None:
    """FT109 is checked before the mapped record meets the shape gate: a record of another shape
    (FT106, which stops the record checks) still names each column the mapping lacks."""
    data = tmp_path / "t.jsonl"
    data.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}) + "\n")
    out = run("check", str(data), "--mapping", str(MAPPING / "dataset_info.json") + ":qa", "--ignore", "FT4", "-o", "json").stdout
    assert [(f["code"], f["pointer"]) for f in json.loads(out)] == [("FT106", None), ("FT109", "$.question"), ("FT109", "$.answer")]


def test_axolotl_config_reads_field_messages_property_mappings_and_roles() -> None:
    config = str(MAPPING / "axolotl.yaml")
    out = run("check", str(MAPPING / "turns.jsonl"), "--mapping", config, "--ignore", "FT4").stdout
    assert "turns.jsonl:1:" not in out  # client/agent under speaker/text, in dialogue: read as user and assistant
    assert ":3:1: FT109 the mapping axolotl.yaml:turns.jsonl reads the messages from column 'dialogue'" in out
    # axolotl hands the messages to the model's chat template as they are: OpenAI-style messages, axolotl's run
    e = json.loads(run("estimate", str(MAPPING / "turns.jsonl"), "--mapping", config, "-o", "json").stdout)
    assert (e["format"], e["records"], e["trainer"]) == ("trl-messages", 1, "axolotl")
    assert "index" in run("check", str(MAPPING / "qa.json"), "--mapping", config + ":7").stderr


def test_a_file_named_for_a_format_of_its_shape_is_read_as_it(tmp_path: Path) -> None:
    """Fireworks' messages look like OpenAI's: a file converted --to fireworks-chat and named so
    is read as fireworks-chat (and not priced as OpenAI's default model); the longest format name
    in a file name wins; a name never makes records of another shape that format."""
    out = tmp_path / "train.fireworks-chat.jsonl"
    done = run("convert", "fixtures/formats/fireworks-chat/good.jsonl", str(out), "--to", "fireworks-chat")
    assert done.exit_code in (0, 1) and "reads it as" not in done.stdout + done.stderr
    e = json.loads(run("estimate", str(out), "-o", "json").stdout)
    assert (e["format"], e["trainer"], e["model"]) == ("fireworks-chat", "fireworks", "(none named)")
    assert e["cost_usd"] is None and "the file's name says fireworks-chat" in e["format_reason"]
    plain = tmp_path / "converted.jsonl"
    said = run("convert", "fixtures/formats/fireworks-chat/good.jsonl", str(plain), "--to", "fireworks-chat")
    assert "ftlint reads it as openai-chat unless its name says fireworks-chat" in said.stdout + said.stderr
    assert json.loads(run("estimate", str(plain), "-o", "json").stdout)["format"] == "openai-chat"
    azure = tmp_path / "azure-openai-chat.jsonl"
    azure.write_bytes(out.read_bytes())
    assert json.loads(run("estimate", str(azure), "-o", "json").stdout)["format"] == "azure-openai-chat"
    other = tmp_path / "chats.fireworks-chat.jsonl"
    other.write_text(json.dumps({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}) + "\n")
    assert json.loads(run("estimate", str(other), "-o", "json").stdout)["format"] == "sharegpt"


def test_findings_on_mapped_data_name_the_records_own_keys(tmp_path: Path) -> None:
    """The rules judge the mapped view (messages, role, content; conversations, from, value); a
    finding names the record as the file holds it: the column, and the turn's own keys. A column
    the record lacks is said once, by the mapping's check (FT109), not again as the view's FT101."""
    axolotl = tmp_path / "axolotl.yaml"
    axolotl.write_text("datasets:\n  - path: sharegpt.jsonl\n    type: chat_template\n    field_messages: conversations\n"
                       "    message_property_mappings:\n      role: from\n      content: value\n"
                       "    roles:\n      user: [human]\n      assistant: [gpt]\n")
    data = tmp_path / "sharegpt.jsonl"
    data.write_text(json.dumps({"conversations": [{"from": "human", "value": "hi"}, {"from": "bot", "value": "yo"}]}) + "\n"
                    + json.dumps({"turns": []}) + "\n")
    found = json.loads(run("check", str(data), "--mapping", str(axolotl), "--select", "FT1,FT2", "-o", "json").stdout)
    assert [(f["line"], f["code"], f["pointer"]) for f in found] == [
        (1, "FT104", "$.conversations[1].from"), (1, "FT201", "$.conversations"), (2, "FT109", "$.conversations")]
    # LLaMA-Factory's ShareGPT columns and tags: role/content turns under messages, read as from/value
    lf = json.loads(run("check", str(MAPPING / "chats.jsonl"), "--mapping", f"{MAPPING / 'dataset_info.json'}:chats",
                        "-o", "json").stdout)
    assert [(f["code"], f["pointer"]) for f in lf if f["line"] == 2] == [("FT104", "$.messages[1].role"), ("FT201", "$.messages")]

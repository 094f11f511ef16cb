"""The trainer decides what a file must be and what a run costs: the issue's cases, as a user runs them."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from conftest import FIXTURES, run

FASTCHAT = FIXTURES / "datasets" / "fastchat" / "dummy_conversation.json"  # 500 real ShareGPT records (FastChat, Apache-2.0)
TOGETHER_LLAMA = "together/meta-llama/Meta-Llama-3.1-8B-Instruct-Reference"


@pytest.fixture(scope="module")
def sharegpt_jsonl(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """FastChat's records one per line, as a Together upload would be."""
    out = tmp_path_factory.mktemp("sharegpt") / "sharegpt.jsonl"
    out.write_text("".join(json.dumps(r) + "\n" for r in json.loads(FASTCHAT.read_text())))
    return out


def test_a_together_model_refuses_a_sharegpt_file_as_together_does(sharegpt_jsonl: Path, tmp_path: Path) -> None:
    """On main, `check sharegpt --model together/...` exited 0 while Together's own checker rejects
    the file; converted as the finding says, both pass it."""
    os.environ.setdefault("TQDM_DISABLE", "1")
    check_file = pytest.importorskip("together.utils", reason="the test extra installs together<2").check_file
    assert check_file(sharegpt_jsonl)["is_check_passed"] is False
    out = run("check", str(sharegpt_jsonl), "--model", TOGETHER_LLAMA)
    assert out.exit_code == 1
    assert (f"FT110 sharegpt is not a format together takes (together-conversational, together-instruction, together-preference, "
            f"text); ftlint convert {sharegpt_jsonl} OUT --to together-conversational") in out.stdout
    converted = tmp_path / "together.jsonl"
    made = run("convert", str(sharegpt_jsonl), str(converted), "--to", "together-conversational")
    assert made.exit_code == 0, made.stdout + made.stderr
    assert check_file(converted)["is_check_passed"] is True
    again = run("check", str(converted), "--model", TOGETHER_LLAMA)
    assert again.exit_code == 0, again.stdout


def test_an_openai_model_does_not_price_a_sharegpt_file() -> None:
    """On main, `estimate sharegpt --model gpt-4o-mini-2024-07-18` printed a cost for a file OpenAI refuses."""
    out = run("estimate", str(FASTCHAT), "--model", "gpt-4o-mini-2024-07-18", "-o", "json")
    assert out.exit_code == 1
    e = json.loads(out.stdout)
    assert any(w["code"] == "FT110" and "sharegpt is not a format openai takes" in w["message"] for w in e["warnings"])


def test_estimate_fails_when_no_line_is_left(tmp_path: Path) -> None:
    """On main, `estimate` exited 0 with every line rejected, so a --max-cost gate passed a file the
    provider refuses."""
    bad = tmp_path / "bad.jsonl"
    bad.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}]}) + "\n" * 1 * 1)
    out = run("estimate", str(bad), "--model", "gpt-4o-mini-2024-07-18", "--epochs", "3", "--max-cost", "1000", "-o", "json")
    assert out.exit_code == 1
    e = json.loads(out.stdout)
    assert e["records"] == 0 and e["cost_usd"] == 0
    assert [w["code"] for w in e["warnings"] if w["severity"] == "error"] == ["FT511"]


def test_estimate_fails_when_the_template_trains_nothing(tmp_path: Path) -> None:
    """On main, `estimate --assistant-only-loss` with a template that marks no generation printed
    "trainable tokens 0" and exited 0: TRL trains no token of such a run."""
    template = tmp_path / "plain.jinja"
    template.write_text("{% for m in messages %}<|{{ m.role }}|>{{ m.content }}\n{% endfor %}")
    out = run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "--trainer", "trl", "--tokenizer", "qwen2",
              "--chat-template", str(template), "--assistant-only-loss", "--epochs", "1", "-o", "json")
    assert out.exit_code == 1, out.stdout + out.stderr
    e = json.loads(out.stdout)
    assert e["trainable_tokens"] == 0 and e["records"] == 103
    assert any(w["code"] == "FT511" and w["severity"] == "error" for w in e["warnings"])


def test_a_mistral_finetune_run_is_its_max_steps_of_packed_rows() -> None:
    """mistral-finetune has no epochs: it runs TrainArgs.max_steps (100) optimizer steps over an
    endless iterator of rows of seq_len (2,048) tokens, every sample concatenated (finetune/args.py,
    finetune/data/dataset.py sequence_iterator). On main it was planned with OpenAI's epoch heuristic."""
    data = FIXTURES / "peer-cases" / "mistral-finetune" / "valid_multi_turn.jsonl"
    out = run("estimate", str(data), "--trainer", "mistral-finetune", "--model", "mistralai/Mistral-Nemo-Instruct-2407", "-o", "json")
    e = json.loads(out.stdout)
    assert e["total_steps"] == 100 and e["max_steps"] == 100
    assert e["sequences"] == -(-e["tokens"] // 2048)  # rows of seq_len, every sample concatenated
    assert e["steps_per_epoch"] == -(-e["sequences"] // (1 * 1 * 1))  # batch_size 1 x num_microbatches 1 x 1 GPU
    assert "max_steps 100: mistral-finetune's default" in e["sources"]["max_steps"]
    assert "cookbook" not in e["epochs_source"]
    assert e["truncation"]["rule"] == "split" and e["truncation"]["trainable_cut"] == 0


def test_axolotl_trains_the_assistant_turns_of_messages_data() -> None:
    """axolotl's chat_template trains roles_to_train ['assistant'] with train_on_eos 'turn'
    (src/axolotl/prompt_strategies/chat_template.py); TRL's default loss trains every token. The
    same OpenAI-shaped file (read as trl-messages) trained all 77,801 tokens under axolotl too."""
    from ftlint.tokens import get_encoding

    path = FIXTURES / "good" / "drone_training.jsonl"
    records = [json.loads(line) for line in path.read_text().splitlines()]
    enc = get_encoding("o200k_base")  # tiktoken's encoding of the ranks ftlint ships
    # ftlint's token convention without a template (o200k_base, OpenAI's): an assistant turn
    # trains its content (or its tool calls' JSON) and the end of its turn
    axolotl = json.loads(run("estimate", str(path), "--trainer", "axolotl", "--max-seq-len", "4096", "-o", "json").stdout)
    trl = json.loads(run("estimate", str(path), "--trainer", "trl", "--max-seq-len", "4096", "-o", "json").stdout)
    assert trl["trainable_tokens"] == trl["tokens"]
    assert axolotl["tokens"] == trl["tokens"]
    assistant_turns = sum(1 for r in records for m in r["messages"] if m["role"] == "assistant")
    assert axolotl["targets"] == assistant_turns
    content = sum(len(enc.encode(m["content"])) for r in records for m in r["messages"] if m["role"] == "assistant" and m.get("content"))
    assert content <= axolotl["trainable_tokens"] < trl["tokens"] // 10
    # the assistant turns' tokens under the convention are what an OpenAI job trains of the file
    # (its figure is derived independently in tests/plan/test_estimate.py)
    openai = json.loads(run("estimate", str(path), "--format", "openai-chat", "-o", "json").stdout)
    assert axolotl["trainable_tokens"] == openai["trainable_tokens"] == 1_099


def test_llama_factory_without_its_template_named_makes_the_count_an_estimate() -> None:
    """LLaMA-Factory renders with the template its YAML names from its own registry
    (data/template.py; tests/oracles/test_replay_llama_factory.py holds ftlint's renderer to its runs);
    named by --trainer alone, no template is known, and the counts are labelled an estimate,
    never exact, while the same model under TRL (its Hugging Face template, compared in
    tests/oracles/test_differential.py) is exact."""
    path = str(FIXTURES / "good" / "drone_training.jsonl")
    lf = json.loads(run("estimate", path, "--trainer", "llama-factory", "--model", "Qwen/Qwen2.5-7B-Instruct", "-o", "json").stdout)
    trl = json.loads(run("estimate", path, "--trainer", "trl", "--model", "Qwen/Qwen2.5-7B-Instruct", "-o", "json").stdout)
    assert lf["tokens_exact"] is False and "no template is set" in lf["tokens_note"]
    assert trl["tokens_exact"] is True and trl["tokens_note"] == ""

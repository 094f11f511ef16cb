"""Small frictions a new user met (issue 29), each as the user sees it."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES, run


def test_a_folder_that_is_no_dataset_is_one_line_and_no_summary(tmp_path: Path) -> None:
    """On main, `check DIR` printed "checked 0 files ... 0 errors" on stdout before its error."""
    (tmp_path / "notes.txt").write_text("not data\n")
    out = run("check", str(tmp_path))
    assert out.exit_code == 2
    assert out.stdout == ""
    assert out.stderr.strip() == f"ftlint: error: {tmp_path}: is a directory, not a JSONL file (nor a datasets.save_to_disk folder)"


def test_one_full_batch_is_singular(tmp_path: Path) -> None:
    """On main: "1 full batches and one of 3"."""
    record = {"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}]}
    data = tmp_path / "small.jsonl"
    data.write_text("".join(json.dumps(record) + "\n" for _ in range(13)))
    out = run("estimate", str(data), "--batch-size", "10", "--epochs", "1")
    assert "= ceil(13 / 10): 1 full batch and one of 3 (a partial last batch)" in out.stdout


def test_the_record_rule_says_assistant_only_loss_when_it_is_on() -> None:
    """On main the records row said "(assistant_only_loss=False)" while --assistant-only-loss was set."""
    out = run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "--model", "Qwen/Qwen2.5-7B-Instruct",
              "--assistant-only-loss", "--chat-template", str(FIXTURES / "templates" / "trl" / "qwen2_5_training.jinja"),
              "--max-seq-len", "4096", "-o", "json")
    e = json.loads(out.stdout)
    assert "assistant_only_loss=True" in e["record_rule"] and "assistant_only_loss=False" not in e["record_rule"]
    plain = json.loads(run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "--trainer", "trl", "-o", "json").stdout)
    assert "assistant_only_loss=False" in plain["record_rule"]


def test_g_is_no_longer_grad_accum() -> None:
    """`-g` read as gradient accumulation where users expect GPUs: it is gone, a clear usage error
    (exit 2), never another meaning silently; --grad-accum and --gpus say what they are."""
    out = run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "-g", "2")
    assert out.exit_code == 2 and "No such option '-g'" in out.stderr
    both = json.loads(run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "--grad-accum", "2", "--gpus", "4",
                          "--batch-size", "1", "--epochs", "1", "-o", "json").stdout)
    assert (both["grad_accum"], both["gpus"], both["effective_batch_size"]) == (2, 4, 8)


def test_mapping_help_names_axolotl() -> None:
    out = run("check", "--help")
    assert "axolotl YAML" in " ".join(out.stdout.split())


def test_markdown_says_the_model_was_assumed() -> None:
    """On main only the text output said that no --model was given and a default was assumed."""
    out = run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "-o", "markdown")
    assert "> model assumed: gpt-4.1-mini-2025-04-14: the default of openai for openai-chat; name yours with --model" in out.stdout
    named = run("estimate", str(FIXTURES / "good" / "drone_training.jsonl"), "--model", "gpt-4o-mini-2024-07-18", "-o", "markdown")
    assert "assumed" not in named.stdout


def test_a_chat_template_counted_with_a_vocabulary_of_no_added_token_has_no_control_token(tmp_path: Path) -> None:
    """On main a --chat-template counted with o200k_base (no model named: no added token known) split
    its text between every two characters: FT302 said each record "spells the model's control token"
    (an empty one) and the counts were of single characters."""
    import tiktoken

    from conftest import tiktoken_offline

    tiktoken_offline()
    template = tmp_path / "chatml.jinja"
    template.write_text("{% for m in messages %}{{ '<|im_start|>' + m.role + '\\n' + m.content + '<|im_end|>\\n' }}{% endfor %}")
    record = {"messages": [{"role": "user", "content": "hi there"}, {"role": "assistant", "content": "hello, friend"}]}
    data = tmp_path / "train.jsonl"
    data.write_text(json.dumps(record) + "\n")
    out = run("check", str(data), "--trainer", "trl", "--chat-template", str(template))
    assert "FT302" not in out.stdout, out.stdout
    e = json.loads(run("estimate", str(data), "--trainer", "trl", "--chat-template", str(template), "-o", "json").stdout)
    text = "".join(f"<|im_start|>{m['role']}\n{m['content']}<|im_end|>\n" for m in record["messages"])
    assert e["tokens"] == len(tiktoken.get_encoding("o200k_base").encode_ordinary(text))

"""What TRL's SFTTrainer does to a plain row before it counts (huggingface/trl@f2cd577
trl/trainer/sft_trainer.py _prepare_dataset), beyond the recorded cases (tests/oracles/test_replay_trl.py,
all on Qwen, whose tokenizer puts nothing before a text):

  a plain text or prompt is encoded by `processing_class(text=...)` (trl/data_utils.py _tokenize),
  with the tokenizer's special tokens: Llama 3's tokenizer.json post_processor is
  TemplateProcessing "<|begin_of_text|> $A", so each row starts with that token, trained in a text
  (its label is not -100) and not in a prompt;
  add_eos appends the eos (SFTConfig.eos_token, else the tokenizer's) unless the row ends with it.

The tokens are counted here by transformers' own tokenizer over Llama 3's ranks
(tests/mask_reference.py), which has no post_processor: its counts plus one are the trainer's.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run
from mask_reference import hf_tokenizer

LLAMA = ("--trainer", "trl", "--model", "meta-llama/Llama-3.1-8B-Instruct")


def figures(path: Path, *args: str) -> tuple[int, int]:
    r = run("estimate", str(path), *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    e = json.loads(r.stdout)
    return e["tokens"], e["trainable_tokens"]


def test_a_llama_text_row_starts_with_its_bos_and_ends_with_its_eos(tmp_path: Path) -> None:
    tok = hf_tokenizer("llama3")
    texts = ["Hello there.", "Spiders have eight legs; insects have six.", "ends with its eos<|eot_id|>"]
    path = tmp_path / "text.jsonl"
    path.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    own = [len(tok(t.removesuffix("<|eot_id|>") + "<|eot_id|>").input_ids) for t in texts]  # add_eos, once
    assert figures(path, *LLAMA) == (sum(own) + len(texts),) * 2  # + <|begin_of_text|>, every token trained


def test_a_llama_prompt_and_completion_are_one_text_the_bos_in_the_prompt(tmp_path: Path) -> None:
    tok = hf_tokenizer("llama3")
    rows = [("Q: 2+2?", " 4"), ("Name a colour.", " Blue, as the sky.")]
    path = tmp_path / "pc.jsonl"
    path.write_text("".join(json.dumps({"prompt": p, "completion": c}) + "\n" for p, c in rows), encoding="utf-8")
    whole = [1 + len(tok(p + c + "<|eot_id|>").input_ids) for p, c in rows]
    prompt = [1 + len(tok(p).input_ids) for p, _ in rows]
    assert figures(path, *LLAMA) == (sum(whole), sum(whole) - sum(prompt))
    assert figures(path, *LLAMA, "--no-completion-only-loss") == (sum(whole), sum(whole))


def test_eos_token_from_the_config_is_the_one_appended(tmp_path: Path) -> None:
    """eos_token '<|im_end|>' on a base Qwen model, whose own eos is <|endoftext|>: a text already
    ending with <|im_end|> gets nothing more, one ending with <|endoftext|> gets <|im_end|>."""
    tok = hf_tokenizer("qwen2.5")
    texts = ["first<|im_end|>", "second<|endoftext|>"]
    data = tmp_path / "text.jsonl"
    data.write_text("".join(json.dumps({"text": t}) + "\n" for t in texts), encoding="utf-8")
    config = tmp_path / "sft.yaml"
    config.write_text("model_name_or_path: Qwen/Qwen2.5-0.5B\neos_token: '<|im_end|>'\n", encoding="utf-8")
    expected = len(tok("first<|im_end|>").input_ids) + len(tok("second<|endoftext|><|im_end|>").input_ids)
    assert figures(data, "--run", str(config))[0] == expected


def test_a_base_qwen_models_own_eos_is_appended(tmp_path: Path) -> None:
    """Qwen/Qwen2.5-0.5B's eos_token is <|endoftext|>, not its Instruct model's <|im_end|>: a text
    ending with it gets nothing more, one ending with <|im_end|> gets <|endoftext|>."""
    tok = hf_tokenizer("qwen2.5")
    config = tmp_path / "sft.yaml"
    config.write_text("model_name_or_path: Qwen/Qwen2.5-0.5B\n", encoding="utf-8")
    for text, trained in (("first<|endoftext|>", "first<|endoftext|>"), ("second<|im_end|>", "second<|im_end|><|endoftext|>")):
        data = tmp_path / "text.jsonl"
        data.write_text(json.dumps({"text": text}) + "\n", encoding="utf-8")
        assert figures(data, "--run", str(config))[0] == len(tok(trained).input_ids), text

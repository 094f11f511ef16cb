"""A model folder read as the trainer reads it (issue 34, item 11): `--tokenizer DIR` and
`--chat-template DIR` on folders that transformers itself saved, compared with transformers'
own AutoTokenizer over the same folder: the tokens of every record as apply_chat_template(...,
tokenize=True) makes them, and the rendered text.
"""

from __future__ import annotations

import json
from pathlib import Path

from conftest import FIXTURES, run

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def test_a_template_without_added_tokens_counts_its_text_once(tmp_path: Path) -> None:
    """A template over a vocabulary that has none of its markers as added tokens (o200k_base has
    no <|im_start|>): the rendered text is counted as text, each character once, and no string
    of the data is taken for a control token (it was: 7x the tokens, and FT302 on every string)."""
    import tiktoken
    from jinja2.sandbox import ImmutableSandboxedEnvironment

    from conftest import tiktoken_offline

    template = tmp_path / "chatml.jinja"
    template.write_text(CHATML)
    data = FIXTURES / "truncation" / "drone_heldout.jsonl"
    render = ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True).from_string(CHATML).render
    tiktoken_offline()
    encoding = tiktoken.get_encoding("o200k_base")
    expected = sum(len(encoding.encode_ordinary(render(messages=r["messages"], add_generation_prompt=False)))
                   for r in _records(data))
    out = run("estimate", str(data), "--tokenizer", "o200k_base", "--chat-template", str(template), "--format", "trl-messages",
              "-o", "json", "-e", "1")
    assert json.loads(out.stdout)["tokens"] == expected
    checked = run("check", str(data), "--tokenizer", "o200k_base", "--chat-template", str(template), "--format", "trl-messages")
    assert "FT302" not in checked.stdout

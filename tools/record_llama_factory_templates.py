"""Record how LLaMA-Factory's own templates encode a few conversations, for
tests/oracles/test_llama_factory_templates.py. Not part of the suite: it runs in LLaMA-Factory's
environment (tools/trainer_oracle/setup_envs.sh, hiyouga/LLaMA-Factory@ff6d4d1) with a tokenizer
folder built from ftlint's Qwen ranks (tools/trainer_oracle/tiny_model.py, Qwen3-4B-Instruct-2507's
added tokens, eos <|im_end|>, no bos):

    /work/envs/llamafactory/bin/python tools/record_llama_factory_templates.py \\
        /work/envs/llamafactory/oracle-models/Qwen--Qwen3-4B-Instruct-2507 fixtures/llama_factory/templates.json

For each template ftlint renders (ftlint/trainers/llama_factory/templates.py, its names read from
that file's text) and each conversation below, a fresh tokenizer is fixed by LLaMA-Factory's
get_template_and_fix_tokenizer (its stop words added, its eos replaced) and the conversation is
encoded by the template's own encode_multiturn and encode_oneturn: the tokens of each (prompt,
answer) pair; and by SupervisedDatasetProcessor._encode_data_example, whole and cut at 24 tokens,
plain, with train_on_prompt and with mask_history: the sequence's tokens and its trained ones
(a template whose mm_plugin wants the model's processor is left out of that: a text tokenizer
has none). Every template also with enable_thinking false. The tool prompt of llama3 writes
today's date: the date is recorded.
"""
from __future__ import annotations

import datetime
import json
import re
import sys
from pathlib import Path

TOOLS = json.dumps([{"name": "get_weather", "description": "Weather of a city",
                     "parameters": {"type": "object", "properties": {"city": {"type": "string", "description": "the city"},
                                                                     "unit": {"type": "string", "enum": ["c", "f"]}},
                                    "required": ["city"]}}])
CALL = json.dumps({"name": "get_weather", "arguments": {"city": "Paris", "unit": "c"}})
CONVERSATIONS = {
    "one_turn": ([("user", "What is 2 + 2?"), ("assistant", "2 + 2 is 4.")], "", ""),
    "system_two_turns": ([("user", "Hi there"), ("assistant", "Hello! How can I help?"), ("user", "Name a colour."),
                          ("assistant", "Blue.")], "You answer briefly.", ""),
    "thought": ([("user", "Think first: 3 x 7?"), ("assistant", "<think>\n3 x 7 = 21\n</think>\n\n21")], "", ""),
    "tools": ([("user", "Weather in Paris?"), ("function", CALL), ("observation", '{"temp": 18}'),
               ("assistant", "It is 18 degrees in Paris.")], "", TOOLS),
    "unicode": ([("user", "Traduis « bonjour » en 日本語"), ("assistant", "こんにちは — konnichiwa")], "Tu es utile.", ""),
}


def names(root: Path) -> list[str]:
    text = (root / "ftlint" / "trainers" / "llama_factory" / "templates.py").read_text(encoding="utf-8")
    return sorted(set(re.findall(r'(?:Template|_qwen|_gemma)\("([a-z0-9_.-]+)"', text)))


# SupervisedDatasetProcessor._encode_data_example's data arguments: (label, cutoff_len, train_on_prompt, mask_history)
PROCESSOR = (("whole", 4096, False, False), ("cut", 24, False, False), ("prompt", 4096, True, False), ("prompt_cut", 24, True, False),
             ("history", 4096, False, True), ("history_cut", 24, False, True))


def template_of(folder: str, name: str, thinking: bool) -> tuple:
    """A fresh tokenizer, fixed by LLaMA-Factory for the template (its stop words added, its eos replaced)."""
    from llamafactory.data import get_template_and_fix_tokenizer
    from llamafactory.hparams import DataArguments
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(folder)
    return tokenizer, get_template_and_fix_tokenizer(tokenizer, DataArguments(template=name, enable_thinking=thinking))


def encoded(tokenizer: object, template: object, name: str, messages: list, system: str, tools: str, thinking: bool) -> dict:
    from llamafactory.data.processor import SupervisedDatasetProcessor
    from llamafactory.hparams import DataArguments

    turns = [{"role": role, "content": content} for role, content in messages]
    pairs = template.encode_multiturn(tokenizer, turns, system, tools)  # type: ignore[attr-defined]
    prompt, answer = template.encode_oneturn(tokenizer, turns, system, tools)  # type: ignore[attr-defined]
    out: dict = {"multiturn": [[len(s), len(t)] for s, t in pairs], "oneturn": [len(prompt), len(answer)]}
    if type(template.mm_plugin).__name__ != "BasePlugin":  # type: ignore[attr-defined]  # it wants the model's processor
        return out
    for label, cutoff, on_prompt, history in PROCESSOR:
        if on_prompt and template.efficient_eos:  # type: ignore[attr-defined]  # LLaMA-Factory refuses the pair
            continue
        args = DataArguments(template=name, cutoff_len=cutoff, train_on_prompt=on_prompt, mask_history=history,
                             enable_thinking=thinking)
        made = SupervisedDatasetProcessor(template=template, tokenizer=tokenizer, processor=None, data_args=args)
        ids, labels = made._encode_data_example(turns[:-1], turns[-1:], system, tools, [], [], [])
        out[label] = [len(ids), sum(1 for x in labels if x != -100)]
    return out


def attempt(tokenizer: object, template: object, name: str, messages: list, system: str, tools: str, thinking: bool) -> dict:
    """The encoding, or what LLaMA-Factory raises on it."""
    try:
        return encoded(tokenizer, template, name, messages, system, tools, thinking)
    except Exception as exc:
        return {"error": f"{type(exc).__name__}: {exc}"[:200]}


def main(folder: str, output: str) -> None:
    root = Path(__file__).resolve().parent.parent
    out: dict = {"source": "hiyouga/LLaMA-Factory@ff6d4d1 data/template.py, via get_template_and_fix_tokenizer",
                 "tokenizer": "ftlint's Qwen ranks with Qwen3-4B-Instruct-2507's added tokens (eos <|im_end|>, no bos)",
                 "date": datetime.datetime.now().strftime("%d %b %Y"), "conversations": {}, "templates": {}}
    for key, (messages, system, tools) in CONVERSATIONS.items():
        out["conversations"][key] = {"messages": messages, "system": system, "tools": tools}
    for name in names(root):
        for thinking in (True, False):
            label = name if thinking else f"{name} enable_thinking=false"
            tokenizer, template = template_of(folder, name, thinking)
            out["templates"][label] = {key: attempt(tokenizer, template, name, m, s, t, thinking)
                                       for key, (m, s, t) in CONVERSATIONS.items()}
    Path(output).write_text(json.dumps(out, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")  # its log is on stdout


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2])

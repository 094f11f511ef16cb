"""A model folder read as the trainer reads it (issue 34, item 11): `--tokenizer DIR` and
`--chat-template DIR` on folders that transformers itself saved, compared with transformers' own
AutoTokenizer over the same folder: the rendered text and the tokens of every record as
apply_chat_template(..., tokenize=True) makes them (a differential test: no model, no torch).

The folders (built here, from files the test environment has; nothing is downloaded):
  qwen-5      Qwen 3's tokenizer made from the ranks ftlint ships (transformers' TikTokenConverter,
              tests/mask_reference.py) with Qwen 3's template, saved by the installed transformers
              (5.x): added tokens only in tokenizer.json, the template in chat_template.jinja;
  qwen-4      the same tokenizer in transformers 4's layout (the layout transformers 4.57's
              save_pretrained writes, checked against it once: added_tokens_decoder and
              chat_template in tokenizer_config.json, tokenizer_class Qwen2Tokenizer), with one
              added token only the config declares, which transformers adds on load;
  mistral-v1  Mistral 7B v0.1/v0.2's SentencePiece model as mistral-common ships it (Apache-2.0),
              converted by transformers: BPE with byte fallback and a Metaspace pre-tokenizer, which
              tiktoken cannot run: the tokenizers library counts it;
  unigram     a Unigram model trained here by the tokenizers library on the fixtures' texts;
  small       a byte-level BPE of 1,000 tokens trained here (merges in rank order: tiktoken runs it);
  small-shuffled, small-rstrip
              the same with two merges out of rank order, and with an added token that strips the
              spaces around it: sound files that tiktoken's merge by rank (or a split at the
              tokens' text) cannot count exactly.
"""

from __future__ import annotations

import datetime as dt
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run

CHATML = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n{% endfor %}"
          "{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")
# Mistral's [INST] format (a template written for these tests, in the shape of Mistral 7B Instruct's)
INST = ("{{ bos_token }}{% for m in messages %}{% if m['role'] == 'user' %}[INST] {{ m['content'] }} [/INST]"
        "{% elif m['role'] == 'assistant' %}{{ m['content'] }}{{ eos_token }}{% else %}{{ m['content'] }}\n\n{% endif %}{% endfor %}")
TODAY = dt.date(2026, 12, 1)
EXTRA = "<|extra_0|>"  # declared by qwen-4's tokenizer_config.json only


def _records(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def corpus() -> list[dict]:
    """The fixtures' conversations (the mask corpus: tools, reasoning, non-ASCII; the held-out drone
    conversations: tool calls), and text spelling control tokens, spaces around them, NFD text."""
    crafted = [
        {"messages": [{"role": "user", "content": f"spell {EXTRA} and <think>x</think> and <|im_end|>  twice  "},
                      {"role": "assistant", "content": "  e\u0301te\u0301 \u212b <tool_call> 日本語のテキスト 🙏🏽  "}]},
        {"messages": [{"role": "system", "content": "Réponds  en français.\n\n"}, {"role": "user", "content": "<|tool|>   ok"},
                      {"role": "assistant", "content": "<|tool|>\n\nfine [INST] </s> <s>"}]},
    ]
    mask = [{k: v for k, v in case.items() if k in ("messages", "tools")} for case in _records(FIXTURES / "chat" / "mask_corpus.jsonl")]
    return mask + _records(FIXTURES / "truncation" / "drone_heldout.jsonl") + crafted


# ---- the folders ---------------------------------------------------------------------------------

def _qwen() -> Any:
    from transformers import PreTrainedTokenizerFast

    from mask_reference import hf_tokenizer

    tok = PreTrainedTokenizerFast(tokenizer_object=hf_tokenizer("qwen2").backend_tokenizer)  # a copy: the cached one is shared
    tok.eos_token, tok.pad_token = "<|im_end|>", "<|endoftext|>"
    tok.chat_template = (ROOT / "ftlint" / "chat" / "templates" / "qwen3.jinja").read_text(encoding="utf-8")
    return tok


def _qwen_5(folder: Path) -> None:
    _qwen().save_pretrained(str(folder))
    config = json.loads((folder / "tokenizer_config.json").read_text())
    assert "added_tokens_decoder" not in config and "chat_template" not in config  # transformers 5's layout
    assert (folder / "chat_template.jinja").is_file()


def _qwen_4(folder: Path) -> None:
    """transformers 4's layout: the same tokenizer.json; the added tokens (and one more) and the
    template in tokenizer_config.json."""
    _qwen_5(folder)
    tokens = json.loads((folder / "tokenizer.json").read_text())["added_tokens"]
    decoder = {str(t["id"]): {k: v for k, v in t.items() if k != "id"} for t in tokens}
    decoder[str(max(t["id"] for t in tokens) + 1)] = {"content": EXTRA, "lstrip": False, "normalized": False, "rstrip": False,
                                                      "single_word": False, "special": True}
    config = {"add_prefix_space": False, "added_tokens_decoder": decoder, "bos_token": None,
              "chat_template": (folder / "chat_template.jinja").read_text(), "clean_up_tokenization_spaces": False,
              "eos_token": "<|im_end|>", "errors": "replace", "model_max_length": 131072, "pad_token": "<|endoftext|>",
              "split_special_tokens": False, "tokenizer_class": "Qwen2Tokenizer", "unk_token": None}
    (folder / "tokenizer_config.json").write_text(json.dumps(config, indent=2, ensure_ascii=False))
    (folder / "chat_template.jinja").unlink()


def _texts() -> list[str]:
    return [m["content"] for r in corpus() for m in r["messages"] if isinstance(m.get("content"), str)]


def _small(folder: Path, rstrip: bool = False) -> None:
    """A byte-level BPE of 1,000 tokens trained here on the corpus, with ChatML's added tokens:
    its merges come in rank order, as tiktoken needs (`rstrip`: one more added token that strips
    the spaces around it, which a split at its text cannot model)."""
    from tokenizers import AddedToken, Regex, Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    from ftlint.tokens import QWEN2_PATTERN

    tokenizer = Tokenizer(models.BPE())
    tokenizer.pre_tokenizer = pre_tokenizers.Sequence([pre_tokenizers.Split(Regex(QWEN2_PATTERN), "isolated"),
                                                       pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=False)])
    tokenizer.decoder = decoders.ByteLevel()
    tokenizer.train_from_iterator(_texts() * 3, trainers.BpeTrainer(vocab_size=1000, initial_alphabet=pre_tokenizers.ByteLevel.alphabet(),
                                                                    special_tokens=["<|im_start|>", "<|im_end|>"]))
    if rstrip:
        tokenizer.add_tokens([AddedToken("<|tool|>", rstrip=True, lstrip=True, special=True)])
    tok = PreTrainedTokenizerFast(tokenizer_object=tokenizer, eos_token="<|im_end|>")
    tok.chat_template = CHATML
    tok.save_pretrained(str(folder))


def _small_rstrip(folder: Path) -> None:
    _small(folder, rstrip=True)


def _small_shuffled(folder: Path) -> None:
    """Two merges swapped: the library merges in the list's order, tiktoken by rank."""
    _small(folder)
    doc = json.loads((folder / "tokenizer.json").read_text())
    merges = doc["model"]["merges"]
    merges[2], merges[300] = merges[300], merges[2]
    (folder / "tokenizer.json").write_text(json.dumps(doc, ensure_ascii=False))


def _mistral_v1(folder: Path) -> None:
    import shutil

    import mistral_common
    from transformers import AutoTokenizer

    pytest.importorskip("sentencepiece")  # transformers converts the SentencePiece model with it
    source = folder.parent / "mistral-spm"
    source.mkdir()
    shutil.copy(Path(mistral_common.__file__).parent / "data" / "tokenizer.model.v1", source / "tokenizer.model")
    (source / "tokenizer_config.json").write_text(json.dumps({"tokenizer_class": "LlamaTokenizer", "bos_token": "<s>",
                                                              "eos_token": "</s>", "unk_token": "<unk>", "legacy": True}))
    tok = AutoTokenizer.from_pretrained(str(source))
    tok.chat_template = INST
    tok.save_pretrained(str(folder))
    assert json.loads((folder / "tokenizer.json").read_text())["model"]["byte_fallback"] is True


def _unigram(folder: Path) -> None:
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers, trainers
    from transformers import PreTrainedTokenizerFast

    tokenizer = Tokenizer(models.Unigram())
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    tokenizer.train_from_iterator(_texts() * 3, trainers.UnigramTrainer(vocab_size=400, special_tokens=["<unk>", "<|im_start|>",
                                                                                                     "<|im_end|>"], unk_token="<unk>"))
    tok = PreTrainedTokenizerFast(tokenizer_object=tokenizer, unk_token="<unk>", eos_token="<|im_end|>")
    tok.chat_template = CHATML
    tok.save_pretrained(str(folder))


BUILDERS = {"qwen-5": _qwen_5, "qwen-4": _qwen_4, "mistral-v1": _mistral_v1, "unigram": _unigram, "small": _small,
            "small-shuffled": _small_shuffled, "small-rstrip": _small_rstrip}
LIBRARY = ("mistral-v1", "unigram", "small-shuffled", "small-rstrip")  # tiktoken cannot run them exactly


@pytest.fixture(scope="module")
def folders(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each folder, built the first time a test asks for it."""
    root = tmp_path_factory.mktemp("models")

    class Built(dict):
        def __missing__(self, name: str) -> Path:
            folder = root / name
            folder.mkdir()
            BUILDERS[name](folder)
            self[name] = folder
            return folder

    return Built()


# ---- the two sides ---------------------------------------------------------------------------------

@cache
def _reference_tokenizer(folder: Path) -> Any:
    from transformers import AutoTokenizer

    return AutoTokenizer.from_pretrained(str(folder))


def reference(folder: Path, record: dict) -> tuple[str, int]:
    """transformers' rendering and token count of a record, the folder loaded as a trainer loads it."""
    tok = _reference_tokenizer(folder)
    args = {"tools": record.get("tools"), "add_generation_prompt": False}
    text = tok.apply_chat_template(record["messages"], tokenize=False, **args)
    ids = tok.apply_chat_template(record["messages"], tokenize=True, return_dict=True, **args)["input_ids"]
    return text, len(ids)


@cache
def _tally(folder: Path) -> Any:
    from ftlint.chat.source import read_template
    from ftlint.chat.tally import Tally
    from ftlint.tokenizing import TemplatePath, TokenizerPath
    from ftlint.tokens import TokenCounter

    return Tally(TemplatePath(str(folder)), TokenCounter(TokenizerPath(str(folder))), TODAY, file=read_template(str(folder)))


def ours(folder: Path, record: dict) -> tuple[str, int]:
    tally = _tally(folder)
    return tally.render(record["messages"], record.get("tools")).text, tally.tokens(record["messages"], record.get("tools"))


@pytest.mark.parametrize("name", list(BUILDERS))
def test_each_record_renders_and_counts_as_transformers_loads_the_folder(name: str, folders: dict[str, Path]) -> None:
    folder = folders[name]
    records = corpus()
    for record in records:
        assert ours(folder, record) == reference(folder, record), json.dumps(record, ensure_ascii=False)[:300]
    from ftlint.tokenizing import TokenizerPath
    from ftlint.tokens import library_of

    assert (library_of(TokenizerPath(str(folder))) is not None) == (name in LIBRARY)


@pytest.mark.parametrize("name", ["qwen-5", "qwen-4", "mistral-v1"])
def test_the_estimate_of_a_folder_is_transformers_sum(name: str, folders: dict[str, Path], tmp_path: Path) -> None:
    """The command a user runs: `--tokenizer DIR --chat-template DIR` (the issue's folder saved by
    transformers 5 counted 7x its tokens, and said exact)."""
    folder = folders[name]
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus()))
    out = run("estimate", str(data), "--tokenizer", str(folder), "--chat-template", str(folder), "--format", "trl-messages",
              "-o", "json", "-e", "1")
    e = json.loads(out.stdout)
    assert e["tokens"] == sum(reference(folder, r)[1] for r in corpus())
    assert e["tokens_exact"] is True and not e["tokens_note"]


def test_a_tool_use_template_renders_the_records_with_tools(folders: dict[str, Path], tmp_path: Path) -> None:
    """Named templates (a list in tokenizer_config.json, as transformers 4 saved several): a record
    with tools renders with "tool_use", one without with "default", as get_chat_template chooses
    (the default, ChatML, writes no tool; Qwen 2.5's does)."""
    import shutil

    folder = tmp_path / "named"
    shutil.copytree(folders["small"], folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    tools = (ROOT / "ftlint" / "chat" / "templates" / "qwen2.5.jinja").read_text(encoding="utf-8")
    config["chat_template"] = [{"name": "default", "template": CHATML}, {"name": "tool_use", "template": tools}]
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    (folder / "chat_template.jinja").unlink()
    with_tools = [r for r in corpus() if r.get("tools")]
    assert with_tools and len(with_tools) < len(corpus())
    for record in corpus():
        assert ours(folder, record) == reference(folder, record)
    assert "<tools>" in ours(folder, with_tools[0])[0]


def test_named_templates_as_transformers_5_saves_them(tmp_path: Path) -> None:
    """transformers 5 saves named templates as chat_template.jinja (the default) and
    additional_chat_templates/NAME.jinja: a record with tools renders with tool_use there too."""
    from transformers import AutoTokenizer

    source = tmp_path / "source"
    source.mkdir()
    _small(source)
    tok = AutoTokenizer.from_pretrained(str(source))
    tok.chat_template = {"default": CHATML, "tool_use": (ROOT / "ftlint" / "chat" / "templates" / "qwen2.5.jinja").read_text()}
    folder = tmp_path / "named"
    tok.save_pretrained(str(folder))
    assert (folder / "additional_chat_templates" / "tool_use.jinja").is_file() and (folder / "chat_template.jinja").is_file()
    for record in corpus():
        assert ours(folder, record) == reference(folder, record)


def test_a_folder_whose_tokenizer_is_code_of_its_own_is_an_estimate(folders: dict[str, Path], tmp_path: Path) -> None:
    """auto_map: transformers runs the model's own tokenizer class (trust_remote_code), which
    ftlint does not: the counts are tokenizer.json's, and said to be an estimate."""
    import shutil

    folder = tmp_path / "custom"
    shutil.copytree(folders["small"], folder)
    config = json.loads((folder / "tokenizer_config.json").read_text())
    config["auto_map"] = {"AutoTokenizer": ["tokenization_mine.MyTokenizer", None]}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    data = tmp_path / "data.jsonl"
    data.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in corpus()[:5]))
    e = json.loads(run("estimate", str(data), "--tokenizer", str(folder), "--chat-template", str(folder), "--format", "trl-messages",
                       "-o", "json", "-e", "1").stdout)
    assert e["tokens_exact"] is False and "auto_map" in e["tokens_note"]


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


def test_tokens_a_trainer_adds_to_a_folders_tokenizer_count_whole(folders: dict[str, Path], tmp_path: Path) -> None:
    """axolotl's special_tokens and tokens, added to a tokenizer.json the tokenizers library runs (a
    sentencepiece Mistral): transformers' own tokenizer, given the same tokens as axolotl's
    load_tokenizer gives them (add_special_tokens, add_tokens), is the oracle. The [INST] template
    writes the new eos after each answer; a user turn spells the new word."""
    import shutil

    from tokenizers import AddedToken
    from transformers import AutoTokenizer

    folder = tmp_path / "model"
    shutil.copytree(folders["mistral-v1"], folder)
    records = [r for r in corpus() if not r.get("tools")][:20]
    for r in records[::3]:
        turn = next(m for m in r["messages"] if m["role"] == "user")
        turn["content"] = f"{turn['content']} <|new|> again<|new|>"
    (tmp_path / "data.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records))
    config = {"base_model": "./model", "datasets": [{"path": "data.jsonl", "type": "chat_template"}], "sequence_len": 100_000,
              "special_tokens": {"eos_token": "<|end|>"}, "tokens": ["<|new|>"], "micro_batch_size": 1}
    (tmp_path / "run.yml").write_text(json.dumps(config))
    e = json.loads(run("estimate", "--run", str(tmp_path / "run.yml"), "-o", "json").stdout)
    tok = AutoTokenizer.from_pretrained(str(folder))
    tok.add_special_tokens({"eos_token": AddedToken("<|end|>", rstrip=False, lstrip=False, normalized=False)})
    tok.add_tokens([AddedToken("<|new|>", rstrip=False, lstrip=False, normalized=False)])
    lengths = [len(tok.apply_chat_template(r["messages"], tokenize=True, return_dict=True)["input_ids"]) for r in records]
    assert e["records"] == len(records) and e["tokens"] == sum(lengths)

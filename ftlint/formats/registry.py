"""Every dataset format ftlint knows, and detection from a file's first records.

Facts (fields, record rules, minimums) come from ../shared/reference/provider-formats.md, which
names each source; where a provider does not document which turns train or how a conversation
becomes records, `documented=False` and the record rule says which conservative reading ftlint
takes.
"""

from __future__ import annotations

from collections import Counter

from ..diagnostics import as_list
from ..rules import conversation as conv
from . import Format
from .generic import ChatFormat, Detection, FieldsFormat, PreferenceFormat, shape
from .openai_chat import OpenAIChat

CHAT_CHECKS = (conv.has_target, conv.empty_text)

_ALL: list[Format] = [
    OpenAIChat(),
    OpenAIChat(
        name="azure-openai-chat", title="Azure OpenAI supervised chat fine-tuning (as OpenAI's)",
        providers="Azure OpenAI (Microsoft Foundry): gpt-4.1 family, gpt-4o, gpt-4o-mini", bom_ok=True,
        notes="Azure documents that training files must be UTF-8 with a byte-order mark; ftlint accepts the "
              "BOM silently for this format (FT004 is not reported) and accepts files without one too."),
    OpenAIChat(
        name="mistral-chat", title="Mistral fine-tuning API (OpenAI-like messages)",
        providers="Mistral API (deprecated: docs marked no longer supported)", min_examples=None,
        checks=(conv.mistral_ids,), notes="Tool-call ids must be 9 letters and digits (FT215)."),
    OpenAIChat(
        name="fireworks-chat", title="Fireworks supervised fine-tuning (messages with weight)",
        providers="Fireworks AI", min_examples=3),
    ChatFormat(
        name="together-conversational", title="Together conversational (messages)", providers="Together AI",
        record_rule="1 line = 1 record; assistant messages without weight 0 train (train_on_inputs=auto)",
        schema="together-conversational", shape="messages", min_examples=1, alternate=("user", "assistant"),
        checks=(*CHAT_CHECKS, conv.alternation, conv.integer_weights)),
    ChatFormat(
        name="cohere-chat", title="Cohere chat fine-tuning (System/User/Chatbot; deprecated 2025-09-15)",
        providers="Cohere (fine-tuning deprecated 2025-09-15)",
        record_rule="one record per Chatbot turn, holding every message before it (Cohere's 'turns')",
        schema="cohere-chat", shape="cohere", min_examples=2, token_limit=16_384, target_roles=("chatbot",), expansion="per-target",
        documented=False, notes="'A turn includes all messages up to the Chatbot speaker' (Cohere docs); the "
                                "expansion into one record per turn is ftlint's reading of that.",
        checks=(*CHAT_CHECKS, conv.needs_user)),
    ChatFormat(
        name="bedrock-claude", title="Amazon Bedrock, Claude 3 Haiku (system + alternating messages)",
        providers="Amazon Bedrock: anthropic.claude-3-haiku-20240307",
        record_rule="1 line = 1 record; assistant turns train (undocumented: ftlint counts every assistant turn)",
        schema="bedrock-claude", shape="messages", token_limit=32_000, alternate=("user", "assistant"), first_role="user",
        last_role="assistant", system_key="system", documented=False,
        checks=(*CHAT_CHECKS, conv.alternation, conv.first_and_last)),
    ChatFormat(
        name="bedrock-nova", title="Amazon Bedrock, Nova (bedrock-conversation-2024)",
        providers="Amazon Bedrock: Nova Micro, Lite, Pro; Nova 2",
        record_rule="1 line = 1 record; assistant turns train (undocumented: ftlint counts every assistant turn)",
        schema="bedrock-nova", shape="nova", alternate=("user", "assistant"), first_role="user", last_role="assistant",
        system_key="system", documented=False,
        checks=(*CHAT_CHECKS, conv.alternation, conv.first_and_last, conv.nova_reserved, conv.nova_media)),
    ChatFormat(
        name="vertex-gemini", title="Google Vertex AI, Gemini supervised tuning (contents and parts)",
        providers="Google Vertex AI: Gemini 2.x supervised tuning",
        record_rule="one record per model turn, holding every earlier turn and the system instruction "
                    "(Google's token-count notebook bills that way; the docs do not say)",
        schema="vertex-gemini", shape="contents", min_examples=16, token_limit=131_072, turns_key="contents", target_roles=("model",),
        expansion="per-target", alternate=("user", "model"), system_key="systemInstruction", documented=False,
        checks=(*CHAT_CHECKS, conv.alternation)),
    ChatFormat(
        name="mistral-finetune", title="mistral-finetune instruct data (messages, optional tools)",
        providers="mistral-finetune (self-hosted; repository archived)",
        record_rule="1 record, all assistant turns train; with tools, one record per assistant turn, only its "
                    "last assistant turn training (dynamic_chunk_fn_call)",
        schema="openai-chat", shape="messages", min_examples=10, expansion="per-target-if-tools",
        checks=CHAT_CHECKS),
    ChatFormat(
        name="trl-messages", title="Hugging Face TRL, conversational language modelling (messages)",
        providers="TRL SFTTrainer (self-hosted)",
        record_rule="1 row = 1 sequence; by default the loss covers every token (assistant_only_loss=False)",
        schema="trl-messages", shape="messages", targets="all", checks=(conv.empty_text,)),
    ChatFormat(
        name="openai-rft", title="OpenAI reinforcement fine-tuning (messages + grader fields)",
        providers="OpenAI, Azure OpenAI: o4-mini (billed per training hour, not per token)",
        record_rule="1 line = 1 prompt; the model samples its own answers, so no span is a fixed target",
        schema="openai-rft", shape="messages", targets="none", checks=(conv.rft_last_user, conv.empty_text)),
    PreferenceFormat(
        name="openai-preference", title="OpenAI preference fine-tuning, DPO (input, preferred and non-preferred output)",
        providers="OpenAI (gpt-4.1 family), Azure OpenAI, Together (preference_openai), Fireworks DPO",
        record_rule="1 line = 1 preference pair; the two outputs carry the loss",
        schema="openai-preference", shape="preference-openai", min_examples=10, checks=(conv.preference_input,)),
    PreferenceFormat(
        name="together-preference", title="Together preference (OpenAI DPO shape, alternating input)",
        providers="Together AI", record_rule="1 line = 1 preference pair", schema="openai-preference",
        shape="preference-openai", min_examples=1, alternate=("user", "assistant"), checks=(conv.preference_input,)),
    FieldsFormat(
        name="prompt-completion", title="Prompt and completion strings",
        providers="OpenAI legacy (babbage-002, davinci-002), Amazon Bedrock (Titan, Llama 3.1, Cohere Command), TRL standard",
        record_rule="1 line = 1 record; the completion is the target", schema="prompt-completion",
        shape="prompt-completion", inputs=("prompt",), outputs=("completion",), checks=(conv.empty_fields,)),
    FieldsFormat(
        name="together-instruction", title="Together instruction (prompt, optionally with images, and completion)",
        providers="Together AI", record_rule="1 line = 1 record; the completion is the target",
        schema="together-instruction", shape="prompt-completion-multimodal", also_shapes=("prompt-completion",), min_examples=1,
        inputs=("prompt",), outputs=("completion",), checks=(conv.empty_fields,)),
    FieldsFormat(
        name="trl-prompt-completion", title="Hugging Face TRL, conversational prompt-completion",
        providers="TRL SFTTrainer, GKD (self-hosted)", record_rule="1 row = 1 sequence; the completion carries the loss",
        schema="trl-prompt-completion", shape="prompt-completion-conversational", inputs=("prompt",), outputs=("completion",)),
    FieldsFormat(
        name="text", title="Plain text for language modelling",
        providers="Together (general), TRL (text), mistral-finetune (pretrain)",
        record_rule="1 line = 1 record; every token carries the loss", schema="text", shape="text", checks=(conv.empty_fields,)),
    FieldsFormat(
        name="trl-preference", title="Hugging Face TRL preference (prompt, chosen, rejected)",
        providers="TRL DPOTrainer, RewardTrainer (self-hosted)",
        record_rule="1 row = 1 pair: prompt + chosen and prompt + rejected", schema="trl-preference",
        shape="preference-trl", inputs=("prompt",), outputs=("chosen", "rejected"), checks=(conv.empty_fields,)),
    FieldsFormat(
        name="trl-unpaired", title="Hugging Face TRL unpaired preference (prompt, completion, label)",
        providers="TRL KTOTrainer (self-hosted)", record_rule="1 row = 1 labelled completion",
        schema="trl-unpaired", shape="unpaired", inputs=("prompt",), outputs=("completion",), checks=(conv.empty_fields,)),
]
FORMATS: dict[str, Format] = {f.name: f for f in _ALL}

# What detection picks for each shape, and who else takes that shape.
BY_SHAPE = {
    "messages": "openai-chat", "cohere": "cohere-chat", "nova": "bedrock-nova", "contents": "vertex-gemini",
    "preference-openai": "openai-preference", "preference-trl": "trl-preference", "unpaired": "trl-unpaired",
    "prompt-completion": "prompt-completion", "prompt-completion-multimodal": "together-instruction",
    "prompt-completion-conversational": "trl-prompt-completion", "text": "text",
}
DETECT_RECORDS = 50


def get_format(name: str) -> Format:
    if name not in FORMATS:
        raise KeyError(f"unknown format {name!r}; `ftlint formats` lists them")
    return FORMATS[name]


def detect(records: list[dict]) -> Detection:
    """Choose a format from the first records: the most common shape, then the best fit
    among the formats of that shape."""
    if not records:
        return Detection("openai-chat", "no readable record to detect from: openai-chat assumed")
    shapes = Counter(shape(r) for r in records)
    known = Counter({s: c for s, c in shapes.items() if s != "unknown"})
    top, n = (known or shapes).most_common(1)[0]
    if top == "unknown":
        keys = sorted({k for r in records for k in r})[:8]
        return Detection("openai-chat", f"no known format has the keys {keys}: openai-chat assumed", dict(shapes))
    name = BY_SHAPE[top]
    why = f"{n} of the first {len(records)} records"
    if top == "messages":
        chats = [r for r in records if shape(r) == "messages"]
        common_extra = _keys_in_most(chats) - {"messages", "tools", "parallel_tool_calls", "functions"}
        developer = sum(any(isinstance(m, dict) and m.get("role") == "developer" for m in as_list(r.get("messages")))
                        for r in chats) * 2 >= len(chats)
        if common_extra == {"system"}:
            name, why = "bedrock-claude", why + " have messages and a top-level system string"
        elif common_extra or developer:
            name = "openai-rft"
            why += (f" have messages and the grader fields {', '.join(sorted(common_extra))}" if common_extra
                    else " have messages with a developer role")
        else:
            why += (" have OpenAI-style messages; Azure, Mistral, Fireworks, Together, mistral-finetune and TRL take "
                    "the same shape: name yours with --format")
    else:
        why += f" have the {top} shape ({FORMATS[name].title})"
    if len(shapes) > 1:
        others = ", ".join(f"{s} x{c}" for s, c in shapes.items() if s != top)
        why += f"; other shapes seen: {others}"
    return Detection(name, why, dict(shapes))


def _keys_in_most(records: list[dict]) -> set[str]:
    """Keys present in at least half of the records: a stray key on one line is not a format."""
    counts = Counter(k for r in records for k in r)
    return {k for k, n in counts.items() if n * 2 >= len(records)}

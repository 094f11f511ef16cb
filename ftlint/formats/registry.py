"""Every dataset format ftlint knows: an explicit table.

Facts (fields, record rules, minimums) come from the providers' documents (see README, Formats);
where a provider does not document which turns train or how a conversation becomes records,
`documented=False` and the record rule says which conservative reading ftlint takes. Which rules
apply to a format is said by each rule's scope (ftlint/rules/), which reads what the format's
provider or trainer demands beyond its schema (`demands`) and names it by its `label`; what a
provider tolerates or rejects otherwise than the registry's default severity is the format's
`severities`; how `ftlint convert` reads and writes it, its `conversion`.
"""

from __future__ import annotations

from ..diagnostics import ERROR, OFF, WARNING
from .base import (
    CALL_IDS,
    CALL_IDS_OR_LAST_NULL,
    CALLS_ANSWERED,
    CALLS_XOR_CONTENT,
    CONTENT_OR_CALLS,
    INPUT_BEFORE_ANSWER,
    INTEGER_WEIGHTS,
    LABEL_PER_STEP,
    ONE_CONTENT_FORM,
    ONE_SYSTEM_PROMPT,
    OPENAI_PARTS,
    TOOL_SCHEMAS,
    USER_IMAGES,
    USER_OPENS_SAMPLE,
    Format,
)
from .chat import ChatFormat, MsSwift, NovaPreference, OpenAIChat, ShareGPT
from .conversion import MESSAGES, Conversion
from .fields import Alpaca, FieldsFormat, PreferenceFormat, Stepwise
from .rl import PromptOnly

# Together's file rules (docs.together.ai/docs/fine-tuning/data-preparation; the SDK's
# together/utils/files.py, together==1.6.0, which mirrors the server): a byte-order mark makes line
# 1 unreadable (FT004 is an error); empty content is not rejected (FT203 is a warning); no two
# messages in a row share a role; a conversation starts with system or user ("must start with
# system or user": data-preparation); an image's data: URL is checked by its prefix and length only
# (its docs' own example is "data:image/jpeg;base64,..."), so bytes that are no image are a warning;
# OpenAI's tool calls and image parts, with its own content rules (rules/parts.py).
TOGETHER: dict = {"severities": {"FT004": ERROR, "FT203": WARNING, "FT252": WARNING}, "adjacent": True,
                  "family": "together", "label": "Together",
                  "demands": frozenset({OPENAI_PARTS, INTEGER_WEIGHTS, ONE_CONTENT_FORM, USER_IMAGES}),
                  "alternate": ("system", "user", "assistant", "tool"),
                  "reads_message": frozenset({"role", "content", "weight", "tool_calls", "tool_call_id", "reasoning",
                                              "reasoning_content"})}

# OpenAI's own jobs: its file validation rejects text spelling a special token ("Example 6174 message
# contains an invalid token: <|fim_suffix|>", johny-b/llmcomp#59, 2026-02), so FT302 is an error there
OPENAI_VALIDATED = ("openai-chat", "openai-preference")
OPENAI_SEVERITIES = {"FT302": ERROR}

# how `ftlint convert` writes OpenAI-style messages: OpenAI's own keep a weight 0 or 1 on an assistant
# message and write null content beside tool calls; Fireworks, Together and TRL read reasoning_content
OPENAI_MESSAGES = Conversion(MESSAGES, weights=True, null_content=True)

_ALL: list[Format] = [
    OpenAIChat(name="openai-chat", title="OpenAI supervised chat fine-tuning (messages)",
               providers="OpenAI (no new jobs after 2027-01-06): gpt-4.1, gpt-4.1-mini, gpt-4o, gpt-4o-mini",
               severities=OPENAI_SEVERITIES, label="OpenAI", conversion=OPENAI_MESSAGES),
    OpenAIChat(
        name="azure-openai-chat", title="Azure OpenAI supervised chat fine-tuning (as OpenAI's)",
        providers="Azure OpenAI (Microsoft Foundry): gpt-4.1, gpt-4.1-mini, gpt-4.1-nano, gpt-4o, gpt-4o-mini; Ministral-3B, "
                  "Qwen-32B, Llama-3.3-70B-Instruct, gpt-oss-20b", severities={"FT004": OFF}, label="Azure",
        conversion=OPENAI_MESSAGES,
        notes="Azure documents that training files must be UTF-8 with a byte-order mark; ftlint accepts the "
              "BOM silently for this format (FT004 is not reported) and accepts files without one too."),
    OpenAIChat(
        name="mistral-chat", title="Mistral fine-tuning API (OpenAI-like messages)",
        providers="Mistral API (deprecated: docs marked no longer supported)", min_examples=None, notes="Tool-call ids must be 9 letters and digits (FT215).",
        label="Mistral", demands=frozenset({CALL_IDS}), conversion=OPENAI_MESSAGES),
    OpenAIChat(
        name="fireworks-chat", title="Fireworks supervised fine-tuning (messages with weight, reasoning_content)",
        providers="Fireworks AI", min_examples=3, schema="fireworks-chat", label="Fireworks",
        conversion=Conversion(MESSAGES, weights=True, reasoning="reasoning_content", null_content=True),
        notes="docs.fireworks.ai/fine-tuning/fine-tuning-models (read 2026-12-01): 3 to 3,000,000 examples; tools, tool_calls "
              "and reasoning_content accepted; for some reasoning models (thinking-history modes) Fireworks unrolls a "
              "conversation into one datum per user turn, which ftlint does not model: billed tokens can exceed the count."),
    ChatFormat(
        name="together-conversational", title="Together conversational (messages, tools, reasoning, images)", providers="Together AI",
        record_rule="1 line = 1 record; assistant messages without weight 0 train (train_on_inputs=auto)",
        schema="together-conversational", shape="messages", min_examples=1, first_role="user",
        reads_top=frozenset({"messages", "tools", "weight"}), conversion=Conversion(MESSAGES, weights=True, reasoning="reasoning_content"),
        **TOGETHER),
    ChatFormat(
        name="cohere-chat", title="Cohere chat fine-tuning (System/User/Chatbot; deprecated 2025-09-15)",
        providers="Cohere (fine-tuning deprecated 2025-09-15)",
        record_rule="one record per Chatbot turn, holding every message before it (Cohere's 'turns')",
        schema="cohere-chat", shape="cohere", min_examples=2, token_limit=16_384, target_roles=("chatbot",), expansion="per-target",
        documented=False, notes="'A turn includes all messages up to the Chatbot speaker' (Cohere docs); the "
                                "expansion into one record per turn is ftlint's reading of that."),
    ChatFormat(
        name="bedrock-claude", title="Amazon Bedrock, Claude 3 Haiku (system + alternating messages)",
        providers="Amazon Bedrock: anthropic.claude-3-haiku-20240307",
        record_rule="1 line = 1 record; assistant turns train (undocumented: ftlint counts every assistant turn)",
        schema="bedrock-claude", shape="messages", token_limit=32_000, alternate=("user", "assistant"), first_role="user",
        last_role="assistant", system_key="system", documented=False),
    ChatFormat(
        name="bedrock-nova", title="Amazon Bedrock, Nova (bedrock-conversation-2024)",
        providers="Amazon Bedrock: Nova Micro, Lite, Pro; Nova 2",
        record_rule="1 line = 1 record; assistant turns train (undocumented: ftlint counts every assistant turn)",
        schema="bedrock-nova", shape="nova", alternate=("user", "assistant"), first_role="user", last_role="assistant",
        system_key="system", documented=False, conversion=Conversion("nova")),
    ChatFormat(
        name="bedrock-converse", title="Amazon Bedrock, Llama 3.2 and 3.3 (Converse messages, bedrock-conversation-2024)",
        providers="Amazon Bedrock: meta.llama3-2-1b/3b/11b/90b-instruct, Llama 3.3 70B Instruct",
        record_rule="1 line = 1 record; assistant turns train (undocumented: ftlint counts every assistant turn)",
        schema="bedrock-converse", shape="nova", min_examples=100, alternate=("user", "assistant"), first_role="user",
        last_role="assistant", system_key="system", documented=False,
        notes="docs.aws.amazon.com/bedrock/latest/userguide/model-customization-prepare (read 2026-12-01) labels each Llama 3.2 "
              "and 3.3 model 'Converse API format'; 100 to 10,000 records, 16,000 tokens per record (10,000 for 90B); images "
              "(S3, user turns only) for 11B and 90B."),
    NovaPreference(
        name="bedrock-nova-dpo", title="Amazon Nova preference tuning, DPO (candidates in the last assistant turn)",
        providers="Amazon Nova Micro, Lite, Pro (SageMaker recipes; not Nova 2 Lite)",
        record_rule="1 line = 1 preference pair; the two candidates carry the loss", schema="bedrock-nova-dpo",
        shape="nova-preference", alternate=("user", "assistant"), first_role="user", last_role="assistant", system_key="system",
        notes="docs.aws.amazon.com/sagemaker nova-dpo (read 2026-12-01): exactly two candidates, one 'preferred' and one "
              "'non-preferred'; AWS suggests at least 1,000 pairs; an AWS sample validator says Nova 2 Lite takes no DPO."),
    ChatFormat(
        name="bedrock-rft", title="Amazon Bedrock reinforcement fine-tuning (messages + reference_answer)",
        providers="Amazon Bedrock: Nova 2 Lite RFT, open-weight RFT (OpenAI-compatible API)",
        record_rule="1 line = 1 prompt; the model samples its answers and a reward function (Lambda) scores them against "
                    "reference_answer, so no span is a fixed target",
        schema="bedrock-rft", shape="messages", min_examples=100, targets="none",
        notes="docs.aws.amazon.com/bedrock/latest/userguide/rft-prepare-data (read 2026-12-01): at least 100 records "
              "(open-weight: 100 to 20,000); extra fields reach the reward function as metadata."),
    ChatFormat(
        name="vertex-gemini", title="Google Vertex AI, Gemini supervised tuning (contents and parts)",
        providers="Google Vertex AI: Gemini 3.5 Flash, 3.5 Flash-Lite, 3.1 Flash-Lite, 2.5 Pro supervised tuning",
        record_rule="one record per model turn, holding every earlier turn and the system instruction "
                    "(Google's token-count notebook bills that way; the docs do not say)",
        schema="vertex-gemini", shape="contents", token_limit=131_072, turns_key="contents", target_roles=("model",),
        expansion="per-target", alternate=("user", "model"), system_key="systemInstruction", system_aliases=("system_instruction",),
        default_role="user", documented=False, conversion=Conversion("gemini"),
        notes="No minimum number of examples is enforced now (Google suggests starting with 100; the 16 of the Gemini 1.0 "
              "page is gone). 131,072 tokens per example is the Gemini 2.5 Flash figure; the 3.x limits were not found."),
    ChatFormat(
        name="mistral-finetune", title="mistral-finetune instruct data (messages, optional tools)",
        providers="mistral-finetune (self-hosted; repository archived)",
        record_rule="1 record, all assistant turns train; with tools, one record per assistant turn, only its "
                    "last assistant turn training (dynamic_chunk_fn_call)",
        schema="mistral-finetune", shape="messages", expansion="per-target-if-tools", last_role="assistant",
        reads_top=frozenset({"messages", "tools", "available_tools", "system_prompt", "only_last"}),
        reads_message=frozenset({"role", "content", "text", "tool_calls", "tool_call_id", "name", "weight"}),
        weight_roles=("assistant",), label="mistral-finetune",
        demands=frozenset({CONTENT_OR_CALLS, CALLS_XOR_CONTENT, CALLS_ANSWERED, CALL_IDS_OR_LAST_NULL, TOOL_SCHEMAS,
                           ONE_SYSTEM_PROMPT, USER_OPENS_SAMPLE}),
        notes="Rules from mistralai/mistral-finetune at 1943535 (finetune/data/tokenize.py, utils/validate_data.py) and "
              "mistral-common's MistralRequestValidatorV3 in finetuning mode; verdicts recorded from the real code in "
              "fixtures/peer-cases/mistral-finetune/. No minimum is enforced (validate_data's size check is commented out)."),
    ChatFormat(
        name="trl-messages", title="Hugging Face TRL, conversational language modelling (messages)",
        providers="TRL SFTTrainer (self-hosted)",
        record_rule="1 row = 1 sequence; by default the loss covers every token (assistant_only_loss=False)",
        schema="trl-messages", shape="messages", targets="all", label="TRL",
        conversion=Conversion(MESSAGES, reasoning="reasoning_content")),
    ShareGPT(
        name="sharegpt", title="ShareGPT conversations (from/value; axolotl, LLaMA-Factory, Hub datasets)",
        providers="axolotl, LLaMA-Factory (formatting: sharegpt), unsloth, TRL users (self-hosted)",
        record_rule="1 line = 1 record; gpt turns without weight 0 train (LLaMA-Factory and axolotl's defaults)",
        schema="sharegpt", shape="sharegpt", turns_key="conversations", role_key="from", conversion=Conversion("sharegpt")),
    MsSwift(
        name="ms-swift", title="ms-swift standard format (messages; images, videos, audios; rejected_response, label; tools)",
        providers="ms-swift (ModelScope's trainer; self-hosted)",
        record_rule="1 line = 1 record; assistant and tool_call messages train unless \"loss\": false (loss_scale 'default'); "
                    "a rejected_response is the pair's other side",
        schema="ms-swift", shape="ms-swift", also_shapes=("messages",), documented=False,
        notes="modelscope/ms-swift docs/source_en/Customization/Custom-dataset.md (at 3602360, read 2026-12-01): 'messages' is "
              "required; images, videos and audios hold paths, URLs or base64 data: URLs, placed where <image>, <video>, "
              "<audio> stand; ms-swift cuts a sample past max_length by deleting it (truncation_strategy 'delete', "
              "swift/arguments/base_args/template_args.py), which ftlint's --trainer profiles do not model yet."),
    Alpaca(
        name="alpaca", title="Alpaca instructions (instruction, input, output; system and history)",
        providers="LLaMA-Factory (formatting: alpaca), axolotl (type: alpaca), unsloth (self-hosted)",
        record_rule="1 line = 1 record; the output trains, and each history answer (LLaMA-Factory's mask_history off)",
        schema="alpaca", shape="alpaca", inputs=("instruction",), outputs=("output",), conversion=Conversion("alpaca")),
    ChatFormat(
        name="openai-rft", title="OpenAI reinforcement fine-tuning (messages + grader fields)",
        providers="Azure OpenAI: o4-mini, gpt-5 (invitation only); billed per training hour (OpenAI's o4-mini shut down 2026-10-23)",
        record_rule="1 line = 1 prompt; the model samples its own answers, so no span is a fixed target",
        schema="openai-rft", shape="messages", targets="none"),
    PreferenceFormat(
        name="openai-preference", title="OpenAI preference fine-tuning, DPO (input, preferred and non-preferred output)",
        providers="OpenAI (gpt-4.1, gpt-4.1-mini, gpt-4o; until 2027-01-06), Azure OpenAI (gpt-4o, gpt-4.1, gpt-4.1-mini, "
                  "gpt-4.1-nano), Fireworks DPO; Together: together-preference",
        record_rule="1 line = 1 preference pair; the two outputs carry the loss",
        schema="openai-preference", shape="preference-openai", min_examples=10, severities=OPENAI_SEVERITIES,
        demands=frozenset({INTEGER_WEIGHTS})),
    PreferenceFormat(
        name="together-preference", title="Together preference (OpenAI DPO shape, alternating input)",
        providers="Together AI", record_rule="1 line = 1 preference pair", schema="together-preference",
        shape="preference-openai", min_examples=1, **{**TOGETHER, "demands": TOGETHER["demands"] | {INPUT_BEFORE_ANSWER}}),
    FieldsFormat(
        name="prompt-completion", title="Prompt and completion strings",
        providers="OpenAI legacy (babbage-002, davinci-002), Amazon Bedrock (Llama 3.1 8B and 70B), TRL standard",
        record_rule="1 line = 1 record; the completion is the target", schema="prompt-completion",
        shape="prompt-completion", inputs=("prompt",), outputs=("completion",)),
    FieldsFormat(
        name="together-instruction", title="Together instruction (prompt, optionally with images, and completion)",
        providers="Together AI", record_rule="1 line = 1 record; the completion is the target",
        schema="together-instruction", shape="prompt-completion-multimodal", also_shapes=("prompt-completion",), min_examples=1,
        inputs=("prompt",), outputs=("completion",), severities=TOGETHER["severities"], label="Together"),
    FieldsFormat(
        name="trl-prompt-completion", title="Hugging Face TRL, conversational prompt-completion",
        providers="TRL SFTTrainer, GKD (self-hosted)", record_rule="1 row = 1 sequence; the completion carries the loss",
        schema="trl-prompt-completion", shape="prompt-completion-conversational", inputs=("prompt",), outputs=("completion",), label="TRL"),
    FieldsFormat(
        name="text", title="Plain text for language modelling",
        providers="Together (general), TRL (text), mistral-finetune (pretrain)",
        record_rule="1 line = 1 record; every token carries the loss", schema="text", shape="text"),
    FieldsFormat(
        name="trl-preference", title="Hugging Face TRL preference (prompt, chosen, rejected)",
        providers="TRL DPOTrainer, RewardTrainer (self-hosted)",
        record_rule="1 row = 1 pair: prompt + chosen and prompt + rejected", schema="trl-preference",
        shape="preference-trl", inputs=("prompt",), outputs=("chosen", "rejected"), label="TRL"),
    FieldsFormat(
        name="trl-prompt-only", title="Hugging Face TRL prompt-only rows (GRPO, RLOO, Online DPO)",
        providers="TRL GRPOTrainer, RLOOTrainer, OnlineDPOTrainer (self-hosted)",
        record_rule="1 row = 1 prompt; the model generates its completions while training, so no span is a fixed target",
        schema="trl-prompt-only", shape="prompt-only", inputs=("prompt",), outputs=(), label="TRL"),
    PromptOnly(
        name="verl", title="verl RL data (Parquet: prompt, data_source, reward_model.ground_truth, extra_info)",
        providers="verl (PPO, GRPO; self-hosted)",
        record_rule="1 row = 1 prompt, rendered with the generation prompt; the model writes its answers while it trains and "
                    "the reward (by data_source) scores them against reward_model.ground_truth, so no span is a fixed target",
        schema="verl", shape="verl", inputs=("prompt",), outputs=(),
        notes="volcengine/verl verl/utils/dataset/README.md and docs/preparation/prepare_data.rst (at b178a3c, read "
              "2026-12-01); RLHFDataset (verl/utils/dataset/rl_dataset.py) reads the prompt key `prompt`."),
    PromptOnly(
        name="nemo-gym", title="NeMo Gym rollout data (responses_create_params, expected_answer)",
        providers="NeMo Gym with NeMo RL (self-hosted)",
        record_rule="1 line = 1 task: the Responses API request the policy answers (its input, instructions and tools), "
                    "scored by its resources server (expected_answer for math and MCQA); no span is a fixed target",
        schema="nemo-gym", shape="nemo-gym", inputs=(), outputs=(), request="responses_create_params",
        notes="NVIDIA-NeMo/Gym nemo_gym/base_resources_server.py BaseRunRequest (responses_create_params); "
              "resources_servers/math_with_judge/app.py (expected_answer: str) (at 07d6b0d, read 2026-12-01)."),
    Stepwise(
        name="trl-stepwise", title="Hugging Face TRL stepwise supervision (prompt, completions, labels)",
        providers="TRL PRMTrainer (self-hosted)", record_rule="1 row = 1 record; each step of the completion is labelled",
        schema="trl-stepwise", shape="stepwise", inputs=("prompt",), outputs=(), label="TRL", demands=frozenset({LABEL_PER_STEP})),
    FieldsFormat(
        name="trl-unpaired", title="Hugging Face TRL unpaired preference (prompt, completion, label)",
        providers="TRL KTOTrainer (self-hosted)", record_rule="1 row = 1 labelled completion",
        schema="trl-unpaired", shape="unpaired", inputs=("prompt",), outputs=("completion",), label="TRL"),
]
FORMATS: dict[str, Format] = {f.name: f for f in _ALL}
# the formats `ftlint convert` reads and writes (a rule names the command that gets a file to one)
CONVERTIBLE = tuple(f.name for f in _ALL if f.conversion is not None)


def severities_for(fmt: Format, checked_as: str | None = None) -> dict[str, str]:
    """A format's severities; on a format a trainer's checker judges as one of its own formats
    (`checked_as`: Trainer.checks_as), that format's provider's decide as they do there."""
    if checked_as is not None:
        return {**fmt.severities, **FORMATS[checked_as].severities}
    return dict(fmt.severities)

# What detection picks for each shape, and who else takes that shape.
BY_SHAPE = {
    "messages": "openai-chat", "cohere": "cohere-chat", "nova": "bedrock-nova", "nova-preference": "bedrock-nova-dpo",
    "contents": "vertex-gemini", "sharegpt": "sharegpt", "alpaca": "alpaca",
    "prompt-only": "trl-prompt-only", "stepwise": "trl-stepwise",
    "preference-openai": "openai-preference", "preference-trl": "trl-preference", "unpaired": "trl-unpaired",
    "prompt-completion": "prompt-completion", "prompt-completion-multimodal": "together-instruction",
    "prompt-completion-conversational": "trl-prompt-completion", "text": "text",
    "ms-swift": "ms-swift", "verl": "verl", "nemo-gym": "nemo-gym",
}

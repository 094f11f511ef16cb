"""The hosted providers' fine-tuning jobs: what each documents (or, where it does not, what its
SDK does), read 2026-12-01. A provider's server decides what its docs leave out (how it renders,
what its packing does): those facts say "not documented", and the figures follow ftlint's token
convention or the model's chat template, as the catalog says for the model."""

from __future__ import annotations

from .profile import HOSTED_STEPS, PROVIDER, REJECT, TARGETS, TEMPLATE, TRUNCATE, Fact, Profile

READ = "the providers' documentation and SDKs, read 2026-12-01 (togethercomputer/together-python@eba5e5f)"
UNKNOWN_CONTROL = Fact(False, "not documented; ftlint counts such text as the text it is")
NO_PACKING = Fact(False, "not documented")

OPENAI = Profile(
    name="openai", title="OpenAI fine-tuning job (new jobs until 2027-01-06)", hosted=True,
    formats=Fact(("openai-chat", "openai-preference", "openai-rft", "prompt-completion"),
                 "platform.openai.com/docs/guides/supervised-fine-tuning (FineTuneChatRequestInput); openai-openapi"),
    epochs=Fact("auto", "n_epochs 'auto': the rule is not documented; ftlint uses the cookbook's (Chat_finetuning_data_prep.ipynb)"),
    batch=Fact("auto", "batch_size 'auto': not documented by OpenAI; Azure documents about 0.2% of the examples, at most 256"),
    max_length=Fact(None, "the model's per-example limit (the catalog's)"),
    past_max=Fact(TRUNCATE, "OpenAI cookbook: examples over the limit are truncated during fine-tuning"),
    loss=Fact(TARGETS, "assistant messages without weight 0; no prompt loss"),
    renderer=Fact(PROVIDER, "OpenAI's own, not published: ftlint's token convention (docs/estimate.md)"),
    control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "platform.openai.com/docs/pricing: tokens in the training file x epochs"),
    providers=("openai",), read=READ,
)

AZURE = Profile(
    name="azure", title="Azure OpenAI fine-tuning job (Microsoft Foundry)", hosted=True,
    formats=Fact(("azure-openai-chat", "openai-preference", "openai-rft"), "learn.microsoft.com/azure/ai-foundry/openai/how-to/fine-tuning"),
    epochs=OPENAI.epochs, batch=Fact("auto", "learn.microsoft.com .../fine-tuning: batch_size -1 is about 0.2% of the examples, at most 256"),
    max_length=OPENAI.max_length, past_max=OPENAI.past_max, loss=OPENAI.loss, renderer=OPENAI.renderer,
    control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "azure-ai-docs fine-tuning-cost-management.md (2026-02-11): training tokens x "
                                             "epochs x price; at most 2B tokens x epochs a job"),
    providers=("azure",), read=READ,
)

TOGETHER = Profile(
    name="together", title="Together AI fine-tuning job", hosted=True,
    formats=Fact(("together-conversational", "together-instruction", "together-preference", "text"),
                 "docs.together.ai/docs/fine-tuning-data-preparation; together/utils/files.py check_file (SDK 1.x)"),
    epochs=Fact(1, "together/resources/finetune.py FineTuning.create(n_epochs=1) (together-python@eba5e5f)"),
    batch=Fact("max", "together/resources/finetune.py FineTuning.create(batch_size='max'): the model's largest, in packed rows"),
    max_length=Fact(None, "the model's fine-tuning context (max_seq_length defaults to it)"),
    past_max=Fact(TRUNCATE, "together fine_tune_preview_row.py (SDK 3.x): truncated, 'Whether the row was truncated to the "
                            "model maximum sequence length'"),
    loss=Fact(TARGETS, "FineTuning.create(train_on_inputs='auto'): assistant messages, completions; with any weight, every "
                       "message without weight 0 (docs.together.ai data preparation, Data weights)"),
    renderer=Fact(TEMPLATE, "docs.together.ai data preparation: formatted into the model's chat template"),
    control_tokens=Fact(True, "not documented; Together tokenizes with the model's Hugging Face tokenizer, which matches "
                              "added tokens in text by default"),
    packing=Fact(True, "SDK 2.20+ FineTuning.create(packing=True); without it each example is a row of max_seq_length"),
    steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs + validation tokens x evaluations", "docs.together.ai/docs/fine-tuning-pricing: "
                 "epochs x training tokens + n_evals x validation tokens; with packing off, rows x max_seq_length; "
                 "together.ai/pricing: at least a large model's minimum charge"),
    providers=("together",), read=READ,
)

FIREWORKS = Profile(
    name="fireworks", title="Fireworks AI fine-tuning job", hosted=True,
    formats=Fact(("fireworks-chat", "openai-preference"), "docs.fireworks.ai/fine-tuning/fine-tuning-models"),
    epochs=Fact(1, "docs.fireworks.ai (reinforcement fine-tuning defaults; supervised defaults not documented)"),
    batch=Fact("auto", "not documented for supervised tuning (batches are sized in tokens)"),
    max_length=Fact(None, "the model's context"), past_max=Fact(TRUNCATE, "not documented"),
    loss=Fact(TARGETS, "docs.fireworks.ai: assistant messages with weight 1 (or none)"),
    renderer=Fact(TEMPLATE, "not documented; the model's chat template"), control_tokens=UNKNOWN_CONTROL,
    packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "fireworks.ai/pricing: per 1M training tokens (thinking models' conversations "
                 "unrolled per user turn first)"),
    providers=("fireworks",), read=READ,
)

BEDROCK = Profile(
    name="bedrock", title="Amazon Bedrock model customization job", hosted=True,
    formats=Fact(("bedrock-nova", "bedrock-claude", "bedrock-converse", "prompt-completion", "bedrock-nova-dpo", "bedrock-rft"),
                 "docs.aws.amazon.com/bedrock/latest/userguide/model-customization-prepare"),
    epochs=Fact(2, "docs.aws.amazon.com .../cm-hp-nova-mm.html: epochCount 2 (Nova; Llama 3.1: 5, Claude 3 Haiku: 2)"),
    batch=Fact(1, "docs.aws.amazon.com .../cm-hp-meta-llama31.html: batchSize 1 (Nova has none; Claude 3 Haiku 32)"),
    max_length=Fact(None, "the model's per-record limit (the catalog's)"),
    past_max=Fact(REJECT, "not documented; a Llama job fails at run time past the limit (aws-samples/amazon-bedrock-workshop#224)"),
    loss=Fact(TARGETS, "not documented: ftlint counts the assistant turns"), renderer=Fact(PROVIDER, "not documented"),
    control_tokens=Fact(False, "Nova's reserved strings fail the job (FT214); otherwise not documented"),
    packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "docs.aws.amazon.com .../custom-models.html: tokens in the training data x "
                 "epochs, plus storage per model-month"),
    providers=("bedrock",), read=READ,
)

VERTEX = Profile(
    name="vertex", title="Google Vertex AI Gemini supervised tuning", hosted=True,
    formats=Fact(("vertex-gemini",), "cloud.google.com/vertex-ai/generative-ai/docs/models/gemini-supervised-tuning-prepare"),
    epochs=Fact("auto", "cloud.google.com .../model-reference/tuning: epochCount adjusted to the dataset's size, by a "
                        "rule not published"),
    batch=Fact("auto", "not exposed for Gemini"), max_length=Fact(None, "the model's limit (131,072 tokens for 2.5 Flash)"),
    past_max=Fact(TRUNCATE, "not documented"), loss=Fact(TARGETS, "not documented: ftlint counts every model turn, with "
                                                                   "what comes before it"),
    renderer=Fact(PROVIDER, "not documented"), control_tokens=UNKNOWN_CONTROL, packing=NO_PACKING, steps=HOSTED_STEPS,
    billing=Fact("training tokens x epochs", "cloud.google.com .../tune-gemini: tokens in the training dataset x epochs"),
    providers=("vertex",), read=READ,
)

PROFILES = (OPENAI, AZURE, TOGETHER, FIREWORKS, BEDROCK, VERTEX)

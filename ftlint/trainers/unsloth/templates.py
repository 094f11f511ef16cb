"""Unsloth's chat templates by name (unslothai/unsloth@015bdef unsloth/chat_templates.py
CHAT_TEMPLATES, as get_chat_template(tokenizer, chat_template=NAME) sets them, with
DEFAULT_SYSTEM_MESSAGE[NAME] in place of {system_message}): what ftlint renders each with. A file
is unsloth's own text (ftlint/chat/templates/unsloth/, SOURCES.md); a family is one of ftlint's that
renders exactly as unsloth's does (compared on fixtures/chat/mask_corpus.jsonl)."""

from __future__ import annotations

FILE = "unsloth/{}.jinja"  # under ftlint/chat/templates/

RENDERED: dict[str, str] = {
    **{name: FILE.format(name) for name in ("chatml", "mistral", "phi-3", "phi-4", "zephyr", "unsloth", "alpaca", "vicuna",
                                              "qwen3-instruct")},
    "llama-3": FILE.format("llama-3"), "llama3": FILE.format("llama-3"),
    "phi-35": FILE.format("phi-3"), "phi-3.5": FILE.format("phi-3"),
    # Meta's Llama 3.1 format without trimming, "26 July 2024": ftlint's own renderer (chat/llama3.py)
    **dict.fromkeys(("llama-3.1", "llama-31", "llama-3.2", "llama-3.3", "llama-32", "llama-33"), "unsloth-llama-3.1"),
    **dict.fromkeys(("qwen-2.5", "qwen-25", "qwen25", "qwen2.5"), "qwen2.5"),
    **dict.fromkeys(("qwen-3", "qwen3"), "qwen3"),
}
# the names get_chat_template also takes, which ftlint does not render (Gemma's terms; not compared)
NOT_RENDERED = ("gemma", "gemma_chatml", "gemma2", "gemma2_chatml", "gemma-3", "gemma3", "gemma-3n", "gemma3n", "gemma-4",
                "gemma4", "gemma-4-thinking", "gemma4-thinking", "gpt-oss", "gptoss", "qwen3-thinking", "llama", "vicuna_old",
                "vicuna old", "lfm-2", "lfm-2.5", "starling", "yi-chat")
def rendered_as(name: str) -> str:
    """What ftlint renders unsloth's template `name` with; ValueError saying why not."""
    if name in RENDERED:
        return RENDERED[name]
    if name in NOT_RENDERED:
        raise ValueError(f"--template-name {name}: unsloth's template {name!r} is not one ftlint renders; give its text as "
                         "--chat-template FILE (tokenizer.chat_template, saved after get_chat_template)")
    raise ValueError(f"--template-name {name}: not a template unsloth's get_chat_template knows; ftlint renders "
                     f"{', '.join(sorted(RENDERED))}")

"""What the estimate says of the run beside its figures: what the token counts are, said once
beside tokens per epoch (an estimate, and why: a model whose tokenizer is not available offline,
no model of the catalog named, a trainer that renders with templates of its own), with the
tokenizer that counted them, whichever chose it; and the trainer as it runs this data."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..trainers.profile import LLAMA_FACTORY

if TYPE_CHECKING:
    from ..models import Model
    from ..trainers import Profile

DEFAULT_ENCODING = "o200k_base"  # what counts when nothing names a tokenizer (judging.tokenizer_for)


def own_renderer(profile: Profile | None) -> str:
    """Why the counts are an estimate for a trainer that renders with templates of its own, which
    ftlint does not compare ("" for the others)."""
    if profile is None or profile.renderer.value != LLAMA_FACTORY:
        return ""
    return (f"an estimate for {profile.name}: it renders with its own template registry ({profile.renderer.source}), "
            "not compared here; counted with the model's Hugging Face template")


def tokens_note(model: Model | None, encoding: str, template: str) -> str:
    """Why the counts are an estimate ("" when they are the model's own). `encoding`: the
    tokenizer that counted them (--tokenizer's, the model's, or o200k_base); `template`: how a
    record became tokens ("openai": ftlint's token convention, no chat template)."""
    from ..models import ESTIMATED_TOKENIZERS

    if model is None:
        return ""
    given = "" if encoding == DEFAULT_ENCODING or encoding == model.encoding else _given(encoding)
    if model.tokenizer in ESTIMATED_TOKENIZERS:
        if given:
            return f"counted with {given}: {ESTIMATED_TOKENIZERS[model.tokenizer]} is not available offline"
        return (f"an estimate: {ESTIMATED_TOKENIZERS[model.tokenizer]} is not available offline, so tokens are counted with "
                "o200k_base (which undercounts non-Latin text by up to 26-43% against Llama 3 and Qwen 2.5 on the corpus "
                "measured; Gemini, Claude and Nova could not be measured)")
    if model.assumed and model.name.startswith("("):
        if not given:
            return "an estimate: no model of ftlint's catalog named, counted with o200k_base; give --model for the model's own tokenizer"
        convention = ("" if template != "openai" else
                      " over ftlint's token convention, no chat template (give --model or --chat-template for the model's own)")
        return f"no model of ftlint's catalog named: counted with {given}{convention}"
    if not model.tokens_exact and model.exact is not None:
        return f"an estimate: {model.exact.remark} ({model.exact.note})"
    return ""


def _given(encoding: str) -> str:
    """A tokenizer --tokenizer gave, as the note names it: a family, or its file's name."""
    if encoding.startswith("path:"):
        import os

        return f"the --tokenizer file {os.path.basename(encoding.removeprefix('path:'))}"
    return f"{encoding} (--tokenizer)"


def trainer_title(profile: Profile | None, fmt: str) -> str:
    """The trainer as it runs this data: TRL trains preference pairs with its DPOTrainer, not the
    SFTTrainer its profile is named for (the Hugging Face Trainer's arithmetic either way)."""
    from .billing import PREFERENCE_FORMATS

    if profile is None:
        return ""
    if profile.name == "trl" and fmt in PREFERENCE_FORMATS:
        return "TRL DPOTrainer (Hugging Face Trainer; the SFTTrainer's defaults assumed)"
    return profile.title

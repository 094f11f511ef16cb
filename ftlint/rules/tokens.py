"""Token codes (FT3xx): examples over the per-example limit, and special-token look-alikes."""

from __future__ import annotations

import re
from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, json_path, strings
from ..formats.registry import OPENAI_VALIDATED
from ..literals import want
from ..trainers.profile import REJECT
from . import PLAIN, WITHIN, Fused, check, register

if TYPE_CHECKING:
    from ..plan.estimate import Estimate
    from .context import PlanContext, RecordContext

# Spelled like a special token of OpenAI's or a common chat template's tokenizer: <|endoftext|>,
# <|im_start|>, <|eot_id|>, ...
SPECIAL_TOKEN_TEXT = re.compile(r"<\|[A-Za-z0-9_]{1,40}\|>")
# The special tokens of OpenAI's tokenizers (tiktoken_ext/openai_public.py: cl100k_base's FIM tokens,
# o200k_base's, o200k_harmony's), which OpenAI's file validation rejects in a training file
OPENAI_SPECIAL = re.compile(r"<\|(?:endoftext|fim_prefix|fim_middle|fim_suffix|endofprompt|startoftext|start|end|message|"
                            r"channel|constrain|return|call|reserved_\d{1,7})\|>")
OPENAI_REJECTS = "\"message contains an invalid token\", johny-b/llmcomp#59, 2026-02"

register("FT301", "over-context", WARNING, """
    The example has more tokens than the model's per-example training limit.

    The limit comes from the models data file (`ftlint models`) or --context. The estimate
    counts such an example at the limit.
    Why: OpenAI truncates over-long examples during fine-tuning, so their end (usually the
    assistant answer, the only part trained on) is cut off, and the rest is billed anyway.
    Example: a 70,000-token conversation for gpt-4.1-mini (limit 65,536).
""")

register("FT302", "special-token-text", WARNING, """
    Text contains a string that spells a special token: one of the model's own added tokens the
    trainer will read as that token, or (counted as text) one spelled like <|...|>.

    When records are rendered through the model's chat template (a self-hosted model's --model,
    or --chat-template), the trainer's tokenizer matches the model's added tokens in the text
    before it encodes the rest: TRL, axolotl and LLaMA-Factory leave transformers'
    split_special_tokens off, and the hosted jobs apply the model's tokenizer too. So "[INST]" in a
    Mistral user turn, or "<|im_end|>" in a Qwen one, becomes that control token: it ends the turn
    early or forges a role, and ftlint counts it as the one token it becomes. Only the model's own
    tokens are meant ("<|eot_id|>" is text to Qwen). mistral-finetune (--trainer mistral-finetune)
    encodes content as plain text: there "[INST]" is characters, and no finding is made for it.
    Without a template, ftlint counts "<|...|>" as the plain text it is. OpenAI's own jobs
    (openai-chat, openai-preference) reject such a file: "Example 6174 message contains an invalid
    token: <|fim_suffix|>" (johny-b/llmcomp#59, 2026-02), so there the finding is an error; its
    validation's list is not published (the message says when the spelling is one of the special
    tokens of OpenAI's tokenizers).
    Why: such text is almost always leaked template markup from another pipeline; as a control
    token it corrupts the turn structure, as text the model learns to emit it.
    Example: {"role": "user", "content": "Translate: [INST] bonjour [/INST]"} for Mistral Nemo
""")

want((b"<|",))


register("FT303", "over-limit-rejected", ERROR, """
    The example has more tokens than the model's limit, and the provider refuses the job for it.

    Only where the run's trainer rejects over-long samples instead of truncating them
    (`ftlint trainers bedrock`: past the max length, reject): a Bedrock job fails at run time
    past the limit (aws-samples/amazon-bedrock-workshop#224). The line is rejected: in no figure.
    Why: one such record costs the whole job. Shorten or split it.
""")


@check("record", "FT301", "FT303", fused=Fused(fact=WITHIN), recounts=True)
def over_limit(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    limit = ctx.limit
    if limit is None or ctx.figures is None:
        return
    line = ctx.figures
    if ctx.recount is not None and any(figures.tokens > limit for figures in line.records):
        exact = ctx.recount(record)  # the byte bound reached the limit: count exactly
        if exact is None:  # counted later, in the main process, by this same check
            return
        line = exact
    rejected = ctx.past_max == REJECT
    for figures in line.records:
        if figures.tokens > limit:
            yield Hit(f"example has {figures.tokens:,} tokens, over the {limit:,}-token limit of {ctx.limit_owner}; "
                      + ("the provider rejects the job for it" if rejected else "the end is truncated in training"),
                      code="FT303" if rejected else None)


@check("record", "FT302", fused=Fused(absent=b"<|"))
def special_token_text(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    # no `needs`: with a template, the model's added tokens are the template's (a user's may be any
    # string), so every record's strings are searched; the rendering costs far more
    specials = ctx.control_tokens
    if specials is not None and ctx.compact and not _in_bytes(specials).search(ctx.compact):
        specials = None  # one pass over the line's JSON (a token spelled in a string is spelled there as it is)
    if specials is None and b"<|" not in ctx.present:
        return
    for path, text in strings(record):
        found = sorted(set(specials.findall(text)), key=text.index) if specials is not None else []
        if found:
            names = ", ".join(found)
            them = "them as those tokens" if len(found) > 1 else "it as that token"
            yield Hit(f"text spells the model's control token{'s' if len(found) > 1 else ''} {names}: the trainer's tokenizer "
                      f"reads {them}, not as text (it can end the turn early or forge a role)", json_path(path))
        elif "<|" in text and (spelled := SPECIAL_TOKEN_TEXT.search(text)):
            yield Hit(_plain_text_words(spelled.group(0), ctx), json_path(path))


def _plain_text_words(spelled: str, ctx: RecordContext) -> str:
    """Text spelled like a special token, where no template makes it one: to OpenAI's own jobs a
    reason to reject the file; elsewhere plain text, counted and trained as such."""
    if ctx.fmt.name not in OPENAI_VALIDATED:
        return "text spelled like a special token (<|...|>); it is counted and trained as plain text"
    if OPENAI_SPECIAL.fullmatch(spelled):
        return f"text spells {spelled}, a special token of OpenAI's tokenizers: OpenAI rejects the file ({OPENAI_REJECTS})"
    return (f"text spelled like a special token ({spelled}): OpenAI's validation rejects special-token text "
            f"({OPENAI_REJECTS}); which spellings is not published")


@cache
def _in_bytes(pattern: re.Pattern[str]) -> re.Pattern[bytes]:
    return re.compile(pattern.pattern.encode("utf-8"))


@check("plan", "FT301")
def over_limit_in_plan(e: Estimate, ctx: PlanContext) -> Iterator[Hit]:
    c = e.counts
    if c.records_over_limit and c.context_limit:
        yield Hit(f"{c.records_over_limit} record(s) exceed the {c.context_limit:,}-token limit; "
                  "each is counted at the limit and truncated in training")


register("FT230", "template-failed", ERROR, """
    The model's chat template cannot render the record.

    Only with a model whose chat template ftlint renders (`--model` of a self-hosted family, or
    --chat-template). The message is the template's own (its raise_exception, or the error its
    code meets on this record's data); the record's tokens are then counted by ftlint's
    convention. Why: the trainer's apply_chat_template fails on the record, so the run stops or
    the record is dropped. Example: two tool calls in one message for Llama 3.1 ("This model only
    supports single tool-calls at once!"), roles not alternating for Mistral.
""")


register("FT238", "template-over-budget", ERROR, """
    The chat template went over its budget on the record: too many steps, too many characters,
    or too long.

    Only with a chat template ftlint renders. Each rendering may take --template-max-steps
    steps (loop iterations and filters, 4 a call; 200,000) and produce
    --template-max-chars characters (every string it builds, its output included; 16,777,216);
    a record's renderings may take --template-seconds (5). A real template takes a few dozen
    steps and a few thousand characters per record. The message says which budget, and the flag that raises it; the record's tokens
    are then counted by ftlint's convention, and the run goes on with the next record.
    Why: a template from a repository is code its author wrote: `{{ 'x' * 1500000000 }}`, loops
    in loops or a macro calling itself twice would take the memory or the time of the whole run
    (and of the trainer's). Example: {% for i in range(100000) %}{% for j in range(100000) %}.
""")


@check("record", "FT230", "FT238", fused=Fused(fact=PLAIN))
def template_failed(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    figures = ctx.figures
    if figures is not None and figures.failure:
        if figures.over_budget:
            yield Hit(f"the chat template went over its budget on this record: {figures.failure}", code="FT238")
        else:
            yield Hit(f"the chat template cannot render this record: {figures.failure}")

"""What rendering a record through its model's chat template shows (FT231-FT237, FT239): the silent
failures of self-hosted SFT, found before the GPU is paid for.

They apply when records are rendered (a self-hosted model's --model, or --chat-template) and
read the rendered text and the trainer's loss mask (ftlint/chat/mask.py): TRL's
assistant_only_loss and completion_only_loss, its max_length truncation.
"""

from __future__ import annotations

from collections.abc import Iterator
from functools import cache
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, json_path
from ..tokenizing import Template, TemplatePath
from . import PLAIN, UNCUT, Fused, check, register

if TYPE_CHECKING:
    from ..chat.mask import Masked
    from .context import FileContext, FileSummary, RecordContext

REASONING_KEYS = ("reasoning_content", "reasoning", "thinking")

register("FT231", "no-trained-tokens", ERROR, """
    No token of the record trains under the trainer's loss mask (or, at line 0, of the whole file).

    With TRL's assistant_only_loss, a record trains on the tokens of its template's
    {% generation %} blocks; with completion_only_loss, on those after the prompt. A record that
    leaves none (no assistant turn rendered in a block, a completion the template drops) adds no
    gradient. Why: TRL 1.x stops the run ("at least one example has no assistant tokens"); older
    versions, and other trainers, train on nothing while the loss curve looks healthy
    (marin-community/marin#7237, unsloth#2734).
""")

register("FT232", "template-without-generation", ERROR, """
    --assistant-only-loss with a chat template that has no {% generation %} block: no record of
    the file trains.

    transformers' apply_chat_template(return_assistant_tokens_mask=True) marks nothing without
    the block, so every label is masked. The stock templates of Llama 3.1, Qwen 2.5 and 3, Gemma 3
    and gpt-oss have none; TRL ships training variants that do (trl/chat_templates/*_training.jinja),
    or leave assistant_only_loss off. Why: the run trains on nothing, or TRL 1.x refuses it.
""", kind="file")

register("FT233", "end-of-turn-not-trained", WARNING, """
    The end-of-turn token that closes an assistant turn lies outside the trained span.

    Why: the model never learns to stop: it runs on past its answer at inference
    (tatsu-lab/stanford_alpaca#126, unslothai/unsloth#416). The template's generation block
    should enclose the end-of-turn token (<|im_end|>, <|eot_id|>, <end_of_turn>, ...).
""", per="file")

register("FT234", "dropped-by-template", WARNING, """
    A reasoning trace or a tool call in the data does not appear in the rendered text: the
    template drops it.

    Qwen 3's template renders reasoning_content only for the turns after the last user message;
    many templates read reasoning from one key only (reasoning_content, or thinking) and ignore
    the other; some render no tool calls. Why: what you meant to train is silently not trained.
""", per="file")

register("FT235", "empty-think-trained", WARNING, """
    An empty <think></think> block is inside the trained span.

    Templates of reasoning models (Qwen 3, GLM, DeepSeek) insert an empty block into turns that
    have no reasoning; trained, it teaches the model to skip thinking
    (NVIDIA-NeMo/Automodel#3739). Give those turns their reasoning, or mask the block.
""", per="file")

register("FT236", "targets-truncated", WARNING, """
    Trained tokens of the record fall past the trainer's max length and are cut off.

    The max length is --max-seq-len, else the trainer's own default (TRL max_length 1,024,
    LLaMA-Factory cutoff_len 2,048; `ftlint trainers NAME`), else a hosted job's limit; the cut
    is the trainer's: TRL, axolotl's truncate and a hosted job keep the start, LLaMA-Factory
    cuts each turn's prompt and answer in proportion (infer_seqlen). Under every loss: TRL's
    default trains every token, so its cut loses trained tokens too. A record left with no
    trained token trains nothing (TRL 1.9 drops it).
    Why: the end of the answer, often its conclusion and its end-of-turn token, is never
    trained on (unslothai/unsloth#2904, allenai/open-instruct#806).
""")

register("FT237", "truncated-share", WARNING, """
    Records of the file lose trained tokens to the trainer's max length, or are dropped past it
    (file level): how many, and the first lines.

    Why: a run whose records are cut this often trains on truncated answers; raise the max
    length or shorten the records.
""", kind="file")

register("FT239", "system-prompt-dropped", WARNING, """
    The renderer drops the system prompt: a record's system message text does not reach the
    sequence the trainer trains on (file level: how many records, and the first lines).

    Read from the rendering itself. Mistral Nemo's Hugging Face template writes the system prompt
    into the last user turn only when that turn ends the conversation, so every training row
    (ending with the answer) loses it under TRL, axolotl or a provider applying the template;
    mistral-common, which mistral-finetune uses, keeps it (in the last user turn: --trainer
    mistral-finetune counts that way). Why: the model is trained as if no system prompt was
    given, then is prompted with one. Put the instructions in the first user turn, use a template
    that keeps the system message, or train with the renderer that keeps it.
""", kind="file")

register("FT241", "responses-not-found", ERROR, """
    unsloth's train_on_responses_only would train nothing: its response part is in no record as the
    chat template renders it (--instruction-part, --response-part with --trainer unsloth).

    It matches each part's own tokens in each rendered record: what follows the response part, up
    to the next instruction part, trains. A part that is not in the rendered text (another model's
    header, a missing newline, a part that tokenizes otherwise alone) leaves every label at -100:
    unsloth drops every row and stops, or an older one trains on nothing. The finding gives what
    the template writes before a question and between a question and its answer, to copy from.
    Example: --template-name qwen-2.5 with --response-part '<|start_header_id|>assistant<|end_header_id|>\\n\\n'
""", kind="file")

register("FT240", "sample-dropped", WARNING, """
    The record is longer than the trainer's max length, and the trainer leaves it out.

    axolotl's default (excess_length_strategy unset: drop) keeps only samples of min_sample_len
    (2) to sequence_len tokens (src/axolotl/utils/data/utils.py handle_long_seq_in_dataset); the
    estimate counts the record in no figure. Why: the run silently trains on fewer samples than
    the file holds, and the longest (often the richest) go first. Raise sequence_len, or set
    excess_length_strategy: truncate.
""")



@cache
def template_marks(template: Template, source: str | None = None) -> bool:
    """Whether the chat template has {% generation %} blocks (ftlint's Llama renderer has none).
    `source`: a TemplatePath's text, as it was read (else it is read here)."""
    from ..chat import CHAT_TEMPLATES, template_text

    if isinstance(template, TemplatePath):
        if source is None:
            from ..chat.source import read_template

            source = read_template(template.path).source
    elif template in CHAT_TEMPLATES and CHAT_TEMPLATES[template].source != "python":
        source = template_text(template)
    else:
        return False
    return "generation %}" in source or "generation -%}" in source


def template_name(template: Template) -> str:
    """The template as the user named it: a path relative to here when it is under here."""
    if template == "mistral-common":
        return "mistral-common, as mistral-finetune tokenizes"
    if not isinstance(template, TemplatePath):
        return f"{template} (ftlint's copy of the model's own)"
    import os
    from importlib import resources

    path = template.path
    shipped = os.path.relpath(path, str(resources.files("ftlint").joinpath("chat", "templates")))
    if not shipped.startswith(".."):  # one of ftlint's own (a trainer's named template: unsloth's)
        return f"{shipped.removesuffix('.jinja')} (shipped with ftlint)"
    relative = os.path.relpath(path)
    return path if relative.startswith("..") else relative


def _rendered(ctx: RecordContext) -> Masked | None:
    return ctx.figures.rendered if ctx.figures is not None else None


@check("record", "FT231", "FT233", "FT235", fused=Fused(fact=PLAIN))
def loss_mask(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    masked = _rendered(ctx)
    if masked is None:
        return
    if masked.trained == 0 and not masked.unmarked:  # unmarked: FT232 says it once for the file
        yield Hit(f"no token of this record trains: of its {masked.tokens:,} tokens the loss mask keeps none")
    if masked.spans and masked.eos:
        open_turns = sum(1 for start, end in masked.spans if masked.eos not in masked.text[start:end])
        if open_turns and masked.eos in masked.text:
            yield Hit(f"{open_turns} trained span{'s' if open_turns > 1 else ''} end{'' if open_turns > 1 else 's'} before "
                      f"the end-of-turn token {masked.eos}: the model is not taught to stop", code="FT233")
    from ..chat.mask import EMPTY_THINK  # only with a chat template: a plain check never imports chat/

    trained = [(0, len(masked.text))] if masked.all_trained else masked.spans
    for start, end in trained:
        if EMPTY_THINK.search(masked.text, start, end):
            yield Hit("an empty <think></think> block is trained: the model learns to skip its reasoning", code="FT235")
            break


@check("record", "FT236", "FT240", fused=Fused(fact=UNCUT))
def past_max(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    figures = ctx.figures
    for r in figures.records if figures is not None and ctx.cut_label else ():
        if r.dropped and not r.trainable:  # a row with nothing to train (unsloth's train_on_responses_only drops it)
            yield Hit(f"dropped: no token of the record trains ({r.tokens:,} tokens, all labels -100)", code="FT240")
        elif r.dropped:
            yield Hit(f"dropped: the record has {r.tokens:,} tokens, past {ctx.cut_label}", code="FT240")
        elif r.cut_trainable:
            every = " (all of them: it trains nothing)" if r.cut_trainable >= r.trainable else ""
            yield Hit(f"{r.cut_trainable:,} of {r.trainable:,} trained tokens fall past {ctx.cut_label}{every}: "
                      f"the record has {r.tokens:,} tokens")


@check("record", "FT234", needs=(b'"reasoning', b'"thinking"', b'"tool_calls"'), fused=Fused(fact=PLAIN))
def dropped(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    masked = _rendered(ctx)
    if masked is None:
        return
    fmt = ctx.fmt
    text = masked.text
    for i, turn in fmt.turns(record):
        if turn.get("role") != "assistant":
            continue
        for key in REASONING_KEYS:
            value = turn.get(key)
            if isinstance(value, str) and value.strip() and value.strip() not in text:
                yield Hit(f"the template drops this {key}: it is not in the rendered text", json_path([*fmt.turns_path(), i, key]))
        calls = turn.get("tool_calls")
        for j, call in enumerate(calls if isinstance(calls, list) else []):
            function = call.get("function") if isinstance(call, dict) else None
            name = function.get("name") if isinstance(function, dict) else None
            if isinstance(name, str) and name and name not in text:
                yield Hit(f"the template drops the tool call {name!r}: it is not in the rendered text",
                          json_path([*fmt.turns_path(), i, "tool_calls", j]))


@check("file", "FT239")
def system_dropped(summary: FileSummary, ctx: FileContext) -> Iterator[Hit]:
    n = summary.system_dropped
    if n:
        lines = ", ".join(map(str, summary.system_dropped_lines))
        more = ", ..." if n > len(summary.system_dropped_lines) else ""
        yield Hit(f"the renderer, {template_name(ctx.template)}, drops the system prompt of {n:,} record{'s' if n > 1 else ''} "
                  f"(line{'s' if n > 1 else ''} {lines}{more}): its text is not in the sequence that trains")


@check("file", "FT232", "FT231", "FT237", "FT241")
def file_mask(summary: FileSummary, ctx: FileContext) -> Iterator[Hit]:
    if not summary.rendered:
        return
    if ctx.loss.response_part and summary.untrained == summary.rendered:
        yield Hit(_responses_missing(ctx), code="FT241")
        return
    if ctx.loss.assistant_only and not template_marks(ctx.template, ctx.template_source):
        yield Hit(f"--assistant-only-loss, but the chat template {template_name(ctx.template)} has no {{% generation %}} "
                  "block: no token of any record trains (use a training variant of the template, or leave the option off)")
        return
    if summary.untrained == summary.rendered:
        yield Hit(f"no token of any of the {summary.rendered:,} rendered records trains under the loss mask", code="FT231")


@check("file", "FT237")
def past_max_in_file(summary: FileSummary, ctx: FileContext) -> Iterator[Hit]:
    records = summary.records + summary.dropped
    if not ctx.cut_label:
        return
    if summary.truncated:
        emptied = f", {summary.emptied:,} of them left with no trained token" if summary.emptied else ""
        yield Hit(f"{summary.truncated:,} of {records:,} records lose trained tokens past {ctx.cut_label}{emptied} "
                  f"(lines {_lines(summary.cut_lines, summary.truncated)})")
    if summary.dropped:
        yield Hit(f"{summary.dropped:,} of {records:,} records are dropped past {ctx.cut_label} "
                  f"(lines {_lines(summary.dropped_lines, summary.dropped)})")


def _responses_missing(ctx: FileContext) -> str:
    from ..chat.parts import turn_parts

    parts = turn_parts(ctx.template, ctx.template_source)
    said = f"; the template writes {parts[0]!r} before a question and {parts[1]!r} before its answer" if parts else ""
    return (f"train_on_responses_only trains nothing: response_part {ctx.loss.response_part!r} (instruction_part "
            f"{ctx.loss.instruction_part!r}) is in no record as {template_name(ctx.template)} renders it{said}")


def _lines(first: list[int], count: int) -> str:
    return ", ".join(str(n) for n in first) + (", ..." if count > len(first) else "")

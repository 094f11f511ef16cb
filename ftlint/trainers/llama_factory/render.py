"""A dataset row as LLaMA-Factory trains it, at hiyouga/LLaMA-Factory@ff6d4d1: aligned by its
converter, encoded by its template (encode.py), then made into a training sequence by the
processor of its stage (src/llamafactory/data/processor/):

  sft  supervised.py SupervisedDatasetProcessor._encode_data_example: the turns in order (with
       mask_history, last turn first), each (prompt, answer) cut by processor_utils.py
       infer_seqlen to what the turns before it left of cutoff_len, none once it is used up;
       an answer trains (with mask_history only the last one), its end-of-turn slot with it
       ("<|im_end|>\\n"); with train_on_prompt the prompts train too; an efficient_eos template
       trains one eos at the start of each later prompt and one at the end
  kto  feedback.py: every message but the last as the prompt, the last as the answer
       (encode_oneturn), cut once by infer_seqlen; the answer trains
  dpo, rm, orpo, simpo  pairwise.py: the prompt, and the chosen and the rejected answers each
       after it, cut by infer_seqlen against the longer answer; both sequences count, both
       answers train
  pt   pretrain.py: the text and the eos token, every token trains; cut at cutoff_len
       without packing, else packed by the batch (packing.py)

A row whose prompt and response do not have the shape the processor wants (an odd number of
turns before the answer, one answer; two for kto and the preference stages) is dropped by it
("Dropped invalid example"): Sample.left_out says so."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass

from ..rendering import Part, Sample, Unrendered, Vocab
from .cut import infer_seqlen
from .encode import Aligned, Piece, align_alpaca, align_sharegpt, multiturn, oneturn
from .templates import EOS, Template
from .tools import Invalid, NotModelled

PREFERENCE = ("rm", "dpo")  # the stages whose rows are pairs (loader.py: rm's PairwiseDatasetProcessor, dpo's too)
INVALID = "it drops this row (\"Dropped invalid example\": not an odd number of turns before the answer, or no answer)"


@dataclass(frozen=True)
class Options:
    """What the training YAML says that changes a row's sequence (DataArguments, FinetuningArguments)."""

    template: Template | None  # None: `template` not set (the model's chat template is parsed: not modelled)
    stage: str = "sft"
    train_on_prompt: bool = False
    mask_history: bool = False
    enable_thinking: bool = True
    preserve_thinking: bool = False
    packing: bool = False
    columns: frozenset[str] = frozenset()  # the optional columns its datasets name: system, tools, history, kto_tag, ...

    def with_overrides(self, default_system: str | None, tool_format: str | None) -> Options:
        """get_template_and_fix_tokenizer: a tool_format replaces format_function (with the default
        slots) and format_tools; a default_system replaces the template's."""
        template = self.template
        if template is None:
            return self
        if tool_format is not None:
            slots = ("{{content}}",) if template.efficient_eos else ("{{content}}", EOS)
            template = dataclasses.replace(template, function=slots, tool_format=tool_format)
        if default_system is not None:
            template = dataclasses.replace(template, default_system=default_system)
        return dataclasses.replace(self, template=template)


def supervised(pairs: list[tuple[int, int]], cutoff: int | None, options: Options, efficient_eos: bool) -> tuple[int, int]:
    """(tokens, trained tokens) of _encode_data_example over the turns' (prompt, answer) lengths;
    `cutoff` None: uncut."""
    turns = kept_turns(pairs, cutoff, options, efficient_eos)
    tokens = sum(source + target for source, target, _, _ in turns)
    trained = sum(on_source + (target if on_target else 0) for _, target, on_source, on_target in turns)
    return (tokens + 1, trained + 1) if efficient_eos else (tokens, trained)


def kept_turns(pairs: list[tuple[int, int]], cutoff: int | None, options: Options,
               efficient_eos: bool) -> list[tuple[int, int, int, bool]]:
    """Each turn as _encode_data_example keeps it, in the turns' order (it takes them last first
    with mask_history, and lays them in order): (prompt tokens, answer tokens, trained tokens at
    the prompt's start, whether the answer trains); a turn it takes once the cutoff is used up
    keeps nothing."""
    out = [(0, 0, 0, False)] * len(pairs)
    total = 1 if efficient_eos else 0  # room for the eos it appends
    order = range(len(pairs) - 1, -1, -1) if options.mask_history else range(len(pairs))
    for k, i in enumerate(order):
        source, target = pairs[i]
        if cutoff is not None:
            if total >= cutoff:
                break
            source, target = infer_seqlen(source, target, cutoff - total)
        total += source + target
        # train_on_prompt: the prompt's labels; efficient_eos: [eos] + [IGNORE_INDEX] * (source_len - 1)
        on_source = source if options.train_on_prompt else 1 if efficient_eos and k != 0 else 0
        out[i] = (source, target, on_source, not (options.mask_history and k != 0))
    return out


def _parts(pieces: list[Piece], trained: bool, kept: int, head: bool = False) -> list[Part]:
    """The pieces as Parts, the first `kept` tokens of them kept (infer_seqlen keeps each side's
    start). `head`: only the side's first token trains (efficient_eos's eos label on a later
    prompt), a Part of its own: the first piece when it is one token, else a token of no text
    (where one token of a text ends is not known here) before the rest of it."""
    out = []
    for p in pieces:
        tokens, first, head = p.tokens, head, False
        if first and tokens > 1:
            out.append(Part("", 1, True, min(1, kept)))
            kept, tokens, first = kept - min(1, kept), tokens - 1, False
        out.append(Part(p.text, tokens, trained or first, min(tokens, kept)))
        kept -= min(tokens, kept)
    return out


def _length(pieces: list[Piece]) -> int:
    return sum(p.tokens for p in pieces)


def _joined(parts: list[tuple[list[Piece], bool]]) -> tuple[str, tuple[tuple[int, int], ...]]:
    """The pieces as one text, and the character spans of the trained ones."""
    text, spans, at = [], [], 0
    for pieces, trains in parts:
        chunk = "".join(p.text for p in pieces)
        if trains and chunk:
            spans.append((at, at + len(chunk)))
        text.append(chunk)
        at += len(chunk)
    return "".join(text), tuple(spans)


class Renderer:
    """LLaMA-Factory's data pipeline for one row (ftlint/trainers/base.py Renderer)."""

    def __init__(self, options: Options) -> None:
        self.options = options
        template = options.template
        self.title = f"LLaMA-Factory's template {template.name} ({template.source})" if template else "LLaMA-Factory"
        self.added = template.stop_words if template else ()  # fix_special_tokens adds the stop words to the tokenizer

    def reads(self, formatting: str) -> bool:
        if self.options.stage == "pt":
            return formatting == "text"
        return formatting in ("alpaca", "sharegpt") and self.options.template is not None

    def sample(self, record: dict, formatting: str, vocab: Vocab, cutoff: int | None) -> Sample:
        try:
            if self.options.stage == "pt":
                return self._pretrain(record, vocab, cutoff)
            aligned = self._aligned(record, formatting)
            if self.options.stage == "kto":
                return self._feedback(aligned, vocab, cutoff)
            if self.options.stage in PREFERENCE:
                return self._pairwise(aligned, vocab, cutoff)
            return self._supervised(aligned, vocab, cutoff)
        except (Invalid, NotModelled) as exc:
            raise Unrendered(f"{self.title}: {exc}", isinstance(exc, NotModelled)) from None
        except (ValueError, TypeError, AttributeError, KeyError) as exc:  # what LLaMA-Factory's own code fails on
            raise Unrendered(f"{self.title} fails on this row ({type(exc).__name__})", False) from None

    def _aligned(self, record: dict, formatting: str) -> Aligned:
        columns = self.options.columns
        if formatting == "alpaca":
            return align_alpaca(record, columns)
        return align_sharegpt(record, columns, self.options.stage in PREFERENCE)

    def _template(self) -> Template:
        assert self.options.template is not None
        return self.options.template

    def _supervised(self, aligned: Aligned, vocab: Vocab, cutoff: int | None) -> Sample:
        if len(aligned.prompt) % 2 != 1 or len(aligned.response) != 1:
            raise Invalid(INVALID)
        o, template = self.options, self._template()
        turns = multiturn(template, aligned.prompt + aligned.response, aligned.system, aligned.tools, vocab,
                          o.enable_thinking, o.mask_history and not o.preserve_thinking)
        pairs = [(_length(s), _length(t)) for s, t in turns]
        tokens, trained = supervised(pairs, None, o, template.efficient_eos)
        kept, kept_trained = supervised(pairs, cutoff, o, template.efficient_eos) if cutoff is not None else (tokens, trained)
        last = len(turns) - 1
        text, spans = _joined([part for k, (s, t) in enumerate(turns)
                               for part in ((s, o.train_on_prompt), (t, not o.mask_history or k == last))])
        n = len(aligned.prompt) + 1
        return Sample(tokens, trained, kept, kept_trained, text, spans, n, 1 if o.mask_history else len(turns),
                      self._turn_parts(turns, pairs, cutoff, vocab))

    def _turn_parts(self, turns: list[tuple[list[Piece], list[Piece]]], pairs: list[tuple[int, int]], cutoff: int | None,
                    vocab: Vocab) -> tuple[Part, ...]:
        """The sequence _encode_data_example makes, slot by slot: which tokens train as the whole
        sequence has them, how many of each its cut keeps."""
        o, efficient_eos = self.options, self._template().efficient_eos
        whole = kept_turns(pairs, None, o, efficient_eos)
        cut = kept_turns(pairs, cutoff, o, efficient_eos) if cutoff is not None else whole
        parts = [part for (source, target), (_, _, on_source, on_target), (kept_source, kept_target, _, _)
                 in zip(turns, whole, cut, strict=True)
                 for part in (*_parts(source, o.train_on_prompt, kept_source, head=on_source == 1 and not o.train_on_prompt),
                              *_parts(target, on_target, kept_target))]
        return (*parts, Part(vocab.eos, 1, True, 1)) if efficient_eos else tuple(parts)

    def _oneturn(self, prompt: list, answer: tuple, aligned: Aligned, vocab: Vocab) -> tuple[list[Piece], list[Piece]]:
        o, template = self.options, self._template()
        made = oneturn(template, [*prompt, answer], aligned.system, aligned.tools, vocab, o.enable_thinking, o.preserve_thinking)
        if template.efficient_eos:
            return made[0], [*made[1], Piece(vocab.eos, 1)]
        return made

    def _feedback(self, aligned: Aligned, vocab: Vocab, cutoff: int | None) -> Sample:
        """FeedbackDatasetProcessor: the desired answer (response[0]) if it has text, else the other."""
        if len(aligned.prompt) % 2 != 1 or len(aligned.response) < 2:
            raise Invalid(INVALID)
        answer = aligned.response[0] if aligned.response[0][1] else aligned.response[1]
        prompt, reply = self._oneturn(aligned.prompt, answer, aligned, vocab)
        source, target = _length(prompt), _length(reply)
        kept_source, kept_target = infer_seqlen(source, target, cutoff) if cutoff is not None else (source, target)
        text, spans = _joined([(prompt, False), (reply, True)])
        parts = (*_parts(prompt, False, kept_source), *_parts(reply, True, kept_target))
        return Sample(source + target, target, kept_source + kept_target, kept_target, text, spans, len(aligned.prompt) + 1, 1,
                      parts)

    def _pairwise(self, aligned: Aligned, vocab: Vocab, cutoff: int | None) -> Sample:
        """PairwiseDatasetProcessor: prompt + chosen and prompt + rejected, the prompt cut against the longer answer."""
        if len(aligned.prompt) % 2 != 1 or len(aligned.response) < 2:
            raise Invalid(INVALID)
        prompt, chosen = self._oneturn(aligned.prompt, aligned.response[0], aligned, vocab)
        rejected = self._oneturn(aligned.prompt, aligned.response[1], aligned, vocab)[1]
        source, c, r = _length(prompt), _length(chosen), _length(rejected)
        kept_source, target = infer_seqlen(source, max(c, r), cutoff) if cutoff is not None else (source, max(c, r))
        kept = 2 * kept_source + min(c, target) + min(r, target)
        text, spans = _joined([(prompt, False), (chosen, True), (prompt, False), (rejected, True)])
        parts = (*_parts(prompt, False, kept_source), *_parts(chosen, True, target),
                 *_parts(prompt, False, kept_source), *_parts(rejected, True, target))
        return Sample(2 * source + c + r, c + r, kept, min(c, target) + min(r, target), text, spans, len(aligned.prompt) + 2, 2,
                      parts)

    def _pretrain(self, record: dict, vocab: Vocab, cutoff: int | None) -> Sample:
        """PretrainDatasetProcessor: the text with the eos token after it (llama3's template: <|end_of_text|>)."""
        template = self.options.template
        eos = "<|end_of_text|>" if template is not None and template.name == "llama3" else (
            template.stop_words[0] if template is not None and template.replace_eos else vocab.eos)
        text = record.get("text")
        if not isinstance(text, str):
            raise TypeError("no text")
        text += eos
        n = vocab.count(text)
        kept = n if self.options.packing or cutoff is None else min(n, cutoff)
        return Sample(n, n, kept, kept, text, ((0, len(text)),), 1, 1, (Part(text, n, True, kept),))


__all__ = ["Options", "Renderer", "supervised"]

"""Counting a record's tokens through its model's chat template (see ftlint/chat/__init__.py)."""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
from collections.abc import Iterator, Mapping, Sequence
from time import monotonic

from ..options import Loss, TemplateBudget
from ..tokenizing import Template, TemplatePath, family
from ..tokens import TokenCounter, added_tokens, library_of
from ..trainers.cut import pairs_of_mask
from ..trainers.rendering import Masker, Renderer, Sample, Vocab
from . import CHAT_TEMPLATES, FAMILY_TEMPLATE_DEFAULTS, MISTRAL_COMMON, TEXT_BOS, ChatTemplate, count_rendered, template_text
from .mask import Masked, Tokenizer, char_spans, common_prefix, responses_mask, span_mask
from .mistral_common import Piece, pieces
from .render import JinjaTemplate, Rendered
from .source import TemplateFile, read_template


class Tally:
    """Renders conversations with one template and counts their tokens with one tokenizer.
    `file`: a --chat-template already read (source.py); without it, a TemplatePath is read here."""

    def __init__(self, template: Template, counter: TokenCounter, today: dt.date, loss: Loss | None = None,
                 budget: TemplateBudget | None = None, file: TemplateFile | None = None,
                 renderer: Renderer | None = None, masker: Masker | None = None) -> None:
        self.counter, self.today = counter, today
        self.renderer = renderer  # the trainer's own, for the formats it reads (Trainer.renderer)
        self.loss = loss or Loss()
        self.masker = masker  # the run's trainer's own loss mask (Trainer.masker), else TRL's, below
        self.budget = budget or TemplateBudget()
        self._tokenizer: Tokenizer | None = None
        self._deadline: float | None = None
        self.seen: list[str] = []  # the texts the current record rendered to (ftlint/chat/silent.py reads them)
        self.tool_jinja: JinjaTemplate | None = None
        if isinstance(template, TemplatePath):
            user = file or read_template(template.path)
            specials, bos, eos, pattern = FAMILY_TEMPLATE_DEFAULTS.get(family(counter.encoding_name), ((), "", "", ""))
            if user.specials:  # the tokenizer_config.json's own added tokens are the tokenizer's: they alone count
                specials, pattern = user.specials, ""
            elif user.tokens_of in CHAT_TEMPLATES:  # the named model's vocabulary (Qwen 2.5 has no <think> token; Qwen 3 has)
                own = CHAT_TEMPLATES[user.tokens_of]
                specials, bos, eos, pattern = own.specials, own.bos, own.eos, own.special_pattern
            self.spec = ChatTemplate(str(template), template.flag, tuple(specials), user.bos or bos,
                                     user.eos or eos, "file", pattern)
            self.jinja: JinjaTemplate | None = JinjaTemplate(user.source, today, self.budget)
            if user.tool_source:  # a folder's named "tool_use" template: transformers renders a record with tools by it
                self.tool_jinja = JinjaTemplate(user.tool_source, today, self.budget)
        else:
            self.spec = CHAT_TEMPLATES[template]
            self.jinja = JinjaTemplate(template_text(template), today, self.budget) if self.spec.source != "python" else None
        own_tokens = added_tokens(counter.encoding_name, counter.file_limit)
        if own_tokens:  # a tokenizer file's (and its folder's) added tokens are the ones it matches in the text
            self.spec = dataclasses.replace(self.spec, specials=own_tokens, special_pattern="")
        # text spelling one of these is read as that token (FT302): the trainer's plain added words are not control tokens
        self.controls, model_tokens = self.spec.splitter, self.spec.specials
        if self.masker is not None:  # the trainer's tokenizer as it loads it (its own added tokens, eos and bos)
            spec = self.spec
            controls, _, _ = self.masker.tokenizer(spec.specials, spec.eos, spec.bos, words=False)
            self.controls = dataclasses.replace(spec, specials=controls).splitter
            specials, eos, bos = self.masker.tokenizer(spec.specials, spec.eos, spec.bos)
            self.spec = dataclasses.replace(spec, specials=specials, eos=eos, bos=bos)
        library = library_of(counter.encoding_name, counter.file_limit)
        if library is not None and self.spec.specials != model_tokens:  # tokens new to a tokenizer.json: the trainer added them
            library = library.with_tokens([t for t in self.spec.specials if t not in model_tokens])
        self._library = library
        # the tokenizers library encodes a rendered text whole, as the trainer does (tokens/library.py)
        self._whole = library.count_whole if library is not None else None
        self.name = template

    @contextlib.contextmanager
    def record(self) -> Iterator[None]:
        """The renderings of one record: they share its --template-seconds."""
        self._deadline = monotonic() + self.budget.seconds
        self.seen = []
        try:
            yield
        finally:
            self._deadline = None

    @property
    def own_mask(self) -> bool:
        """Whether the renderer itself says which tokens train (mistral-common's per-message mask,
        mistral-finetune's loss), not a template under TRL's options."""
        return self.name == MISTRAL_COMMON

    def renders(self, formatting: str) -> bool:
        """Whether the trainer's own renderer makes the records of this format."""
        return self.renderer is not None and self.renderer.reads(formatting)

    def sample(self, record: dict, formatting: str) -> Sample:
        """A record (in the format's canonical shape) as the trainer's own renderer makes it, cut at
        the run's max length: each text it tokenizes counted with the model's tokenizer and the
        added tokens the trainer gives it. Unrendered (ftlint/trainers/rendering.py) if it cannot."""
        assert self.renderer is not None
        splitter = self.spec.splitter_with(self.renderer.added)
        count = self.counter.count
        vocab = Vocab(lambda text: count_rendered(text, splitter, count), self.spec.bos, self.spec.eos,
                      self.today.strftime("%d %b %Y"))
        made = self.renderer.sample(record, formatting, vocab, self.loss.max_seq_len)
        self.seen.append(made.text)
        return made

    @property
    def has_generation(self) -> bool:
        """Whether the template marks the assistant's output ({% generation %} blocks)."""
        return self.jinja is not None and self.jinja.has_generation

    def render(self, messages: Sequence[dict], tools: object = None, add_generation_prompt: bool = False,
               extra: Mapping[str, object] | None = None) -> Rendered:
        """`extra`: more variables for a Jinja template (a trainer's chat_template_kwargs)."""
        if self.own_mask:
            return _joined(pieces(messages, tools))
        jinja = self.tool_jinja if self.tool_jinja is not None and tools is not None else self.jinja
        if jinja is None:
            from . import llama3, llama4

            name = self.spec.name  # a family's: only ftlint's own renderers have no Jinja
            if name == "llama4":
                return llama4.render(messages, tools, add_generation_prompt)
            if name == "llama3.0":
                return llama3.first_format(messages, add_generation_prompt)
            return llama3.render(messages, tools, llama3.dated(name, self.today), add_generation_prompt,
                                 trim=llama3.trims(name))
        return jinja.render(messages, tools, self.spec.bos, self.spec.eos, add_generation_prompt, self._deadline,
                            **(extra or {}))

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            self._tokenizer = Tokenizer(self.counter.encoding_name, self.spec.splitter, self.counter.file_limit, self._library)
        return self._tokenizer

    def sample_tokenizer(self) -> Tokenizer:
        """The tokenizer the trainer's own renderer counts with (Tally.sample: its added tokens found
        too), for `ftlint show` to find where the tokens of one of its pieces start."""
        added = self.renderer.added if self.renderer is not None else ()
        return Tokenizer(self.counter.encoding_name, self.spec.splitter_with(added), self.counter.file_limit, self._library)

    def masked(self, messages: Sequence[dict], tools: object = None, only_last: bool = False) -> Masked:
        """A conversation as TRL trains it (language modelling on messages); with mistral-common,
        as mistral-finetune does (`only_last`: only the last message trains, as in its tool samples)."""
        if self.own_mask:
            return self._pieces(pieces(messages, tools, only_last))
        if self.masker is not None:
            return self.masker(self, messages, tools)
        rendered = self.render(messages, tools)
        self.seen.append(rendered.text)
        if self.loss.response_part:
            return self.responses(rendered.text)
        if not self.loss.assistant_only:
            tokens = self._count(rendered.text)
            return self._cut(Masked(tokens, tokens, rendered.text, [], True, self.spec.eos), None)
        encoded = self.tokenizer.encode(rendered.text)
        mask = span_mask(encoded, rendered.spans)
        return self._cut(Masked(len(encoded.ids), sum(mask), rendered.text, rendered.spans, False, self.spec.eos,
                                not self.has_generation), mask)

    def responses(self, text: str) -> Masked:
        """A text as unsloth's train_on_responses_only masks it (ftlint/chat/mask.py responses_mask):
        the loss's instruction and response parts, each tokenized on its own."""
        tokenizer = self.tokenizer
        encoded = tokenizer.encode(text)
        question, answer = (tokenizer.encode(part).ids for part in (self.loss.instruction_part, self.loss.response_part))
        mask = responses_mask(encoded.ids, question, answer)
        return self._cut(Masked(len(encoded.ids), sum(mask), text, char_spans(encoded, mask), False, self.spec.eos), mask)

    def prompt_completion(self, prompt: Sequence[dict], completion: Sequence[dict], tools: object = None) -> Masked:
        """A conversational prompt-completion row as TRL trains it: the completion starts where
        the tokens of the prompt (with the generation prompt) and of the whole row part."""
        whole = self.render([*prompt, *completion], tools)
        self.seen.append(whole.text)
        encoded = self.tokenizer.encode(whole.text)
        n = len(encoded.ids)
        mask = [True] * n
        if self.loss.completion_only:
            head = self.tokenizer.encode(self.render(prompt, tools, add_generation_prompt=True).text)
            start = common_prefix(head.ids, encoded.ids)
            mask = [i >= start for i in range(n)]
        spans: list[tuple[int, int]] = []
        if self.loss.assistant_only:
            marked = span_mask(encoded, whole.spans)
            mask = [a and b for a, b in zip(mask, marked, strict=True)]
            spans = whole.spans
        elif self.loss.completion_only:
            first = next((i for i, m in enumerate(mask) if m), n)
            spans = [(encoded.starts[first], len(whole.text))] if first < n else []
        all_trained = not self.loss.completion_only and not self.loss.assistant_only
        return self._cut(Masked(n, sum(mask), whole.text, spans, all_trained, self.spec.eos,
                                self.loss.assistant_only and not self.has_generation), mask)

    def _cut(self, masked: Masked, mask: list[bool] | None) -> Masked:
        """Where the trained tokens lie, for a trainer's cut at its max length (engine/judge.py):
        the mask's runs, or the whole sequence when every token trains. A few runs a record, from
        the mask already made."""
        masked.pairs = pairs_of_mask(mask) if mask is not None else [(0, masked.tokens)]
        return masked

    def tokens(self, messages: Sequence[dict], tools: object = None) -> int:
        """All tokens of the conversation as the template renders it. TemplateFailure if it cannot."""
        if self.own_mask:
            return self._pieces(pieces(messages, tools)).tokens
        text = self.render(messages, tools).text
        self.seen.append(text)
        return self._count(text)

    def count(self, text: str) -> int:
        """Tokens of a text as the tokenizer encodes it whole, each of its added tokens one."""
        return self._count(text)

    def count_pieces(self, text: str) -> int:
        """Tokens of a text encoded piece by piece between its added tokens (count_rendered), each added token one."""
        return count_rendered(text, self.spec.splitter, self.counter.count)

    @property
    def text_bos(self) -> str:
        """What the model's tokenizer puts before a text it encodes (TEXT_BOS; "": nothing)."""
        return TEXT_BOS.get(family(self.counter.encoding_name), "")

    def _count(self, text: str) -> int:
        if self._whole is not None:
            return self._whole(text)
        return count_rendered(text, self.spec.splitter, self.counter.count)

    def _pieces(self, made: list[Piece]) -> Masked:
        """mistral-common's sample: each control token one token, each text encoded on its own as
        plain text; what trains is the pieces' own mask."""
        count = self.counter.count
        sizes = [1 if p.special else count(p.text) for p in made]
        rendered = _joined(made)
        self.seen.append(rendered.text)
        trained = sum(n for n, p in zip(sizes, made, strict=True) if p.trained)
        # nothing is cut: mistral-finetune packs a long sample across sequences (its profile's past_max)
        return Masked(sum(sizes), trained, rendered.text, rendered.spans, False, self.spec.eos,
                      pieces=[(p.text, n, p.trained) for p, n in zip(made, sizes, strict=True)])


def _joined(made: list[Piece]) -> Rendered:
    """The pieces as one text, with the character spans of the trained ones (a turn with its </s>)."""
    spans: list[tuple[int, int]] = []
    position = 0
    for p in made:
        end = position + len(p.text)
        if p.trained:
            if spans and spans[-1][1] == position:
                spans[-1] = (spans[-1][0], end)
            else:
                spans.append((position, end))
        position = end
    return Rendered("".join(p.text for p in made), spans)

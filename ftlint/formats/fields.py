"""Formats of named fields: text; prompt and completion; TRL preference and unpaired rows; and
OpenAI-style DPO rows (input messages, one preferred and one non-preferred output)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tokens import TokenCounter

if TYPE_CHECKING:
    from ..chat.tally import Tally
from .base import Format, LineFigures, RecordFigures
from .counting import TOKENS_PER_RECORD, Counting


@dataclass(frozen=True)
class FieldsFormat(Format):
    """Named fields. `inputs` are context, `outputs` carry the loss (for text: the whole text)."""

    inputs: tuple[str, ...] = ()
    outputs: tuple[str, ...] = ("text",)
    # how a trainer reads a plain row (ftlint/formats read_as, from its Reading): the end of text it appends
    # to a text or a completion that lacks it, and whether it tokenizes prompt + completion as one text
    eos: str = ""
    joined: bool = False
    prompt_trains: bool = False  # ... and, joined, the prompt trains too (TRL's completion_only_loss off)
    eos_texts: bool = True  # the eos is appended to a plain text too, not only to a completion
    bos: int = 0  # tokens the tokenizer puts before a plain text it encodes (Llama 3's <|begin_of_text|>: 1)
    kind = "fields"

    def prompt(self, record: dict) -> object:
        return [record.get(k) for k in self.inputs] or record

    def _field(self, c: Counting, value: object) -> tuple[int, int]:
        if isinstance(value, list) and value and isinstance(value[0], dict) and "role" in value[0]:
            sizes = [c.turn(t) for t in value if isinstance(t, dict)]
            return sum(s[0] for s in sizes), sum(s[1] for s in sizes)
        n = c.content(value)
        return n, n

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        if tally is not None and self.shape == "prompt-completion-conversational":
            figures = self._templated(record, tally)
            if figures is not None:
                return figures
        if tally is not None and tally.loss.response_part and self.outputs == ("text",) and isinstance(record.get("text"), str):
            masked = tally.responses(record["text"])  # a text the user rendered: unsloth's train_on_responses_only masks it
            return LineFigures([RecordFigures(0, 1, masked.tokens, masked.trained)], 0, rendered=masked)
        if self.eos or self.joined or self.bos:
            plain = self._plain(record, counter, tally)
            if plain is not None:
                return LineFigures([RecordFigures(0, 1, plain[0] + plain[1], plain[1])], 0)
        c = Counting(counter)
        context = sum(self._field(c, record.get(k))[0] for k in self.inputs)
        outputs = [self._field(c, record.get(k)) for k in self.outputs]
        tokens = context + sum(o[0] for o in outputs)
        trainable = sum(o[1] for o in outputs)
        messages = sum(len(record[k]) for k in (*self.inputs, *self.outputs) if isinstance(record.get(k), list)
                       and record[k] and isinstance(record[k][0], dict) and "role" in record[k][0])
        return LineFigures([RecordFigures(messages, len(self.outputs) if self.outputs != ("text",) else 1, tokens, trainable)],
                           messages)


    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        """The inputs first, then each output's own overhead and what it says (Format.layout)."""
        plain = self._plain(record, counter, tally) if self.eos or self.joined or self.bos else None
        if plain is not None:
            return [[plain]]
        c = Counting(counter)
        context = sum(self._field(c, record.get(k))[0] for k in self.inputs)
        outputs = [self._field(c, record.get(k)) for k in self.outputs]
        pairs = [(context + total - body, body) for total, body in outputs[:1]] + [(total - body, body) for total, body in outputs[1:]]
        return [pairs or [(context, 0)]]

    def _plain(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> tuple[int, int] | None:
        """(untrained, trained) tokens of a plain text, or of a plain prompt and completion, as a
        trainer reads them that appends `eos` (one added token) and tokenizes prompt + completion as
        one text, the completion training from the prompt's own token count on (TRL's
        _prepare_dataset: add_eos, then tokenize_fn's completion_mask). None: not such a row. With
        the model's template (`tally`), or else its vocabulary's, text that spells one of its added
        tokens is that token, as the trainer's tokenizer reads it."""
        count = tally_count(tally, counter) if tally is not None else family_count(counter)
        if self.outputs == ("text",):
            text = record.get("text")
            if not isinstance(text, str):
                return None
            return 0, self.bos + (self._with_eos(text, count) if self.eos_texts else count(text))
        prompt, completion = record.get(self.inputs[0]) if self.inputs else None, record.get(self.outputs[0])
        if self.outputs != ("completion",) or not isinstance(prompt, str) or not isinstance(completion, str):
            return None
        whole = self._with_eos(prompt + completion, count) if self.joined else count(prompt) + self._with_eos(completion, count)
        head = 0 if self.prompt_trains else self.bos + min(count(prompt), whole)
        return head, self.bos + whole - head

    def _with_eos(self, text: str, count: Callable[[str], int]) -> int:
        """Tokens of `text` with the end of text appended unless it ends with it: one token, an added one."""
        if not self.eos:
            return count(text)
        return count(text.removesuffix(self.eos)) + 1

    def _templated(self, record: dict, tally: Tally) -> LineFigures | None:
        """A conversational prompt and completion through the chat template, masked as TRL
        masks them (None: not lists of messages, counted by the convention)."""
        from ..chat.render import OverBudget, TemplateFailure

        prompt, completion = record.get(self.inputs[0]), record.get(self.outputs[0])
        if not (isinstance(prompt, list) and isinstance(completion, list)
                and all(isinstance(m, dict) for m in (*prompt, *completion))):
            return None
        try:
            with tally.record():  # the record's two renderings share its seconds
                masked = tally.prompt_completion(prompt, completion, record.get("tools"))
        except TemplateFailure as exc:
            figures = self.figures(record, tally.counter)
            figures.failure, figures.over_budget = str(exc), isinstance(exc, OverBudget)
            return figures
        n = len(prompt) + len(completion)
        return LineFigures([RecordFigures(n, 1, masked.tokens, masked.trained)], n, rendered=masked)


def tally_count(tally: Tally, counter: TokenCounter) -> Callable[[str], int]:
    """Tokens of a text as the model's tokenizer reads it: each of its added tokens one."""
    from ..chat import count_rendered

    splitter = tally.spec.splitter
    return lambda text: count_rendered(text, splitter, counter.count)


def family_count(counter: TokenCounter) -> Callable[[str], int]:
    """Tokens of a text no template renders (a base model's plain row) as its Hugging Face tokenizer
    reads it: each added token of the vocabulary's family one."""
    from ..chat import count_rendered, family_splitter

    splitter = family_splitter(counter.encoding_name)
    return counter.count if splitter is None else lambda text: count_rendered(text, splitter, counter.count)


class Stepwise(FieldsFormat):
    """TRL's stepwise supervision (PRMTrainer): a prompt, the steps of one completion, and a
    label per step. One row is one record; the steps carry the loss (a label at each step's end)."""

    layout = Format.layout  # its prompt, then its steps

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        c = Counting(counter)
        prompt = self._field(c, record.get("prompt"))[0]
        given = record.get("completions")
        steps = [c.text(step) for step in given if isinstance(step, str)] if isinstance(given, list) else []
        return LineFigures([RecordFigures(0, len(steps), TOKENS_PER_RECORD + prompt + sum(steps), sum(steps))], 0)


class Alpaca(FieldsFormat):
    """Alpaca: instruction, an optional input (appended to it), output; LLaMA-Factory adds system
    and history ([[instruction, answer], ...] turns before this one). One line is one record; the
    output and, as LLaMA-Factory trains by default (mask_history off), each history answer carry
    the loss."""

    def as_messages(self, record: dict) -> list[dict]:
        messages: list[dict] = []
        system = record.get("system")
        if isinstance(system, str) and system:
            messages.append({"role": "system", "content": system})
        history = record.get("history")
        for pair in history if isinstance(history, list) else []:
            if isinstance(pair, list) and len(pair) == 2:
                messages += [{"role": "user", "content": pair[0]}, {"role": "assistant", "content": pair[1]}]
        instruction, given = record.get("instruction"), record.get("input")
        prompt = "\n".join(t for t in (instruction, given) if isinstance(t, str) and t)
        messages += [{"role": "user", "content": prompt}, {"role": "assistant", "content": record.get("output")}]
        return messages

    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        from .chat import AS_MESSAGES

        return AS_MESSAGES.layout({"messages": self.as_messages(record)}, counter, tally)

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        from .chat import AS_MESSAGES

        if tally is not None and tally.masker is not None:  # a trainer that renders Alpaca rows itself (axolotl)
            from ..chat.render import TemplateFailure

            try:
                with tally.record():
                    masked = tally.masker.fields(tally, record, self.shape)
            except TemplateFailure:
                masked = None
            if masked is not None:
                return LineFigures([RecordFigures(2, 1, masked.tokens, masked.trained)], 2, rendered=masked)
        return AS_MESSAGES.figures({"messages": self.as_messages(record)}, counter, tally)


@dataclass(frozen=True)
class PreferenceFormat(Format):
    """OpenAI-style DPO: the input conversation and two outputs, one pair per line."""

    alternate: tuple[str, ...] = ()
    adjacent: bool = False  # as ChatFormat.adjacent, for the input conversation
    kind = "preference"

    def turns_path(self) -> tuple[str, ...]:
        return ("input", "messages")

    def turns(self, record: dict) -> list[tuple[int, dict]]:
        """The input conversation's turns (the outputs are not turns that alternate)."""
        given = record.get("input")
        messages = given.get("messages") if isinstance(given, dict) else None
        return [(i, m) for i, m in enumerate(messages) if isinstance(m, dict)] if isinstance(messages, list) else []

    def prompt(self, record: dict) -> object:
        return record.get("input")

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        c = Counting(counter)
        given = record.get("input")
        given = given if isinstance(given, dict) else {}
        tokens = TOKENS_PER_RECORD + c.json(given.get("tools"))
        messages = given.get("messages")
        messages = messages if isinstance(messages, list) else []
        n = 0
        for turn in messages:
            if isinstance(turn, dict):
                tokens += c.turn(turn)[0]
                n += 1
        trainable = 0
        for key in ("preferred_output", "non_preferred_output"):
            outputs = record.get(key)
            for turn in outputs if isinstance(outputs, list) else []:
                if isinstance(turn, dict):
                    total, body = c.turn(turn)
                    tokens += total
                    trainable += body
                    n += 1
        return LineFigures([RecordFigures(n, 1, tokens, trainable)], n)

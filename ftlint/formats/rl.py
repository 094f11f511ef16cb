"""Prompt-only reinforcement-learning formats: each row a prompt the model answers while it
trains, and the fields its reward reads. Nothing is a fixed target; the prompt is what is counted,
rendered as the trainer renders it: through the model's chat template with the generation prompt
(verl's RLHFDataset: tokenizer.apply_chat_template(prompt, add_generation_prompt=True)), else by
ftlint's token convention.

  verl       verl's RL Parquet (verl/utils/dataset/README.md, docs/preparation/prepare_data.rst):
             `prompt` (chat messages), `data_source` (picks the reward function), `reward_model`
             (`ground_truth`, `style`), `ability`, `extra_info`
  nemo-gym   NeMo Gym's JSONL (nemo_gym/base_resources_server.py BaseRunRequest): the Responses API
             request `responses_create_params` (`input`: a string or items; `instructions`; `tools`),
             and the resources server's fields beside it (`expected_answer` for the math and MCQA
             servers)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..tokens import TokenCounter
from .base import LineFigures, RecordFigures
from .counting import TOKENS_PER_RECORD, Counting
from .fields import FieldsFormat

if TYPE_CHECKING:
    from ..chat.tally import Tally


@dataclass(frozen=True)
class PromptOnly(FieldsFormat):
    """A row's prompt as chat messages (and tools), from `prompt` or a Responses API request."""

    request: str = ""  # the key of a Responses API request holding the prompt ("" : a `prompt` column)

    def conversation(self, record: dict) -> tuple[list[dict], object]:
        if not self.request:
            prompt = record.get("prompt")
            if isinstance(prompt, str):
                return [{"role": "user", "content": prompt}], None
            return [m for m in prompt if isinstance(m, dict)] if isinstance(prompt, list) else [], None
        request = record.get(self.request)
        if not isinstance(request, dict):
            return [], None
        given = request.get("input")
        messages = [{"role": "user", "content": given}] if isinstance(given, str) else \
            [m for m in given if isinstance(m, dict) and "role" in m] if isinstance(given, list) else []
        instructions = request.get("instructions")
        if isinstance(instructions, str) and instructions:
            messages = [{"role": "system", "content": instructions}, *messages]
        return [_plain(m) for m in messages], request.get("tools")

    def prompt(self, record: dict) -> object:
        return self.conversation(record)[0]

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        messages, tools = self.conversation(record)
        if tally is not None and messages:
            from ..chat import count_rendered
            from ..chat.render import OverBudget, TemplateFailure

            try:
                with tally.record():
                    text = tally.render(messages, tools, add_generation_prompt=True).text
                tally.seen.append(text)
                tokens = count_rendered(text, tally.spec.splitter, counter.count)
                return LineFigures([RecordFigures(len(messages), 0, tokens, 0)], len(messages))
            except TemplateFailure as exc:
                figures = self.figures(record, counter)
                figures.failure, figures.over_budget = str(exc), isinstance(exc, OverBudget)
                return figures
        c = Counting(counter)
        tokens = TOKENS_PER_RECORD + (c.json(tools) if tools else 0) + sum(c.turn(m)[0] for m in messages)
        return LineFigures([RecordFigures(len(messages), 0, tokens, 0)], len(messages))

    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        return [[(r.tokens, 0)] for r in self.figures(record, counter, tally).records]


def _plain(message: dict) -> dict:
    """A Responses API message as a chat message: its input_text parts' text joined."""
    content = message.get("content")
    if isinstance(content, list) and all(isinstance(p, dict) and p.get("type") in ("input_text", "text") for p in content):
        return {**message, "content": "".join(str(p.get("text", "")) for p in content)}
    return message

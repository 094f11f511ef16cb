"""What a chat template writes around a turn: the text between an answer and the next question, and
between a question and its answer, as two exchanges render them. What unsloth's train_on_responses_only
is given as its instruction_part and response_part must be found there (FT241 names them)."""

from __future__ import annotations

import datetime as dt

from ..tokenizing import Template, TemplatePath

QUESTION, ANSWER, AGAIN = "QUESTION-TEXT", "ANSWER-TEXT", "NEXT-QUESTION-TEXT"


def turn_parts(template: Template, source: str | None = None, today: dt.date | None = None) -> tuple[str, str] | None:
    """(text between an answer and the next question, text between a question and its answer) of
    `template` (a family of ftlint/chat, or a TemplatePath with its `source`); None: not a template
    ftlint renders here."""
    from . import CHAT_TEMPLATES, llama3, template_text
    from .render import JinjaTemplate, TemplateFailure

    messages = [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": ANSWER},
                {"role": "user", "content": AGAIN}, {"role": "assistant", "content": ANSWER}]
    spec = CHAT_TEMPLATES.get(template) if isinstance(template, str) else None
    try:
        if isinstance(template, TemplatePath):
            if source is None:
                return None
            text = JinjaTemplate(source, today).render(messages).text
        elif spec is not None and spec.source.endswith(".jinja"):
            text = JinjaTemplate(template_text(spec.name), today).render(messages, None, spec.bos, spec.eos).text
        elif spec is not None and llama3.writes(spec.name):
            text = llama3.render(messages, None, llama3.dated(spec.name, today or dt.date.today()), trim=llama3.trims(spec.name)).text
        else:
            return None
    except TemplateFailure:
        return None
    _, _, rest = text.partition(ANSWER)
    turn, found, rest = rest.partition(AGAIN)
    answer, again, _ = rest.partition(ANSWER)
    return (turn, answer) if found and again else None

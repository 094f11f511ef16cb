"""What a chat template writes around a turn: the text between an answer and the next question, and
between a question and its answer, as two exchanges render them. What unsloth's train_on_responses_only
is given as its instruction_part and response_part must be found there (FT241 names them)."""

from __future__ import annotations

import datetime as dt

QUESTION, ANSWER, AGAIN = "QUESTION-TEXT", "ANSWER-TEXT", "NEXT-QUESTION-TEXT"


def turn_parts(template: str, source: str | None = None, today: dt.date | None = None) -> tuple[str, str] | None:
    """(text between an answer and the next question, text between a question and its answer) of
    `template` (a family of ftlint/chat, or "file:PATH" with its `source`); None: not a template
    ftlint renders here."""
    from . import CHAT_TEMPLATES, llama3, template_text
    from .render import JinjaTemplate, TemplateFailure

    messages = [{"role": "user", "content": QUESTION}, {"role": "assistant", "content": ANSWER},
                {"role": "user", "content": AGAIN}, {"role": "assistant", "content": ANSWER}]
    spec = CHAT_TEMPLATES.get(template)
    try:
        if template.startswith("file:") and source is not None:
            text = JinjaTemplate(source, today).render(messages).text
        elif spec is not None and spec.source.endswith(".jinja"):
            text = JinjaTemplate(template_text(template), today).render(messages, None, spec.bos, spec.eos).text
        elif spec is not None and llama3.writes(template):
            text = llama3.render(messages, None, llama3.dated(template, today or dt.date.today()), trim=llama3.trims(template)).text
        else:
            return None
    except TemplateFailure:
        return None
    _, _, rest = text.partition(ANSWER)
    turn, found, rest = rest.partition(AGAIN)
    answer, again, _ = rest.partition(ANSWER)
    return (turn, answer) if found and again else None

"""Counting a record's tokens through its model's chat template (see ftlint/chat/__init__.py)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from pathlib import Path

from ..tokens import TokenCounter
from . import CHAT_TEMPLATES, ChatTemplate, count_rendered, template_text
from .render import JinjaTemplate, Rendered, TemplateFailure


class Tally:
    """Renders conversations with one template and counts their tokens with one tokenizer."""

    def __init__(self, template: str, counter: TokenCounter, today: dt.date) -> None:
        self.counter, self.today = counter, today
        if template.startswith("file:"):
            source = _user_template(template.removeprefix("file:"))
            self.spec = ChatTemplate(template, f"--chat-template {template.removeprefix('file:')}", (), "", "", "file")
            self.jinja: JinjaTemplate | None = JinjaTemplate(source, today)
        else:
            self.spec = CHAT_TEMPLATES[template]
            self.jinja = JinjaTemplate(template_text(template), today) if self.spec.source != "python" else None
        self.name = template

    def render(self, messages: Sequence[dict], tools: object = None) -> Rendered:
        if self.jinja is None:
            from . import llama3

            return llama3.render(messages, tools, llama3.dated(self.name, self.today))
        return self.jinja.render(messages, tools, self.spec.bos, self.spec.eos)

    def tokens(self, messages: Sequence[dict], tools: object = None) -> int:
        """All tokens of the conversation as the template renders it. TemplateFailure if it cannot."""
        return count_rendered(self.render(messages, tools).text, self.spec.splitter, self.counter.count)


def _user_template(path: str) -> str:
    """A Jinja file, or a tokenizer_config.json (or a model folder) that holds the template."""
    import json

    p = Path(path)
    if p.is_dir():
        for name in ("chat_template.jinja", "tokenizer_config.json"):
            if (p / name).is_file():
                p = p / name
                break
    try:
        text = p.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise TemplateFailure(f"--chat-template {path}: cannot read it ({exc})") from None
    if p.suffix == ".json":
        try:
            template = json.loads(text).get("chat_template")
        except (ValueError, AttributeError):
            template = None
        if isinstance(template, list):  # named templates: the default one
            template = next((t.get("template") for t in template if isinstance(t, dict) and t.get("name") == "default"), None)
        if not isinstance(template, str):
            raise TemplateFailure(f"--chat-template {path}: no chat_template in it")
        return template
    return text

"""A user's chat template (--chat-template, or `chat-template` in a configuration): a Jinja file,
a tokenizer_config.json that holds one, or a model folder holding either.

It is read once, in the main process, through ftlint/trust.py (one regular file of at most
--max-file-bytes: a FIFO, a device, /dev/zero behind a symlink is refused in one line), and its
text travels to the workers in the judging settings: every worker renders the template that was
checked, even if the file changes during the run.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

from .. import trust
from .meter import TemplateFailure


@dataclass(frozen=True, slots=True)
class TemplateFile:
    path: str  # the file the template was read from
    source: str
    specials: tuple[str, ...] = ()  # the tokenizer_config.json's added tokens (none: the tokenizer family's)
    bos: str = ""
    eos: str = ""
    tokens_of: str = ""  # the named model's template family: its added tokens count the text when the file declares none


def read_template(path: str, limit: int = trust.MAX_FILE_BYTES) -> TemplateFile:
    """The template at `path`, with the added tokens, bos and eos its tokenizer_config.json
    declares. trust.Refused when it cannot be read; TemplateFailure when it holds no template."""
    p = folder = Path(path)
    if folder.is_dir():
        for name in ("chat_template.jinja", "tokenizer_config.json"):
            if trust.is_regular(folder / name):
                p = folder / name
                break
    text = trust.read_text(p, "--chat-template", limit)
    if p.suffix != ".json":
        tokens = _config(folder / "tokenizer_config.json", limit) if p != folder else None
        return TemplateFile(str(p), text, *_tokens(tokens))
    data = _json(text)
    template = data.get("chat_template") if isinstance(data, dict) else None
    if isinstance(template, list):  # named templates: the default one
        template = next((t.get("template") for t in template if isinstance(t, dict) and t.get("name") == "default"), None)
    if not isinstance(template, str):
        raise TemplateFailure(f"--chat-template {p}: no chat_template in it")
    return TemplateFile(str(p), template, *_tokens(data))


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return None


def _config(path: Path, limit: int) -> object:
    """A model folder's tokenizer_config.json beside its chat_template.jinja (None: none, or unreadable)."""
    if not trust.is_regular(path):
        return None
    try:
        return _json(trust.read_text(path, "--chat-template", limit))
    except trust.Refused:
        return None


def _tokens(data: object) -> tuple[tuple[str, ...], str, str]:
    """The added tokens, bos and eos a tokenizer_config.json declares, as transformers reads them
    (added_tokens_decoder; bos_token and eos_token, strings or objects)."""
    if not isinstance(data, dict):
        return (), "", ""

    def token(value: object) -> str:
        if isinstance(value, dict):
            value = value.get("content")
        return value if isinstance(value, str) else ""

    decoder = data.get("added_tokens_decoder")
    added = tuple(t for t in (token(v) for v in decoder.values()) if t) if isinstance(decoder, dict) else ()
    return added, token(data.get("bos_token")), token(data.get("eos_token"))

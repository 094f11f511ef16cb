"""A user's chat template (--chat-template, or `chat-template` in a configuration): a Jinja file,
a tokenizer_config.json that holds one, or a model folder, read as transformers reads it
(tokenization_utils_base.py from_pretrained; save_chat_templates writes the same layout):

  chat_template.jinja             the template (transformers 5, and 4 from 4.50, write it there);
  additional_chat_templates/      more templates by name (NAME.jinja);
  tokenizer_config.json           its `chat_template`, a string or a list of named templates
                                  (transformers 4 before 4.50), when no chat_template.jinja is there;
and the added tokens the folder's tokenizer has (tokenizer.json's, and tokenizer_config.json's
added_tokens_decoder and named special tokens: ftlint/tokens/folder.py), its bos and eos. Of
named templates, "default" renders a record, and "tool_use" one with tools, as transformers'
get_chat_template chooses.

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

JINJA, CONFIG, NAMED = "chat_template.jinja", "tokenizer_config.json", "additional_chat_templates"


@dataclass(frozen=True, slots=True)
class TemplateFile:
    path: str  # the file the template was read from
    source: str
    specials: tuple[str, ...] = ()  # the folder's added tokens (none: the tokenizer family's)
    bos: str = ""
    eos: str = ""
    tokens_of: str = ""  # the named model's template family: its added tokens count the text when the file declares none
    tool_source: str = ""  # the named "tool_use" template: a record with tools renders with it


def read_template(path: str, limit: int = trust.MAX_FILE_BYTES) -> TemplateFile:
    """The template at `path`, with the added tokens, bos and eos its folder declares.
    trust.Refused when it cannot be read; TemplateFailure when it holds no template."""
    folder = Path(path)
    if not folder.is_dir():
        text = trust.read_text(folder, "--chat-template", limit)
        if folder.suffix != ".json":
            return TemplateFile(str(folder), text)
        data = _json(text)
        default, tool = _from_config(data)
        if default is None:
            raise TemplateFailure(f"--chat-template {folder}: no chat_template in it")
        return TemplateFile(str(folder), default, *_tokens(data, None, limit), tool_source=tool)
    config = folder / CONFIG
    data = _json(trust.read_text(config, "--chat-template", limit)) if trust.is_regular(config) else None
    named = _named(folder, limit)
    if trust.is_regular(folder / JINJA):
        p, default, tool = folder / JINJA, trust.read_text(folder / JINJA, "--chat-template", limit), named.get("tool_use", "")
    else:
        p = config
        default, tool = _from_config(data)
        if default is None and not named:
            raise TemplateFailure(f"--chat-template {folder}: no chat_template.jinja, and no chat_template in its {CONFIG}")
        default = default or named.get("default")
        if default is None:
            raise TemplateFailure(f"--chat-template {folder}: its named templates have no default one")
        tool = tool or named.get("tool_use", "")
    return TemplateFile(str(p), default, *_tokens(data, folder, limit), tool_source=tool)


def holds_template(folder: Path, limit: int = trust.MAX_FILE_BYTES) -> bool:
    """Whether a model folder has a chat template (a base model's often has none)."""
    if trust.is_regular(folder / JINJA) or trust.is_regular(folder / NAMED / "default.jinja"):
        return True
    try:
        data = _json(trust.read_text(folder / CONFIG, "--chat-template", limit)) if trust.is_regular(folder / CONFIG) else None
    except trust.Refused:
        return False
    return _from_config(data)[0] is not None


def _json(text: str) -> object:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # RecursionError: nested deeper than the parser goes
        return None


def _from_config(data: object) -> tuple[str | None, str]:
    """A tokenizer_config.json's template, and its tool_use one when it names templates."""
    template = data.get("chat_template") if isinstance(data, dict) else None
    if isinstance(template, list):  # named templates
        named = {t.get("name"): t.get("template") for t in template if isinstance(t, dict)}
        tool = named.get("tool_use")
        default = named.get("default")
        return (default if isinstance(default, str) else None), (tool if isinstance(tool, str) else "")
    return (template if isinstance(template, str) else None), ""


def _named(folder: Path, limit: int) -> dict[str, str]:
    """The folder's additional_chat_templates/NAME.jinja (only the names transformers chooses by)."""
    out = {}
    for name in ("default", "tool_use"):
        path = folder / NAMED / f"{name}.jinja"
        if trust.is_regular(path):
            out[name] = trust.read_text(path, "--chat-template", limit)
    return out


def _tokens(data: object, folder: Path | None, limit: int) -> tuple[tuple[str, ...], str, str]:
    """The added tokens, bos and eos the folder's tokenizer has, as transformers reads them
    (tokenizer.json's added tokens, then tokenizer_config.json's; bos_token and eos_token,
    strings or objects)."""
    from ..tokens.folder import added_token, merged, of_config

    config = data if isinstance(data, dict) else {}
    added = merged(_tokenizer_json_added(folder, limit), of_config(config))
    bos, eos = added_token(config.get("bos_token"), True), added_token(config.get("eos_token"), True)
    return tuple(t.content for t in added), bos.content if bos else "", eos.content if eos else ""


def _tokenizer_json_added(folder: Path | None, limit: int) -> list:
    """The added tokens of the tokenizer.json beside the template (transformers 5 writes them
    nowhere else); none when there is none, or it cannot be read (--tokenizer says why)."""
    from ..tokens import TokenizerError
    from ..tokens.folder import of_tokenizer_json

    path = folder / "tokenizer.json" if folder is not None else None
    if path is None or not trust.is_regular(path):
        return []
    try:
        doc = _json(trust.read_file(path, "--chat-template", limit).decode("utf-8-sig"))
    except (trust.Refused, UnicodeDecodeError, TokenizerError):
        return []
    tokens = doc.get("added_tokens") if isinstance(doc, dict) else None
    return of_tokenizer_json([t for t in tokens if isinstance(t, dict) and isinstance(t.get("content"), str)]) \
        if isinstance(tokens, list) else []

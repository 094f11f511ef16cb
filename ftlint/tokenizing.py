"""What a run counts with, as resolve/ makes it once: a tokenizer (`Encoding`) and a chat template
(`Template`), each either a name ftlint knows or a file. A name stays a plain string (a key of
tokens.FAMILIES, of chat.CHAT_TEMPLATES, or "openai": ftlint's token convention); a file is its own
small type, so no layer tells one from the other by a prefix. Their string form ("path:/abs",
"file:/abs") is made here alone, for what a user reads: `-o json`'s "encoding", "tokenizer" and
"template", and the reports that print them. They pickle as one string each (workers, Ray)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TypeAlias


@dataclass(frozen=True, slots=True)
class TokenizerPath:
    """A tokenizer read from a file: --tokenizer's tokenizer.json or model folder, or the named
    model's snapshot in the Hugging Face cache."""

    path: str  # absolute

    def __str__(self) -> str:
        return f"path:{self.path}"

    @property
    def flag(self) -> str:
        """How errors and `ftlint show` name it: as the user gives it."""
        return f"--tokenizer {self.path}"


@dataclass(frozen=True, slots=True)
class TemplatePath:
    """A chat template read from a file: --chat-template's file or model folder, or one of ftlint's
    own .jinja files a trainer names (unsloth's get_chat_template)."""

    path: str  # absolute

    def __str__(self) -> str:
        return f"file:{self.path}"

    @property
    def flag(self) -> str:
        return f"--chat-template {self.path}"


Encoding: TypeAlias = str | TokenizerPath  # a tokenizer family (tokens.FAMILIES), or a file
Template: TypeAlias = str | TemplatePath  # a template family (chat.CHAT_TEMPLATES), "openai", or a file


def family(encoding: Encoding) -> str:
    """The tokenizer family's name ("" for a file): the key of the tables kept by family."""
    return encoding if isinstance(encoding, str) else ""

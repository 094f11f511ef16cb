"""How `ftlint convert` reads and writes a format (convert/ holds the code): a fact of each format
it converts, declared in the registry (Format.conversion) and handed down to the readers and
writers, which sit far below the registry and never name a format."""

from __future__ import annotations

from dataclasses import dataclass

MESSAGES = "messages"  # OpenAI-style messages; the other kinds are one format's own shape each


@dataclass(frozen=True)
class Conversion:
    kind: str  # the reader and writer: "messages", "sharegpt", "alpaca", "gemini", "nova"
    weights: bool = False  # messages: an assistant message's weight 0 or 1 is written (else lost, FT801)
    reasoning: str = ""  # messages: the key a message's reasoning is written under ("": none, lost)
    null_content: bool = False  # messages: content beside tool calls is written as null (OpenAI), else left out

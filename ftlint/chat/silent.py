"""What a renderer silently does to a record's text, read from the rendering itself (never from a
template's name): a system prompt that does not reach the sequence the trainer trains on (FT239).

Mistral Nemo's Hugging Face template writes the system prompt into the last user turn only when
that turn ends the conversation: a training row ends with the answer, so every row loses it.
mistral-common (mistral-finetune's renderer) keeps it in the last user turn. Other templates may
drop it in other cases; whichever the cause, the text is looked for in what was rendered.
"""

from __future__ import annotations

from collections.abc import Sequence


def system_texts(messages: Sequence[dict]) -> list[str]:
    """The text of each system message (its string, or its text parts joined), stripped, when not empty."""
    out = []
    for message in messages:
        if not isinstance(message, dict) or message.get("role") != "system":
            continue
        content = message.get("content")
        if isinstance(content, list):
            content = "".join(p["text"] for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
        if isinstance(content, str) and content.strip():
            out.append(content.strip())
    return out


def system_dropped(messages: Sequence[dict], rendered: Sequence[str]) -> bool:
    """Whether a system message's text is missing from any of the record's renderings (each a
    sequence the trainer trains on: the whole conversation, or each of its expanded records)."""
    if not rendered:
        return False
    wanted = system_texts(messages)
    return any(text not in sequence for text in wanted for sequence in rendered)

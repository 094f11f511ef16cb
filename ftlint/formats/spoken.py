"""ShareGPT read with its speakers as roles (formats.read_as, for a trainer whose Reading keeps them):
chat.py's ShareGPT stays the reading the other trainers make."""

from __future__ import annotations

from typing import TYPE_CHECKING

from .chat import ChatFormat, ShareGPT

if TYPE_CHECKING:
    from ..chat.tally import Tally
    from ..tokens import TokenCounter
    from .base import LineFigures

# the turns as plain messages, every token trained
AS_MESSAGES_ALL = ChatFormat(name="(as messages)", title="", providers="", record_rule="", schema="", shape="", targets="all")


class SpokenShareGPT(ShareGPT):
    """ShareGPT as a trainer reads it that only renames its keys (TRL's maybe_convert_to_chatml:
    from/value become role/content, conversations becomes messages): each speaker stays the role
    (human, gpt), a top-level system is not read, and every token trains (its language modelling).
    The rules still judge the turns as ShareGPT's (their roles mapped)."""

    def _messages(self, record: dict) -> dict:
        turns = record.get(self.turns_key)
        messages = [{"role": t.get("from"), "content": t.get("value")} for t in turns if isinstance(t, dict)] \
            if isinstance(turns, list) else []
        return {"messages": messages, "tools": record.get("tools")}

    def layout(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> list[list[tuple[int, int]]]:
        return AS_MESSAGES_ALL.layout(self._messages(record), counter, tally)

    def figures(self, record: dict, counter: TokenCounter, tally: Tally | None = None) -> LineFigures:
        if tally is not None:
            return AS_MESSAGES_ALL.figures(self._messages(record), counter, tally)
        return self._convention(record, counter)

"""`ftlint convert`: between the chat-like formats, as carefully as the checker reads them.

Every record goes through one common conversation (system text, messages with role, text or
parts, tool calls, tool results, weight, reasoning; tools) and is written in the target's
shape. What the target cannot hold (a tool call into Alpaca, a weight into TRL messages, an image
into ShareGPT, reasoning into Gemini) is a finding (FT801, the record is still written with the
rest) and never dropped silently; a converted record the target's own rules reject is reported
with the target's codes, and `--drop-invalid` leaves it out. Output is written to a temporary
file and renamed into place, never over an input. Every line read is accounted for (Tally):
written, left out (and why), or blank.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field

from ..formats.conversion import MESSAGES
from ..formats.registry import CONVERTIBLE as TARGETS
from ..formats.registry import FORMATS
from . import readers, writers
from .conversation import Conversion, Lost, Unconvertible, as_list

__all__ = ["READERS", "TARGETS", "Converted", "Tally", "convert_lines", "convert_record"]


@dataclass
class Converted:
    number: int  # the source line (or row)
    record: dict | None  # None: not convertible, or rejected by the target with --drop-invalid
    lost: Lost
    rejected: list[tuple[str, str, str]]  # (code, message, path) of the target's errors
    failure: str | None = None


# each format convert reads and writes, by name (the CLI's and app's), and how (its registry entry's Conversion)
CONVERSIONS: dict[str, Conversion] = {f.name: f.conversion for f in FORMATS.values() if f.conversion is not None}
READERS = {name: readers.READERS[conversion.kind] for name, conversion in CONVERSIONS.items()}

# what each reader takes from a record and from a message; anything else is not carried (FT801)
READ_TOP = {MESSAGES: ("messages", "tools"), "sharegpt": ("conversations", "system", "tools"),
            "alpaca": ("instruction", "input", "output", "system", "history"),
            "gemini": ("contents", "systemInstruction", "system_instruction", "tools"),
            "nova": ("schemaVersion", "system", "messages")}
READ_MESSAGE = ("role", "content", "tool_calls", "tool_call_id", "name", "weight", "reasoning_content", "reasoning", "thinking")


def _not_carried(record: dict, source: str) -> Lost:
    kind = CONVERSIONS[source].kind
    lost = [(f"$.{key}", f"'{key}' is not carried into the converted record") for key in record if key not in READ_TOP[kind]]
    if kind == MESSAGES:
        for i, message in enumerate(as_list(record.get("messages"))):
            if isinstance(message, dict):
                lost += [(f"$.messages[{i}].{key}", f"message key '{key}' is not carried") for key in message
                         if key not in READ_MESSAGE or (key == "name" and message.get("role") != "tool")]
    return lost


def convert_record(record: dict, source: str, target: str) -> tuple[dict | None, Lost, str | None]:
    lost: Lost = _not_carried(record, source)
    try:
        how = CONVERSIONS[target]
        return writers.WRITERS[how.kind](READERS[source](record), target, how, lost), lost, None
    except Unconvertible as exc:
        return None, lost, str(exc)


def convert_lines(lines: Iterator[tuple[int, dict]], source: str, target: str) -> Iterator[Converted]:
    """Each source record converted, with what was lost and the target's own errors on it."""
    from ..diagnostics import ERROR
    from ..engine.judge import record_findings
    from ..rules import severity
    from ..tokens import TokenCounter

    fmt, counter = FORMATS[target], TokenCounter("o200k_base")
    for number, record in lines:
        converted, lost, failure = convert_record(record, source, target)
        rejected = []
        if converted is not None:
            for code, hit in record_findings(fmt, converted, counter):
                if severity(code, fmt.severities) == ERROR:
                    rejected.append((code, hit.message, hit.pointer or ""))
        yield Converted(number, converted, lost, rejected, failure)


@dataclass
class Tally:
    """What became of each line read: written, left out, or blank; the three add up to the lines
    read, and the summary names each class with its codes. A rejected record (the target's rules,
    or the source line's own error, a duplicate key) is written unless --drop-invalid leaves it
    out; an unreadable line or a record the target cannot hold is never written."""

    dropping: bool  # --drop-invalid
    lines: int = 0
    written: int = 0
    blank: int = 0
    unconvertible: int = 0  # FT802
    rejected: Counter[str] = field(default_factory=Counter)  # records by their first error's code
    unreadable: Counter[str] = field(default_factory=Counter)  # lines by the code that says why they hold no record

    @property
    def left_out(self) -> int:
        return self.unconvertible + sum(self.unreadable.values()) + (sum(self.rejected.values()) if self.dropping else 0)

    @property
    def failing(self) -> bool:
        """Exit 1: a line that is not a clean record, and no --drop-invalid to say leave it out."""
        return not self.dropping and bool(self.unconvertible or self.rejected or self.unreadable)

    def summary(self) -> str:
        rejected = sum(self.rejected.values())
        why = [f"{self.unconvertible:,} not convertible: FT802"] if self.unconvertible else []
        if rejected and self.dropping:
            why.append(f"{rejected:,} rejected: {_by_code(self.rejected)}")
        if self.unreadable:
            why.append(f"{sum(self.unreadable.values()):,} unreadable: {_by_code(self.unreadable)}")
        kept = f" ({rejected:,} rejected, written as they are: {_by_code(self.rejected)})" if rejected and not self.dropping else ""
        return (f"{self.lines:,} lines read: {self.written:,} records written{kept}, {self.left_out:,} left out"
                + (f" ({'; '.join(why)})" if why else "") + f", {self.blank:,} blank")


def _by_code(counts: Counter[str]) -> str:
    return ", ".join(f"{code} {n:,}" for code, n in sorted(counts.items()))

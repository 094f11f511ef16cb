"""One escaping rule per output format, for every piece of text that came from data or from a
file name (keys, ids, roles, values quoted in messages, paths).

text      control characters (C0, DEL, C1: newlines, ANSI and OSC escapes) and the Unicode line
          and bidirectional-override characters are shown as \\n, \\x1b, \\u202e: a finding is
          always one line, and data cannot move the cursor, clear the screen, write the
          clipboard or forge another finding.
github    workflow commands (GitHub's own escapes for data and properties), after the text rule,
          so no data can end an annotation or start a second command (::add-mask::, ...).
markdown  text from data only ever inside a code span it cannot close (backticks replaced) or a
          fence longer than any backtick run in it: HTML, headings, links and @mentions never
          render from data; table cells keep their columns (bars escaped, no newlines).
SARIF     artifact locations are RFC 3986 URI references: every character outside the
          unreserved set and "/" is percent-encoded (UTF-8), so spaces, #, %, ?, backslashes,
          non-ASCII names and "c:" are all valid and mean the file they name.
"""

from __future__ import annotations

import re
import urllib.parse

# the text rule (every output's first): below the reporters, where a notebook's tables reach it too
from ..shown import escape_char as escape_char
from ..shown import path_text as path_text
from ..shown import shown_path as shown_path
from ..shown import terminal_safe as terminal_safe

_SURROGATE = re.compile("[\ud800-\udfff]")


def json_safe(text: str) -> str:
    """A string that encodes as valid UTF-8 JSON: lone surrogates from a non-UTF-8 file name
    are shown as \\xNN (JSON would need them as invalid UTF-8)."""
    if _SURROGATE.search(text):
        return "".join(f"\\x{ord(ch) - 0xDC00:02x}" if "\udc80" <= ch <= "\udcff" else
                       ("\ufffd" if "\ud800" <= ch <= "\udfff" else ch) for ch in text)
    return text


def github_data(text: str) -> str:
    """An annotation's message: GitHub's escapes (%, CR, LF) on text already made one line."""
    return terminal_safe(text).replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


_UNSAFE_BUT_LINES = re.compile("[\x00-\x09\x0b\x0c\x0e-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")


def github_property(text: str) -> str:
    """A property of a workflow command (file=, title=), escaped as GitHub unescapes it (%, CR,
    LF, : and ,), so a file name with a newline still names its file; other control characters
    are shown as escapes (GitHub has none for them)."""
    safe = _UNSAFE_BUT_LINES.sub(escape_char, shown_path(text))
    return safe.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A").replace(":", "%3A").replace(",", "%2C")


def md_code(text: str) -> str:
    """Text inside a markdown code span: it cannot close the span (backticks become U+02CB),
    nor a table cell (bars escaped), nor start a line."""
    return "`" + terminal_safe(text).replace("`", "\u02cb").replace("|", "\\|") + "`"


def md_text(text: str) -> str:
    """ftlint's own words in markdown prose or a table cell (a rule's summary, a figure): bars,
    backslashes and newlines cannot break the table. Text from data goes in md_code instead."""
    return terminal_safe(text).replace("\\", "\\\\").replace("|", "\\|")


def md_fence(lines: list[str]) -> list[str]:
    """Lines in a fenced block whose fence no line can close: longer than any backtick run."""
    longest = max((len(run) for line in lines for run in re.findall(r"`+", line)), default=0)
    fence = "`" * max(3, longest + 1)
    return [fence, *(terminal_safe(line) for line in lines), fence]


def sarif_uri(path: str) -> str:
    """A file name as an RFC 3986 URI reference: a relative name stays relative, an absolute
    one becomes a file:// URI; the name's bytes (a non-UTF-8 name's too) are percent-encoded."""
    raw = path.encode("utf-8", "surrogateescape" if any("\udc80" <= ch <= "\udcff" for ch in path) else "surrogatepass")
    quoted = urllib.parse.quote(raw, safe="/")
    return "file://" + quoted if path.startswith("/") else quoted

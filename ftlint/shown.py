"""Text as every output shows it, the rule each output format starts from: any secret masked
(ftlint.redact) and every control character shown as an escape (one line, no terminal control).
report/escape.py builds each format's escaping on it; ftlint/notebook.py's HTML tables use it too,
from below the reporters (a plan's Estimate draws its own table). A leaf but for ftlint.redact.
"""

from __future__ import annotations

import functools
import re

# C0 controls, DEL, C1 controls; U+2028/2029 (line and paragraph separators); bidi overrides
# and isolates (U+202A-202E, U+2066-2069), which can make a line read as something else.
_UNSAFE = re.compile("[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069\ud800-\udfff]")
_NAMED = {"\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escape_char(match: re.Match[str]) -> str:
    ch = match.group(0)
    if ch in _NAMED:
        return _NAMED[ch]
    code = ord(ch)
    if 0xDC80 <= code <= 0xDCFF:  # a byte of a non-UTF-8 file name (surrogateescape)
        return f"\\x{code - 0xDC00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}"


def terminal_safe(text: str) -> str:
    """Text with every control character shown as an escape: one line, no terminal control."""
    return _UNSAFE.sub(escape_char, text) if _UNSAFE.search(text) else text


@functools.lru_cache(maxsize=1024)
def path_text(path: str) -> str:
    """A file name as text: a secret in it masked, undecodable bytes (a non-UTF-8 name) shown as
    \\xNN, controls escaped."""
    return terminal_safe(shown_path(path))


@functools.lru_cache(maxsize=1024)
def shown_path(path: str) -> str:
    """A file name as every output shows it: any secret in it masked (ftlint.redact)."""
    from .redact import redact

    return redact(path)

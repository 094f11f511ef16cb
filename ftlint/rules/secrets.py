"""Secrets and personal data in training text (FT6xx): on by default; `--ignore FT6` turns the
family off, `--ignore FT604,FT605` only the personal-data warnings.

A dataset bound for a third-party provider is where credentials and personal data leave an
organisation, and a model trained on them can repeat them to anyone. Findings name the kind,
the line and the JSON path, and never echo the value in full.

Speed: the literals each pattern needs are looked for in one pass over the compact JSON of the
whole record (Aho-Corasick, compiled); only a record with one of them is walked, and only the
strings that hold one are searched, each from where its literals occur (a pattern with no
literal at its start, as a URL's scheme, would otherwise be tried at every character of a long
text). A string's JSON path is written out only for a finding.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator
from typing import TYPE_CHECKING, Any

from ..diagnostics import ERROR, WARNING, Hit, json_path
from ..literals import present as literals_in
from ..parse import compact_json
from ..redact import EMAIL_LOCAL, KINDS, TRIGGERS, Kind, mask, triggered
from . import RUNS, check, register

if TYPE_CHECKING:
    from .context import RecordContext

register("FT601", "credential", ERROR, """
    Text contains what looks like an API key or access token.

    Recognised: AWS access key ids, GitHub and GitLab tokens, Slack tokens, Stripe live keys,
    OpenAI and Anthropic API keys, Google API keys, Hugging Face tokens, JSON Web Tokens; in
    string values and in keys (a secret used as a key, a role or an id is still one).
    Why: the file goes to a third party, and a model trained on a key can repeat it. Revoke the
    key, then remove it from the data (and from git history).
    Example: "content": "use AKIAIOSFODNN7EXAMPLE to connect"
""")

register("FT602", "private-key", ERROR, """
    Text contains a private key block (-----BEGIN ... PRIVATE KEY-----).

    Why: as FT601; a private key in training data is a leaked private key.
""")

register("FT603", "password-in-url", ERROR, """
    Text contains a URL or connection string with a password (scheme://user:password@host).

    Placeholders (`password`, `****`, `<pass>`, `${VAR}`) are not reported.
    Why: as FT601.
    Example: postgres://admin:hunter2@db.internal:5432/prod
""")

register("FT604", "email-address", WARNING, """
    Text contains an e-mail address (example.com/.org/.net and similar test domains are not reported).

    Why: personal data in training text can be repeated by the model and may not be yours to
    share with a provider. Replace with placeholders if it is not needed.
""")

register("FT605", "phone-number", WARNING, """
    Text contains what looks like a phone number (international +CC form or (555) 123-4567 form).

    Why: as FT604.
""")

TEST_DOMAINS = ("example.com", "example.org", "example.net", "test", "invalid", "localhost", "example")
PLACEHOLDERS = re.compile(r"^(?:password|passwd|pass|pwd|secret|changeme|x+|\*+|<[^>]*>|\$\{?[A-Za-z_]+\}?|\{\{.*\}\}|\.\.\.)$", re.I)


CODES = ("FT601", "FT602", "FT603", "FT604", "FT605")
CODE_OF = dict(zip(("credential", "private-key", "password-url", "email", "phone"), CODES, strict=True))


@check("record", *CODES, needs=tuple(TRIGGERS), fused=RUNS)
def secrets(record: dict, ctx: RecordContext) -> Iterator[Hit]:
    enabled = frozenset(code for code in CODES if ctx.enabled(code))
    for code, message, pointer in scan(record, enabled, ctx.present):
        yield Hit(message, pointer, code=code)


def scan(record: dict, codes: frozenset[str] | None = None, present: frozenset[bytes] | None = None) -> Iterator[tuple[str, str, str]]:
    """Yield (code, message, JSON path) for each secret or personal datum in the record: its
    string values and its keys (a secret used as a key, a role or an id is still a secret).
    `codes` limits the kinds looked for (None: all); `present` is the set of literals found in
    the record's compact JSON, if the caller has it."""
    if present is None:
        present = literals_in(compact_json(record))
    found = triggered(present)
    if not found:
        return
    kinds = [(CODE_OF[KINDS[i].family], KINDS[i]) for i in sorted(found)]
    kinds = [(code, kind) for code, kind in kinds if codes is None or code in codes]
    # a literal in the compact JSON is in some string or key (none of them is written escaped)
    wanted = tuple(dict.fromkeys(lit for _, kind in kinds for lit in kind.literals))
    for text, is_key, where in _holding(record, wanted):
        for code, kind in kinds:
            if not any(lit in text for lit in kind.literals):
                continue
            for match in _matches(kind, text):
                message = message_of(code, kind.name, match)
                if message:
                    yield code, message + (" (in a key)" if is_key else ""), json_path(_parts(where))
                    break


# A path is kept as nested pairs (the parent's pair, this key or index) while walking, and
# written out only for a finding: most strings are walked past.
Where = tuple[Any, ...]


def _holding(record: object, literals: tuple[str, ...]) -> Iterator[tuple[str, bool, Where]]:
    """The record's strings and keys that hold one of `literals`, in the order
    diagnostics.strings(record, keys=True) gives them (an object's keys before its values,
    values in document order), without recursion."""
    stack: list[tuple[object, Where]] = [(record, ())]
    pop, push = stack.pop, stack.append
    while stack:
        node, where = pop()
        if isinstance(node, str):
            for literal in literals:
                if literal in node:
                    yield node, False, where
                    break
        elif isinstance(node, dict):
            items = list(node.items())
            for key, value in reversed(items):
                push((value, (where, key)))
            for key, _ in items:
                for literal in literals:
                    if literal in key:
                        yield key, True, (where, key)
                        break
        elif isinstance(node, list):
            for index in range(len(node) - 1, -1, -1):
                push((node[index], (where, index)))


def _parts(where: Where) -> list[object]:
    parts: list[object] = []
    while where:
        where, part = where
        parts.append(part)
    parts.reverse()
    return parts


# Where a kind's pattern does not start with a literal (re finds a literal start fast by itself,
# it tries any other pattern at every character of a long text), how a match is found from the
# kind's literals: how far before an occurrence of one a match can start, and a pattern every
# match starts with, ending at that occurrence. A URL's scheme is a letter and 1 to 20 more
# characters before its "://" (redact.PASSWORD_URL); a phone number starts at its "+" or "(" and
# the digit after it (redact.PHONE).
LOCATORS: dict[str, tuple[int, re.Pattern[str] | None]] = {
    "password-url": (21, re.compile(r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://")),
    "phone": (0, None),
}


def _matches(kind: Kind, text: str) -> Iterator[re.Match[str]]:
    """What kind.pattern.finditer(text) yields."""
    locator = LOCATORS.get(kind.family)
    if locator is None:
        return kind.pattern.finditer(text)
    return _located(kind, text, *locator)


def _located(kind: Kind, text: str, lead: int, start: re.Pattern[str] | None) -> Iterator[re.Match[str]]:
    """kind.pattern.finditer(text), the pattern tried only where a match can start: from `lead`
    characters before an occurrence of one of the kind's literals to the occurrence, and there
    only where `start` matches up to its end."""
    match_at = kind.pattern.match
    floor = 0  # every start below it is tried or excluded
    # each literal's next occurrence at or after floor (-1: none), found again only once passed,
    # so text with many of one literal and none of the other is not read again for each
    ahead = {lit: text.find(lit) for lit in kind.literals}
    while True:
        for lit, i in ahead.items():
            if 0 <= i < floor:
                ahead[lit] = text.find(lit, floor)
        at = min((i for i in ahead.values() if i >= 0), default=-1)
        if at < 0:
            return
        match = _first_at(match_at, start, kind.literals, text, max(floor, at - lead), at)
        if match:
            yield match
            floor = match.end()  # finditer goes on from there (no pattern here matches empty text)
        else:
            floor = at + 1


def _first_at(match_at: Callable[[str, int], re.Match[str] | None], start: re.Pattern[str] | None,
              literals: tuple[str, ...], text: str, low: int, at: int) -> re.Match[str] | None:
    """The match starting first in [low, at], if any."""
    if start is None:
        for begin in range(low, at + 1):
            match = match_at(text, begin)
            if match:
                return match
        return None
    # a match of `start` ends with the literal at `at`: the search can stop there, and one
    # found starting after `at` is another occurrence's (tried with it)
    end = at + max(map(len, literals))
    while (lead_in := start.search(text, low, end)) is not None and lead_in.start() <= at:
        match = match_at(text, lead_in.start())
        if match:
            return match
        low = lead_in.start() + 1
    return None


def message_of(code: str, kind: str, match: re.Match[str]) -> str | None:
    """What a match of `kind` says as a finding of `code` (None: the match is a look-alike the
    rule rejects: a placeholder password, a test domain, a number that is no phone number)."""
    found = match.group(0)
    if code == "FT603":
        password = match.group(1)
        if PLACEHOLDERS.match(password):
            return None
        return f"{kind}: {found.split('://')[0]}://…:{mask(password)}@… ; remove it and rotate the password"
    if code == "FT604":
        domain = match.group(1).lower()
        if domain in TEST_DOMAINS or domain.endswith(tuple("." + d for d in TEST_DOMAINS)):
            return None
        before = match.string[max(0, match.start() - 65) : match.start()]
        local_match = EMAIL_LOCAL.search(before)
        if not local_match:
            return None
        prefix = before[: local_match.start()]
        if prefix.endswith((":", "/")):  # user:password@host or scheme://user@host, not an e-mail
            return None
        local = local_match.group(0)
        return f"{kind} ({local[0]}***@{domain[0]}***): personal data in training text"
    if code == "FT605":
        start = match.start()
        if start and (match.string[start - 1].isalnum() or match.string[start - 1] in "_+"):
            return None
        digits = re.sub(r"\D", "", found)
        if not 8 <= len(digits) <= 15:
            return None
        return f"{kind} (ending …{digits[-2:]}): personal data in training text"
    if code == "FT602":
        return f"{kind}: remove it and treat the key as leaked"
    return f"{kind} ({mask(found)}, {len(found)} characters): revoke it and remove it from the data"



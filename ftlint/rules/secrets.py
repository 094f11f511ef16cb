"""Secrets and personal data in training text (FT6xx): on by default; `--ignore FT6` turns the
family off, `--ignore FT604,FT605` only the personal-data warnings.

A dataset bound for a third-party provider is where credentials and personal data leave an
organisation, and a model trained on them can repeat them to anyone. Findings name the kind,
the line and the JSON path, and never echo the value in full.

Speed: the literals each pattern needs are looked for in one pass over the compact JSON of the
whole record (Aho-Corasick, compiled); only a record with one of them is walked to find which
string, and where.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, json_path, strings
from ..literals import present as literals_in
from ..parse import compact_json
from ..redact import EMAIL_LOCAL, KINDS, TRIGGERS, mask, triggered
from . import check, register

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


@check("record", *CODES, needs=tuple(TRIGGERS))
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
    for path, text, is_key in strings(record, keys=True):
        for code, kind in kinds:
            if not any(lit in text for lit in kind.literals):
                continue
            for match in kind.pattern.finditer(text):
                message = _message(code, kind.name, match)
                if message:
                    yield code, message + (" (in a key)" if is_key else ""), json_path(path)
                    break


def _message(code: str, kind: str, match: re.Match[str]) -> str | None:
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



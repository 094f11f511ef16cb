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

import functools
import re
from collections.abc import Iterator
from typing import TYPE_CHECKING

from ..diagnostics import ERROR, WARNING, Hit, json_path, strings
from ..literals import present as literals_in
from ..parse import compact_json
from . import check, register

if TYPE_CHECKING:
    from ..engine.judge import RecordContext

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

# (code, kind, pattern, literals: the pattern can only match where one of them occurs)
CREDENTIALS = [
    ("AWS access key id", r"\b(?:AKIA|ASIA)[0-9A-Z]{16}\b", ("AKIA", "ASIA")),
    ("GitHub token", r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})", ("ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_")),
    ("GitLab token", r"\bglpat-[A-Za-z0-9_-]{20,}", ("glpat-",)),
    ("Slack token", r"\bxox[abprs]-[A-Za-z0-9-]{10,}", ("xox",)),
    ("Stripe live key", r"\b[rs]k_live_[A-Za-z0-9]{20,}", ("k_live_",)),
    ("Anthropic API key", r"\bsk-ant-[A-Za-z0-9_-]{20,}", ("sk-",)),
    # OpenAI keys carry "T3BlbkFJ" (base64 of "OpenAI"); legacy ones are sk- and 48 letters and digits.
    # Neither shape matches prose like "sk-learn-pipeline-v2-final".
    ("OpenAI API key", r"\bsk-(?!ant-)(?:(?:proj|svcacct|admin)-)?[A-Za-z0-9_-]{0,200}T3BlbkFJ[A-Za-z0-9_-]{10,}|\bsk-[A-Za-z0-9]{48}\b", ("sk-",)),
    ("Google API key", r"\bAIza[0-9A-Za-z_-]{35}", ("AIza",)),
    ("Hugging Face token", r"\bhf_[A-Za-z0-9]{30,}", ("hf_",)),
    ("JSON Web Token", r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}", ("eyJ",)),
]
# the header and the start of a key body (base64): prose that only names the header is no key
PRIVATE_KEY = r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----[\s\\n]*[A-Za-z0-9+/=]{32}"
PASSWORD_URL = r"\b[a-zA-Z][a-zA-Z0-9+.-]{1,20}://[^\s:/@\"'<>]{1,64}:([^\s@/\"'<>]{1,128})@[A-Za-z0-9.-]+"
# an e-mail is found from its "@domain" (fast: it starts with a literal), then its local part
EMAIL_DOMAIN = r"@((?:[A-Za-z0-9-]{1,63}\.)+[A-Za-z]{2,24})\b"
EMAIL_LOCAL = re.compile(r"[A-Za-z0-9._%+-]{1,64}$")
PHONE = r"(?:\+\d{1,3}[ .-]?(?:\(\d{1,4}\)[ .-]?)?\d{1,4}(?:[ .-]?\d{2,4}){1,4}|\(\d{3}\) ?\d{3}[-. ]\d{4})(?![\w])"

_KINDS: list[tuple[str, str, str, tuple[str, ...]]] = [("FT601", k, p, lit) for k, p, lit in CREDENTIALS]
_KINDS += [("FT602", "private key block", PRIVATE_KEY, ("PRIVATE KEY",)),
           ("FT603", "password in a URL", PASSWORD_URL, ("://",)),
           ("FT604", "e-mail address", EMAIL_DOMAIN, ("@",)),
           ("FT605", "phone number", PHONE, ("+", "("))]
_COMPILED = [(code, kind, re.compile(pattern), literals) for code, kind, pattern, literals in _KINDS]
# the literal each kind needs, and the kinds each literal triggers (found in one pass: ftlint.literals)
_TRIGGERS: dict[bytes, list[int]] = {}
for _index, (_, _, _, _literals) in enumerate(_KINDS):
    for _literal in _literals:
        _TRIGGERS.setdefault(_literal.encode(), []).append(_index)

TEST_DOMAINS = ("example.com", "example.org", "example.net", "test", "invalid", "localhost", "example")
PLACEHOLDERS = re.compile(r"^(?:password|passwd|pass|pwd|secret|changeme|x+|\*+|<[^>]*>|\$\{?[A-Za-z_]+\}?|\{\{.*\}\}|\.\.\.)$", re.I)


CODES = ("FT601", "FT602", "FT603", "FT604", "FT605")


@check("record", *CODES, needs=tuple(_TRIGGERS))
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
    triggered = {index for literal in present for index in _TRIGGERS.get(literal, ())}
    if not triggered:
        return
    kinds = [_COMPILED[i] for i in sorted(triggered) if codes is None or _COMPILED[i][0] in codes]
    for path, text, is_key in strings(record, keys=True):
        for code, kind, pattern, literals in kinds:
            if not any(lit in text for lit in literals):
                continue
            for match in pattern.finditer(text):
                message = _message(code, kind, match)
                if message:
                    yield code, message + (" (in a key)" if is_key else ""), json_path(path)
                    break


@functools.lru_cache(maxsize=4096)  # messages repeat (every blank line's is the same)
def redact(text: str) -> str:
    """`text` with every secret or personal datum the scanners recognise masked as the findings
    mask them: applied to every message, JSON path and file name ftlint prints, so a secret used
    as a key, a role, an id or a file name is never echoed in full, in any output format."""
    present = literals_in(text.encode("utf-8", "surrogatepass"))
    triggered = {index for literal in present for index in _TRIGGERS.get(literal, ())}
    for index in sorted(triggered):
        code, _, pattern, literals = _COMPILED[index]
        if any(lit in text for lit in literals):
            text = (_KEY_BLOCK if code == "FT602" else pattern).sub(functools.partial(_masked, code), text)
    return text


def _masked(code: str, match: re.Match[str]) -> str:
    found = match.group(0)
    if code == "FT603":
        return f"{found.split('://')[0]}://…:{_mask(match.group(1))}@…"
    if code == "FT604":
        return f"***@{match.group(1)[:1]}***"
    if code == "FT605":
        return f"…{re.sub(r'[^0-9]', '', found)[-2:]}"
    if code == "FT602":
        return "-----BEGIN … PRIVATE KEY----- …"
    return _mask(found)


# the whole block, body and end line included, for masking (finding one needs only its start)
_KEY_BLOCK = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\n)*(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?")


def _message(code: str, kind: str, match: re.Match[str]) -> str | None:
    found = match.group(0)
    if code == "FT603":
        password = match.group(1)
        if PLACEHOLDERS.match(password):
            return None
        return f"{kind}: {found.split('://')[0]}://…:{_mask(password)}@… ; remove it and rotate the password"
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
    return f"{kind} ({_mask(found)}, {len(found)} characters): revoke it and remove it from the data"


def _mask(secret: str) -> str:
    return secret[:4] + "…" if len(secret) > 8 else "…"

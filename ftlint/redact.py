"""What a secret or a personal datum looks like, and how ftlint masks one wherever it prints.

The patterns of the FT6xx rules (rules/secrets.py words their findings) and `redact`, which every
message, JSON path and file name passes through before any output (diagnostics, the engine, the
reporters): a secret used as a key, a role, an id or a file name is never echoed in full, in any
output format. A leaf: it knows no code and no rule.

Speed: each kind names the literals it can only match near; one Aho-Corasick pass over a text
(ftlint.literals) says which kinds to try at all.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass

from .literals import present as literals_in
from .literals import want

# (kind, pattern, literals: the pattern can only match where one of them occurs)
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



@dataclass(frozen=True, slots=True)
class Kind:
    family: str  # credential, private-key, password-url, email, phone
    name: str  # what the finding calls it
    pattern: re.Pattern[str]
    literals: tuple[str, ...]


KINDS: tuple[Kind, ...] = (
    *(Kind("credential", name, re.compile(pattern), literals) for name, pattern, literals in CREDENTIALS),
    Kind("private-key", "private key block", re.compile(PRIVATE_KEY), ("PRIVATE KEY",)),
    Kind("password-url", "password in a URL", re.compile(PASSWORD_URL), ("://",)),
    Kind("email", "e-mail address", re.compile(EMAIL_DOMAIN), ("@",)),
    # a phone number starts with "+" or "(" and a digit: "(" and "+" alone are in most prose and code
    Kind("phone", "phone number", re.compile(PHONE), tuple(f"{lead}{d}" for lead in "+(" for d in "0123456789")),
)
# Masking is wider than finding: a name that glues a secret to a word with "_" ("eval_AKIA...", a
# metric, a file, a key) has no \b before the secret, yet it must not be echoed; so the masks take
# letters and digits as a word's characters, where the scanners take \w.
_ALNUM_BOUNDARY = r"(?:(?<![A-Za-z0-9])(?=[A-Za-z0-9])|(?<=[A-Za-z0-9])(?![A-Za-z0-9]))"
MASKS: tuple[re.Pattern[str], ...] = tuple(re.compile(kind.pattern.pattern.replace(r"\b", _ALNUM_BOUNDARY)) for kind in KINDS)
# the kinds each literal triggers (found in one pass: ftlint.literals)
TRIGGERS: dict[bytes, tuple[int, ...]] = {}
for _index, _kind in enumerate(KINDS):
    for _literal in _kind.literals:
        TRIGGERS[_literal.encode()] = (*TRIGGERS.get(_literal.encode(), ()), _index)
want(TRIGGERS)  # redact() needs them found even where no rule module is loaded


def triggered(present: frozenset[bytes]) -> set[int]:
    """The indexes in KINDS of the kinds whose literals occur, given the literals found."""
    return {index for literal in present for index in TRIGGERS.get(literal, ())}


@functools.lru_cache(maxsize=4096)  # messages repeat (every blank line's is the same)
def redact(text: str) -> str:
    """`text` with every secret or personal datum the scanners recognise masked as the findings
    mask them: applied to every message, JSON path and file name ftlint prints, so a secret used
    as a key, a role, an id or a file name is never echoed in full, in any output format."""
    present = literals_in(text.encode("utf-8", "surrogatepass"))
    for index in sorted(triggered(present)):
        kind = KINDS[index]
        if any(lit in text for lit in kind.literals):
            text = (_KEY_BLOCK if kind.family == "private-key" else MASKS[index]).sub(functools.partial(_masked, kind.family), text)
    return text


def _masked(family: str, match: re.Match[str]) -> str:
    found = match.group(0)
    if family == "password-url":
        return f"{found.split('://')[0]}://…:{mask(match.group(1))}@…"
    if family == "email":
        return f"***@{match.group(1)[:1]}***"
    if family == "phone":
        return f"…{re.sub(r'[^0-9]', '', found)[-2:]}"
    if family == "private-key":
        return "-----BEGIN … PRIVATE KEY----- …"
    return mask(found)


# the whole block, body and end line included, for masking (finding one needs only its start)
_KEY_BLOCK = re.compile(r"-----BEGIN (?:[A-Z0-9]+ )*PRIVATE KEY-----(?:[A-Za-z0-9+/=\s]|\\n)*(?:-----END (?:[A-Z0-9]+ )*PRIVATE KEY-----)?")


def mask(secret: str) -> str:
    """A secret shown as its first four characters (nothing of a short one)."""
    return secret[:4] + "…" if len(secret) > 8 else "…"

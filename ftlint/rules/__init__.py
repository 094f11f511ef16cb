"""The registry of every code ftlint emits: its documentation, its severity and its check.

Codes are letters + 3 digits; the hundreds digit is the family:
  FT0xx file and JSON        FT1xx structure (schema)     FT2xx content and conversation
  FT3xx tokens               FT4xx dataset-wide           FT5xx training-plan advice
  FT6xx secrets and personal data                         FT7xx CI gates
  FT8xx conversion (`ftlint convert`)
Codes are never reused. A rule's docstring is its documentation (`ftlint rules CODE`): the first
line is the summary; then what it checks, why it matters for training, and an example.

One module holds each code: its `Rule` (name, severity, doc) and the `Check` that emits it. A
check has a kind, and each kind one signature:

  line     check(line: Line) -> Iterable[Hit]                       once per line with facts (what the
                                                                    reader and the parser found wrong)
  mapping  check(record, mapping: Mapping) -> Iterable[Hit]         once per parsed line read through
                                                                    --mapping, on the record as read
  record   check(record, ctx: RecordContext) -> Iterable[Hit]       once per parsed line
  file     check(summary, ctx: FileContext) -> Iterable[Hit]        once per file, at its end
  dataset  check(view: DatasetView) -> Iterable[Located]            once over the files checked together
  split    check(train, validation: DatasetView) -> Iterable[Located]   once, with --validation: each hit a
                                                                    validation record also in the training data
  plan     check(estimate, ctx: PlanContext) -> Iterable[Hit]       once per estimate
  model    check(model, today: date) -> Iterable[Hit]                once per run, for the model used
  trainer  check(profile, fmt: Format, path) -> Iterable[Hit]        once per file, for the trainer named

A record check may be scoped to some formats (`scope`), and may say which literals the record's
compact JSON must hold for it to fire at all (`needs`: one Aho-Corasick pass answers every check).
The module list is explicit (MODULES): adding a rule means adding it to one module of this list,
plus its fixture.

A record check declares beside its registration how the fused clean-record pass (engine/fused.py)
shows it silent (`fused`, a Fused): by a fact the pass establishes anyway (the record valid against
the format's schema, figures without a rendering, no record over the limit or cut), by a literal
absent, by its own predicate over the record's messages (turns, fields), written here once and
called by the check's own loop where it can; or that the pass runs it as it is (a check of literals
a few records hold). A record check without a declaration turns the pass off for the formats it
applies to. The check that counts a record exactly when its byte bound reaches the limit says so
(`recounts`): the main process runs it on the records a worker deferred.

A rule speaks per record or per file (`per`). A record check whose finding is a property of the
file or of its template, not of the record (FT235: the template inserts an empty <think></think>
into every turn; FT801: the target has no field for a key every record holds), is `per="file"`:
it is still emitted for every record (JSON and SARIF list each), and the text, GitHub and
Markdown reports say it once per file and message, with the count and the first lines
(ftlint/report/check.py).
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..diagnostics import ERROR, OFF, SEVERITIES, WARNING, Hit
from ..literals import want

if TYPE_CHECKING:
    from ..formats import Format

# Every rule module, in the order `ftlint rules` groups them. Nothing registers by accident: a
# module not listed here is not loaded, and a test asserts every module of this package is.
MODULES = ("file", "schema", "trainer", "runs", "chat", "conversation", "parts", "media", "tokens", "template", "dataset", "secrets", "advice", "models", "gates", "convert")
KINDS = ("line", "mapping", "record", "file", "dataset", "split", "plan", "model", "trainer")
PER = ("record", "file")  # how a report says a rule's findings: each one, or once per file and message

Scope = Callable[["Format"], bool]
# the facts the fused pass establishes of every record it proves clean (engine/fused.py)
VALID = "valid"  # the record is valid against the format's schema (jsonschema-rs's is_valid)
PLAIN = "plain"  # its figures carry no rendering by a chat template, no failure to render, no system dropped
WITHIN = "within"  # no record of it is over the limit
UNCUT = "uncut"  # the trainer's max length neither drops nor cuts trained tokens of any record of it
FACTS = (VALID, PLAIN, WITHIN, UNCUT)
WALKS = ("messages", "turns", "fields")  # OpenAI's messages shape, another shape's turns (ShareGPT's), fields
# (record, its messages or turns: a non-empty list of dicts, each with a string role; () for fields) ->
# whether the check is silent on it; a check proved so is not run
Silent = Callable[[dict, list[dict]], bool]


@dataclass(frozen=True, slots=True)
class Fused:
    """How the fused pass shows a record check silent (above), the first that applies: the
    predicate for the format's walk (built once per format from it), a fact, a literal absent;
    else, with `runs`, the pass runs it as it is."""

    walks: Mapping[str, Callable[[Format], Silent]] | None = None
    fact: str = ""
    absent: bytes = b""  # silent where the record's JSON lacks this literal (and no template's tokens are asked for)
    runs: bool = False


RUNS = Fused(runs=True)  # the fused pass runs it as it is, where its literals occur


@dataclass(frozen=True, slots=True)
class Rule:
    code: str
    name: str
    severity: str
    doc: str
    kind: str  # where it is emitted: line (the reader's and the parser's facts), mapping, record, file, dataset, plan
    per: str = "record"  # "file": the same fact of every record, said once per file with the count (see above)

    @property
    def summary(self) -> str:
        return self.doc.strip().splitlines()[0]


@dataclass(frozen=True, slots=True)
class Check:
    kind: str
    codes: tuple[str, ...]  # the codes its hits carry (a hit without a code is the first)
    func: Callable[..., Iterable[Any]]
    scope: Scope | None = None  # record checks: the formats it applies to (None: all)
    needs: tuple[bytes, ...] = ()  # record checks: literals one of which must occur in the record
    gate: bool = False  # record checks: a hit stops the line's other checks and figures (FT106)
    fused: Fused | None = None  # record checks: how the fused pass shows it silent (None: the pass is off)
    recounts: bool = False  # record checks: it asks for an exact count (ctx.recount), and runs again on it
    whole: bool = False  # file checks: judged of the training set as a whole too (--dataset), as one file

    def applies(self, fmt: Format) -> bool:
        return self.scope is None or self.scope(fmt)


_RULES: dict[str, Rule] = {}
_CHECKS: list[Check] = []
_LOADED = False


def register(code: str, name: str, severity: str, doc: str, kind: str = "record", per: str = "record") -> Rule:
    """Document a code. Its check is registered beside it, in the same module."""
    if code in _RULES:
        raise ValueError(f"code {code} registered twice")
    if severity not in SEVERITIES or kind not in KINDS or per not in PER:
        raise ValueError(f"{code}: bad severity {severity!r}, kind {kind!r} or per {per!r}")
    rule_ = Rule(code, name, severity, inspect.cleandoc(doc), kind, per)
    _RULES[code] = rule_
    return rule_


def check(kind: str, *codes: str, scope: Scope | None = None, needs: Iterable[bytes] = (), gate: bool = False,
          fused: Fused | None = None, recounts: bool = False, whole: bool = False
          ) -> Callable[[Callable[..., Iterable[Any]]], Callable[..., Iterable[Any]]]:
    """Decorator: `func` emits `codes` (documented with `register`, in the same module)."""

    def wrap(func: Callable[..., Iterable[Any]]) -> Callable[..., Iterable[Any]]:
        for code in codes:
            if code not in _RULES:
                raise ValueError(f"{func.__qualname__} emits {code}, which is not registered")
        if fused is not None and (fused.fact not in ("", *FACTS) or not set(fused.walks or ()) <= set(WALKS)):
            raise ValueError(f"{func.__qualname__}: a fused declaration of unknown facts or walks")
        _CHECKS.append(Check(kind, codes, func, scope, want(needs), gate, fused, recounts, whole))
        return func

    return wrap


def rule(code: str, name: str, severity: str = ERROR, *, scope: Scope | None = None, needs: Iterable[bytes] = (),
         kind: str = "record", per: str = "record", fused: Fused | None = None
         ) -> Callable[[Callable[..., Iterable[Any]]], Callable[..., Iterable[Any]]]:
    """Decorator for a check that emits one code, documented by the function's docstring."""

    def wrap(func: Callable[..., Iterable[Any]]) -> Callable[..., Iterable[Any]]:
        register(code, name, severity, func.__doc__ or name, kind, per)
        return check(kind, code, scope=scope, needs=needs, fused=fused)(func)

    return wrap


def registry() -> Mapping[str, Rule]:
    """Every rule, by code: the modules of MODULES imported once, whatever imported what before."""
    global _LOADED
    if not _LOADED:
        for name in MODULES:
            importlib.import_module(f"{__name__}.{name}")
        _LOADED = True
    return _RULES


def checks(kind: str) -> list[Check]:
    registry()
    return [c for c in _CHECKS if c.kind == kind]


def once_per_file(code: str) -> bool:
    """Whether reports say `code` once per file and message (a code ftlint does not know: each time)."""
    known = registry().get(code)
    return known is not None and known.per == "file"


def severity(code: str, overrides: Mapping[str, str] | None = None) -> str:
    """The severity of `code`: a format's own (its provider's verdict) or the registry's; OFF
    means the format's provider does not mind and the finding is not made."""
    if overrides and code in overrides:
        return overrides[code]
    return registry()[code].severity


__all__ = ["ERROR", "FACTS", "KINDS", "MODULES", "OFF", "PER", "PLAIN", "RUNS", "UNCUT", "VALID", "WALKS", "WARNING", "WITHIN", "Check",
           "Fused", "Hit", "Rule", "Silent", "check", "checks", "once_per_file", "register", "registry", "rule", "severity"]

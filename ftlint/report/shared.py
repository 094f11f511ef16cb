"""What several reporters share: GitHub workflow annotations and SARIF, escaped as their
formats need (ftlint/report/escape.py)."""

from __future__ import annotations

import io
from typing import IO

import orjson

from .. import __version__
from ..rules import registry
from .escape import github_data, github_property, json_safe, sarif_uri

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def github_annotation(severity: str, code: str, message: str, path: str | None = None,
                      line: int = 0, col: int = 0) -> str:
    """A GitHub Actions workflow command: `::error file=…,line=…,col=…,title=…::message`.
    Line 0 (the whole file) gets no line, so GitHub puts it on the file."""
    level = "error" if severity == "error" else "warning"
    props = []
    if path and path != "<stdin>":
        props.append(f"file={github_property(path)}")
        if line > 0:
            props.append(f"line={line}")
            if col > 0:
                props.append(f"col={col}")
    props.append(f"title={github_property(f'ftlint {code}')}")
    return f"::{level} {','.join(props)}::{github_data(message)}"


def sarif_result(code: str, severity: str, message: str, path: str | None, line: int = 0, col: int = 0,
                 pointer: str | None = None, fingerprint: str = "") -> dict:
    result: dict = {"ruleId": code, "level": "error" if severity == "error" else "warning",
                    "message": {"text": json_safe(message)}}
    if path and path != "<stdin>":
        location: dict = {"physicalLocation": {"artifactLocation": {"uri": sarif_uri(path)}}}
        if line > 0:
            location["physicalLocation"]["region"] = {"startLine": line, "startColumn": max(col, 1)}
        if pointer:
            location["logicalLocations"] = [{"fullyQualifiedName": json_safe(pointer), "kind": "member"}]
        result["locations"] = [location]
    if fingerprint:
        result["partialFingerprints"] = {"ftlintRecord/v1": fingerprint}
    return result


def _rule_entry(code: str) -> dict | None:
    rule = registry().get(code)
    if rule is None:
        return None
    return {
        "id": code,
        "name": rule.name,
        "shortDescription": {"text": rule.summary},
        "fullDescription": {"text": rule.doc},
        "help": {"text": rule.doc},
        "defaultConfiguration": {"level": "error" if rule.severity == "error" else "warning"},
    }


class SarifWriter:
    """A SARIF 2.1.0 log written as results come: memory holds the rules met so far, not the
    results. The rules are listed after the results (JSON object members have no order), and
    each result names its rule by index in that list."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out
        self.rules: dict[str, int] = {}
        self.count = 0

    def start(self) -> None:
        head = {"$schema": SARIF_SCHEMA, "version": "2.1.0"}
        self.out.write(orjson.dumps(head).decode()[:-1] + ',\n "runs": [{\n  "results": [')

    def result(self, code: str, severity: str, message: str, path: str | None, line: int = 0, col: int = 0,
               pointer: str | None = None, fingerprint: str = "") -> None:
        entry = self.entry(code, severity, message, path, line, col, pointer, fingerprint)
        self.out.write(("," if self.count else "") + "\n   " + entry)
        self.count += 1

    def entry(self, code: str, severity: str, message: str, path: str | None, line: int = 0, col: int = 0,
              pointer: str | None = None, fingerprint: str = "") -> str:
        """One result, as `result` writes it (its rule indexed the first time it is seen)."""
        entry = sarif_result(code, severity, message, path, line, col, pointer, fingerprint)
        if code not in self.rules and _rule_entry(code) is not None:
            self.rules[code] = len(self.rules)
        if code in self.rules:
            entry["ruleIndex"] = self.rules[code]
        return orjson.dumps(entry).decode()

    def write_entries(self, text: str, n: int) -> None:
        """`n` results made by `entry`, each after its separator, as `result` would write them after the first."""
        self.out.write(text)
        self.count += n

    def finish(self) -> None:
        rules = [entry for code in self.rules if (entry := _rule_entry(code)) is not None]
        driver = {"name": "ftlint", "version": __version__, "rules": rules}
        self.out.write(("\n  ]," if self.count else "],") + '\n  "tool": {"driver": ' + orjson.dumps(driver).decode() + "}\n }]\n}\n")


def sarif_document(results: list[tuple]) -> str:
    """A whole SARIF log for a few results (estimate): (code, severity, message, path)."""
    buffer = io.StringIO()
    writer = SarifWriter(buffer)
    writer.start()
    for args in results:
        writer.result(*args)
    writer.finish()
    return buffer.getvalue()

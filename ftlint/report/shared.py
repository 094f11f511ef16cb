"""Pieces the check and estimate reporters share: GitHub annotations, SARIF, markdown tables."""

from __future__ import annotations

from .. import __version__
from ..rules import load_all

SARIF_SCHEMA = "https://docs.oasis-open.org/sarif/sarif/v2.1.0/errata01/os/schemas/sarif-schema-2.1.0.json"


def _escape_data(text: str) -> str:
    return text.replace("%", "%25").replace("\r", "%0D").replace("\n", "%0A")


def _escape_property(text: str) -> str:
    return _escape_data(text).replace(":", "%3A").replace(",", "%2C")


def github_annotation(severity: str, code: str, message: str, path: str | None = None,
                      line: int = 0, col: int = 0) -> str:
    """A GitHub Actions workflow command: `::error file=…,line=…,col=…,title=…::message`.
    Line 0 (the whole file) gets no line, so GitHub puts it on the file."""
    level = "error" if severity == "error" else "warning"
    props = []
    if path and path != "<stdin>":
        props.append(f"file={_escape_property(path)}")
        if line > 0:
            props.append(f"line={line}")
            if col > 0:
                props.append(f"col={col}")
    props.append(f"title={_escape_property(f'ftlint {code}')}")
    return f"::{level} {','.join(props)}::{_escape_data(message)}"


def sarif_result(code: str, severity: str, message: str, path: str | None, line: int = 0, col: int = 0,
                 pointer: str | None = None) -> dict:
    result: dict = {"ruleId": code, "level": "error" if severity == "error" else "warning",
                    "message": {"text": message}}
    if path and path != "<stdin>":
        location: dict = {"physicalLocation": {"artifactLocation": {"uri": path}}}
        if line > 0:
            location["physicalLocation"]["region"] = {"startLine": line, "startColumn": max(col, 1)}
        if pointer:
            location["logicalLocations"] = [{"fullyQualifiedName": pointer, "kind": "member"}]
        result["locations"] = [location]
    return result


def sarif_log(results: list[dict]) -> dict:
    registry = load_all()
    used = sorted({r["ruleId"] for r in results})
    rules = []
    for code in used:
        rule = registry.get(code)
        if rule is None:
            continue
        rules.append({
            "id": code,
            "name": rule.name,
            "shortDescription": {"text": rule.summary},
            "fullDescription": {"text": rule.doc},
            "help": {"text": rule.doc},
            "defaultConfiguration": {"level": "error" if rule.severity == "error" else "warning"},
        })
    index = {rule["id"]: i for i, rule in enumerate(rules)}
    for result in results:
        if result["ruleId"] in index:
            result["ruleIndex"] = index[result["ruleId"]]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {"name": "ftlint", "version": __version__, "rules": rules}},
            "results": results,
        }],
    }


def md_escape(text: str) -> str:
    return text.replace("|", "\\|").replace("\n", " ")

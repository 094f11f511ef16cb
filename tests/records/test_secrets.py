"""Secrets and personal data: found, located, never echoed in full, and configurable."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import run

SECRETS = {
    "FT601": ["AKIAIOSFODNN7EXAMPLE", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "glpat-abcdefghij0123456789",
              "xoxb-1234567890-abcdefghij", "sk_live_abcdefghijklmnopqrstuv", "sk-ant-api03-abcdefghijklmnopqrstuvwxyz",
              "sk-proj-Xq7bR2mN9vK4tL8wY3zA6cD1eF5gH0jP2sU7iO4kE9rT6yB3nM8xC1vZ5aS2dF7gH4jK9lQ0wE3rT6yU8iO1pA4sD7fT3BlbkFJZx9cV2bN5mL8kJ3hG6fD1sA4qW7eR0tY3uI6oP9aS2dF5gH8jK1lZ4xC7vB0nM3qW6eR9tY2uI5oP8aS1dF4gH7", "sk-" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8s9T0u1V2w3X4", "AIzaSyA-abcdefghijklmnopqrstuvwxyz01234", "hf_abcdefghijklmnopqrstuvwxyzABCDEF"],
    "FT603": ["postgres://admin:s3cr3t-Pa55@db.internal:5432/prod"],
    "FT604": ["jane.doe@gmail.com"],
    "FT605": ["+33 6 12 34 56 78"],
}


def _file(tmp_path: Path, text: str, where: str = "user") -> Path:
    messages = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "ok"}]
    messages[0 if where == "user" else 1]["content"] = f"see {text} now"
    path = tmp_path / "data.jsonl"
    path.write_text(json.dumps({"messages": messages}) + "\n")
    return path


@pytest.mark.parametrize(("code", "secret"), [(c, s) for c, items in SECRETS.items() for s in items])
def test_secret_is_found_located_and_masked(code: str, secret: str, tmp_path: Path) -> None:
    path = _file(tmp_path, secret, where="assistant")
    found = [f for f in json.loads(run("check", str(path), "-o", "json").stdout) if f["code"].startswith("FT6")]
    assert [(f["code"], f["line"], f["pointer"]) for f in found] == [(code, 1, "$.messages[1].content")]
    assert secret not in found[0]["message"]


@pytest.mark.parametrize("text", ["a@example.com", "mysql://user:<password>@host/db", "version 1.2.3", "sk-short",
                                  "call 2024-11-30", "https://user@github.com/x", "id 1234567890123",
                                  "sk-learn-pipeline-v2-final-model-x", "the header -----BEGIN PRIVATE KEY----- starts a key file",
                                  "ISBN 978-3-16-148410-0"])
def test_look_alikes_are_not_reported(text: str, tmp_path: Path) -> None:
    found = [f for f in json.loads(run("check", str(_file(tmp_path, text)), "-o", "json").stdout) if f["code"].startswith("FT6")]
    assert found == []


def test_family_and_single_codes_can_be_ignored(tmp_path: Path) -> None:
    path = _file(tmp_path, "AKIAIOSFODNN7EXAMPLE and jane.doe@gmail.com")
    codes = lambda *a: {f["code"] for f in json.loads(run("check", str(path), "-o", "json", *a).stdout)} - {"FT401"}  # noqa: E731
    assert codes() == {"FT601", "FT604"}
    assert codes("--ignore", "FT604") == {"FT601"}
    assert codes("--ignore", "ft6") == set()
    assert run("check", str(path), "--ignore", "FT6,FT401").exit_code == 0
    assert run("check", str(path), "--ignore", "bogus").exit_code == 2


def test_the_phone_scan_is_woken_only_by_a_plus_or_parenthesis_before_a_digit() -> None:
    from ftlint.literals import present
    from ftlint.redact import KINDS, triggered

    phone = next(i for i, kind in enumerate(KINDS) if kind.family == "phone")
    # prose and code hold "(" and "+" everywhere: no phone number can start at them
    assert phone not in triggered(present(b'{"content": "x = f(a) + g(b) (see above) +/- c"}'))
    assert phone in triggered(present(b'{"content": "call +1 415 555 0123"}'))
    assert phone in triggered(present(b'{"content": "call (415) 555-0123"}'))

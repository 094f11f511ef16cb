"""The code is held to its own standards in CI: ruff's rule set and mypy (no untyped
definition, no unused ignore) over ftlint/, as pyproject.toml configures them."""

from __future__ import annotations

import subprocess
import sys

from conftest import ROOT


def test_ruff_is_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stdout + r.stderr


def test_mypy_is_clean() -> None:
    r = subprocess.run([sys.executable, "-m", "mypy"], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr

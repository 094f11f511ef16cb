"""The README is tested: every `$ ftlint ...` example in a ```console block is run and its
output must be what the README shows (FTLINT_UPDATE_GOLDENS=1 rewrites the outputs after a
deliberate change: review the diff). Its two set-up commands are the ones CI runs."""

from __future__ import annotations

import os
import re
import shlex

import pytest

from conftest import ROOT, run

README = ROOT / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ftlint` line of every console block."""
    found = []
    for block in BLOCK.findall(text):
        parts = re.split(r"^\$ (ftlint .*)\n", block, flags=re.M)
        found += [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]
    return found


EXAMPLES = examples(README.read_text())


def test_the_readme_has_examples() -> None:
    assert len(EXAMPLES) >= 6
    assert any(cmd.startswith("ftlint check ") for cmd, _ in EXAMPLES)
    assert any(cmd.startswith("ftlint estimate ") for cmd, _ in EXAMPLES)


@pytest.mark.parametrize(("command", "expected"), EXAMPLES, ids=[c for c, _ in EXAMPLES])
def test_readme_example_output(command: str, expected: str) -> None:
    args = shlex.split(command)[1:]
    got = run(*args).stdout
    if os.environ.get("FTLINT_UPDATE_GOLDENS") and got != expected:
        text = README.read_text()
        text = text.replace(f"$ {command}\n{expected}", f"$ {command}\n{got}", 1)
        README.write_text(text)
        return
    assert got == expected


def test_the_two_setup_commands_are_what_ci_runs() -> None:
    text = README.read_text()
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", text)
    assert len(commands) == 2
    install, tests = commands
    assert "ftlint check fixtures/" in install and "pip install" in install
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci

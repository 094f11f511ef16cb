"""The README and docs/ are tested: every `$ ftlint ...` example in a ```console block is run and
its output must be what the page shows (FTLINT_UPDATE_GOLDENS=1 rewrites the outputs after a
deliberate change: review the diff). The README's two set-up commands are the ones CI runs, and
it stays a front door (at most 250 lines) whose links all lead somewhere."""

from __future__ import annotations

import os
import re
import shlex

import pytest

from conftest import DOCS, ROOT, run

README = ROOT / "README.md"
BLOCK = re.compile(r"```console\n(.*?)```", re.S)


def examples(text: str) -> list[tuple[str, str]]:
    """(command, expected output) for every `$ ftlint` line of every console block."""
    found = []
    for block in BLOCK.findall(text):
        parts = re.split(r"^\$ (ftlint .*)\n", block, flags=re.M)
        found += [(parts[i], parts[i + 1]) for i in range(1, len(parts), 2)]
    return found


EXAMPLES = [(page, command, expected) for page in DOCS for command, expected in examples(page.read_text())]


def test_the_readme_has_examples() -> None:
    front = [cmd for page, cmd, _ in EXAMPLES if page == README]
    assert any(cmd.startswith("ftlint check ") for cmd in front)
    assert any(cmd.startswith("ftlint estimate ") for cmd in front)
    assert len(EXAMPLES) >= 10


@pytest.mark.parametrize(("page", "command", "expected"), EXAMPLES, ids=[f"{p.name}: {c}" for p, c, _ in EXAMPLES])
def test_documented_example_output(page: object, command: str, expected: str) -> None:
    args = shlex.split(command)[1:]
    got = run(*args).stdout
    if os.environ.get("FTLINT_UPDATE_GOLDENS") and got != expected:
        text = page.read_text()  # type: ignore[attr-defined]
        text = text.replace(f"$ {command}\n{expected}", f"$ {command}\n{got}", 1)
        page.write_text(text)  # type: ignore[attr-defined]
        return
    assert got == expected


def test_the_readme_is_a_front_door_whose_links_lead_somewhere() -> None:
    text = README.read_text()
    assert len(text.splitlines()) <= 250
    for page in DOCS:
        for target in re.findall(r"\]\((?!https?:|#)([^)#]+)(?:#[^)]*)?\)", page.read_text()):
            assert (page.parent / target).exists(), f"{page.name} links to {target}, which is not there"


def test_the_two_setup_commands_are_what_ci_runs() -> None:
    text = README.read_text()
    commands = re.findall(r"```sh\n(python3 -m venv .*?)\n```", text)
    assert len(commands) == 2
    install, tests = commands
    assert "ftlint check fixtures/" in install and "pip install" in install
    ci = (ROOT / ".ci" / "run").read_text()
    assert tests in ci

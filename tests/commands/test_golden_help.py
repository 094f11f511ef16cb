"""`--help` of ftlint and of every command, byte for byte (fixtures/outputs/help/): the option
tables are declared in ftlint/cli/options.py and some of their texts come from the trainers'
and providers' own data, so a change there that reaches what a user reads shows here.
FTLINT_UPDATE_GOLDENS=1 rewrites them after a deliberate change; then review the diff."""

from __future__ import annotations

import os

import pytest

from conftest import FIXTURES, ROOT, golden
from ftlint.cli import cli

GOLDENS = FIXTURES / "outputs" / "help"
COMMANDS = sorted(cli.commands)


def _help(*args: str) -> str:
    """The help as an 80-column terminal shows it (click wraps to the terminal), no configuration read."""
    from click.testing import CliRunner

    old = os.getcwd()
    os.chdir(ROOT)
    try:
        r = CliRunner().invoke(cli, ["--no-config", *args, "--help"], prog_name="ftlint", terminal_width=80,
                               catch_exceptions=False)
    finally:
        os.chdir(old)
    assert r.exit_code == 0, r.stderr
    return r.stdout


def test_group_help_is_its_golden() -> None:
    golden(GOLDENS / "ftlint.txt", _help())


@pytest.mark.parametrize("command", COMMANDS)
def test_command_help_is_its_golden(command: str) -> None:
    text = _help(command)
    assert text.startswith(f"Usage: ftlint {command} ")
    golden(GOLDENS / f"{command}.txt", text)


def test_every_golden_is_a_command() -> None:
    """A command removed or renamed leaves no golden behind."""
    assert sorted(p.stem for p in GOLDENS.glob("*.txt")) == sorted(["ftlint", *COMMANDS])

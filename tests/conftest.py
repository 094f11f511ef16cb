from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from ftlint.cli import cli

ROOT = Path(__file__).resolve().parent.parent
# every figure that depends on the date (model lifecycles) is judged as of this day, in every
# test and in every subprocess a test starts
os.environ["FTLINT_TODAY"] = "2026-12-01"
FIXTURES = ROOT / "fixtures"
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]  # the front door, then docs/


def docs_text() -> str:
    """The README and every page of docs/, as one text (for tests of what the documentation says)."""
    return "\n".join(path.read_text(encoding="utf-8") for path in DOCS)


@dataclass
class Result:
    exit_code: int
    stdout: str
    stderr: str


def run(*args: str, input: bytes | str | None = None) -> Result:
    """Run the CLI in-process (fast), from the repository root so paths in output are relative."""
    runner = CliRunner()
    old = os.getcwd()
    os.chdir(ROOT)
    try:
        r = runner.invoke(cli, list(args), input=input, catch_exceptions=False)
    finally:
        os.chdir(old)
    return Result(r.exit_code, r.stdout, r.stderr)


def run_process(*args: str, input: bytes | None = None, cwd: Path = ROOT) -> Result:
    """Run the real console entry point in a subprocess."""
    p = subprocess.run([sys.executable, "-m", "ftlint", *args], input=input, capture_output=True, cwd=cwd, timeout=120)
    return Result(p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"))


def golden(path: Path, text: str) -> None:
    """`text` is the golden file's, byte for byte; FTLINT_UPDATE_GOLDENS=1 rewrites it after a deliberate change."""
    if os.environ.get("FTLINT_UPDATE_GOLDENS"):
        path.parent.mkdir(exist_ok=True)
        path.write_text(text, encoding="utf-8")
    assert text == path.read_text(encoding="utf-8")


def element_lines(text: str) -> list[int]:
    """Where each element of a JSON array starts in the file, by the standard library's decoder
    (an oracle apart from ftlint's scanner): its first line, 1-based."""
    decoder, position, lines = json.JSONDecoder(), text.index("[") + 1, []
    while True:
        position = len(text) - len(text[position:].lstrip(" \t\r\n,"))
        if text[position] == "]":
            return lines
        lines.append(text.count("\n", 0, position) + 1)
        position = decoder.raw_decode(text, position)[1]


@pytest.fixture
def fixtures() -> Path:
    return FIXTURES


_TIKTOKEN_URLS = {"o200k_base": "https://openaipublic.blob.core.windows.net/encodings/o200k_base.tiktoken",
                  "cl100k_base": "https://openaipublic.blob.core.windows.net/encodings/cl100k_base.tiktoken"}


def tiktoken_offline() -> None:
    """tiktoken's own OpenAI encodings (tiktoken_ext.openai_public), loaded offline through tiktoken's
    real cache: the rank files ftlint ships are OpenAI's, byte for byte (tiktoken checks their
    sha256 against its own expected hashes), written where tiktoken looks for them first
    (TIKTOKEN_CACHE_DIR, each under the sha1 of its URL), so no test fetches anything."""
    import gzip
    import hashlib
    import tempfile

    if os.environ.get("FTLINT_TEST_TIKTOKEN_CACHE"):
        return
    cache = Path(tempfile.mkdtemp(prefix="ftlint-tiktoken-"))
    for name, url in _TIKTOKEN_URLS.items():
        with gzip.open(ROOT / "ftlint" / "tokenizers" / f"{name}.tiktoken.gz") as f:
            (cache / hashlib.sha1(url.encode()).hexdigest()).write_bytes(f.read())
    os.environ["TIKTOKEN_CACHE_DIR"] = os.environ["FTLINT_TEST_TIKTOKEN_CACHE"] = str(cache)

"""`check` says which format it judged each file as, in the summary line (issue 29: only `estimate` did)."""

from __future__ import annotations

import json
from pathlib import Path

from conftest import run


def test_the_summary_line_names_the_detected_formats(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    chat.write_text(json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "yo"}]}) + "\n")
    share = tmp_path / "share.jsonl"
    share.write_text(json.dumps({"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "yo"}]}) + "\n")
    one = run("check", str(chat)).stdout.splitlines()
    assert one[-2] == "checked 1 file (openai-chat), 1 line: 1 valid, 0 with errors (0 blank)"
    both = run("check", str(chat), str(share)).stdout.splitlines()
    assert both[-2] == "checked 2 files (openai-chat, sharegpt), 2 lines: 2 valid, 0 with errors (0 blank)"
    markdown = run("check", str(chat), "-o", "markdown").stdout
    assert "checked 1 file (openai-chat), 1 line" in markdown

"""Write the data files of fixtures/trainer_runs/ from their sources (fixtures/trainer_runs/SOURCES.md):
LLaMA-Factory's data/ folder at the commit ftlint cites, and two fixtures of this repository.

    python tools/trainer_oracle/make_data.py LLAMA_FACTORY_SOURCE_DIR

Deterministic: the same sources give the same bytes (the test checks the files against the
SHA-256 sums SOURCES.md gives, not against this script).
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "fixtures" / "trainer_runs"


def load(path: Path) -> list[Any]:
    text = path.read_text(encoding="utf-8")
    if text.lstrip().startswith("["):
        return list(json.loads(text))
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def jsonl(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in rows), encoding="utf-8")


def array(path: Path, rows: list[Any]) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(rows, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")


def prompt_of(r: dict[str, str]) -> str:
    return r["instruction"] + ("\n" + r["input"] if r.get("input") else "")


def chat(r: dict[str, str]) -> list[dict[str, str]]:
    return [{"role": "user", "content": prompt_of(r)}, {"role": "assistant", "content": r["output"]}]


def main(lf: Path) -> None:
    data = lf / "data"
    identity = load(data / "identity.json")
    alpaca = load(data / "alpaca_en_demo.json")[:60]
    c4 = (data / "c4_demo.jsonl").read_text(encoding="utf-8").splitlines(keepends=True)[:12]
    sharegpt = load(ROOT / "fixtures" / "datasets" / "fastchat" / "dummy_conversation.json")[:80]
    drone = load(ROOT / "fixtures" / "good" / "drone_training.jsonl")[:8]

    trl = RUNS / "trl" / "data"
    trl.mkdir(parents=True, exist_ok=True)
    (trl / "c4_demo.jsonl").write_text("".join(c4), encoding="utf-8")
    jsonl(trl / "identity_messages.jsonl", [{"messages": chat(r)} for r in identity])
    jsonl(trl / "alpaca_prompt_completion.jsonl",
          [{"prompt": prompt_of(r) + "\n", "completion": r["output"]} for r in alpaca[:40]])
    jsonl(trl / "alpaca_conversational_pc.jsonl",
          [{"prompt": chat(r)[:1], "completion": chat(r)[1:]} for r in alpaca[40:60]])
    array(trl / "dummy_conversation.json", sharegpt)
    jsonl(trl / "drone_tools.jsonl", drone)

    lfd = RUNS / "llama-factory" / "data"
    lfd.mkdir(parents=True, exist_ok=True)
    info = json.loads((data / "dataset_info.json").read_text(encoding="utf-8"))
    names = ["identity", "alpaca_en_demo", "glaive_toolcall_en_demo", "kto_en_demo", "dpo_en_demo", "c4_demo"]
    entries = {n: info[n] for n in names}
    entries["dummy_conversation"] = {"file_name": "dummy_conversation.json", "formatting": "sharegpt",
                                     "columns": {"messages": "conversations"}}
    (lfd / "dataset_info.json").write_text(json.dumps(entries, indent=2) + "\n", encoding="utf-8")
    array(lfd / "identity.json", identity)
    array(lfd / "alpaca_en_demo.json", alpaca)
    array(lfd / "glaive_toolcall_en_demo.json", load(data / "glaive_toolcall_en_demo.json")[:20])
    array(lfd / "kto_en_demo.json", load(data / "kto_en_demo.json")[:20])
    array(lfd / "dpo_en_demo.json", load(data / "dpo_en_demo.json")[:12])
    (lfd / "c4_demo.jsonl").write_text("".join(c4), encoding="utf-8")
    array(lfd / "dummy_conversation.json", sharegpt)

    ax = RUNS / "axolotl" / "data"
    jsonl(ax / "alpaca_messages.jsonl", [{"messages": chat(r)} for r in alpaca])
    jsonl(ax / "alpaca.jsonl", alpaca)
    jsonl(ax / "identity_messages.jsonl", [{"messages": chat(r)} for r in identity])
    jsonl(ax / "dummy_conversation.jsonl", sharegpt)


if __name__ == "__main__":
    main(Path(sys.argv[1]))

"""ftlint against the recorded trainers: each case of fixtures/trainer_runs/ run through ftlint's
CLI as a user would (`ftlint estimate [DATA] --run CONFIG -o json`), figure by figure against
what the trainer did (<case>.recorded.json). Runs in ftlint's own environment; needs no trainer.

    python tools/trainer_oracle/compare.py [--trainer NAME] [--case NAME] [--json OUT]

Prints one line per case and figure that differs, then a table per case and the totals:
"N of M cases agree on every figure, K of L figures agree".
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
RUNS = ROOT / "fixtures" / "trainer_runs"
FOLDER = {"trl": "trl", "llamafactory": "llama-factory", "axolotl": "axolotl"}
EXT = {"trl": ".yaml", "llamafactory": ".yaml", "axolotl": ".yml"}
# the template the recorder's model folder carried where a TRL config names a base model, whose own
# template ftlint does not take for its instruct model's (ftlint/names.py; tools/trainer_oracle/tiny_model.py SPECS)
RECORDED_TEMPLATES = {"Qwen/Qwen2.5-0.5B": "ftlint/chat/templates/qwen2.5.jinja"}
FIGURES = ("records_in", "records_kept", "validation_rows", "tokens", "trained_tokens", "packed_rows",
           "dropped_long", "truncated_long", "steps_per_epoch", "total_steps", "warmup_steps", "epochs",
           "effective_batch")


def ftlint_figures(report: dict[str, Any]) -> dict[str, Any]:
    """The figures of ftlint's JSON report (docs/estimate.md, docs/runs.md), named as the recordings
    name them."""
    cut = report.get("truncation") or {}
    packing = report.get("packing") or {}
    validation = report.get("validation") or {}
    return {
        "records_in": report.get("lines"),
        "records_kept": report.get("records"),  # the records dropped past the max length are in no figure
        "validation_rows": validation.get("records", 0) if validation else 0,
        "tokens": report.get("tokens"),
        "trained_tokens": report.get("trainable_tokens"),
        "packed_rows": packing.get("rows") if packing else None,
        "dropped_long": cut.get("records_dropped", 0) or 0,
        "truncated_long": cut.get("records", 0) or 0,
        "steps_per_epoch": report.get("steps_per_epoch"),
        "total_steps": report.get("total_steps"),
        "warmup_steps": report.get("warmup_steps"),
        "epochs": report.get("epochs"),
        "effective_batch": report.get("effective_batch_size"),
    }


def run_ftlint(trainer: str, case: dict[str, Any], transformers: str | None = None) -> tuple[dict[str, Any] | None, str]:
    """ftlint's figures for `case`; `transformers`: the release the trainer ran under (its recording's),
    which ftlint would read beside an installed trainer and is told here, as tests/test_replay_trl.py
    does, with the template of the recorder's base model (RECORDED_TEMPLATES)."""
    folder = RUNS / FOLDER[trainer]
    config = folder / f"{case['case']}{EXT[trainer]}"
    cmd = [sys.executable, "-m", "ftlint", "estimate"]
    if case.get("path"):
        cmd += [str(folder / d) for d in case["data"]]
    cmd += ["--run", str(config), "-o", "json"]
    if transformers:
        cmd += ["--transformers-version", transformers]
    if trainer == "trl":
        import yaml

        model = yaml.safe_load(config.read_text(encoding="utf-8")).get("model_name_or_path")
        if model in RECORDED_TEMPLATES:
            cmd += ["--chat-template", RECORDED_TEMPLATES[model]]
    done = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    if done.returncode not in (0, 1) or not done.stdout.strip():
        return None, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    return ftlint_figures(json.loads(done.stdout)), ""


def same(a: Any, b: Any) -> bool:
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return float(a) == float(b)
    return a == b


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--trainer", choices=sorted(FOLDER))
    ap.add_argument("--case", action="append")
    ap.add_argument("--json", help="write the comparison as JSON to this file")
    args = ap.parse_args(argv)
    import yaml

    with open(RUNS / "cases.yaml", encoding="utf-8") as fh:
        corpus = yaml.safe_load(fh)
    rows: list[dict[str, Any]] = []
    for trainer, cases in corpus.items():
        if args.trainer and trainer != args.trainer:
            continue
        for case in cases:
            if args.case and case["case"] not in args.case:
                continue
            recorded = RUNS / FOLDER[trainer] / f"{case['case']}.recorded.json"
            if not recorded.is_file():
                continue
            recording = json.loads(recorded.read_text(encoding="utf-8"))
            want = recording["figures"]
            got, error = run_ftlint(trainer, case, (recording.get("versions") or {}).get("transformers"))
            figs = {f: {"trainer": want.get(f), "ftlint": None if got is None else got[f]} for f in FIGURES}
            for f in FIGURES:
                figs[f]["agree"] = got is not None and same(want.get(f), got[f])
            rows.append({"trainer": trainer, "case": case["case"], "error": error, "figures": figs})
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


def print_table(rows: list[dict[str, Any]]) -> None:
    short = {"records_in": "in", "records_kept": "kept", "validation_rows": "val", "tokens": "tokens",
             "trained_tokens": "trained", "packed_rows": "packed", "dropped_long": "drop", "truncated_long": "cut",
             "steps_per_epoch": "st/ep", "total_steps": "steps", "warmup_steps": "warm", "epochs": "ep",
             "effective_batch": "eff"}
    print("case".ljust(34) + " ".join(short[f].rjust(15) for f in FIGURES))
    agree_cases = agree_figs = total_figs = 0
    for r in rows:
        cells = []
        for f in FIGURES:
            c = r["figures"][f]
            cells.append((str(c["trainer"]) if c["agree"] else f"{c['ftlint']}≠{c['trainer']}").rjust(15))
        n_ok = sum(1 for f in FIGURES if r["figures"][f]["agree"])
        agree_figs += n_ok
        total_figs += len(FIGURES)
        agree_cases += n_ok == len(FIGURES)
        name = f"{r['trainer'][:3]}/{r['case']}"[:33].ljust(34)
        print(name + " ".join(cells) + (f"  ftlint: {r['error']}" if r["error"] else ""))
    print("(a cell: the trainer's figure where ftlint agrees, else ftlint≠trainer)")
    print(f"{agree_cases} of {len(rows)} cases agree on every figure, {agree_figs} of {total_figs} figures agree")


if __name__ == "__main__":
    raise SystemExit(main())

"""ftlint against the recorded trainers: each case of fixtures/trainer_runs/ run through ftlint's
CLI as a user would (`ftlint estimate [DATA] --run CONFIG -o json`), figure by figure against
what the trainer did (<case>.recorded.json). Runs in ftlint's own environment; needs no trainer.

    python tools/trainer_oracle/compare.py [--trainer NAME] [--case NAME] [--json OUT]

Prints a table, one line a case, and the totals per trainer and overall: how many figures agree
(ftlint's figure is the trainer's), how many are only in ftlint's stated range, how many differ;
then the cases the trainer refuses (its recording holds its error, no figures), which ftlint
agrees with when it refuses them too (exit 2), naming the trainer's function that raised.
A figure the trainer draws at random (axolotl's held-out records without `seed`, its packing
sampler's orders) has a range in ftlint's JSON (`ranges`) besides its point: a recorded figure
inside it counts apart, "in ftlint's stated range", never as agreeing, and each range is listed
with its width, a wide one (reaching 0, or wider than half of ftlint's figure) said to be so.
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
# a recorded figure, and the name ftlint's JSON `ranges` gives the range it states for it
RANGES = {"tokens": "tokens", "trained_tokens": "trainable_tokens", "packed_rows": "packing.rows",
          "truncated_long": "truncation.records", "steps_per_epoch": "steps_per_epoch", "total_steps": "total_steps",
          "warmup_steps": "warmup_steps", "epochs": "epochs"}
WIDE = 0.5  # a range wider than this share of ftlint's figure says little, and the output says so


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


def ftlint_ranges(report: dict[str, Any]) -> dict[str, tuple[int, int]]:
    """The ranges ftlint states for the figures it cannot know exactly, named as the recordings name them."""
    stated = report.get("ranges") or {}
    return {f: (stated[k][0], stated[k][1]) for f, k in RANGES.items() if k in stated}


def verdict(want: Any, got: Any, stated: tuple[int, int] | None) -> str:
    """"agree" (ftlint's figure is the trainer's), "range" (not ftlint's figure, but inside the range
    ftlint states for it), else "differ"."""
    if same(want, got):
        return "agree"
    if stated is not None and isinstance(want, (int, float)) and stated[0] <= want <= stated[1]:
        return "range"
    return "differ"


def width(point: Any, stated: tuple[int, int]) -> str:
    """The range's width against ftlint's figure, and whether it is too wide to say much."""
    low, high = stated
    share = (high - low) / point if isinstance(point, (int, float)) and point > 0 else float("inf")
    wide = low <= 0 < high or share > WIDE
    said = f"width {high - low:,} = {share:.0%} of ftlint's {point:,}" if share != float("inf") else f"width {high - low:,}"
    return said + ("; WIDE: it says little about the figure" if wide else "")


def run_ftlint(trainer: str, case: dict[str, Any],
               transformers: str | None = None) -> tuple[dict[str, Any] | None, dict[str, tuple[int, int]], str]:
    """ftlint's figures and stated ranges for `case`; `transformers`: the release the trainer ran under (its recording's),
    which ftlint would read beside an installed trainer and is told here, as tests/oracles/test_replay_trl.py
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
        return None, {}, (done.stderr.strip().splitlines() or [f"exit {done.returncode}"])[-1]
    report = json.loads(done.stdout)
    return ftlint_figures(report), ftlint_ranges(report), ""


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
            got, stated, error = run_ftlint(trainer, case, (recording.get("versions") or {}).get("transformers"))
            if recording.get("refusal"):  # the trainer stopped before training: ftlint agrees when it refuses too
                rows.append({"trainer": trainer, "case": case["case"], "error": error, "refusal": recording["refusal"],
                             "agree": got is None and recording["refusal"]["raised_in"] in error})
                continue
            figs: dict[str, dict[str, Any]] = {}
            for f in FIGURES:
                value = None if got is None else got[f]
                figs[f] = {"trainer": want.get(f), "ftlint": value, "range": stated.get(f),
                           "verdict": "differ" if got is None else verdict(want.get(f), value, stated.get(f))}
                figs[f]["agree"] = figs[f]["verdict"] == "agree"
            rows.append({"trainer": trainer, "case": case["case"], "error": error, "figures": figs})
    print_table(rows)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1) + "\n", encoding="utf-8")
    return 0


SHORT = {"records_in": "in", "records_kept": "kept", "validation_rows": "val", "tokens": "tokens",
         "trained_tokens": "trained", "packed_rows": "packed", "dropped_long": "drop", "truncated_long": "cut",
         "steps_per_epoch": "st/ep", "total_steps": "steps", "warmup_steps": "warm", "epochs": "ep",
         "effective_batch": "eff"}


def cell(c: dict[str, Any]) -> str:
    if c["verdict"] == "agree":
        return str(c["trainer"])
    if c["verdict"] == "range":
        return f"{c['trainer']}∈range"
    return f"{c['ftlint']}≠{c['trainer']}"


def print_table(rows: list[dict[str, Any]]) -> None:
    refusals = [r for r in rows if "refusal" in r]
    rows = [r for r in rows if "refusal" not in r]
    print("case".ljust(34) + " ".join(SHORT[f].rjust(15) for f in FIGURES))
    for r in rows:
        name = f"{r['trainer'][:3]}/{r['case']}"[:33].ljust(34)
        print(name + " ".join(cell(r["figures"][f]).rjust(15) for f in FIGURES)
              + (f"  ftlint: {r['error']}" if r["error"] else ""))
    print("(a cell: the trainer's figure where ftlint's is the same; N∈range: the trainer's N is not ftlint's figure "
          "but inside the range ftlint states for it; else ftlint≠trainer)")
    stated = [(r, f) for r in rows for f in FIGURES if r["figures"][f]["range"] is not None
              and r["figures"][f]["verdict"] != "agree"]
    if stated:
        print("\nThe ranges ftlint states (a figure drawn at random), where the trainer's is not ftlint's figure:")
    for r, f in stated:
        c = r["figures"][f]
        low, high = c["range"]
        where = "inside" if c["verdict"] == "range" else "OUTSIDE"
        print(f"  {r['trainer'][:3]}/{r['case']} {f}: the trainer's {c['trainer']:,} {where} ftlint's range {low:,}-{high:,} "
              f"({width(c['ftlint'], c['range'])})")
    if refusals:
        print("\nThe cases the trainer refuses (it stops before training; ftlint agrees when it refuses too, exit 2, "
              "naming the trainer's function that raised):")
    for r in refusals:
        said = r["refusal"]
        print(f"  {r['trainer'][:3]}/{r['case']}: {said['error']} in {said['raised_in']}: {said['message']}\n"
              f"    ftlint: {'refuses: ' if r['agree'] else 'DOES NOT REFUSE IT SO: '}{r['error'] or 'no error'}")
    print()
    for trainer in dict.fromkeys(r["trainer"] for r in rows):
        print(f"{trainer}: " + summary([r for r in rows if r["trainer"] == trainer]))
    print("all: " + summary(rows))
    print(f"by figure, of {len(rows)} cases (agree, + in ftlint's stated range): " + ", ".join(
        f"{f} {sum(r['figures'][f]['verdict'] == 'agree' for r in rows)}"
        + (f"+{n}" if (n := sum(r['figures'][f]['verdict'] == 'range' for r in rows)) else "") for f in FIGURES))
    if refusals:
        print(f"refusals: ftlint refuses {sum(r['agree'] for r in refusals)} of the {len(refusals)} cases the trainer refuses")


def summary(rows: list[dict[str, Any]]) -> str:
    """"N of M cases agree on every figure (...), K of L figures agree, R in ftlint's stated range, D differ"."""
    counts = {"agree": 0, "range": 0, "differ": 0}
    whole = ranged = 0
    for r in rows:
        verdicts = [r["figures"][f]["verdict"] for f in FIGURES]
        for v in verdicts:
            counts[v] += 1
        whole += all(v == "agree" for v in verdicts)
        ranged += "differ" not in verdicts and "range" in verdicts
    return (f"{whole} of {len(rows)} cases agree on every figure ({ranged} more with every other figure in ftlint's "
            f"stated range), {counts['agree']} of {len(rows) * len(FIGURES)} figures agree, {counts['range']} are in "
            f"ftlint's stated range, {counts['differ']} differ")


if __name__ == "__main__":
    raise SystemExit(main())

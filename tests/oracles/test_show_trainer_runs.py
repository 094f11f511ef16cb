"""`ftlint show` on the recorded runs of the real trainers (fixtures/trainer_runs/, docs/oracles.md),
where the trainer's own renderer makes the records (issue 34): LLaMA-Factory's templates
(qwen3_nothink, qwen, llama3; train_on_prompt, mask_history, cut turns, KTO, DPO, pretraining)
and axolotl's Alpaca prompt. Record by record, what `show` marks kept and trained, and cut, is the
trainer's own figures for that record (its processors' output, recorded per record); the table's
parts add up to the header's figures; the header names the renderer. The model's template (what
`show` marked the text with before) gives other figures: l01's first record is 34 tokens, 25 of
them trained, where the template's layout marked 23."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from conftest import FIXTURES, run

RUNS = FIXTURES / "trainer_runs"
CASES = [  # (trainer folder, case): what the renderer does differently in each
    ("llama-factory", "l01_qwen3_lora_sft"),  # qwen3_nothink, Alpaca rows
    ("llama-factory", "l06_train_on_prompt"),  # the prompt trains too
    ("llama-factory", "l08_mask_history_cut"),  # only the last answer trains; cut from the last turn back
    ("llama-factory", "l09_multiturn_cut"),  # each turn cut in proportion, later turns dropped
    ("llama-factory", "l10_cutoff_cuts"),  # a cut inside an answer
    ("llama-factory", "l11_template_qwen"),  # template qwen (a default system prompt)
    ("llama-factory", "l13_glaive_tools"),  # tool calls and observations
    ("llama-factory", "l14_qwen3_lora_kto"),
    ("llama-factory", "l15_qwen3_lora_dpo"),  # the prompt twice, the chosen and the rejected answers
    ("llama-factory", "l19_pretrain_no_packing"),  # every token trains, cut at cutoff_len
    ("llama-factory", "l21_template_llama3"),  # llama3 (a bos slot)
    ("axolotl", "a08_lora_1b_alpaca"),  # axolotl's Alpaca prompt
    ("axolotl", "a15_alpaca_train_on_inputs"),  # ... with train_on_inputs
]
PER_DATASET = 2  # the first records of each dataset, and the first records the trainer cut
CUTS = {"l08_mask_history_cut", "l09_multiturn_cut", "l10_cutoff_cuts", "l19_pretrain_no_packing"}  # some records cut


def element_lines(path: Path) -> list[int]:
    """The line each record starts on: a JSON array's elements, or a JSONL file's lines."""
    text = path.read_text(encoding="utf-8")
    if path.suffix == ".jsonl":
        return [n for n, line in enumerate(text.splitlines(), 1) if line.strip()]
    decoder, lines, at = json.JSONDecoder(), [], text.index("[") + 1
    while True:
        while text[at] in " \t\r\n,":
            at += 1
        if text[at] == "]":
            return lines
        lines.append(text.count("\n", 0, at) + 1)
        _, at = decoder.raw_decode(text, at)


def picked(folder: str, case: str) -> list[tuple[str, dict[str, Any]]]:
    """(FILE:LINE, the trainer's figures for that record) for the records the test shows."""
    recorded = json.loads((RUNS / folder / f"{case}.recorded.json").read_text(encoding="utf-8"))
    per = recorded["per_record"]
    spans = recorded["trainer_settings"].get("datasets") or [f"{Path(recorded['data'][0]).name}: records 0-{len(per) - 1}"]
    out = []
    for span in spans:  # "identity.json: records 0-90"
        name, _, numbers = span.partition(": records ")
        first, last = (int(n) for n in numbers.split("-"))
        path = RUNS / folder / "data" / name
        lines = element_lines(path)
        assert len(lines) >= last - first + 1
        cut = [k for k in range(first, last + 1) if per[k]["cut"]][:PER_DATASET]
        for k in sorted({*range(first, first + PER_DATASET), *cut}):
            out.append((f"{path.relative_to(RUNS.parent.parent)}:{lines[k - first]}", per[k]))
    return out


def shown(target: str, config: Path, fmt: str = "json") -> Any:
    r = run("show", target, "--run", str(config), "-o", fmt)
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout) if fmt == "json" else r.stdout


@pytest.mark.parametrize(("folder", "case"), CASES, ids=[c for _, c in CASES])
def test_each_record_shown_is_what_the_trainer_made_of_it(folder: str, case: str) -> None:
    config = RUNS / folder / f"{case}.yaml" if folder == "llama-factory" else RUNS / folder / f"{case}.yml"
    records = picked(folder, case)
    assert any(want["cut"] for _, want in records) or case not in CUTS  # the cut is shown where the trainer cut
    for target, want in records:
        view = shown(target, config)
        [record] = view["records"]
        segments = record["segments"]
        assert (record["kept_tokens"], record["kept_trained"], record["tokens"] - record["kept_tokens"]) == \
            (want["tokens"], want["trained"], want["cut"]), target
        # the table adds up to the header: every token, the trained ones, and what is kept of each
        assert sum(s["tokens"] for s in segments) == record["tokens"], target
        assert sum(s["tokens"] for s in segments if s["trained"]) == record["trainable"], target
        assert sum(s["kept"] for s in segments) == record["kept_tokens"], target
        assert record["exact"], target
        assert view["renderer"], target  # named: the trainer's renderer made it, not the model's template


def test_the_issue_34_record_is_marked_as_llama_factory_trains_it() -> None:
    """The reproduction of issue 34: the header, the table and the marked text agree, and the
    text trained is the answer and the end of turn of qwen3_nothink's assistant slot
    ("{{content}}<|im_end|>\\n", LLaMA-Factory's data/template.py)."""
    config = RUNS / "llama-factory" / "l01_qwen3_lora_sft.yaml"
    target = "fixtures/trainer_runs/llama-factory/data/identity.json:3"
    text = shown(target, config, "text")
    assert "record 1 of 1: 34 tokens, 25 trained: all kept" in text
    rows = [line.split() for line in text.splitlines() if line.strip().split(" ")[0].isdigit()]
    assert sum(int(r[0]) for r in rows) == 34 and sum(int(r[0]) for r in rows if r[1] == "yes") == 25
    assert "  renderer    the trainer's: LLaMA-Factory's template qwen3_nothink" in text
    answer = json.loads((RUNS / "llama-factory" / "data" / "identity.json").read_text(encoding="utf-8"))[0]["output"]
    trained = "".join(s["text"] for s in shown(target, config)["records"][0]["segments"] if s["trained"])
    assert trained == answer + "<|im_end|>\n"


def test_axolotls_alpaca_prompt_is_shown_as_its_parts_where_the_model_has_a_bos(tmp_path: Path) -> None:
    """axolotl tokenizes an Alpaca row's prompt and output each on its own (prompt_tokenizers.py
    InstructionPromptTokenizingStrategy): Llama 3's bos before the prompt, the output's bos
    stripped, its eos after it. Tokenized whole, the text has a token fewer than the parts: the
    text was shown by its counts alone. Now the parts, as the estimate counts them."""
    path = "fixtures/trainer_runs/axolotl/data/alpaca.jsonl"
    args = ("--model", "meta-llama/Llama-3.2-1B-Instruct", "--trainer", "axolotl", "--format", "alpaca")
    row = json.loads((RUNS / "axolotl" / "data" / "alpaca.jsonl").read_text(encoding="utf-8").splitlines()[1])
    r = run("show", f"{path}:2", *args, "-o", "json")
    view = json.loads(r.stdout)
    [record] = view["records"]
    assert record["exact"] and view["renderer"].startswith("axolotl's Alpaca prompt")
    texts = {trained: "".join(s["text"] for s in record["segments"] if s["trained"] == trained) for trained in (False, True)}
    assert texts[True] == row["output"] + "<|eot_id|>"
    assert texts[False] == ("<|begin_of_text|>Below is an instruction that describes a task. Write a response that "
                            f"appropriately completes the request.\n\n### Instruction:\n{row['instruction']}\n\n### Response:\n")
    one = tmp_path / "one.jsonl"
    one.write_text(json.dumps(row) + "\n", encoding="utf-8")
    estimated = json.loads(run("estimate", str(one), *args, "-o", "json").stdout)
    assert (record["tokens"], record["kept_trained"]) == (estimated["tokens"], estimated["trainable_tokens"])


def test_a_cut_inside_an_answer_is_shown_where_its_kept_tokens_end() -> None:
    """l10 (cutoff_len 48): LLaMA-Factory keeps 31 of the 62 trained tokens of identity.json's 34th
    record; the kept text is the answer's start, the rest of it is marked cut."""
    config = RUNS / "llama-factory" / "l10_cutoff_cuts.yaml"
    path = RUNS / "llama-factory" / "data" / "identity.json"
    answer = json.loads(path.read_text(encoding="utf-8"))[33]["output"]
    text = shown(f"fixtures/trainer_runs/llama-factory/data/identity.json:{element_lines(path)[33]}", config, "text")
    assert "79 tokens, 62 trained; the trainer keeps 48 tokens, 31 of them trained" in text
    marked = "\n".join(line.removeprefix("  │ ") for line in text.splitlines() if line.startswith("  │"))
    kept, _, cut = marked.partition("⟦")[2].partition("⟧⟪")
    assert kept and answer.startswith(kept) and cut.startswith(answer[len(kept):len(kept) + 10])

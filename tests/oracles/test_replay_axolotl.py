"""ftlint replays axolotl (issue 34): each recorded axolotl run of fixtures/trainer_runs/axolotl/
(the real axolotl at the commit ftlint cites, its own config parser, data pipeline, sampler and
Trainer on CPU: docs/oracles.md) is estimated as a user would, `ftlint estimate --run CASE.yml -o
json`, and every figure the trainer recorded equals ftlint's, or lies within the range ftlint
states for a figure the trainer draws at random (an unseeded shuffle's held-out records, the packing
sampler's random orders).

Per record: the case's config with nothing held out, nothing packed and no length filter, on the
records the run read and did not cut, gives ftlint's tokens and trained tokens of those records as rendered
and masked; their sums must be the recorded records' own. Where they differ, the records are split
in halves and each half estimated again, down to the first record that differs, which the failure
names. No torch: the recordings are the oracle.
"""
from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
import yaml

from conftest import Result, run_process

RUNS = Path(__file__).parents[2] / "fixtures" / "trainer_runs"
FOLDER = RUNS / "axolotl"
RECORDED = sorted(p.name.removesuffix(".recorded.json") for p in FOLDER.glob("*.recorded.json"))
# the cases axolotl refuses (the recording holds its error, no figures), and those it trained
REFUSED = [c for c in RECORDED if json.loads((FOLDER / f"{c}.recorded.json").read_text(encoding="utf-8")).get("refusal")]
CASES = [c for c in RECORDED if c not in REFUSED]
# a recorded figure, and where ftlint's JSON says it (ranges: the name ftlint's `ranges` gives it)
FIGURES = {"records_in": ("lines",), "records_kept": ("records",), "validation_rows": ("validation", "records"),
           "tokens": ("tokens",), "trained_tokens": ("trainable_tokens",), "packed_rows": ("packing", "rows"),
           "dropped_long": ("truncation", "records_dropped"), "truncated_long": ("truncation", "records"),
           "steps_per_epoch": ("steps_per_epoch",), "total_steps": ("total_steps",), "warmup_steps": ("warmup_steps",),
           "epochs": ("epochs",), "effective_batch": ("effective_batch_size",)}
RANGES = {"tokens": "tokens", "trained_tokens": "trainable_tokens", "packed_rows": "packing.rows", "truncated_long": "truncation.records",
          "steps_per_epoch": "steps_per_epoch", "total_steps": "total_steps", "warmup_steps": "warmup_steps", "epochs": "epochs"}
ZERO_WHEN_ABSENT = {"validation_rows", "dropped_long", "truncated_long"}


def recorded(case: str) -> dict[str, Any]:
    return json.loads((FOLDER / f"{case}.recorded.json").read_text(encoding="utf-8"))


def estimate(config: Path) -> dict[str, Any]:
    out = run_process("estimate", "--run", str(config), "-o", "json")
    assert out.exit_code in (0, 1), out.stderr
    return json.loads(out.stdout)


def figure(e: dict[str, Any], name: str) -> object:
    value: Any = e
    for key in FIGURES[name]:
        value = value.get(key) if isinstance(value, dict) else None
    return 0 if value is None and name in ZERO_WHEN_ABSENT else value


@pytest.mark.parametrize("case", CASES)
def test_every_recorded_figure_is_ftlints(case: str) -> None:
    want = recorded(case)["figures"]
    e = estimate(FOLDER / f"{case}.yml")
    ranges = e.get("ranges") or {}
    wrong = []
    for name in FIGURES:
        got, expected = figure(e, name), want[name]
        if name in RANGES and RANGES[name] in ranges:
            low, high = ranges[RANGES[name]]
            if not low <= expected <= high:
                wrong.append(f"{name}: the trainer's {expected} is outside ftlint's range {low}-{high} (ftlint says {got})")
        elif got != expected:
            wrong.append(f"{name}: ftlint {got}, the trainer {expected}")
    assert not wrong, f"{case}: " + "; ".join(wrong)


@pytest.mark.parametrize("case", CASES)
def test_each_record_renders_and_masks_as_axolotl_did(case: str, tmp_path: Path) -> None:
    records = [r for r in recorded(case)["per_record"] if not r["cut"] and r.get("reason") != "outside_split"]
    lines = _lines(case)
    indices = [r["index"] for r in records]
    got = _figures(case, lines, indices, tmp_path)
    want = (sum(r["tokens"] for r in records), sum(r["trained"] for r in records))
    if got != want:
        first = _bisect(case, lines, records, tmp_path)
        pytest.fail(f"{case}: ftlint's tokens and trained tokens {got}, axolotl's {want}; the first record that differs: {first}")


def _lines(case: str) -> list[str]:
    """The lines of the case's data files, in the order of its `datasets:` (per_record's index)."""
    config = yaml.safe_load((FOLDER / f"{case}.yml").read_text(encoding="utf-8"))
    out: list[str] = []
    for entry in config["datasets"]:
        out += [line for line in (FOLDER / entry["path"]).read_text(encoding="utf-8").splitlines() if line.strip()]
    return out


def _figures(case: str, lines: list[str], indices: list[int], folder: Path) -> tuple[int, int]:
    """ftlint's tokens and trained tokens of the records `indices`, under the case's config with
    nothing held out, packed, sliced or filtered by length."""
    config = yaml.safe_load((FOLDER / f"{case}.yml").read_text(encoding="utf-8"))
    config.update(val_set_size=0, sample_packing=False, sequence_len=1_000_000, excess_length_strategy="truncate")
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "data.jsonl").write_text("".join(lines[i] + "\n" for i in indices), encoding="utf-8")
    entry = {k: v for k, v in config["datasets"][0].items() if k != "split"}
    config["datasets"] = [{**entry, "path": "data.jsonl"}]
    (folder / "case.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    e = estimate(folder / "case.yml")
    return e["tokens"], e["trainable_tokens"]


def _bisect(case: str, lines: list[str], records: list[dict], folder: Path) -> str:
    """The first record whose figures differ, found by halving the records."""
    while len(records) > 1:
        half = records[: len(records) // 2]
        got = _figures(case, lines, [r["index"] for r in half], folder / str(len(records)))
        if got != (sum(r["tokens"] for r in half), sum(r["trained"] for r in half)):
            records = half
        else:
            records = records[len(records) // 2 :]
    r = records[0]
    shutil.rmtree(folder / "one", ignore_errors=True)
    got = _figures(case, lines, [r["index"]], folder / "one")
    return f"record {r['index']}: ftlint (tokens, trained) {got}, axolotl {(r['tokens'], r['trained'])}: {lines[r['index']][:200]}"


def test_ftlint_trainers_axolotl_lists_each_key_it_applies_and_each_it_refuses() -> None:
    """Every axolotl key the recorded corpus exercises is listed with its source (cases.yaml's keys)."""
    corpus = yaml.safe_load((RUNS / "cases.yaml").read_text(encoding="utf-8"))["axolotl"]
    exercised = {k.removeprefix("axolotl.").split(".")[0] for case in corpus for k in case["keys"] if k.startswith("axolotl.")}
    named = {"train_on_eos_turn": "datasets[].train_on_eos", "train_on_eos_all": "datasets[].train_on_eos",
             "train_on_eos_last": "datasets[].train_on_eos", "excess_length_strategy_drop": "excess_length_strategy",
             "excess_length_strategy_truncate": "excess_length_strategy", "split": "datasets[].split",
             "type_alpaca": "datasets[].type", "roles_to_train": "datasets[].roles_to_train",
             "message_property_mappings": "datasets[].message_property_mappings", "val_after_length_filter": "val_set_size"}
    out = run_process("trainers", "axolotl", "-o", "json")
    profile = json.loads(out.stdout)
    assert {named.get(k, k) for k in exercised} <= set(profile["keys"]), exercised
    assert all(source for source in profile["keys"].values())
    text = run_process("trainers", "axolotl").stdout
    assert "run-config keys it applies" in text and "val_set_size" in text and "batch_size" in text.split("keys it refuses")[1]
    assert profile["refused"]["batch_size"]


@pytest.mark.parametrize(("key", "value"), [("batch_size", 16), ("dataset_exact_deduplication", True), ("num_epochs", 1.5),
                                            ("pretraining_dataset", "c4"), ("added_tokens_overrides", {151646: "<|mine|>"})])
def test_a_key_that_changes_the_figures_and_is_not_modelled_is_an_error(key: str, value: object, tmp_path: Path) -> None:
    """Not a note: figures that do not apply the key are not printed (exit 2, one line naming the key)."""
    config = yaml.safe_load((FOLDER / "a01_instruct_lora.yml").read_text(encoding="utf-8"))
    config[key] = value
    shutil.copytree(FOLDER / "data", tmp_path / "data")
    (tmp_path / "case.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    out = run_process("estimate", "--run", str(tmp_path / "case.yml"))
    assert out.exit_code == 2 and out.stdout == "", out.stdout
    assert key in out.stderr and len(out.stderr.strip().splitlines()) == 1


def test_a_chat_template_ftlint_does_not_ship_is_an_estimate_that_says_so(tmp_path: Path) -> None:
    config = yaml.safe_load((FOLDER / "a16_chatml.yml").read_text(encoding="utf-8"))
    config["chat_template"] = "gemma3"
    shutil.copytree(FOLDER / "data", tmp_path / "data")
    (tmp_path / "case.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    e = estimate(tmp_path / "case.yml")
    assert e["tokens_exact"] is False and "gemma3" in e["tokens_note"] and "estimate" in e["tokens_note"]
    shipped = estimate(FOLDER / "a16_chatml.yml")
    assert shipped["tokens_exact"] is True


def test_special_tokens_eos_is_the_end_of_turn_axolotl_looks_for(tmp_path: Path) -> None:
    """special_tokens: {eos_token: ...} is set on the tokenizer (loaders/tokenizer.py load_tokenizer), and
    the chat_template strategy trains the eos after each turn: with <|endoftext|>, which Qwen's template
    never writes, no end of turn trains. The recorded run (eos <|im_end|>) trained one after each of the 60
    answers; the same config with the other eos trains 60 tokens fewer."""
    config = yaml.safe_load((FOLDER / "a04_packing_512_mbs1.yml").read_text(encoding="utf-8"))
    config["special_tokens"] = {"eos_token": "<|endoftext|>"}
    shutil.copytree(FOLDER / "data", tmp_path / "data")
    (tmp_path / "case.yml").write_text(yaml.safe_dump(config), encoding="utf-8")
    want = recorded("a04_packing_512_mbs1")
    answers = sum(1 for line in _lines("a04_packing_512_mbs1") for m in json.loads(line)["messages"] if m["role"] == "assistant")
    assert estimate(tmp_path / "case.yml")["trainable_tokens"] == want["figures"]["trained_tokens"] - answers == 9_621 - 60


def _case(tmp_path: Path, case: str, **keys: object) -> Path:
    """The recorded case's config with `keys` set, beside a copy of its data."""
    config = yaml.safe_load((FOLDER / f"{case}.yml").read_text(encoding="utf-8"))
    config.update(keys)
    if not (tmp_path / "data").exists():
        shutil.copytree(FOLDER / "data", tmp_path / "data")
    path = tmp_path / f"{len(list(tmp_path.glob('*.yml')))}.yml"
    path.write_text(yaml.safe_dump(config), encoding="utf-8")
    return path


def test_a_token_of_tokens_is_a_word_and_one_of_special_tokens_a_control_token(tmp_path: Path) -> None:
    """a20 (recorded: {{name}} and {{author}} each one token, as add_tokens makes them) says nothing of the
    data spelling them; the same tokens as additional_special_tokens are control tokens, and FT302 names
    them in each record that spells them (the counts are the same: each is one token either way)."""
    plain = _case(tmp_path, "a20_tokens_alpaca_template")
    words = run_process("check", "--run", str(plain), "-o", "json")
    special = _case(tmp_path, "a20_tokens_alpaca_template", tokens=None,
                    special_tokens={"bos_token": "<s>", "eos_token": "</s>", "additional_special_tokens": ["{{name}}", "{{author}}"]})
    controls = run_process("check", "--run", str(special), "-o", "json")
    spelling = sum(1 for line in _lines("a20_tokens_alpaca_template") if "{{name}}" in line or "{{author}}" in line)
    assert words.exit_code == 0 and json.loads(words.stdout) == []
    found = [d for d in json.loads(controls.stdout) if d["code"] == "FT302"]
    assert len({d["line"] for d in found}) == spelling == 85
    assert "{{name}}" in found[0]["message"]
    assert estimate(special)["tokens"] == estimate(plain)["tokens"]


def test_a_bos_token_of_another_name_leaves_the_model_s_own_before_the_alpaca_output(tmp_path: Path) -> None:
    """The tokenizer's post-processor puts the model's own bos before each text it encodes, by id: a new
    bos_token does not change it (Llama 3's tokenizer under transformers 5.14.1, axolotl's, puts 128000,
    <|begin_of_text|>, before a text after add_special_tokens({"bos_token": "<s>"})), and the Alpaca
    strategy strips the first token of the output only when it is the tokenizer's bos_token
    (prompt_tokenizers.py _tokenize strip_bos_token). So with bos_token <s>, each of the 60 outputs keeps
    its <|begin_of_text|>, which trains with it: one token more, and one trained token more, per record."""
    llama = {"base_model": "meta-llama/Llama-3.1-8B-Instruct", "val_set_size": 0, "train_on_inputs": False}
    plain = estimate(_case(tmp_path, "a15_alpaca_train_on_inputs", **llama))
    same = estimate(_case(tmp_path, "a15_alpaca_train_on_inputs", **llama, special_tokens={"bos_token": "<|begin_of_text|>"}))
    other = estimate(_case(tmp_path, "a15_alpaca_train_on_inputs", **llama, special_tokens={"bos_token": "<s>"}))
    rows = len(_lines("a15_alpaca_train_on_inputs"))
    assert (same["tokens"], same["trainable_tokens"]) == (plain["tokens"], plain["trainable_tokens"])
    assert (other["tokens"], other["trainable_tokens"]) == (plain["tokens"] + rows, plain["trainable_tokens"] + rows)
    assert rows == 60 and plain["tokens_exact"] is True


@pytest.mark.parametrize(("key", "value", "said"), [
    ("special_tokens", ["</s>"], "special_tokens"),
    ("special_tokens", {"eos_token": 5}, "special_tokens.eos_token"),
    ("special_tokens", {"additional_special_tokens": "<x>"}, "special_tokens.additional_special_tokens"),
    ("tokens", "<x>", "tokens"),
])
def test_a_token_key_of_the_wrong_type_is_one_line_naming_it(key: str, value: object, said: str, tmp_path: Path) -> None:
    out = run_process("estimate", "--run", str(_case(tmp_path, "a16_chatml", **{key: value})))
    assert out.exit_code == 2 and out.stdout == ""
    assert said in out.stderr and len(out.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize("case", REFUSED)
def test_each_config_axolotl_refuses_ftlint_refuses_naming_the_same_check(case: str) -> None:
    """axolotl stopped before training (its error recorded, raised in its own code): ftlint prints no figures
    (exit 2, one line) and names the function of axolotl's that raised it."""
    said = recorded(case)["refusal"]
    out = run_process("estimate", "--run", str(FOLDER / f"{case}.yml"), "-o", "json")
    assert out.exit_code == 2 and out.stdout == "", out.stdout
    assert len(out.stderr.strip().splitlines()) == 1 and said["raised_in"] in out.stderr, (said, out.stderr)


def test_a_refused_special_token_is_one_the_tokenizer_spells_in_more_than_two_tokens(tmp_path: Path) -> None:
    """load_tokenizer (loaders/tokenizer.py) refuses, on an adapter run without the embedding layers in
    lora_modules_to_save, a special token other than pad_token whose text the model's tokenizer encodes in
    more than two tokens: a21's </s> (three of Qwen's: </, s, >; recorded refused) is; a token Qwen's
    tokenizer has (<|endoftext|>, one) or one of two tokens (<s>: <, s>) is not, nor </s> as pad_token,
    nor </s> on a run that saves embed_tokens and lm_head (a19, recorded trained) or trains no adapter."""
    def exit_code(**keys: object) -> int:
        return run_process("estimate", "--run", str(_case(tmp_path, "a21_special_tokens_no_modules_to_save", **keys))).exit_code

    assert exit_code() == 2
    assert exit_code(special_tokens={"eos_token": "<|endoftext|>"}) != 2
    assert exit_code(special_tokens={"bos_token": "<s>"}) != 2
    assert exit_code(special_tokens={"pad_token": "</s>"}) != 2
    assert exit_code(special_tokens={"unk_token": "</s>"}) == 2
    assert exit_code(lora_modules_to_save=["embed_tokens", "lm_head"]) != 2
    assert exit_code(lora_modules_to_save=["embed_tokens"]) == 2
    assert exit_code(adapter=None) != 2
    assert exit_code(adapter="qlora") == 2


def test_tokens_on_an_adapter_run_need_the_embedding_layers_saved(tmp_path: Path) -> None:
    """check_model_config (loaders/utils.py) refuses `tokens` on an adapter run whose lora_modules_to_save
    does not list embed_tokens and lm_head, whatever the tokens (a22, recorded refused; a20, which lists
    them, recorded trained)."""
    def out(**keys: object) -> Result:
        return run_process("estimate", "--run", str(_case(tmp_path, "a22_tokens_no_modules_to_save", **keys)))

    refused = out(special_tokens=None)
    assert refused.exit_code == 2 and "tokens" in refused.stderr and "check_model_config" in refused.stderr
    assert out(special_tokens=None, lora_modules_to_save=["lm_head", "embed_tokens"]).exit_code != 2
    assert out(special_tokens=None, adapter=None).exit_code != 2

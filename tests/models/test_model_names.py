"""The model a name means (issue 34, items 11 and "What to build" 4): a name a user or a run
config gives resolves to its family's vocabulary and chat template where the catalog or a name
rule is sure of it (ftlint/names.py), and a name ftlint does not know is never counted with
o200k_base in silence: the figures say it, and a gate on the counts cannot pass on it.

Each count is derived independently: a copy's with the catalog model it copies (`--model
ORIGINAL`), a base model's with its family's vocabulary by OpenAI's convention (`--tokenizer
FAMILY`), an unknown model's with o200k_base, a model folder's with transformers' own
AutoTokenizer over that folder.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conftest import FIXTURES, run

DATA = FIXTURES / "truncation" / "drone_heldout.jsonl"  # OpenAI-style conversations with tool calls

# name -> (the catalog model it copies, or None for a base model; its vocabulary)
COPIES = {
    "unsloth/Qwen2.5-7B-Instruct-bnb-4bit": "Qwen/Qwen2.5-7B-Instruct",
    "unsloth/qwen2.5-7b-instruct-unsloth-bnb-4bit": "Qwen/Qwen2.5-7B-Instruct",
    "unsloth/Meta-Llama-3.1-8B-Instruct": "meta-llama/Llama-3.1-8B-Instruct",
    "unsloth/llama-3-8b-Instruct-bnb-4bit": "meta-llama/Meta-Llama-3-8B-Instruct",
    "NousResearch/Meta-Llama-3-8B-Instruct": "meta-llama/Meta-Llama-3-8B-Instruct",
    "unsloth/Qwen3-0.6B": "Qwen/Qwen3-0.6B",
}
BASES = {
    "Qwen/Qwen2.5-0.5B": "qwen2", "Qwen/Qwen3-0.6B-Base": "qwen2", "meta-llama/Llama-3.1-8B": "llama3",
    "meta-llama/Llama-3.2-1B": "llama3", "meta-llama/Meta-Llama-3-8B": "llama3", "unsloth/Qwen2.5-7B-bnb-4bit": "qwen2",
}
# names the catalog holds as they are written (Hub names are case blind)
CATALOG = {"Qwen/Qwen2.5-7B-Instruct": ("qwen2", "qwen2.5"), "qwen/qwen2.5-7b-instruct": ("qwen2", "qwen2.5"),
           "Qwen/Qwen3-0.6B": ("qwen2", "qwen3"), "meta-llama/Meta-Llama-3-8B-Instruct": ("llama3", "llama3.0"),
           "mistralai/Mistral-7B-Instruct-v0.2": ("mistral-v1", "openai")}


def _estimate(*args: str) -> dict:
    out = run("estimate", str(DATA), "--format", "trl-messages", "-e", "1", "--max-seq-len", "100000", "-o", "json", *args)
    assert out.exit_code in (0, 1), out.stderr
    return json.loads(out.stdout)


def _config(tmp_path: Path, model: str) -> Path:
    """A TRL SFTConfig naming the model, beside the data."""
    (tmp_path / "train.jsonl").write_bytes(DATA.read_bytes())
    path = tmp_path / "sft.yaml"
    path.write_text(f"model_name_or_path: {json.dumps(model)}\ndataset_name: train.jsonl\nmax_length: 100000\nnum_train_epochs: 1\n")
    return path


@pytest.mark.parametrize("name", sorted(COPIES))
def test_a_copy_counts_as_the_model_it_copies_and_says_its_template_is_taken_on_trust(name: str, tmp_path: Path) -> None:
    original = _estimate("--model", COPIES[name])
    copy = _estimate("--model", name)
    by_config = _estimate("--run", str(_config(tmp_path, name)))
    assert copy["tokens"] == by_config["tokens"] == original["tokens"] > 0
    assert original["tokens_exact"] is True
    assert copy["tokens_exact"] is False and f"copy of {COPIES[name]}" in copy["tokens_note"]
    assert copy["tokenizer"] == original["tokenizer"] and copy["model"] == name


@pytest.mark.parametrize("name", sorted(BASES))
def test_a_base_model_counts_with_its_familys_vocabulary_not_the_instruct_template(name: str, tmp_path: Path) -> None:
    expected = _estimate("--tokenizer", BASES[name], "--trainer", "trl")  # OpenAI's convention over the vocabulary
    base = _estimate("--run", str(_config(tmp_path, name)))
    assert base["tokens"] == expected["tokens"] and base["tokenizer"] == BASES[name]
    assert base["tokens_exact"] is False and "a base model" in base["tokens_note"]


def test_a_base_models_plain_text_counts_exactly_with_its_vocabulary() -> None:
    """TRL's own example config names Qwen/Qwen2.5-0.5B, a base model, for plain text: no template
    renders text, so the counts are the vocabulary's, exact (they were o200k_base's)."""
    config = "fixtures/runs/trl/example_config.yaml"
    data = "fixtures/runs/llama-factory/data/c4_demo.jsonl"
    e = json.loads(run("estimate", data, "--run", config, "-o", "json").stdout)
    qwen = json.loads(run("estimate", data, "--run", config, "--tokenizer", "qwen2", "-o", "json").stdout)
    assert e["tokenizer"] == "qwen2" and e["tokens_exact"] is True and not e["tokens_note"]
    assert e["tokens"] == qwen["tokens"]


@pytest.mark.parametrize("name", sorted(CATALOG))
def test_the_catalogs_names_resolve_to_their_entry(name: str) -> None:
    from ftlint.names import resolve

    model = resolve(name)
    assert (model.tokenizer, model.template) == CATALOG[name] and not model.template_doubt


def test_ftlint_models_shows_a_name_as_model_reads_it() -> None:
    out = run("models", "unsloth/Qwen2.5-7B-Instruct-bnb-4bit", "-o", "json")
    [model] = json.loads(out.stdout)["models"]
    assert (model["name"], model["tokenizer"], model["template"]) == ("unsloth/Qwen2.5-7B-Instruct-bnb-4bit", "qwen2", "qwen2.5")
    assert "copy of Qwen/Qwen2.5-7B-Instruct" in model["template_estimate"]
    text = run("models", "Qwen/Qwen2.5-0.5B").stdout
    assert "Qwen/Qwen2.5-0.5B\n" in text and "a base model" in text and "Qwen/Qwen2.5-0.5B-Instruct\n" not in text


# ---- a name ftlint does not know -----------------------------------------------------------------

def test_an_unknown_model_flag_is_an_error_naming_the_fix() -> None:
    out = run("estimate", str(DATA), "--model", "someone/their-model-7B")
    assert out.exit_code == 2
    assert "unknown model 'someone/their-model-7B'" in out.stderr and "--tokenizer DIR --chat-template DIR" in out.stderr


def test_an_unknown_model_of_a_run_config_is_an_estimate_that_says_so(tmp_path: Path) -> None:
    e = _estimate("--run", str(_config(tmp_path, "someone/their-model-7B")))
    assert e["model"] == "someone/their-model-7B" and e["tokenizer"] == "o200k_base" and e["tokens_exact"] is False
    assert "not a model of ftlint's catalog" in e["tokens_note"] and "--tokenizer DIR" in e["tokens_note"]
    assert any("not a model ftlint knows" in note for note in e["run_notes"])
    assert e["tokens"] == _estimate("--tokenizer", "o200k_base", "--trainer", "trl")["tokens"]


def test_a_run_configs_model_named_with_a_parenthesis_is_that_model_not_none(tmp_path: Path) -> None:
    """No model named is Model.unnamed, not a name that starts with "(": on main, a run config's
    `model_name_or_path: "(mine)"` was printed as "no model of the catalog" by estimate and as none by show."""
    config = str(_config(tmp_path, "(mine)"))
    out = run("estimate", str(DATA), "--run", config)
    assert out.exit_code in (0, 1) and "\nplan: (mine) (o200k_base, an estimate)\n" in out.stdout, out.stdout
    shown = run("show", f"{tmp_path / 'train.jsonl'}:1", "--run", config, "-o", "json")
    assert json.loads(shown.stdout)["model"] == "(mine)", shown.stdout


def test_a_gate_on_the_counts_fails_for_an_unknown_model_and_names_the_fix(tmp_path: Path) -> None:
    config = str(_config(tmp_path, "someone/their-model-7B"))
    out = run("estimate", str(DATA), "--run", config, "--max-tokens", "100000000", "-o", "json")
    found = {w["code"]: w["message"] for w in json.loads(out.stdout)["warnings"]}
    assert out.exit_code == 1 and "cannot be checked" in found["FT702"] and "--tokenizer DIR" in found["FT702"]
    cost = run("estimate", str(DATA), "--run", config, "--max-cost", "1000", "-o", "json")
    assert cost.exit_code == 1 and "someone/their-model-7B is not a model ftlint knows" in cost.stdout
    given = run("estimate", str(DATA), "--run", config, "--max-tokens", "100000000", "--tokenizer", "qwen2")
    assert given.exit_code == 0, given.stdout  # the user named the tokenizer: the counts are its own
    (tmp_path / "known").mkdir()
    known = run("estimate", str(DATA), "--run", str(_config(tmp_path / "known", "Qwen/Qwen2.5-7B-Instruct")), "--max-tokens", "100000000")
    assert known.exit_code == 0, known.stdout


# ---- a run config naming a model folder ----------------------------------------------------------

def test_a_run_configs_model_folder_is_read_as_the_trainer_reads_it(tmp_path: Path) -> None:
    """`model_name_or_path: ./my-model`: the folder's tokenizer and chat template (transformers 5's
    layout), every record's tokens as transformers' AutoTokenizer over the folder makes them."""
    from test_model_folders import _small, reference

    folder = tmp_path / "my-model"
    folder.mkdir()
    _small(folder)
    e = _estimate("--run", str(_config(tmp_path, "./my-model")))
    records = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    assert e["tokens"] == sum(reference(folder, r)[1] for r in records)
    assert e["tokenizer"] == f"path:{folder.resolve()}" and e["tokens_exact"] is True


def test_a_model_folder_outside_the_configs_folder_is_not_read(tmp_path: Path) -> None:
    outside = tmp_path / "models" / "mine"
    outside.mkdir(parents=True)
    (outside / "tokenizer.json").write_text("{}")
    inner = tmp_path / "runs"
    inner.mkdir()
    e = _estimate("--run", str(_config(inner, "../models/mine")))
    assert e["tokenizer"] == "o200k_base" and e["tokens_exact"] is False
    assert any("a folder outside" in note and "not read" in note for note in e["run_notes"])

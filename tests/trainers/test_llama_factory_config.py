"""A LLaMA-Factory training YAML whose keys ftlint cannot apply, or that LLaMA-Factory itself
refuses, is one line naming the file and the key (exit 2), never figures printed as if it were
applied; a row LLaMA-Factory's processor drops or fails on is a finding (FT230) saying why. Each
refusal quotes LLaMA-Factory's own check (src/llamafactory/hparams/data_args.py __post_init__,
hparams/parser.py, data/template.py, data/data_utils.py) or says what ftlint does not model."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from conftest import FIXTURES, run, run_process

DATA = FIXTURES / "trainer_runs" / "llama-factory" / "data"
BASE = {"model_name_or_path": "Qwen/Qwen3-4B-Instruct-2507", "stage": "sft", "dataset": "identity", "template": "qwen3_nothink",
        "cutoff_len": 512, "per_device_train_batch_size": 1, "num_train_epochs": 1.0}


def config(tmp_path: Path, **keys: object) -> Path:
    if not (tmp_path / "data").exists():
        shutil.copytree(DATA, tmp_path / "data")
    path = tmp_path / "train.yaml"
    doc = {**BASE, **keys}
    path.write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in doc.items() if v is not None), encoding="utf-8")
    return path


@pytest.mark.parametrize(("keys", "said"), [
    ({"stage": "ppo"}, "stage ppo"),
    ({"template": "no_such_template"}, "LLaMA-Factory has no such template"),
    ({"train_on_prompt": True, "mask_history": True}, "`mask_history` is incompatible with `train_on_prompt`"),
    ({"streaming": True}, "streaming"),
    ({"tokenized_path": "cache"}, "tokenized_path"),
    ({"mix_strategy": "interleave_under"}, "mix_strategy"),
    ({"stage": "pt", "dataset": "c4_demo", "neat_packing": True}, "cannot be set as True except SFT"),
    ({"template": "gemma2", "train_on_prompt": True}, "does not support `train_on_prompt`"),
    ({"val_size": 0.1, "eval_dataset": "alpaca_en_demo"}, "Cannot specify `val_size` if `eval_dataset` is not None"),
    ({"val_size": 2.5}, "val_size"),
    ({"stage": "dpo"}, "not a ranking dataset, for stage dpo"),
])
def test_a_key_ftlint_cannot_apply_is_one_line_and_exit_2(tmp_path: Path, keys: dict, said: str) -> None:
    r = run("estimate", "--run", str(config(tmp_path, **keys)))
    assert r.exit_code == 2 and said in r.stderr, r.stderr
    assert len(r.stderr.strip().splitlines()) == 1 and "Traceback" not in r.stderr


def test_a_template_ftlint_does_not_render_is_an_estimate_that_says_so(tmp_path: Path) -> None:
    r = run("estimate", "--run", str(config(tmp_path, template="glm4")), "-o", "json")
    e = json.loads(r.stdout)
    assert e["tokens_exact"] is False and "template glm4 is not one ftlint renders" in e["tokens_note"]
    assert e["renderer"] == ""


def test_a_template_ftlint_renders_says_which_and_where(tmp_path: Path) -> None:
    e = json.loads(run("estimate", "--run", str(config(tmp_path)), "-o", "json").stdout)
    assert e["tokens_exact"] is True and e["tokens_note"] == ""
    assert e["renderer"] == ("LLaMA-Factory's template qwen3_nothink "
                             "(src/llamafactory/data/template.py register_template(name='qwen3_nothink'))")


def test_a_row_llama_factory_drops_or_fails_on_is_a_finding(tmp_path: Path) -> None:
    rows = [{"conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "hello"}], "tools": "[{not json"},
            {"conversations": [{"from": "gpt", "value": "out of turn"}, {"from": "human", "value": "hi"}], "tools": ""}]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "rows.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "data" / "dataset_info.json").write_text(json.dumps(
        {"rows": {"file_name": "rows.json", "formatting": "sharegpt", "columns": {"messages": "conversations", "tools": "tools"}}}))
    r = run("check", "--run", str(config(tmp_path, dataset="rows")))
    found = [line for line in r.stdout.splitlines() if "rows.json:1:1: FT230" in line]  # a one-line array: each element on line 1
    assert any("Invalid JSON format in tool description" in f and f.endswith("(element 1)") for f in found), r.stdout
    assert any("Dropped invalid example" in f and f.endswith("(element 2)") for f in found), r.stdout


def test_max_samples_reads_the_first_rows_of_each_file_blank_lines_not_counted(tmp_path: Path) -> None:
    lines = [json.dumps({"instruction": f"say {i}", "output": str(i)}) for i in range(6)]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "few.jsonl").write_text(lines[0] + "\n\n" + "\n".join(lines[1:]) + "\n", encoding="utf-8")
    (tmp_path / "data" / "dataset_info.json").write_text(json.dumps({"few": {"file_name": "few.jsonl"}}))
    e = json.loads(run("estimate", "--run", str(config(tmp_path, dataset="few", max_samples=3)), "-o", "json").stdout)
    assert (e["records"], e["rows_per_file"]) == (3, 3)
    assert e["lines"] == 4  # the first three rows, and the blank line between the first two


def test_a_preference_alpaca_dataset_trains_its_chosen_and_rejected_answers(tmp_path: Path) -> None:
    """data/README.md's preference Alpaca (ranking: true; instruction, input, chosen, rejected) for
    stage dpo: both sequences count, both answers train. LLaMA-Factory ff6d4d1's own get_dataset
    (stage rm, as its DPO workflow calls it) made 2 rows, 60 tokens, 14 trained of these two."""
    rows = [{"instruction": "Say hi", "input": "", "chosen": "Hi!", "rejected": "No."},
            {"instruction": "Add 2+2", "input": "", "chosen": "4", "rejected": "5"}]
    (tmp_path / "data").mkdir()
    (tmp_path / "data" / "pairs.json").write_text(json.dumps(rows), encoding="utf-8")
    (tmp_path / "data" / "dataset_info.json").write_text(json.dumps({"pairs": {
        "file_name": "pairs.json", "ranking": True,
        "columns": {"prompt": "instruction", "query": "input", "chosen": "chosen", "rejected": "rejected"}}}))
    r = run("estimate", "--run", str(config(tmp_path, stage="dpo", dataset="pairs", cutoff_len=1024)), "-o", "json")
    e = json.loads(r.stdout)
    assert (e["format"], e["records"], e["tokens"], e["trainable_tokens"], e["invalid_lines"]) == ("alpaca", 2, 60, 14, 0)


def test_dataset_dir_is_read_from_where_llama_factory_runs(tmp_path: Path) -> None:
    """LLaMA-Factory's own layout: `llamafactory-cli train examples/train_lora/x.yaml` from the
    repository's root reads data/dataset_info.json there, not beside the config
    (src/llamafactory/data/parser.py get_dataset_list joins dataset_dir to the working directory).
    The figures are those of the same config kept beside its data."""
    beside = json.loads(run("estimate", "--run", str(config(tmp_path / "beside")), "-o", "json").stdout)
    repo = tmp_path / "repo"
    shutil.copytree(DATA, repo / "data")
    (repo / "examples" / "train_lora").mkdir(parents=True)
    shutil.copy(config(tmp_path / "beside"), repo / "examples" / "train_lora" / "x.yaml")
    r = run_process("estimate", "--run", "examples/train_lora/x.yaml", "-o", "json", cwd=repo)
    assert r.exit_code == 0, r.stderr
    rooted = json.loads(r.stdout)
    assert rooted["paths"] == ["data/identity.json"]
    assert {k: rooted[k] for k in ("records", "tokens", "trainable_tokens", "total_steps")} == \
           {k: beside[k] for k in ("records", "tokens", "trainable_tokens", "total_steps")}
    assert not any("dataset_dir" in n for n in rooted["run_notes"])
    # run from elsewhere, the config's own folder is read, and said: LLaMA-Factory would not find it there
    assert any("LLaMA-Factory reads it from where it runs" in n for n in beside["run_notes"])


def test_a_dataset_file_outside_the_working_directory_is_refused(tmp_path: Path) -> None:
    repo = tmp_path / "repo"
    shutil.copytree(DATA, repo / "data")
    info = json.loads((repo / "data" / "dataset_info.json").read_text(encoding="utf-8"))
    info["identity"]["file_name"] = "../../secret.json"
    (tmp_path / "secret.json").write_text("[]", encoding="utf-8")
    (repo / "data" / "dataset_info.json").write_text(json.dumps(info), encoding="utf-8")
    (repo / "examples").mkdir()
    (repo / "examples" / "x.yaml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in BASE.items()), encoding="utf-8")
    r = run_process("estimate", "--run", "examples/x.yaml", cwd=repo)
    assert r.exit_code == 2 and "outside" in r.stderr and "Traceback" not in r.stderr


@pytest.mark.parametrize("where", ["REMOTE:llamafactory/demo_data", "ONLINE"])
def test_a_dataset_dir_on_the_hub_is_one_line_saying_what_to_download(where: str, tmp_path: Path) -> None:
    r = run("estimate", "--run", str(config(tmp_path, dataset_dir=where)))
    assert r.exit_code == 2 and "from the Hub" in r.stderr and "set dataset_dir" in r.stderr, r.stderr

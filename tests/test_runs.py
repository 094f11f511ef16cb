"""--run FILE: the run configs people already have (fixtures/runs/, copied from the trainers' own
repositories), read as their trainer reads them. Each figure is derived here from the trainer's
own rule, written out, with the config's values read by yaml/json here, not by ftlint:

  axolotl (src/axolotl/utils/trainer.py calculate_total_num_steps, no packing)
      total = ceil(rows x num_epochs / (micro_batch_size x gradient_accumulation_steps x devices))
      warmup = floor(warmup_ratio x total) (core/builders/base.py _configure_warmup_and_logging)
  transformers' Trainer (TRL, LLaMA-Factory), one device
      updates per epoch = ceil(ceil(rows / per_device_train_batch_size) / gradient_accumulation_steps)
      total = num_train_epochs x updates per epoch; warmup = ceil(total x warmup_ratio)
  mistral-finetune: total = max_steps (finetune/args.py); Together: ceil(rows / batch) x n_epochs
"""

from __future__ import annotations

import json
import math
from pathlib import Path

import yaml

from conftest import FIXTURES, ROOT, run

RUNS = FIXTURES / "runs"
DRONE = FIXTURES / "good" / "drone_training.jsonl"
TOY = FIXTURES / "oracle" / "toy_chat_fine_tuning.jsonl"
LF = RUNS / "llama-factory"


def rel(path: Path) -> str:
    return str(path.relative_to(ROOT))


def estimate(*args: str) -> dict:
    r = run("estimate", *args, "-o", "json")
    assert r.exit_code in (0, 1), r.stderr
    return json.loads(r.stdout)


def lines(path: Path) -> int:
    return sum(1 for line in path.read_text(encoding="utf-8").splitlines() if line.strip())


def test_axolotl_instruct_lora_plans_axolotls_own_step_count() -> None:
    config = RUNS / "axolotl" / "instruct-lora-8b.yml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate(rel(DRONE), "--run", rel(config))
    rows = lines(DRONE)
    effective = cfg["micro_batch_size"] * cfg["gradient_accumulation_steps"]
    total = math.ceil(rows * cfg["num_epochs"] / effective)
    assert (e["trainer"], e["records"], e["epochs"], e["effective_batch_size"]) == ("axolotl", rows, cfg["num_epochs"], effective)
    assert (e["total_steps"], e["warmup_steps"]) == (total, math.floor(cfg["warmup_ratio"] * total)) == (52, 5)
    assert e["tokens_processed"] == e["tokens"] * cfg["num_epochs"]
    assert e["sources"]["epochs"] == f"num_epochs {cfg['num_epochs']} from instruct-lora-8b.yml"
    assert e["sources"]["grad_accum"] == f"gradient_accumulation_steps {cfg['gradient_accumulation_steps']} from instruct-lora-8b.yml"
    assert e["sources"]["max_seq_len"] == f"sequence_len {cfg['sequence_len']} from instruct-lora-8b.yml"
    assert any(n.startswith("val_set_size 0.05") for n in e["run_notes"])  # said, not silently dropped


def test_a_flag_wins_over_the_run_config_and_says_so() -> None:
    config = RUNS / "axolotl" / "instruct-lora-8b.yml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate(rel(DRONE), "--run", rel(config), "--epochs", "2", "--grad-accum", "1")
    assert (e["epochs"], e["sources"]["epochs"], e["sources"]["grad_accum"]) == (2, "--epochs", "--grad-accum")
    assert e["total_steps"] == math.ceil(lines(DRONE) * 2 / cfg["micro_batch_size"])
    assert e["sources"]["batch_size"] == "micro_batch_size 2 from instruct-lora-8b.yml"  # the rest still the config's


def test_axolotl_gpt_oss_example_reads_tool_calls_as_axolotl_does() -> None:
    """axolotl hands chat_template messages to the model's template as they are. On main, the
    gpt-oss example read them as ShareGPT: 206 false errors (FT101 x103, FT103 x103) on tool calls."""
    config = RUNS / "axolotl" / "gpt-oss-20b-sft-lora-singlegpu.yaml"
    r = run("check", rel(DRONE), "--mapping", rel(config))
    assert r.exit_code == 0, r.stdout
    with_model = run("check", rel(DRONE), "--run", rel(config))
    codes = {line.split()[1] for line in with_model.stdout.splitlines() if ": FT" in line}
    # what remains is what axolotl meets too: gpt-oss's own template fails on tools without a description
    assert codes == {"FT230"}, with_model.stdout
    assert "sample_packing true" in with_model.stderr


def test_axolotl_refuses_type_sharegpt_and_so_does_ftlint(tmp_path: Path) -> None:
    config = tmp_path / "old.yml"
    config.write_text("base_model: x\ndatasets:\n  - path: chats.jsonl\n    type: sharegpt\n")
    (tmp_path / "chats.jsonl").write_text('{"conversations": [{"from": "human", "value": "hi"}]}\n')
    r = run("check", "--run", str(config))
    assert r.exit_code == 2 and "deprecated" in r.stderr and "type: chat_template" in r.stderr


def test_llama_factory_sft_reads_its_datasets_from_dataset_info() -> None:
    config = LF / "qwen3_lora_sft.yaml"
    cfg = yaml.safe_load(config.read_text())
    rows = sum(len(json.loads((LF / "data" / f"{name}.json").read_text())) for name in cfg["dataset"].split(","))
    e = estimate("--run", rel(config))  # no PATH: the config's datasets
    per_epoch = math.ceil(math.ceil(rows / cfg["per_device_train_batch_size"]) / cfg["gradient_accumulation_steps"])
    total = int(cfg["num_train_epochs"]) * per_epoch
    assert (e["records"], e["steps_per_epoch"], e["total_steps"]) == (rows, per_epoch, total) == (191, 24, 72)
    assert e["warmup_steps"] == math.ceil(total * cfg["warmup_ratio"])
    assert e["paths"] == ["fixtures/runs/llama-factory/data/identity.json", "fixtures/runs/llama-factory/data/alpaca_en_demo.json"]
    assert e["sources"]["max_seq_len"] == "cutoff_len 2048 from qwen3_lora_sft.yaml"


def test_llama_factory_pretraining_entry_reads_the_text_column_only() -> None:
    """data/README.md: a pretraining entry is `"columns": {"prompt": "text"}`, and only the text is
    used. On main, every line was 'missing output' (FT109, and FT101 for its output)."""
    data = LF / "data" / "c4_demo.jsonl"
    r = run("check", rel(data), "--mapping", rel(LF / "data" / "dataset_info.json") + ":c4_demo")
    assert "FT109" not in r.stdout and "FT101" not in r.stdout and r.exit_code == 0, r.stdout
    config = LF / "qwen3_lora_pretrain.yaml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate("--run", rel(config))
    rows = lines(data)
    per_epoch = math.ceil(rows / cfg["per_device_train_batch_size"] / cfg["gradient_accumulation_steps"])
    assert (e["format"], e["records"], e["total_steps"]) == ("text", rows, int(cfg["num_train_epochs"]) * per_epoch)
    assert any("cutoff_len blocks" in n for n in e["run_notes"])


def test_trl_example_config_takes_transformers_defaults_and_says_them() -> None:
    config = RUNS / "trl" / "example_config.yaml"
    cfg = yaml.safe_load(config.read_text())
    data = LF / "data" / "c4_demo.jsonl"
    e = estimate(rel(data), "--run", rel(config))
    epochs, batch = 3, 8  # transformers TrainingArguments: num_train_epochs=3.0, per_device_train_batch_size=8
    assert (e["trainer"], e["epochs"], e["batch_size"]) == ("trl", epochs, batch)
    assert e["total_steps"] == epochs * math.ceil(lines(data) / batch)
    assert e["truncation"]["max_seq_len"] == 1024  # SFTConfig.max_length=1024: not set, TRL's default cuts there
    assert e["sources"]["learning_rate"] == f"learning_rate {cfg['learning_rate']:g} from example_config.yaml"
    assert "num_train_epochs=3.0" in e["sources"]["epochs"]


def test_mistral_finetune_runs_max_steps() -> None:
    config = RUNS / "mistral-finetune" / "7B.yaml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate(rel(TOY), "--run", rel(config))
    assert (e["trainer"], e["total_steps"], e["batch_size"]) == ("mistral-finetune", cfg["max_steps"], cfg["batch_size"])
    assert e["sources"]["max_steps"] == f"max_steps {cfg['max_steps']} from 7B.yaml"
    assert e["sources"]["warmup"] == f"optim.pct_start {cfg['optim']['pct_start']:g} from 7B.yaml"


def test_mistral_finetune_packs_into_the_configs_seq_len_and_every_step_is_full() -> None:
    """seq_len from the YAML is the pack length (on main the default 2,048 was used while the run
    says 32,768). mistral-finetune's training iterator never ends (finetune/data/dataset.py
    get_dataset_iterator: `while True`) and sequence_iterator yields only sequences of exactly
    seq_len tokens, so each step trains batch_size x num_microbatches full sequences per GPU."""
    config = RUNS / "mistral-finetune" / "7B.yaml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate(rel(TOY), "--run", rel(config))
    seq_len, steps = cfg["seq_len"], cfg["max_steps"]
    assert (e["truncation"]["max_seq_len"], e["sources"]["max_seq_len"]) == (seq_len, f"seq_len {seq_len} from 7B.yaml")
    assert e["sequences"] == -(-e["tokens"] // seq_len) == 1  # 8,206 tokens: one sequence holds them four times over
    fed = steps * cfg["batch_size"] * 1  # num_microbatches: TrainArgs' default 1
    assert e["tokens_processed"] == fed * seq_len == 9_830_400
    assert e["epochs_covered"] == round(fed * seq_len / e["tokens"], 4) and e["epochs"] == math.ceil(fed * seq_len / e["tokens"])


def test_together_job_and_its_defaults(tmp_path: Path) -> None:
    job = json.loads((RUNS / "together" / "job.json").read_text())
    e = estimate(rel(TOY), "--run", rel(RUNS / "together" / "job.json"))
    assert (e["trainer"], e["epochs"], e["sources"]["epochs"]) == ("together", job["n_epochs"], "n_epochs 3 from job.json")
    assert e["total_steps"] == job["n_epochs"] * math.ceil(e["records"] / e["batch_size"])
    assert e["trainer_source"] == "from job.json (a together run config)"  # not "--trainer together": no flag named it
    flagged = estimate(rel(TOY), "--run", rel(RUNS / "together" / "job.json"), "--trainer", "openai")
    assert (flagged["trainer"], flagged["trainer_source"]) == ("openai", "--trainer openai")
    bare = tmp_path / "job.json"
    bare.write_text(json.dumps({"model": job["model"], "training_file": job["training_file"]}))
    e = estimate(rel(TOY), "--run", str(bare))
    assert e["epochs"] == 1 and "n_epochs 1: Together's default" in " ".join(e["run_notes"])


def test_a_key_of_the_wrong_type_is_one_line_naming_file_and_key(tmp_path: Path) -> None:
    config = tmp_path / "axolotl.yml"
    config.write_text("base_model: x\nmicro_batch_size: two\n")
    r = run("estimate", rel(DRONE), "--run", str(config))
    assert r.exit_code == 2
    assert r.stderr.strip() == f"ftlint: error: {config}: micro_batch_size = 'two': expected a whole number"


def test_a_config_dataset_outside_its_folder_is_refused(tmp_path: Path) -> None:
    inner = tmp_path / "inner"
    inner.mkdir()
    (tmp_path / "data.jsonl").write_text(DRONE.read_text())
    (inner / "run.yml").write_text("base_model: x\ndatasets:\n  - path: ../data.jsonl\n    type: chat_template\n")
    r = run("estimate", "--run", str(inner / "run.yml"))
    assert r.exit_code == 2 and "outside" in r.stderr


def test_run_in_ftlint_toml_and_the_api(tmp_path: Path) -> None:
    import ftlint

    config = RUNS / "axolotl" / "instruct-lora-8b.yml"
    e = ftlint.estimate(DRONE, run=config, epochs=1)
    assert (e.epochs, e.sources["epochs"], e.batch_size) == (1, "epochs=1", 2)
    (tmp_path / "instruct.yml").write_text(config.read_text())
    (tmp_path / "ftlint.toml").write_text('run = "instruct.yml"\n')
    e = json.loads(run("--config", str(tmp_path / "ftlint.toml"), "estimate", rel(DRONE), "-o", "json").stdout)
    assert (e["epochs"], e["sources"]["epochs"]) == (4, "num_epochs 4 from instruct.yml")
    (tmp_path / "ftlint.toml").write_text(f'run = "{config}"\n')  # a repository's config names files inside its folder
    r = run("--config", str(tmp_path / "ftlint.toml"), "estimate", rel(DRONE))
    assert r.exit_code == 2 and "outside" in r.stderr

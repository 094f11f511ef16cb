"""Configuration files: found upwards, flags win, bad keys and values are exit-2 errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from conftest import run_process

GOOD = json.dumps({"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "hello"}, {"role": "user", "content": "bye"}]})


def _project(tmp_path: Path, config_name: str, text: str) -> Path:
    (tmp_path / config_name).write_text(text)
    data = tmp_path / "data" / "sub"
    data.mkdir(parents=True)
    (data / "train.jsonl").write_text("".join(GOOD.replace('"bye"', f'"bye {i}"') + "\n" for i in range(12)))
    return data


def _estimate(cwd: Path, *args: str) -> dict:
    r = run_process("estimate", "train.jsonl", "-o", "json", *args, cwd=cwd)
    assert r.exit_code == 0, r.stderr
    return json.loads(r.stdout)


def test_pyproject_table_is_found_upwards_and_flags_win(tmp_path: Path) -> None:
    data = _project(tmp_path, "pyproject.toml", '[project]\nname = "x"\n\n[tool.ftlint]\nmodel = "gpt-4o-mini"\n\n'
                                                 '[tool.ftlint.estimate]\nepochs = 4\nbatch-size = 2\n')
    e = _estimate(data)
    assert (e["model"], e["epochs"], e["batch_size"]) == ("gpt-4o-mini-2024-07-18", 4, 2)
    e = _estimate(data, "--epochs", "1", "--model", "gpt-4.1")
    assert (e["model"], e["epochs"], e["batch_size"]) == ("gpt-4.1-2025-04-14", 1, 2)
    r = run_process("--no-config", "estimate", "train.jsonl", "-o", "json", cwd=data)
    assert json.loads(r.stdout)["model"] == "gpt-4.1-mini-2025-04-14"


def test_ftlint_toml_ignores_and_per_file_ignores(tmp_path: Path) -> None:
    data = _project(tmp_path, "ftlint.toml", 'fail-on = "warning"\n[per-file-ignores]\n"data/sub/*.jsonl" = ["FT208"]\n')
    r = run_process("check", "train.jsonl", cwd=data)
    assert r.exit_code == 0 and "FT208" not in r.stdout, r.stdout
    (tmp_path / "ftlint.toml").write_text('fail-on = "warning"\n')
    r = run_process("check", "train.jsonl", cwd=data)
    assert r.exit_code == 1 and "FT208" in r.stdout  # fail-on warning from the file
    assert run_process("check", "train.jsonl", "--fail-on", "error", cwd=data).exit_code == 0


def test_bad_key_and_bad_value_name_the_file_and_key(tmp_path: Path) -> None:
    data = _project(tmp_path, "ftlint.toml", "epoch = 3\n")
    r = run_process("check", "train.jsonl", cwd=data)
    assert r.exit_code == 2 and "ftlint.toml: unknown key 'epoch'" in r.stderr and "epochs" in r.stderr
    (tmp_path / "ftlint.toml").write_text("[estimate]\nepochs = 0\n")
    r = run_process("estimate", "train.jsonl", cwd=data)
    assert r.exit_code == 2 and "estimate.epochs = 0" in r.stderr
    (tmp_path / "ftlint.toml").write_text('ignore = ["FT6X"]\n')
    r = run_process("check", "train.jsonl", cwd=data)
    assert r.exit_code == 2 and "ignore" in r.stderr and "FT6X" in r.stderr
    (tmp_path / "ftlint.toml").write_text("not toml [\n")
    r = run_process("check", "train.jsonl", cwd=data)
    assert r.exit_code == 2 and r.stderr.startswith("ftlint: error: ") and "Traceback" not in r.stderr


def test_explicit_config_file(tmp_path: Path) -> None:
    data = _project(tmp_path, "elsewhere.toml", "[estimate]\nepochs = 7\n")
    assert _estimate(data, "--epochs", "2")["epochs"] == 2
    r = run_process("--config", str(tmp_path / "elsewhere.toml"), "estimate", "train.jsonl", "-o", "json", cwd=data)
    assert json.loads(r.stdout)["epochs"] == 7


def test_keys_left_to_the_command_line_are_said_and_not_used(tmp_path: Path) -> None:
    """--not-from-config (the GitHub Action's: the workflow owns the model, trainer, price and run)."""
    data = _project(tmp_path, "ftlint.toml", 'model = "gpt-4o-mini"\nprice = 0\n[estimate]\nepochs = 4\ntrainer = "openai"\n')
    mine = _estimate(data)
    assert (mine["model"], mine["price_per_1m"], mine["cost_usd"], mine["epochs"]) == ("gpt-4o-mini-2024-07-18", 0, 0, 4)
    r = run_process("--not-from-config", "model,price", "--not-from-config", "trainer", "estimate", "train.jsonl", "-o", "json",
                    cwd=data)
    e = json.loads(r.stdout)
    # the default model at the catalog's price (gpt-4.1-mini, $5 per 1M tokens); epochs stay the file's
    assert (e["model"], e["price_per_1m"], e["epochs"]) == ("gpt-4.1-mini-2025-04-14", 5.0, 4)
    assert e["cost_usd"] == round(e["tokens_processed"] * 5.0 / 1_000_000, 6) > 0
    said = [line for line in r.stderr.splitlines() if "not used" in line]
    assert [line.split("ftlint.toml: ", 1)[1].split(" = ")[0] for line in said] == ["model", "price", "estimate.trainer"]
    shown = run_process("--not-from-config", "price", "check", "train.jsonl", "-o", "markdown", cwd=data)
    assert "ftlint.toml: price = 0 not used: --not-from-config leaves price to the command line" in shown.stdout
    unknown = run_process("--not-from-config", "prize", "check", "train.jsonl", cwd=data)
    assert unknown.exit_code == 2 and unknown.stderr == "ftlint: error: --not-from-config: 'prize': no such configuration key\n"


# --- issue 35: a repository's ftlint.toml sets no number past its maximum and no FIFO as data ---

def test_a_number_past_its_maximum_in_the_config_is_one_line_naming_the_key(tmp_path: Path) -> None:
    data = _project(tmp_path, "ftlint.toml", "")
    for key, value, maximum in (("epochs", "100000000", "1,000"), ("max-steps", "1000000000000", "10,000,000"),
                                ("price", "1e308", "10,000"), ("gpus", "9" * 400, "131,072"),
                                ("template-max-chars", "1099511627776", "67,108,864"), ("max-line-bytes", "9" * 30, "536,870,912")):
        (tmp_path / "ftlint.toml").write_text(f"[estimate]\n{key} = {value}\n")
        r = run_process("estimate", "train.jsonl", cwd=data)
        assert r.exit_code == 2 and r.stderr.count("\n") == 1, (key, r.stderr)
        assert f"estimate.{key} = " in r.stderr and f"at most {maximum}" in r.stderr and len(r.stderr) < 400, r.stderr


def test_a_number_of_5000_digits_in_the_config_is_one_line(tmp_path: Path) -> None:
    data = _project(tmp_path, "ftlint.toml", f"epochs = {'9' * 5000}\n")  # more digits than Python converts
    r = run_process("estimate", "train.jsonl", cwd=data)
    assert r.exit_code == 2 and r.stderr.count("\n") == 1 and "not read" in r.stderr and "internal error" not in r.stderr, r.stderr


def test_a_fifo_as_the_configs_validation_is_refused_before_it_blocks(tmp_path: Path) -> None:
    data = _project(tmp_path, "ftlint.toml", 'validation = "data/sub/eval.jsonl"\n')
    os.mkfifo(data / "eval.jsonl")
    p = subprocess.run([sys.executable, "-m", "ftlint", "check", "train.jsonl"], capture_output=True, text=True, cwd=data,
                       timeout=20)
    assert p.returncode == 2 and "validation = 'data/sub/eval.jsonl': a FIFO" in p.stderr and p.stderr.count("\n") == 1, p.stderr

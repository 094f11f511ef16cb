"""The flags' help that the trainers give (ftlint/cli/told.py, issue 36): composed from the
registry, it names every trainer an option concerns, each checked here against what the run does
with the option (refused or not, figures changed or not), not against the data it was made from."""

from __future__ import annotations

import json
import subprocess
import sys

import click

from conftest import ROOT, run
from ftlint.cli import cli
from ftlint.trainers import CONFIGS, TRAINERS, Trainer

DRONE = "fixtures/good/drone_training.jsonl"


def _help(command: str, flag: str) -> str:
    """An option's help as --help shows it, on one line."""
    cmd = cli.commands[command]
    param = next(p for p in cmd.params if isinstance(p, click.Option) and flag in p.opts)
    record = param.get_help_record(click.Context(cmd, info_name=command))
    assert record is not None
    return " ".join(record[1].split())


def _listed(text: str) -> set[str]:
    """The trainers a help text names, as words of it."""
    words = set(text.replace("(", " ").replace(")", " ").replace(",", " ").replace(";", " ").replace(":", " ").split())
    return {name for name in TRAINERS if name in words}


def test_trainer_help_names_every_trainer_the_providers_jobs_last() -> None:
    """On main it left unsloth out (and most providers' jobs)."""
    said = _help("check", "--trainer")
    assert _listed(said) == set(TRAINERS)
    runs, jobs = said.split("a provider's job")
    assert {n for n in _listed(jobs)} == {n for n, t in TRAINERS.items() if t.hosted}
    assert "trl (hf, transformers)" in runs and "mistral-finetune (mistral)" in runs and "llamafactory" not in runs


def _taking_packing() -> set[str]:
    """The trainers whose run is not refused (exit 2) with --packing."""
    return {name for name in TRAINERS
            if run("estimate", DRONE, "--trainer", name, "--packing", "--max-seq-len", "1024", "-o", "json").exit_code != 2}


def test_packing_help_names_the_trainers_that_take_packing() -> None:
    """Those whose run is not refused (exit 2) with --packing; on main it left unsloth out."""
    taking = _taking_packing()
    assert taking and _listed(_help("estimate", "--packing")) == taking


def test_a_trainer_refusing_packing_names_those_that_take_it() -> None:
    """What a run of another trainer is told names the same trainers; on main it left unsloth out."""
    taking = _taking_packing()
    refused = run("estimate", DRONE, "--trainer", "openai", "--packing", "--max-seq-len", "1024")
    assert refused.exit_code == 2 and _listed(refused.stderr) == taking


def test_hf_legacy_help_names_the_trainers_whose_figures_it_changes() -> None:
    """On main it left unsloth out."""
    def figures(name: str, *extra: str) -> dict:
        return json.loads(run("estimate", DRONE, "--trainer", name, "-o", "json", *extra).stdout)

    changed = {name for name in TRAINERS if figures(name) != figures(name, "--hf-legacy")}
    assert changed and _listed(_help("estimate", "--hf-legacy")) == changed


def test_max_seq_len_help_gives_each_trainers_key_as_its_profile_sources_it() -> None:
    """Every trainer whose plan takes --max-seq-len, with the key its max-length fact's source
    names (`ftlint trainers NAME`); check's own --max-seq-len names none."""
    said = _help("estimate", "--max-seq-len")
    taking = [t for t in TRAINERS.values() if "max_seq_len" in t.plan_options]
    assert taking and _listed(said) == {t.name for t in taking}
    for t in taking:
        assert f"{t.name} {t.max_length_key}" in said and t.max_length_key in t.profile.max_length.source
    assert _listed(_help("check", "--max-seq-len")) == set()


def test_run_and_mapping_help_list_the_files_the_trainers_read() -> None:
    """--run: one phrase for each run config ftlint reads (CONFIGS); --mapping: one for each
    trainer that takes a column mapping (a LLaMA-Factory dataset_info.json, an axolotl YAML)."""
    said = _help("check", "--run")
    assert all(t.run_config and t.run_config in said for t in CONFIGS)
    assert all(not t.run_config for t in TRAINERS.values() if t not in CONFIGS)
    mapping = _help("check", "--mapping")
    readers = {t for t in TRAINERS.values() if t.reads_mapping("dataset_info.json") or t.reads_mapping("config.yml")}
    assert readers == {t for t in TRAINERS.values() if t.column_mapping}
    assert all(t.column_mapping in mapping for t in readers)


def test_an_options_own_help_is_its_trainers() -> None:
    """Each trainer-only option's help is declared by the trainer whose option it is, once, and
    names a flag the command line has; the Together job's options say whose they are."""
    declared = [(option, t) for t in TRAINERS.values() for option in t.options_help]
    assert len(declared) == len({option for option, _ in declared})
    params = {p.name for cmd in cli.commands.values() for p in cmd.params}
    assert {option for option, _ in declared} <= params
    for t in TRAINERS.values():
        assert set(t.run_options) <= set(t.options_help)
    owner = TRAINERS["together"]
    for flag, option in (("--n-evals", "n_evals"), ("--full", "full"), ("--no-packing", "no_packing")):
        assert option in owner.plan_options and _help("estimate", flag) == owner.options_help[option]
    assert Trainer.options_help == {}


def test_importing_the_command_line_reads_no_profile() -> None:
    """The help is composed when shown: a command that runs pays for no trainer's profile it does not use."""
    code = ("import ftlint.cli\nfrom ftlint.trainers import TRAINERS\n"
            "print(sorted(n for n, t in TRAINERS.items() if 'profile' in vars(t)))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, timeout=120)
    assert out.stdout.strip() == "[]", out.stdout + out.stderr


def test_provider_help_names_every_provider_models_takes() -> None:
    """models' --provider lists the providers it takes, as its refusal of another lists them (on
    main it named 7 of the 12)."""
    refused = run("models", "--provider", "nope")
    assert refused.exit_code == 2
    known = refused.stderr.split("known: ", 1)[1].strip()
    assert _help("models", "--provider") == f"Only this provider's models ({known})."

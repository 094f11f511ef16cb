"""The trainers' registry and the Trainer each package holds (ftlint/trainers/): what the generic
code asks of a trainer is answered by the trainer, the same way everywhere it is asked."""

from __future__ import annotations

import dataclasses

import pytest

from ftlint.formats.registry import FORMATS
from ftlint.trainers import ALIASES, CONFIGS, CUTS, TRAINERS, Fact, cut_rule, mapping_owner, named, refusals
from ftlint.trainers.configs import detect
from ftlint.trainers.profile import HF_STEPS, HOSTED_STEPS, PROVIDER, TEMPLATE

NAMES = list(TRAINERS)


@pytest.mark.parametrize("name", NAMES)
def test_a_trainers_cut_is_the_rule_its_profile_names(name: str) -> None:
    """The judge cuts by the trainer's Cut and the estimate says its profile's past_max: one rule."""
    trainer = TRAINERS[name]
    assert trainer.cut.name == trainer.profile.past_max.value
    assert cut_rule(trainer.profile.past_max.value) is trainer.cut


@pytest.mark.parametrize("name", NAMES)
def test_a_profile_file_gives_every_fact_with_its_source(name: str) -> None:
    """A profile is read from its TOML file: every fact a Fact with a source, its formats ftlint's."""
    profile = TRAINERS[name].profile
    assert profile.name == name and profile.read
    for field in dataclasses.fields(profile):
        value = getattr(profile, field.name)
        if isinstance(value, Fact) and field.name not in ("max_steps", "tokenizers"):
            assert value.source, (name, field.name)
    assert profile.format_names and set(profile.format_names) <= set(FORMATS)
    assert isinstance(profile.formats.value, tuple) and isinstance(profile.notes, tuple)
    steps = TRAINERS[name].steps()
    assert profile.steps in (HF_STEPS, HOSTED_STEPS) or steps.name == profile.steps
    assert profile.renderer.value in (TEMPLATE, PROVIDER) or not profile.hosted


def test_every_name_a_user_gives_is_one_trainer() -> None:
    assert {named(alias).name for alias in ALIASES} <= set(TRAINERS)
    assert named("hf") is named("trl") and named("llamafactory") is TRAINERS["llama-factory"]
    assert set(CUTS) == {c.name for t in TRAINERS.values() for c in (t.cut, *t.other_cuts)}


@pytest.mark.parametrize(("doc", "kind"), [
    ({"base_model": "m", "sequence_len": 512}, "axolotl"),
    ({"model_name_or_path": "m", "stage": "sft", "cutoff_len": 1024}, "llama-factory"),  # TRL's key too: the particular kind wins
    ({"model_name_or_path": "m", "max_length": 1024}, "trl"),
    ({"model_id_or_path": "m", "seq_len": 2048}, "mistral-finetune"),
    ({"training_file": "t.jsonl", "n_epochs": 2, "base_model": "m"}, "together"),  # the most particular first
    ({"epochs": 3}, None),
])
def test_a_run_config_is_the_first_trainers_whose_keys_it_has(doc: dict, kind: str | None) -> None:
    assert detect(doc) == kind
    readers = [t.name for t in CONFIGS if t.reads_config(doc)]
    assert (readers[0] if readers else None) == kind


@pytest.mark.parametrize(("file", "owner"), [("lora.yml", "axolotl"), ("qlora.yaml", "axolotl"),
                                             ("data/dataset_info.json", "llama-factory"), ("info", "llama-factory")])
def test_a_mapping_file_is_one_trainers(file: str, owner: str) -> None:
    assert [t.name for t in TRAINERS.values() if t.reads_mapping(file)] == [owner]
    assert mapping_owner(file).name == owner


def test_the_options_some_trainers_take_are_each_taken_by_one_at_least() -> None:
    """An option the registry refuses for the other trainers is one some trainer takes (else it
    would be refused for all), and a trainer takes only options the registry knows."""
    taken = {option for t in TRAINERS.values() for option in t.plan_options}
    assert taken == set(refusals())

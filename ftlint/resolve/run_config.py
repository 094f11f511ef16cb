"""A run config's values into the frozen options, where the user gave none: a flag (or a
keyword of the API, or a key of ftlint.toml) always wins. What is applied is said with its
source (PlanOptions.sources), and what the config says that ftlint does not model, once
(RunOptions.run_notes)."""

from __future__ import annotations

import dataclasses

from ..checked import OptionError
from ..errors import UsageError
from ..options import PlanOptions, RunOptions
from ..redact import redact
from ..trainers.configs.base import DatasetRef, RunConfig, RunConfigError

# what the reference batch needs to turn a learning rate into a figure (PlanOptions: both or neither)
PAIRED = {"learning_rate": "reference_batch_size"}


def configured(run: RunOptions, plan: PlanOptions | None, given: dict[str, str]) -> tuple[RunOptions, PlanOptions | None]:
    """The options with the values of the run config `run.run` names (read as its trainer reads
    it: ftlint/trainers/configs/) where `given` gives none; a config that cannot be used is a
    UsageError, one line."""
    from ..chat import CHAT_TEMPLATES
    from ..names import named
    from ..trainers.configs import read_run

    assert run.run is not None
    try:
        config = read_run(run.run, limit=run.limits.max_file_bytes, templates=frozenset(CHAT_TEMPLATES), models=named,
                          versions=(run.trainer_version, run.transformers_version))
        return applied(config, run, plan, given)
    except RunConfigError as exc:
        raise UsageError(str(exc)) from None


def applied(config: RunConfig, run: RunOptions, plan: PlanOptions | None, given: dict[str, str]) -> tuple[RunOptions, PlanOptions | None]:
    """`run` and `plan` with the config's values for the options not in `given` (an option's
    name -> where the user gave it: "--epochs", "epochs = 3 in ftlint.toml")."""
    _bounded(config)
    values: dict[str, object] = {k: s.value for k, s in config.run.items() if k not in given and hasattr(run, k)}
    if "trainer" not in given:
        values["trainer"] = config.trainer
        values["trainer_source"] = redact(f"from {config.name} ({'an' if config.kind[0] in 'aeiou' else 'a'} {config.kind} run config)")
    paths = run.paths or _paths(config)
    values["paths"] = paths
    if "mapping" not in given and run.mapping is None:
        from ..trainers import named

        mapping = named(config.trainer).config_mapping(config, paths)
        if mapping is not None:
            values["mapping"] = mapping
    if "validation" not in given and run.validation is None and config.validation is not None:
        values["validation"] = _local(config, config.validation, "validation")
    if plan is None and "max_seq_len" in given:
        values.pop("max_seq_len", None)
    if "max_seq_len" in values and "max_seq_len" in config.run:
        values["max_seq_len_source"] = redact(config.run["max_seq_len"].source)
    if "model_name" in values and "model_name" in config.run:  # its findings are on the config, said by its key
        values["model_source"], values["model_file"] = redact(config.run["model_name"].source), config.path
    # the config's values are quoted in notes and sources ("base_model NAME: not in ftlint's
    # catalog"): masked here, where all of them pass, for every output that shows them
    notes = tuple(redact(n) for n in (*config.notes, *(f"{u} (not set in {config.name})" for u in config.unset)))
    new_run = dataclasses.replace(run, **values, run=config.path, run_notes=notes, run_findings=config.findings,  # type: ignore[arg-type]
                                  trainer_keys=tuple(config.keys.items()))
    if plan is None:
        return new_run, None
    chosen: dict[str, object] = {}
    sources = dict(plan.sources)
    sources.update({k: v for k, v in given.items() if hasattr(plan, k)})
    for name, setting in config.plan.items():
        if name in given:
            continue
        sources[name] = redact(setting.source)
        paired = PAIRED.get(name)
        if paired is None or getattr(plan, paired) is not None:
            chosen[name] = setting.value
    if "warmup_steps" in given or "warmup_ratio" in given:  # one of them, the user's, and not both
        chosen.pop("warmup_ratio", None), chosen.pop("warmup_steps", None)
    if "max_seq_len" in given:
        chosen.pop("max_seq_len", None)
    elif "max_seq_len" in values:
        chosen["max_seq_len"] = values["max_seq_len"]
    return new_run, dataclasses.replace(plan, **chosen, sources=tuple(sources.items()))  # type: ignore[arg-type]


def _bounded(config: RunConfig) -> None:
    """Each value the config sets, held to its option's rule (its maximum: ftlint/maxima.py), and
    refused naming the config's own key: a pull request's job JSON cannot ask for 10^8 epochs."""
    for table, rules in ((config.run, RunOptions.RULES), (config.plan, PlanOptions.RULES)):
        for name, setting in table.items():
            rule = rules.get(name)
            if rule is None:
                continue
            try:
                rule(setting.value)
            except OptionError as exc:
                raise RunConfigError(f"{config.path}: {setting.key}: {exc.reason} (the bounds of --{name.replace('_', '-')})") from None


def _paths(config: RunConfig) -> tuple[str, ...]:
    """The training files the config names, when the command names none."""
    if not config.datasets:
        raise RunConfigError(f"--run {config.path}: names no dataset; give the training files as PATH")
    return tuple(_local(config, d, "dataset") for d in config.datasets)


def _local(config: RunConfig, ref: DatasetRef, what: str) -> str:
    if ref.local is None:
        raise RunConfigError(f"--run {config.path}: {what} {ref.path!r} is not a file in the working directory or the "
                             "config's folder (a Hub dataset?): download it and give it as PATH")
    return _from_here(ref.local)


def _from_here(resolved: str) -> str:
    """A resolved path as findings name it: relative to the working directory below it."""
    import os

    here = os.getcwd()
    return os.path.relpath(resolved, here) if resolved.startswith(here.rstrip(os.sep) + os.sep) else resolved

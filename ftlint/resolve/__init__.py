"""A run resolved once: the options of `check`, `estimate`, `plan` and `diff` (ftlint/options.py,
with a run config's values applied: run_config.py) made into the one value every later layer
reads. The model the run names, its trainer and why, its tokenizer, chat template, mapping, max
length (and where it comes from), what the trainer does past it, and the judging settings the
engine runs with: each decided here, in this order, once; nothing below resolves them again.

    cli / api (typed options) -> resolve_run(options) -> Run -> app.analyse_data(run) -> engine
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ..engine import Settings
from ..errors import UsageError
from ..models import Model, today_from
from ..options import Loss, RunOptions
from ..tokenizing import TemplatePath, family
from ..trainers.base import Reading
from .settings import (
    end_of_text,
    loss_for,
    mapping_of,
    refused_options,
    resolve_model,
    swapped_template,
    template_file,
    template_for,
    tokenizer_for,
    tokenizer_refusal,
    trainer_of,
)

if TYPE_CHECKING:
    from ..mapping import Mapping
    from ..trainers import Trainer


@dataclass(frozen=True)
class Run:
    """A run's options and what they resolve to."""

    options: RunOptions  # as given (flags, configuration, a run config's values)
    model: Model | None  # the model named (None: none was; the data's format's provider's default applies later)
    trainer: Trainer | None  # named, or implied by the mapping or the model (None: the format's may imply one later)
    trainer_source: str  # why it is the run's
    settings: Settings  # what the engine judges with: tokenizer, template, limits, mapping, loss
    today: dt.date  # model lifecycles (and dated templates) as of this day

    @property
    def loss(self) -> Loss:
        """What the trainer trains, where it cuts (the run's one max length, and its source) and what it does past it."""
        return self.settings.loss

    @property
    def mapping(self) -> Mapping | None:
        return self.settings.mapping


def resolve_run(options: RunOptions) -> Run:
    """The run the options make. A model, trainer, tokenizer, template or mapping that cannot be
    had is a UsageError (exit 2), raised here before any file is read."""
    from ..trainers.profile import TARGETS

    model = resolve_model(options.model_name, options.model_source)
    try:
        today = today_from(options.today)
    except ValueError:
        raise UsageError(f"--today {options.today}: not a date (YYYY-MM-DD)") from None
    if options.format_name != "auto":
        from ..formats.registry import FORMATS

        if options.format_name not in FORMATS:
            raise UsageError(f"format: {options.format_name!r} is not a format; `ftlint formats` lists them")
    trainer, why = trainer_of(options, model)
    refused_options(options, trainer)
    template = template_for(options, model, trainer)
    mapping = mapping_of(options)
    template_read = template_file(options, template, model) if isinstance(template, TemplatePath) else None
    if options.rows_per_file is not None and options.engine == "ray":
        raise UsageError(f"{options.run or 'the run'}: a trainer that reads the first {options.rows_per_file:,} rows of each "
                         "file (max_samples) is not run on Ray, whose workers read byte ranges: use --engine local")
    if trainer is not None:  # a template the trainer swaps for one of its own (TRL's training templates)
        versions = trainer.versions(options.trainer_version, options.transformers_version)
        template, template_read = swapped_template(trainer, template, template_read, options.assistant_only_loss, versions)
    if options.assistant_only_loss and template == "openai":
        raise UsageError("--assistant-only-loss needs the model's chat template: name a self-hosted model with --model, "
                         "or give --chat-template FILE")
    encoding = tokenizer_for(options, model)
    reading = Reading()
    if trainer:
        from ..chat import TEXT_BOS  # imported here: a plain check never loads the chat package (the hook's case)

        reading = trainer.reading(dict(options.trainer_keys), end_of_text(model, template, template_read, encoding),
                                  TEXT_BOS.get(family(encoding), ""))
    settings = Settings(
        encoding=encoding, model_name=model.name if model else "", template=template,
        model_limit=int(model.context.value) if model and model.context else None, context=options.context,
        today=today.isoformat(), format_name=mapping.formatting if mapping else options.format_name, limits=options.limits,
        selection=options.selection, training=not options.dataset,  # a dataset's minimum is its training set's (engine/phases.py)
        content_fingerprints=options.dataset_rules or options.prompt_fingerprints or bool(options.validation_files),
        prompt_fingerprints=options.prompt_fingerprints, labels=options.labels,
        loss=loss_for(options, trainer, mapping), bound_tokens=options.bound_tokens,
        mapping=mapping, keep_order=options.keep_order, template_file=template_read, template_budget=options.template_budget,
        trainer=trainer.name if trainer else "", trainer_formats=trainer.profile.format_names if trainer else (),
        control_tokens=bool(trainer.profile.control_tokens.value) if trainer else True,
        trains_targets=trainer is not None and trainer.profile.loss.value == TARGETS, reading=reading,
        trainer_keys=options.trainer_keys, rows_per_file=options.rows_per_file,
    )
    tokenizer_refusal(settings, options.run or options.mapping or "the run")
    return Run(options, model, trainer, why, settings, today)


__all__ = ["Run", "resolve_run"]

"""The judging settings a run's options make: the model it names, its tokenizer (checked here,
in the main process, before any worker starts), its chat template (a user's read and compiled
once), its limit, the mapping, the loss. The use cases (app.py) and the API build Settings here.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .engine import Settings
from .errors import UsageError
from .models import ESTIMATED_TOKENIZERS, Model, today_from
from .names import resolve
from .options import Loss, RunOptions

if TYPE_CHECKING:
    from .chat.source import TemplateFile
    from .mapping import Mapping
    from .trainers import Profile


def tokenizer_for(run: RunOptions, model: Model | None) -> str:
    """The tokenizer the counts use: --tokenizer (a family or a file), the named model's (from this
    package, an installed one, or the model's snapshot in the local Hugging Face cache), or
    o200k_base (an estimate) for a model whose tokenizer is not public."""
    from .tokens import FAMILIES, missing

    if run.tokenizer:
        if run.tokenizer in FAMILIES:
            return run.tokenizer
        import os

        return _checked("path:" + os.path.abspath(run.tokenizer), run, None)
    if model is None:
        return "o200k_base"
    reason = missing(model.encoding)
    if reason is None:
        return model.encoding
    from .tokens.files import hf_cache_snapshot

    snapshot = hf_cache_snapshot(model.name)
    if snapshot is not None:
        return _checked(f"path:{snapshot}", run, model)
    raise UsageError(f"--model {model.name}: {reason}")


def _checked(name: str, run: RunOptions, model: Model | None) -> str:
    """A tokenizer file, loaded and checked here, in the main process before any worker starts
    (they share it, or load the same): a bad one is one line and exit 2, not a worker's failure."""
    from .tokens import TokenizerError, token_length

    try:
        token_length(name, run.limits.max_file_bytes)  # the encoding, and its probes (tiktoken could panic on them)
    except TokenizerError as exc:
        message = str(exc)
        if model is not None:  # the user named the model, not the file
            message = f"--model {model.name}: its tokenizer in the Hugging Face cache, {message.removeprefix('--tokenizer ')}"
        raise UsageError(message) from None
    return name


def template_for(run: RunOptions, model: Model | None, trainer: Profile | None = None) -> str:
    """How a record becomes tokens: --chat-template, mistral-common for a Tekken model that
    mistral-finetune trains (its renderer: ftlint/chat/mistral_common.py), the named model's
    template family, or ftlint's token convention ("openai")."""
    if run.chat_template:
        import os

        return "file:" + os.path.abspath(run.chat_template)
    if model is not None and model.template not in ("openai",) and model.tokenizer not in ESTIMATED_TOKENIZERS:
        from .chat import CHAT_TEMPLATES, MISTRAL_COMMON

        if trainer is not None and trainer.renderer.value == MISTRAL_COMMON and model.encoding == "mistral-tekken":
            return MISTRAL_COMMON

        if model.template in CHAT_TEMPLATES:
            return model.template
    return "openai"


def settings_for(run: RunOptions, model: Model | None, training: bool = True) -> Settings:
    """Judging settings: a named model's tokenizer, template and limit, or (none named) o200k_base
    and each format's provider's default model's limit."""
    from .trainers.profile import TARGETS

    if run.format_name != "auto":
        from .formats.registry import FORMATS

        if run.format_name not in FORMATS:
            raise UsageError(f"format: {run.format_name!r} is not a format; `ftlint formats` lists them")
    trainer, _ = trainer_of(run, model)
    template = template_for(run, model, trainer)
    mapping = None
    if run.mapping is not None:
        from .mapping import MappingError, load_mapping

        try:
            mapping = load_mapping(run.mapping, run.paths, run.limits.max_file_bytes)
        except MappingError as exc:
            raise UsageError(str(exc)) from None
        if run.format_name not in ("auto", mapping.formatting):
            raise UsageError(f"--mapping {run.mapping} reads the data as {mapping.formatting}, not as --format {run.format_name}")
    template_file = _template_file(run, template, model) if template.startswith("file:") else None
    if run.assistant_only_loss and template == "openai":
        raise UsageError("--assistant-only-loss needs the model's chat template: name a self-hosted model with --model, "
                         "or give --chat-template FILE")
    return Settings(
        encoding=tokenizer_for(run, model), model_name=model.name if model else "", template=template,
        model_limit=int(model.context.value) if model and model.context else None, context=run.context,
        today=today_from(run.today).isoformat(),
        format_name=mapping.formatting if mapping else run.format_name, limits=run.limits, selection=run.selection, training=training,
        content_fingerprints=run.dataset_rules or run.prompt_fingerprints or bool(run.validation_files),
        prompt_fingerprints=run.prompt_fingerprints, labels=run.labels,
        loss=loss_for(run, trainer, mapping), bound_tokens=run.bound_tokens,
        mapping=mapping, keep_order=run.keep_order, template_file=template_file, template_budget=run.template_budget,
        trainer=trainer.name if trainer else "", trainer_formats=trainer.format_names if trainer else (),
        control_tokens=bool(trainer.control_tokens.value) if trainer else True,
        trains_targets=trainer is not None and trainer.loss.value == TARGETS,
    )


def loss_for(run: RunOptions, trainer: Profile | None, mapping: Mapping | None = None) -> Loss:
    """What the run's trainer trains, and where it cuts: --max-seq-len (or the run config's), else
    the one the --mapping file sets (axolotl's sequence_len), else the trainer's own default max
    length (TRL 1,024, axolotl 512, LLaMA-Factory 2,048), else none (a hosted job cuts at the
    model's limit, which the judge knows per format); with what it does past it."""
    from .trainers.profile import TRUNCATE

    past = str(trainer.past_max.value) if trainer is not None else TRUNCATE
    length, source = run.max_seq_len, run.max_seq_len_source or "--max-seq-len"
    if length is None and mapping is not None and mapping.max_length is not None:
        length, source = mapping.max_length
    if length is None and trainer is not None and isinstance(trainer.max_length.value, int):
        length, source = trainer.max_length.value, f"{trainer.name}'s default ({trainer.max_length.source})"
    return Loss(run.assistant_only_loss, run.completion_only_loss, length, past, source)


def trainer_of(run: RunOptions, model: Model | None) -> tuple[Profile | None, str]:
    """The trainer a run names (--trainer), or the one its named model's provider implies (a
    Hugging Face model: TRL; a Together model: Together's job), and why; (None, "") when neither
    names one (the file's format's provider may, once it is known: app.analyse_data)."""
    from .trainers import UnknownTrainer, chosen

    if run.trainer is None and run.mapping is not None:  # a trainer's own mapping names its trainer
        from .mapping import split_spec
        from .trainers import named

        file = split_spec(run.mapping)[0]
        return named("axolotl" if file.endswith((".yml", ".yaml")) else "llama-factory"), f"implied by --mapping {file}"
    try:
        profile, why = chosen(run.trainer, model.provider if model is not None else None)
    except UnknownTrainer as exc:
        raise UsageError(f"--trainer: {exc}") from None
    if profile is not None and run.trainer is None and model is not None:
        why = f"implied by --model {model.name}"
    elif profile is not None and run.trainer is not None and run.trainer_source:
        why = run.trainer_source
    return profile, why


def _template_file(run: RunOptions, template: str, model: Model | None) -> TemplateFile:
    """A user's template, read once (the workers get its text) and compiled once here: one that
    cannot be read or compiled is one line, exit 2. Without added tokens of its own (a bare .jinja
    file), the named model's template family's are the ones its text is cut at."""
    from .chat.render import JinjaTemplate, TemplateFailure
    from .chat.source import read_template
    from .trust import Refused

    try:
        found = read_template(template.removeprefix("file:"), run.limits.max_file_bytes)
        JinjaTemplate(found.source, budget=run.template_budget)
    except (TemplateFailure, Refused) as exc:
        message = str(exc)
        raise UsageError(message if message.startswith("--chat-template") else f"--chat-template {run.chat_template}: {message}") from None
    if model is not None and tokenizer_for(run, model) == model.tokenizer:
        import dataclasses

        found = dataclasses.replace(found, tokens_of=model.template)
    return found


def settings_of(run: RunOptions, training: bool = True) -> Settings:
    """Judging settings for a run, with the model it names."""
    return settings_for(run, resolve_model(run.model_name, run.model_source), training)


def resolve_model(name: str | None, source: str = "") -> Model | None:
    """The model a run names (names.resolve); a run config's name (`source`) that ftlint does
    not know is counted as an estimate that says so, a flag's is an error."""
    from .models import UnknownModel

    if name is None:
        return None
    try:
        return resolve(name, lenient=bool(source))
    except UnknownModel as exc:
        raise UsageError(str(exc)) from None

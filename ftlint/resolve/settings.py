"""The parts of a run resolved from its options (ftlint/resolve/__init__.py makes them one value, once):
the model it names, its trainer, its tokenizer (checked here, in the main process, before any
worker starts), its chat template (a user's read and compiled once), the mapping, the loss.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..errors import UsageError
from ..models import ESTIMATED_TOKENIZERS, Model
from ..names import resolve
from ..options import Loss, RunOptions
from ..tokenizing import Encoding, Template, TemplatePath, TokenizerPath, family

if TYPE_CHECKING:
    from ..chat.source import TemplateFile
    from ..engine import Settings
    from ..mapping import Mapping
    from ..trainers import Trainer
    from ..trainers.versions import Versions


def tokenizer_for(run: RunOptions, model: Model | None) -> Encoding:
    """The tokenizer the counts use: --tokenizer (a family or a file), the named model's (from this
    package, an installed one, or the model's snapshot in the local Hugging Face cache), or
    o200k_base (an estimate) for a model whose tokenizer is not public."""
    from ..tokens import FAMILIES, missing

    if run.tokenizer:
        if run.tokenizer in FAMILIES:
            return run.tokenizer
        import os

        return _checked(TokenizerPath(os.path.abspath(run.tokenizer)), run, None)
    if model is None:
        return "o200k_base"
    reason = missing(model.encoding)
    if reason is None:
        return model.encoding
    from ..tokens.files import hf_cache_snapshot

    snapshot = hf_cache_snapshot(model.name)
    if snapshot is not None:
        return _checked(TokenizerPath(str(snapshot)), run, model)
    raise UsageError(f"--model {model.name}: {reason}")


def _checked(name: TokenizerPath, run: RunOptions, model: Model | None) -> TokenizerPath:
    """A tokenizer file, loaded and checked here, in the main process before any worker starts
    (they share it, or load the same): a bad one is one line and exit 2, not a worker's failure."""
    from ..tokens import TokenizerError, token_length

    try:
        token_length(name, run.limits.max_file_bytes)  # the encoding, and its probes (tiktoken could panic on them)
    except TokenizerError as exc:
        message = str(exc)
        if model is not None:  # the user named the model, not the file
            message = f"--model {model.name}: its tokenizer in the Hugging Face cache, {message.removeprefix('--tokenizer ')}"
        raise UsageError(message) from None
    return name


def template_for(run: RunOptions, model: Model | None, trainer: Trainer | None = None) -> Template:
    """How a record becomes tokens: --chat-template, a renderer of the trainer's own for the model
    (mistral-finetune's mistral-common for a Tekken model), the named model's template family, or
    ftlint's token convention ("openai")."""
    if run.chat_template:
        import os

        return TemplatePath(os.path.abspath(run.chat_template))
    if run.template_name and trainer is not None:  # the trainer's own name for a template (unsloth's get_chat_template)
        try:
            named = trainer.named_template(run.template_name)
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if named.endswith(".jinja"):
            from importlib import resources

            return TemplatePath(str(resources.files("ftlint").joinpath("chat", "templates", named)))
        return named
    if model is not None and model.template not in ("openai",) and model.tokenizer not in ESTIMATED_TOKENIZERS:
        from ..chat import CHAT_TEMPLATES

        own = trainer.template(model) if trainer is not None else None
        if own is not None:
            return own
        if model.template in CHAT_TEMPLATES:
            return model.template
    return "openai"


def loss_for(run: RunOptions, trainer: Trainer | None, mapping: Mapping | None = None) -> Loss:
    """What the run's trainer trains, and where it cuts: --max-seq-len (or the run config's), else
    the one the --mapping file sets (a config's own), else the trainer's own default max
    length (its profile's), else none (a hosted job cuts at the model's limit, which the judge
    knows per format); with what it does past it."""
    from ..trainers.cut import KEEP_START

    question, answer = (unescaped(part) if part else "" for part in (run.instruction_part, run.response_part))
    if bool(question) != bool(answer):
        raise UsageError("give --instruction-part and --response-part together (train_on_responses_only takes both)")
    if trainer is None:
        past = KEEP_START.name
    else:
        keys = {**dict(run.trainer_keys), **({"response_part": answer} if answer else {})}
        past = trainer.cut_for(keys, run.keep_order, trainer.versions(run.trainer_version, run.transformers_version)).name
    length, source = run.max_seq_len, run.max_seq_len_source or "--max-seq-len"
    if length is None and mapping is not None and mapping.max_length is not None:
        length, source = mapping.max_length
    default = trainer.profile.max_length if trainer is not None else None
    if length is None and default is not None and isinstance(default.value, int):
        length, source = default.value, f"{trainer.name}'s default ({default.source})"  # type: ignore[union-attr]
    loss_keys = mapping.loss if mapping else ()
    mask = trainer.name if trainer is not None and trainer.masker(loss_keys) is not None else ""
    return Loss(run.assistant_only_loss, run.completion_only_loss, length, past, source, question, answer, mask, loss_keys)


def unescaped(text: str) -> str:
    """A part as Python source writes it ('<|im_start|>user\\n'): \\n, \\t, \\r and \\\\ read as the
    characters they stand for; nothing else changes."""
    import re

    return re.sub(r"\\([ntr\\])", lambda m: {"n": "\n", "t": "\t", "r": "\r", "\\": "\\"}[m.group(1)], text)


def refused_options(run: RunOptions, trainer: Trainer | None) -> None:
    """The judging options only some trainers take (Trainer.run_options): given for another, one line."""
    from ..trainers import option_refusal

    for name in ("template_name", "instruction_part", "response_part"):
        if getattr(run, name) is not None and (trainer is None or name not in trainer.run_options):
            raise UsageError(option_refusal(name))


def swapped_template(trainer: Trainer, template: Template, read: TemplateFile | None,
                     assistant_only: bool, versions: Versions) -> tuple[Template, TemplateFile | None]:
    """The template the trainer renders with: its own in place of one it swaps (a --chat-template
    whose text is one of ftlint's templates byte for byte is that template, as the trainer compares
    texts), else the one chosen."""
    from ..chat import CHAT_TEMPLATES, template_text

    named = template if isinstance(template, str) else ""
    if read is not None:
        named = next((name for name, t in CHAT_TEMPLATES.items() if t.source.endswith(".jinja") and template_text(name) == read.source), "")
    swapped = trainer.training_template(named, assistant_only, versions) if named else None
    return (swapped, None) if swapped is not None else (template, read)


def end_of_text(model: Model | None, template: Template, read: TemplateFile | None, encoding: Encoding) -> str:
    """The model's end of text (its tokenizer's eos_token): the catalog's where it says, else its
    chat template's end of turn (a tokenizer_config.json's eos_token, else the tokenizer family's)."""
    from ..chat import CHAT_TEMPLATES, FAMILY_TEMPLATE_DEFAULTS

    if model is not None and model.eos is not None:
        return str(model.eos.value)
    if read is not None and read.eos:
        return read.eos
    if template in CHAT_TEMPLATES:
        return CHAT_TEMPLATES[template].eos
    return FAMILY_TEMPLATE_DEFAULTS.get(family(encoding), ((), "", "", ""))[2]


def trainer_of(run: RunOptions, model: Model | None) -> tuple[Trainer | None, str]:
    """The trainer a run names (--trainer), or the one whose column mapping --mapping is, or the one
    its named model's provider implies (ftlint/trainers `of_provider`), and why; (None, "") when none does (the file's format's provider may, once it is known:
    app.analyse_data)."""
    from ..trainers import UnknownTrainer, chosen

    if run.trainer is None and run.mapping is not None:  # a trainer's own mapping names its trainer
        from ..mapping import split_spec
        from ..trainers import mapping_owner

        file = split_spec(run.mapping)[0]
        return mapping_owner(file), f"implied by --mapping {file}"
    try:
        found, why = chosen(run.trainer, model.provider if model is not None else None)
    except UnknownTrainer as exc:
        raise UsageError(f"--trainer: {exc}") from None
    if found is not None and run.trainer is None and model is not None:
        why = f"implied by --model {model.name}"
    elif found is not None and run.trainer is not None and run.trainer_source:
        why = run.trainer_source
    return found, why


def mapping_of(run: RunOptions) -> Mapping | None:
    """--mapping FILE[:NAME], read by the trainer whose mapping FILE is."""
    if run.mapping is None:
        return None
    from ..mapping import MappingError, split_spec
    from ..trainers import mapping_owner

    file, name = split_spec(run.mapping)
    try:
        found = mapping_owner(file).mapping(file, name, run.paths, run.limits.max_file_bytes)
    except MappingError as exc:
        raise UsageError(str(exc)) from None
    if run.format_name not in ("auto", found.formatting):
        raise UsageError(f"--mapping {run.mapping} reads the data as {found.formatting}, not as --format {run.format_name}")
    return found


def template_file(run: RunOptions, template: TemplatePath, model: Model | None) -> TemplateFile:
    """A user's template, read once (the workers get its text) and compiled once here: one that
    cannot be read or compiled is one line, exit 2. Without added tokens of its own (a bare .jinja
    file), the named model's template family's are the ones its text is cut at."""
    from ..chat.render import JinjaTemplate, TemplateFailure
    from ..chat.source import read_template
    from ..trust import Refused

    try:
        found = read_template(template.path, run.limits.max_file_bytes)
        JinjaTemplate(found.source, budget=run.template_budget)
    except (TemplateFailure, Refused) as exc:
        message = str(exc)
        raise UsageError(message if message.startswith("--chat-template") else f"--chat-template {run.chat_template}: {message}") from None
    if model is not None and tokenizer_for(run, model) == model.tokenizer:
        import dataclasses

        found = dataclasses.replace(found, tokens_of=model.template)
    return found


def resolve_model(name: str | None, source: str = "") -> Model | None:
    """The model a run names (names.resolve); a run config's name (`source`) that ftlint does
    not know is counted as an estimate that says so, a flag's is an error."""
    from ..models import UnknownModel

    if name is None:
        return None
    try:
        return resolve(name, lenient=bool(source))
    except UnknownModel as exc:
        raise UsageError(str(exc)) from None


def tokenizer_refusal(settings: Settings, config: str) -> None:
    """A run its trainer stops as it loads the model's tokenizer (its loss mask's refusal: axolotl's
    load_tokenizer), a UsageError raised before any file is read; `config`: the file that says it.
    The tokenizer is loaded here only when the mask has something to ask of it."""
    if not settings.loss.mask:  # no trainer's own mask: a plain check never loads the chat package (the hook's case)
        return
    import datetime as dt

    from ..chat.tally import Tally
    from ..tokens import TokenCounter
    from ..trainers import masker as masker_of

    masker = masker_of(settings.loss.mask, settings.loss.keys)
    if masker is None or not masker.asks_tokenizer:
        return
    counter = TokenCounter(settings.encoding, settings.limits.max_file_bytes)
    count = counter.count
    if settings.template != "openai":  # the model's own added tokens, each one token (the mask's own tokens left out)
        count = Tally(settings.template, counter, dt.date.fromisoformat(settings.today), settings.loss,
                      settings.template_budget, settings.template_file).count
    why = masker.refusal(count)
    if why is not None:
        raise UsageError(f"{config}: {why}")

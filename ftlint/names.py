"""Names the catalog does not hold that mean one of its models' family without a doubt about the
vocabulary (issue 34, item 11): the names users and run configs give a self-hosted model.

  a copy        unsloth/Qwen2.5-7B-Instruct-bnb-4bit, NousResearch/Meta-Llama-3-8B-Instruct: an
                organisation that uploads others' models, the original's name (Hub names are case
                blind; 4-bit suffixes taken off, Meta's old "Meta-Llama-3.1-" names and Unsloth's
                "llama-3-" for "Meta-Llama-3-" read as the catalog's). The
                tokenizer files are the original's; the chat template is the one of the day of the
                copy, which may not be the original's today (Meta's first Llama 3 template wrote the
                assistant header after every conversation): counted with the original's, as an
                estimate that says so.
  a base model  Qwen/Qwen2.5-0.5B, meta-llama/Llama-3.1-8B, Qwen/Qwen3-0.6B-Base,
                mistralai/Mistral-7B-v0.3, google/gemma-3-1b-pt: the instruct model's vocabulary
                (one tokenizer for a family's base and instruct models: meta-llama/llama3
                llama/tokenizer.py), not its template (Llama 3.2's base models carry none:
                sgl-project/sglang#3385; Qwen 2.5's another default system prompt:
                hiyouga/LlamaFactory#10772), so conversations are counted by OpenAI's per-message
                convention over the vocabulary, an estimate that says which template to give.

Anything else is not resolved: a flag's name is an error naming the catalog's close names, a run
config's is counted as an estimate that says so (`resolve`). A run config's name may also be a
model folder, which the trainer loads before any Hub id: read as its tokenizer and chat template
(`named`).
"""

from __future__ import annotations

import dataclasses
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from .models import UNKNOWN, Model, Sourced, UnknownModel, all_models, get_model

COPIERS = {"unsloth": "Unsloth", "nousresearch": "Nous Research"}  # lower-cased organisation -> who
_QUANTISED = re.compile(r"-(?:unsloth-)?bnb-4bit$", re.I)
_RENAMED = re.compile(r"^meta-llama-3\.1-", re.I)  # Meta's 3.1 repositories were renamed Llama-3.1-...
_COPY_SOURCE = "ftlint's name rule (ftlint/names.py): a copy keeps the original's tokenizer files"
_BASE_SOURCE = ("meta-llama/llama3 llama/tokenizer.py (one tokenizer for the family); sgl-project/sglang#3385 (Llama 3.2's base "
                "models: no chat_template); hiyouga/LlamaFactory#10772 (Qwen 2.5's base models: another default system prompt)")


def resolve(name: str, lenient: bool = False) -> Model:
    """The model a name means: the catalog's entry (models.get_model), else one of its family by a
    name rule (`by_rule`), else, when `lenient` (a run config's name: the run is said to be an
    estimate), a model ftlint does not know (`unknown`); UnknownModel otherwise."""
    try:
        return get_model(name)
    except UnknownModel as exc:
        found = by_rule(name)
        if found is not None:
            return found
        if lenient:
            return unknown(name)
        raise UnknownModel(f"{exc}; a model the catalog lacks is counted exactly from its folder: --tokenizer DIR "
                           "--chat-template DIR") from None


def unknown(name: str) -> Model:
    """A model no catalog entry and no name rule knows: counted with o200k_base, an estimate
    that the figures say, and that fails a gate on the counts (rules/gates.py)."""
    return Model(name=name, provider="hf", tokenizer=UNKNOWN, template="openai", context=None, price=None, min_examples=None)


@dataclass(frozen=True, slots=True)
class Named:
    """What a run config's model key means to the counts."""

    model: str = ""  # the name --model would take (`resolve(model, lenient=True)` gives the model back)
    folder: str = ""  # a model folder: the run's --tokenizer ...
    template: bool = False  # ... and --chat-template, when it has one
    note: str = ""  # what the figures cannot take from it


def named(base: Path, key: str, name: str, folders: bool = True) -> Named:
    """A run config's model key: a model folder inside the config's folder (`base`), read as the
    trainer reads it (`folders`), else a name (`resolve`)."""
    from .chat.source import holds_template
    from .tokens.files import find_in
    from .tokens.folder import model_folder
    from .trust import inside

    folder = model_folder(base, name) if folders else None
    unread = ""
    if folder is not None and not inside(folder, base):
        unread = (f"{key} {name}: a folder outside {base.resolve()}, not read (a run config names files inside its own "
                   "folder): give it as --tokenizer DIR --chat-template DIR; ")
    elif folder is not None and find_in(folder) is None:
        unread = f"{key} {name}: a folder without a tokenizer file (tokenizer.json, tekken.json, tokenizer.model); "
    elif folder is not None:
        if holds_template(folder):
            return Named(folder=str(folder.resolve()), template=True)
        return Named(folder=str(folder.resolve()), note=f"{key} {name}: the folder has no chat template; conversations are "
                     "counted with OpenAI's per-message convention (give the template the trainer renders with: --chat-template)")
    found = resolve(name, lenient=True)
    if found.tokenizer == UNKNOWN:
        return Named(found.name, note=f"{unread or f'{key} {name}: '}not a model ftlint knows (how its tokens "
                     "are counted is said beside them; give the model's folder: --tokenizer DIR --chat-template DIR, or "
                     "--model NAME of `ftlint models`)")
    return Named(found.name, note=unread.removesuffix("; "))


@cache
def _tails() -> dict[str, Model]:
    """The self-hosted catalog's models by the part of their name after the organisation, lower case."""
    return {m.name.split("/", 1)[1].lower(): m for m in all_models().values() if m.provider == "hf" and m.name.count("/") == 1}


def by_rule(name: str) -> Model | None:
    """The catalog model of `name`'s family by a rule above, as a Model named `name` (None: no rule holds)."""
    if name.count("/") != 1:
        return None
    org, rest = name.split("/")
    copier = COPIERS.get(org.lower())
    if copier:
        rest = _QUANTISED.sub("", rest)
    rest = _RENAMED.sub("llama-3.1-", rest).lower()
    if copier and rest.startswith("llama-3-"):  # Unsloth's Llama 3 copies drop Meta's "Meta-"
        rest = f"meta-{rest}"
    found = _tails().get(rest)
    if found is not None and (copier or _org(found) == org.lower()):
        return _copy(name, found, copier) if copier else found
    instruct = _instruct_of(rest)
    if instruct is not None and (copier or _org(instruct) == org.lower()):
        return _base(name, instruct)
    return None


def _org(model: Model) -> str:
    return model.name.split("/", 1)[0].lower()


def _instruct_of(rest: str) -> Model | None:
    """The instruct model a base model's name goes with (rest: lower case)."""
    tails = _tails()
    for candidate in (f"{rest}-instruct", rest.removesuffix("-base") if rest.endswith("-base") else "",
                      re.sub(r"^(mistral-7b)-(v0\.\d)$", r"\1-instruct-\2", rest), re.sub(r"-pt$", "-it", rest)):
        if candidate and candidate != rest and candidate in tails:
            return tails[candidate]
    return None


def _copy(name: str, original: Model, copier: str) -> Model:
    why = (f"{copier}'s copy of {original.name}: its vocabulary is {original.name}'s; its chat template is counted as "
           f"{original.name}'s, which a copy made earlier may not carry (give the model's folder, --tokenizer DIR "
           "--chat-template DIR, to count it exactly)")
    return dataclasses.replace(original, name=name, aliases=(), template_doubt=f"{why} ({_COPY_SOURCE})")


# a base model's own end of text (its tokenizer_config.json eos_token) where it is not its instruct
# model's end of turn, by vocabulary: what TRL appends to a plain row (trl/trainer/sft_trainer.py add_eos)
BASE_EOS = {"qwen2": Sourced("<|endoftext|>", "huggingface.co/Qwen/Qwen2.5-0.5B tokenizer_config.json eos_token", "2024-09-19", "U")}


def _base(name: str, instruct: Model) -> Model:
    why = (f"a base model: its vocabulary is {instruct.name}'s, not its chat template (a base model's tokenizer carries none or "
           "another), so conversations are counted with OpenAI's per-message convention: give the template the trainer "
           "renders with (--chat-template, or the model's folder with --tokenizer DIR --chat-template DIR)")
    return dataclasses.replace(instruct, name=name, aliases=(), template="openai", status=None, template_doubt=f"{why} ({_BASE_SOURCE})",
                               eos=BASE_EOS.get(instruct.tokenizer, instruct.eos))

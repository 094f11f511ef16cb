"""The renderer of `ftlint formats NAME`: one format in full, with its sources: the catalog's
models that take it, where its schema comes from, and the rules made for it with what their
documentation cites of the format's provider. (The list of formats is report/formats.py: it
needs none of the catalog, the rules or the schemas.)

Which of a rule's citations a format's sheet shows is this report's choice, not a fact of the
registry or of the rules (nothing else reads it), so PROVIDER_SOURCES and CITATION live here."""

from __future__ import annotations

import re

from ..formats import Format
from ..formats.registry import BY_SHAPE
from ..models import all_models, today_from
from ..rules import checks, registry
from ..schemas import load_schema
from .renderer import Renderer

# which of a rule's citations are the format's provider's: those that carry the format's first word
# (its provider's name: openai, together, ...), or, for these, the names its publisher goes by
PROVIDER_SOURCES = {"vertex": "google", "bedrock": "aws|amazon", "azure": "microsoft|azure", "trl": "trl|huggingface"}
# what a rule's doc cites: a web address or a file of a provider's repository or package
CITATION = re.compile(r"\b(?:[a-z0-9-]+\.)+(?:com|ai|dev|org|io)(?:/[\w./#-]*[\w/])?|\b[\w-]+(?:/[\w.-]+)+\.py\b")


def render_sheet(fmt: Format) -> str:
    return "\n".join(_facts(fmt) + _models(fmt) + [f"  schema from {load_schema(fmt.schema).get('description', '')}"]
                     + _rules(fmt)) + "\n"


def _facts(fmt: Format) -> list[str]:
    """What the registry says of the format."""
    detected = ("detected by its shape" if BY_SHAPE.get(fmt.shape) == fmt.name
                else f"give --format {fmt.name} (its shape is detected as {BY_SHAPE.get(fmt.shape)})")
    lines = [f"{fmt.name}: {fmt.title}", f"  providers   {fmt.providers}", f"  record      {fmt.record_rule}",
             "  documented  " + ("yes" if fmt.documented else "no: this is ftlint's conservative reading"),
             f"  minimum     {fmt.min_examples if fmt.min_examples else 'none known'} examples",
             f"  schema      schemas/{fmt.schema}.schema.json", f"  detection   {detected}"]
    if fmt.severities:
        lines.append("  severities  " + ", ".join(f"{code} {level}" for code, level in sorted(fmt.severities.items())))
    if fmt.notes:
        lines.append(f"  notes       {fmt.notes}")
    return lines


def _models(fmt: Format) -> list[str]:
    """The catalog's models that take the format, with their methods and lifecycle today."""
    today = today_from(None)
    lines: list[str] = []
    from ..trainers import TRAINERS

    trainers = [t.profile for t in TRAINERS.values() if t.profile.takes(fmt.name)]
    for model in all_models().values():
        # a format of one trainer's own (mistral-finetune) is for the models that trainer trains
        if fmt.name in model.formats and (not trainers or any(p.trains(model.tokenizer) for p in trainers)):
            state = model.lifecycle(today)
            status = f"  [{state[0]} for training: {state[1].value}]" if state else ""
            methods = f"  ({', '.join(model.methods)})" if model.methods else ""
            lines.append(f"{'  models' if not lines else '':<14}{model.name}{methods}{status}")
    return lines or ["  models      none in the catalog (self-hosted or any model: name yours with --model)"]


def _rules(fmt: Format) -> list[str]:
    """The record rules scoped to the format (or to its family), each with its doc's citations of the format's provider."""
    codes = sorted({code for c in checks("record") if c.scope is not None and c.applies(fmt) for code in c.codes})
    rules = registry()
    provider = fmt.name.split("-")[0]
    mine = re.compile(PROVIDER_SOURCES.get(provider, provider))
    lines = []
    for i, code in enumerate(codes):
        cited = sorted({c for c in CITATION.findall(rules[code].doc) if mine.search(c)})
        where = f" ({'; '.join(cited)})" if cited else ""
        lines.append(f"{'  rules' if i == 0 else '':<14}{code} {rules[code].name}{where}")
    return lines


FORMAT_RENDERERS: dict[str, Renderer[Format]] = {"text": render_sheet}

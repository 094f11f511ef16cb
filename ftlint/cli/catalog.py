"""The catalog's commands: `rules`, `formats`, `models` and `trainers`. Each is a door: it parses its
arguments, asks the registry or the catalog for what to show, picks a renderer and exits.

What a command shows, and its renderers, are imported when it runs: `ftlint --help` pays for none
of them (the rule modules, the catalog, the schemas, these reports)."""

from __future__ import annotations

import click

from . import told
from .errors import UsageFailure
from .options import Option

TEXT = "text"  # the one output of `rules` and `formats`


@click.command()
@click.argument("code", required=False)
def rules(code: str | None) -> None:
    """List every code, or explain one: what it checks, why it matters, an example."""
    from ..report.rules import RULE_RENDERERS, RULES_RENDERERS
    from ..rules import registry

    known = registry()
    if not code:
        click.echo(RULES_RENDERERS[TEXT](known.values()), nl=False)
        return
    rule = known.get(code.upper())
    if rule is None:
        raise UsageFailure(f"unknown code {code!r}; `ftlint rules` lists them")
    click.echo(RULE_RENDERERS[TEXT](rule), nl=False)


@click.command()
@click.argument("name", required=False)
def formats(name: str | None) -> None:
    """List the dataset formats: what a record is, who takes it. With NAME, one in full."""
    from ..formats.registry import FORMATS
    from ..report.formats import FORMATS_RENDERERS

    if not name:
        click.echo(FORMATS_RENDERERS[TEXT](FORMATS.values()), nl=False)
        return
    fmt = FORMATS.get(name)
    if fmt is None:
        raise UsageFailure(f"unknown format {name!r}; `ftlint formats` lists them")
    from ..report.format_sheet import FORMAT_RENDERERS  # the sheet's sources: the catalog, the rules, the schemas

    click.echo(FORMAT_RENDERERS[TEXT](fmt), nl=False)


@click.command()
@click.argument("query", required=False)
@click.option("--provider", cls=Option, told=told.providers)
@click.option("--today", metavar="YYYY-MM-DD", help="Judge lifecycles as of this date (default: today).")
@click.option("-o", "--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def models(query: str | None, provider: str | None, today: str | None, output_format: str) -> None:
    """Models ftlint knows, by provider: tokenizer, per-example limit, training price and its
    unit, lifecycle dates, each with its source. QUERY filters by text (e.g. llama, qwen3); a
    name no model holds is shown as --model reads it, when a name rule resolves it (a copy of a
    catalog model, a base model of an instruct one)."""
    from ..models import Listing, UnknownModel, UnknownProvider, all_models, listing, providers, today_from
    from ..report.models import MODELS_RENDERERS

    try:
        day = today_from(today)
    except ValueError:
        raise UsageFailure(f"--today {today}: not a date (YYYY-MM-DD)") from None
    from ..names import by_rule

    # a whole name the catalog lacks, which a name rule resolves: shown as --model reads it
    found = by_rule(query) if query and provider in (None, "hf") and query not in all_models() else None
    try:
        shown = Listing((found,), providers(), day) if found else listing(query, provider, day)
    except (UnknownProvider, UnknownModel) as exc:
        raise UsageFailure(str(exc)) from None
    click.echo(MODELS_RENDERERS[output_format](shown), nl=False)


@click.command()
@click.argument("name", required=False)
@click.option("-o", "--output-format", type=click.Choice(("text", "json")), default="text", show_default=True)
def trainers(name: str | None, output_format: str) -> None:
    """The trainers ftlint knows: those people run themselves, then the providers' jobs (a line
    each). With NAME, one in full: the formats it takes, its defaults, its loss, its renderer,
    what it does past its max length, each with the trainer's own file and function."""
    from ..report.trainers import TRAINER_RENDERERS, TRAINERS_RENDERERS
    from ..trainers import TRAINERS, UnknownTrainer, named

    if not name:
        click.echo(TRAINERS_RENDERERS[TEXT](t.profile for t in TRAINERS.values()), nl=False)
        return
    try:
        found = named(name)
    except UnknownTrainer as exc:
        raise UsageFailure(str(exc)) from None
    click.echo(TRAINER_RENDERERS[output_format](found.profile), nl=False)


COMMANDS = (rules, formats, models, trainers)

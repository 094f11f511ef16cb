"""Renderers for `ftlint estimate`."""

from __future__ import annotations

from typing import TYPE_CHECKING

import orjson

from .escape import md_code, md_text, path_text, shown_path, terminal_safe
from .shared import github_annotation, sarif_document

if TYPE_CHECKING:
    from ..plan.estimate import Estimate


def _n(value: int) -> str:
    return f"{value:,}"


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def usd(value: float | None) -> str:
    """Dollars as printed everywhere, or "unknown" without a price."""
    return _money(value) if value is not None else "unknown"


def render_text(e: Estimate, paths: list[str]) -> str:
    rows: list[tuple[str, str, str]] = []

    def row(label: str, value: str, how: str = "") -> None:
        rows.append((label, value, how))

    row("lines", _n(e.lines), f"{_n(e.invalid_lines)} with errors, not counted" if e.invalid_lines else "")
    row("format", e.format, terminal_safe(e.format_reason))
    valid = e.lines - e.invalid_lines
    why = e.record_rule if e.records == valid else f"{_n(e.records)} records from {_n(valid)} lines: {e.record_rule}"
    row("records", _n(e.records), why)
    row("messages", _n(e.messages))
    row("targets", _n(e.targets), "spans that carry the loss (assistant turns without weight 0, completions, outputs)")
    limit = f"{_n(e.context_limit)}-token limit" if e.context_limit else "no limit"
    over = f", {_n(e.records_over_limit)} over the {limit} counted at it" if e.records_over_limit else f", none over the {limit}"
    exactness = f"; {e.tokens_note}" if e.tokens_note else ""
    row("tokens per epoch", _n(e.tokens), f"formatting overhead included{over}{exactness}")
    row("trainable tokens", _n(e.trainable_tokens), "in the targets")
    if e.token_stats:
        s = e.token_stats
        row("tokens per record", f"min {_n(int(s['min']))}", f"median {_n(int(s['p50']))}, p90 {_n(int(s['p90']))}, max {_n(int(s['max']))}, mean {s['mean']:,}")
    if e.validation:
        v = e.validation
        leaks = f", {_n(v.records_in_training)} also in training (FT404)" if v.records_in_training else ""
        row("validation", _n(v.records), f"records, {_n(v.tokens)} tokens{leaks}; {v.billing_note}")
    plan: list[tuple[str, str, str]] = []
    rows_data = rows
    rows = plan
    if e.model_assumed:
        if e.model.startswith("("):
            row("model", "none", f"no --model, and {e.provider or 'this format'} has no default open for training: name yours "
                f"with --model (`ftlint models --provider {e.provider or 'NAME'}`)")
        else:
            row("model", "assumed", f"{e.model}: the default of {e.provider} for {e.format}; name yours with --model")
    if e.trainer == "hf":
        row("trainer", "hf", e.trainer_rule)
    row("epochs", _n(e.epochs), e.epochs_source)
    row("batch size", _n(e.batch_size), f"per device; {e.batch_size_source}")
    row("effective batch", _n(e.effective_batch_size), f"= {e.batch_size} batch x {e.grad_accum} grad-accum x {e.gpus} GPU{'s' if e.gpus != 1 else ''}")
    unit = "records"
    if e.packing:
        p = e.packing
        unit = "rows"
        row("packed rows", _n(p.rows), f"{_n(e.records)} records packed into rows of {_n(p.max_seq_len)} tokens "
            f"(perfect packing: {_n(p.lower_bound_rows)}); {p.algorithm}")
    if e.trainer == "hf":
        how = f"from {_n(e.sequences)} {unit}, batches of {e.batch_size} on {e.gpus} device{'s' if e.gpus != 1 else ''}, accumulating {e.grad_accum}"
    else:
        how = f"= {'floor' if e.drop_last else 'ceil'}({_n(e.sequences)} / {e.effective_batch_size})"
    if e.last_batch:
        tail = "dropped each epoch (--drop-last)" if e.drop_last else "a partial last batch"
        how += f": {_n(e.full_batches)} full batches and one of {e.last_batch} ({tail})"
    row("steps per epoch", _n(e.steps_per_epoch), how)
    if e.refusal:
        row("total steps", _n(e.total_steps), e.refusal)
    elif e.max_steps:
        row("total steps", _n(e.total_steps), f"--max-steps: {e.epochs_covered:g} passes over the data")
    elif e.total_steps != e.steps_per_epoch * e.epochs:
        row("total steps", _n(e.total_steps), f"{e.epochs_covered:g} passes of {_n(e.steps_per_epoch)} steps: the trainer's planned steps end the run")
    else:
        row("total steps", _n(e.total_steps), f"= {_n(e.steps_per_epoch)} x {e.epochs} epochs")
    if e.warmup_ratio is not None and not (e.trainer == "hf" and e.warmup_steps and e.warmup_ratio == 0):
        warm = f"= ceil({e.warmup_ratio:g} x {_n(e.total_steps)})" + (" in floating point, as transformers does" if e.trainer == "hf" else "")
    else:
        warm = "--warmup-steps" if e.warmup_steps else "no warmup (--warmup-ratio or --warmup-steps)"
    row("warmup steps", _n(e.warmup_steps), warm)
    row("tokens processed", _n(e.tokens_processed), e.tokens_processed_rule)
    if e.cost_usd is not None and e.price_per_1m is not None:
        row("cost", _money(e.cost_usd), f"= {_n(e.tokens_processed)} x ${e.price_per_1m:g} / 1M tokens ({e.price_source})")
    else:
        row("cost", "n/a", e.price_note)
    if e.self_hosted:
        h = e.self_hosted
        row("wall time", f"{h.wall_hours:,.2f} h", f"= {_n(e.tokens_processed)} tokens / {h.tokens_per_second:g} tokens/s")
        if h.compute_cost_usd is not None and h.gpu_hour_usd is not None:
            row("compute cost", _money(h.compute_cost_usd), f"= {h.wall_hours:.2f} h x {e.gpus} GPU x ${h.gpu_hour_usd:g}/h")
    if e.budget:
        b = e.budget
        what = " and ".join(x for x in (f"${b.usd:g}" if b.usd is not None else "", f"{_n(b.tokens)} tokens" if b.tokens is not None else "") if x)
        if b.max_epochs is None or b.max_steps is None:
            row("budget", what, str(b.note))
        else:
            row("budget", what, f"buys at most {b.max_epochs} epoch(s), {_n(b.max_steps)} steps")
    if e.learning_rate:
        lr = e.learning_rate
        row("learning rate", f"{lr.learning_rate:g}", f"tuned at batch {lr.reference_batch_size}; at {e.effective_batch_size}: {lr.linear:.3g} linear, {lr.sqrt:.3g} square-root scaled")
    width = max(len(label) for label, _, _ in rows_data + plan)
    vwidth = max(len(value) for _, value, _ in rows_data + plan)

    def block(items: list[tuple[str, str, str]]) -> list[str]:
        return [f"  {label:<{width}}  {value:>{vwidth}}  {how}".rstrip() for label, value, how in items]

    model = "no model named" if e.model.startswith("(") else e.model
    lines = [f"dataset: {', '.join(path_text(p) for p in paths)}", *block(rows_data), "",
             f"plan: {model} ({e.encoding}{'' if e.tokens_exact else ', an estimate'})", *block(plan)]
    errors = [d for d in e.findings if d.severity == "error"]
    advice = [d for d in e.findings if d.severity != "error"]
    if errors:
        lines += ["", "errors:"] + [f"  {d.code} {terminal_safe(d.message)}" for d in errors]
    if advice:
        lines += ["", "warnings:"] + [f"  {d.code} {terminal_safe(d.message)}" for d in advice]
    return "\n".join(lines) + "\n"


def render_json(e: Estimate, paths: list[str]) -> str:
    from .escape import json_safe

    data = {"paths": [json_safe(shown_path(p)) for p in paths], **e.to_dict()}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def render_github(e: Estimate, paths: list[str]) -> str:
    """The text report, then one annotation per warning or failed gate, on the dataset's file."""
    path = shown_path(paths[0]) if len(paths) == 1 else None
    notes = [github_annotation(d.severity, d.code, d.message, path) for d in e.findings]
    return render_text(e, paths) + "".join(n + "\n" for n in notes)


def render_sarif(e: Estimate, paths: list[str]) -> str:
    path = shown_path(paths[0]) if len(paths) == 1 else None
    return sarif_document([(d.code, d.severity, d.message, path) for d in e.findings])


def render_markdown(e: Estimate, paths: list[str]) -> str:
    """A pull-request comment: what the data holds and what the run costs."""
    failing = any(d.severity == "error" for d in e.findings)
    cost = _money(e.cost_usd) if e.cost_usd is not None else "n/a (no price)"
    rows = [
        ("lines", _n(e.lines)), ("records", _n(e.records)), ("messages", _n(e.messages)), ("targets", _n(e.targets)),
        ("tokens per epoch", _n(e.tokens)), ("trainable tokens", _n(e.trainable_tokens)),
        ("epochs", f"{e.epochs}"), ("effective batch", _n(e.effective_batch_size)),
        ("steps per epoch", _n(e.steps_per_epoch)), ("total steps", _n(e.total_steps)),
        ("tokens processed", _n(e.tokens_processed)), ("cost", cost),
    ]
    lines = [f"### ftlint estimate {'❌' if failing else '✅'} {md_code(e.model)}: {cost} for {_n(e.tokens_processed)} tokens",
             "", f"Dataset: {', '.join(md_code(shown_path(p)) for p in paths)}", "", "| figure | value |", "|---|---:|"]
    lines += [f"| {label} | {value} |" for label, value in rows]
    if e.findings:
        lines += ["", "| code | severity | finding |", "|---|---|---|"]
        lines += [f"| {d.code} | {d.severity} | {md_text(d.message)} |" for d in e.findings]
    return "\n".join(lines) + "\n"


ESTIMATE_RENDERERS = {"text": render_text, "json": render_json, "github": render_github,
                      "sarif": render_sarif, "markdown": render_markdown}

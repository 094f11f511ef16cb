"""Renderers for `ftlint estimate`: the dataset's figures, the plan's, and the findings."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

import orjson

from ..diagnostics import ERROR, Diagnostic
from .charts import cost_chart, length_chart
from .escape import json_safe, md_code, md_text, path_text, shown_path, terminal_safe
from .past_max import max_length_row, trainable_how
from .renderer import Renderer
from .shared import github_annotation, sarif_document

if TYPE_CHECKING:
    from ..app import EstimateRun
    from ..plan.estimate import Estimate
    from ..plan.groups import BudgetFigures
    from ..trainers.steps import Steps

Row = tuple[str, str, str]  # a figure's label, its value, how it was found


def _n(value: int) -> str:
    return f"{value:,}"


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def named(paths: list[str], shown: Callable[[str], str], most: int = 10) -> str:
    """The dataset's files, the first `most` by name (a repository's dataset may hold thousands)."""
    more = f" and {len(paths) - most:,} more files" if len(paths) > most else ""
    return ", ".join(shown(p) for p in paths[:most]) + more


def usd(value: float | None) -> str:
    """Dollars as printed everywhere, or "unknown" without a price."""
    return _money(value) if value is not None else "unknown"


def render_text(run: EstimateRun) -> str:
    e = run.estimate
    dataset, plan = _dataset_rows(e), [*_model_rows(e), *_step_rows(e), *_cost_rows(e)]
    widths = max(len(label) for label, _, _ in dataset + plan), max(len(value) for _, value, _ in dataset + plan)
    model = "no model of the catalog" if e.run.model_unnamed else e.run.model
    lines = [f"dataset: {named(run.paths, path_text)}", *_block(dataset, widths), "",
             f"plan: {model} ({e.counts.encoding}{'' if e.counts.tokens_exact else ', an estimate'})", *_block(plan, widths)]
    lines += run_block(e)
    lines += findings_block("errors", [d for d in e.findings if d.severity == ERROR])
    lines += findings_block("warnings", [d for d in e.findings if d.severity != ERROR])
    return "\n".join(lines) + "\n"


def _block(rows: list[Row], widths: tuple[int, int]) -> list[str]:
    """Rows aligned on the widths of both blocks, so the dataset's and the plan's line up."""
    width, vwidth = widths
    return [f"  {label:<{width}}  {value:>{vwidth}}  {how}".rstrip() for label, value, how in rows]


def run_block(e: Estimate) -> list[str]:
    """With --run: where each plan figure came from, then what the run config says that the
    figures do not model (each once)."""
    if not e.run.run_config:
        return []
    names = {"epochs": "epochs", "batch_size": "batch size", "grad_accum": "grad accum", "gpus": "GPUs",
             "max_seq_len": "max length", "packing": "packing", "warmup": "warmup", "learning_rate": "learning rate",
             "max_steps": "max steps", "assistant_only_loss": "assistant-only loss", "completion_only_loss": "completion-only loss",
             "model_name": "model", "context": "context", "validation": "validation"}
    rows = [(names.get(k, k), v) for k, v in e.sources.items() if k in names]
    width = max(len(label) for label, _ in rows)
    lines = ["", f"run: {path_text(e.run.run_config)}", *(f"  {label:<{width}}  {terminal_safe(how)}" for label, how in rows)]
    return lines + [f"  note: {terminal_safe(n)}" for n in e.run.run_notes]


def findings_block(title: str, findings: Iterable[Diagnostic]) -> list[str]:
    """`title:` and a finding's code and message a line, after a blank line; nothing without findings."""
    lines = [f"  {d.code} {terminal_safe(d.message)}" for d in findings]
    return ["", f"{title}:", *lines] if lines else []


def _dataset_rows(e: Estimate) -> list[Row]:
    d, c = e.data, e.counts
    valid = d.lines - d.invalid_lines
    why = d.record_rule if d.records == valid else f"{_n(d.records)} records from {_n(valid)} lines: {d.record_rule}"
    if c.context_limit:
        limit = f"{_n(c.context_limit)}-token limit"
        over = f", {_n(c.records_over_limit)} over the {limit} counted at it" if c.records_over_limit else f", none over the {limit}"
    else:
        over = "; no per-example limit known (name the model, or give --context)"
    exactness = f"; {c.tokens_note}" if c.tokens_note else ""
    first = f"at most the first {_n(d.rows_per_file)} rows of each file, as the trainer reads them" if d.rows_per_file else ""
    errors = f"{_n(d.invalid_lines)} with errors, not counted" if d.invalid_lines else ""
    rows = [("lines", _n(d.lines), "; ".join(t for t in (first, errors) if t)),
            ("format", d.format, terminal_safe(d.format_reason)),
            *([("renderer", "trainer's", terminal_safe(e.run.renderer))] if e.run.renderer else []),
            ("records", _n(d.records), why),
            ("messages", _n(d.messages), ""),
            ("targets", _n(d.targets), "spans that carry the loss (assistant turns without weight 0, completions, outputs)"),
            ("tokens per epoch", _n(c.tokens), _ranged(e, "tokens", f"formatting overhead included{over}{exactness}")),
            ("trainable tokens", _n(c.trainable_tokens), _ranged(e, "trainable_tokens", trainable_how(e)))]
    if e.run.prepared:
        rows.append(("trainer's data", "", terminal_safe(e.run.prepared)))
    cut = max_length_row(e)
    if cut is not None:
        rows.append((cut[0], cut[1], _ranged(e, "truncation.records", cut[2])))
    if c.token_stats:
        s = c.token_stats
        rows.append(("tokens per record", f"min {_n(int(s['min']))}",
                     f"median {_n(int(s['p50']))}, p90 {_n(int(s['p90']))}, max {_n(int(s['max']))}, mean {s['mean']:,}"))
    if e.validation:
        v = e.validation
        leaks = f", {_n(v.records_in_training)} also in training (FT404)" if v.records_in_training else ""
        rows.append(("validation", _n(v.records), _ranged(e, "validation.tokens", f"records, {_n(v.tokens)} tokens{leaks}; "
                                                                                   f"{terminal_safe(v.billing_note)}")))
    return rows


def _model_rows(e: Estimate) -> list[Row]:
    """The model, when none was named; the trainer, and why it is the run's."""
    rows: list[Row] = []
    r = e.run
    if r.model_unnamed:
        rows.append(("model", "none", f"no --model, and {r.provider or 'this format'} has no default open for training: name yours "
                     f"with --model (`ftlint models --provider {r.provider or 'NAME'}`)"))
    elif r.model_assumed:
        rows.append(("model", "assumed", f"{r.model}: the default of {r.provider} for {e.data.format}; name yours with --model"))
    if r.trainer:
        rows.append(("trainer", r.trainer, f"{r.trainer_title}: {r.trainer_source}; {r.trainer_rule}"))
    else:
        rows.append(("trainer", "none", "no --trainer, and no model or format implies one: a provider's plain job arithmetic "
                                        "(`ftlint trainers` lists them)"))
    return rows


def _step_rows(e: Estimate) -> list[Row]:
    """Epochs, batches and the steps they make."""
    s = e.schedule
    gpus = f"{s.gpus} GPU{'s' if s.gpus != 1 else ''}"
    rows: list[Row] = [("epochs", _n(s.epochs), s.epochs_source),
                       ("batch size", _n(s.batch_size), f"per device; {s.batch_size_source}"),
                       ("effective batch", _n(s.effective_batch_size), f"= {s.batch_size} batch x {s.grad_accum} grad-accum x {gpus}")]
    if e.run.rows_rule:
        rows.append(("rows", _n(s.sequences), e.run.rows_rule))
    if e.packing:
        p = e.packing
        rows.append(("packed rows", _n(p.rows), _ranged(e, "packing.rows", f"{_n(e.data.records)} records packed into rows of "
                                                        f"{_n(p.max_seq_len)} tokens (perfect packing: {_n(p.lower_bound_rows)}); "
                                                        f"{p.algorithm}")))
    rows += [("steps per epoch", _n(s.steps_per_epoch), _ranged(e, "steps_per_epoch", _steps_per_epoch_how(e))),
             ("total steps", _n(s.total_steps), _ranged(e, "total_steps", _total_steps_how(e))),
             ("warmup steps", _n(s.warmup_steps), _ranged(e, "warmup_steps", s.warmup_rule))]
    return rows


def _ranged(e: Estimate, name: str, how: str) -> str:
    """How a figure was found, and, for one the trainer draws at random, its range."""
    if name not in e.ranges:
        return how
    low, high = e.ranges[name]
    return f"{how}; an estimate, {_n(low)} to {_n(high)}: the trainer draws it at random" if low != high else \
        f"{how}; an estimate: the trainer draws it at random (every one of ftlint's draws gave {_n(low)})"


def _steps(e: Estimate) -> Steps:
    """The run's trainer's step arithmetic, which says how it found its figures (ftlint/trainers/steps.py)."""
    from ..trainers import TRAINERS
    from ..trainers.steps import Hosted

    return TRAINERS[e.run.trainer].steps() if e.run.trainer in TRAINERS else Hosted()


def _steps_per_epoch_how(e: Estimate) -> str:
    s = e.schedule
    unit = "rows" if e.packing or e.run.rows_rule else "records"
    how = s.per_epoch_rule or _steps(e).per_epoch_words(s.sequences, unit, s.batch_size, s.gpus, s.grad_accum, s.drop_last)
    if s.last_batch:
        tail = "dropped each epoch (--drop-last)" if s.drop_last else "a partial last batch"
        how += f": {_n(s.full_batches)} full batch{'es' if s.full_batches != 1 else ''} and one of {s.last_batch} ({tail})"
    return how


def _total_steps_how(e: Estimate) -> str:
    s = e.schedule
    if e.refusal:
        return e.refusal
    if s.max_steps:
        return f"{e.sources.get('max_steps', '--max-steps')}: {s.epochs_covered:g} passes over the data"
    if s.total_steps != s.steps_per_epoch * s.epochs:
        return f"{s.epochs_covered:g} passes of {_n(s.steps_per_epoch)} steps: the trainer's planned steps end the run"
    return f"= {_n(s.steps_per_epoch)} x {s.epochs} epochs"


def _cost_rows(e: Estimate) -> list[Row]:
    """Tokens processed and what they cost: a provider's price, or a self-hosted run's hours; a budget; scaled rates."""
    s, cost = e.schedule, e.cost
    rows: list[Row] = [("tokens processed", _n(s.tokens_processed), s.tokens_processed_rule), *_bill_rows(e)]
    if cost.self_hosted:
        h = cost.self_hosted
        hours = f"{_n(s.tokens_processed)} tokens / {h.tokens_per_second:,.15g} tokens/s / 3,600 s/h"
        rows.append(("wall time", f"{h.wall_hours:,.2f} h", f"= {hours}"))
        if h.compute_cost_usd is not None and h.gpu_hour_usd is not None:
            rows.append(("compute cost", _money(h.compute_cost_usd), f"= {hours} x {s.gpus} GPU x ${h.gpu_hour_usd:g}/h"))
    if cost.budget:
        rows.append(_budget_row(cost.budget))
    if e.learning_rate:
        lr = e.learning_rate
        rows.append(("learning rate", f"{lr.learning_rate:g}", f"tuned at batch {lr.reference_batch_size}; at {s.effective_batch_size}: "
                     f"{lr.linear:.3g} linear, {lr.sqrt:.3g} square-root scaled"))
    return rows


def _bill_rows(e: Estimate) -> list[Row]:
    """The tokens the provider bills, when they differ from those processed, and the cost it bills."""
    b = e.cost.bill
    if b is None or b.rate is None or b.cost_usd is None or b.charge_usd is None:
        return [("cost", "n/a", e.cost.price_note)]
    rows: list[Row] = []
    if b.evals or b.tokens != e.schedule.tokens_processed:
        per_epoch = "" if b.training_tokens == e.counts.tokens else f"; training {_n(b.training_tokens)} {b.training_rule}"
        rows.append(("billed tokens", _n(b.tokens), f"{b.tokens_rule}{per_epoch}"))
    rate = f"${b.rate:g} / 1M tokens ({f'{b.rate_note}; ' if b.rate_note else ''}{e.cost.price_source})"
    if b.minimum_applied and b.minimum_usd is not None:
        rows.append(("cost", _money(b.cost_usd), f"the minimum charge: {_n(b.tokens)} x {rate} is only {_money(b.charge_usd)}"))
    else:
        floor = f"; minimum charge {_money(b.minimum_usd)}, not reached" if b.minimum_usd is not None else ""
        rows.append(("cost", _money(b.cost_usd), f"= {_n(b.tokens)} x {rate}{floor}"))
    if b.not_in_cost:
        rows.append(("not in the cost", "", b.not_in_cost))
    return rows


def _budget_row(b: BudgetFigures) -> Row:
    what = " and ".join(x for x in (f"${b.usd:g}" if b.usd is not None else "", f"{_n(b.tokens)} tokens" if b.tokens is not None else "") if x)
    if b.max_epochs is None or b.max_steps is None:
        return "budget", what, str(b.note)
    return "budget", what, f"buys at most {b.max_epochs} epoch(s), {_n(b.max_steps)} steps"


def render_json(run: EstimateRun) -> str:
    data = {"paths": [json_safe(shown_path(p)) for p in run.paths], **json_data(run.estimate.to_dict())}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


def json_data(value: object) -> Any:
    """An estimate's figures as JSON shows them: every string (the run config's name, the
    validation files', what a run config said) masked and valid UTF-8, as the text shows it."""
    if isinstance(value, str):
        return json_safe(shown_path(value))
    if isinstance(value, dict):
        return {k: json_data(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [json_data(v) for v in value]
    return value


def render_github(run: EstimateRun) -> str:
    """The text report, then one annotation per warning or failed gate: on the dataset's file
    when it is one, a model's on the file that chose it (or on none: ftlint/origin.py)."""
    notes = [github_annotation(d.severity, d.code, d.message, d.path or None) for d in run.estimate.findings]
    return render_text(run) + "".join(n + "\n" for n in notes)


def render_sarif(run: EstimateRun) -> str:
    return sarif_document([(d.code, d.severity, d.message, d.path or None) for d in run.estimate.findings])


def render_markdown(run: EstimateRun) -> str:
    """A pull-request comment: what the data holds and what the run costs."""
    e, paths = run.estimate, run.paths
    failing = any(d.severity == ERROR for d in e.findings)
    d, c, s, total = e.data, e.counts, e.schedule, e.cost.cost_usd
    cost = _money(total) if total is not None else "n/a (no price)"
    rows = [
        ("lines", _n(d.lines)), ("records", _n(d.records)), ("messages", _n(d.messages)), ("targets", _n(d.targets)),
        ("tokens per epoch", _md_ranged(e, "tokens", c.tokens)), ("trainable tokens", _md_ranged(e, "trainable_tokens", c.trainable_tokens)),
        ("epochs", f"{s.epochs}"), ("effective batch", _n(s.effective_batch_size)),
        ("steps per epoch", _md_ranged(e, "steps_per_epoch", s.steps_per_epoch)),
        ("total steps", _md_ranged(e, "total_steps", s.total_steps)),
        ("tokens processed", _n(s.tokens_processed)), *_md_bill(e), ("cost", cost if total is not None else f"n/a: {md_text(e.cost.price_note)}"),
    ]
    lines = [f"### ftlint estimate {'❌' if failing else '✅'} {md_code(e.run.model)}: {cost} for {_n(s.tokens_processed)} tokens",
             "", f"Dataset: {named(paths, lambda p: md_code(shown_path(p)))}", ""]
    lines += [f"> {label} {value}: {md_text(why)}" for label, value, why in _model_rows(e) if label == "model"] + [""] * e.run.model_assumed
    lines += ["| figure | value |", "|---|---:|"]
    lines += [f"| {label} | {value} |" for label, value in rows]
    charts = [length_chart(run.data.train.lengths, c.context_limit), cost_chart(e, cost)]
    lines += [line for chart in charts if chart for line in ("", *chart)]
    if e.findings:
        lines += ["", "| code | severity | finding |", "|---|---|---|"]
        lines += [f"| {d.code} | {d.severity} | {md_text(d.message)} |" for d in e.findings]
    return "\n".join(lines) + "\n"


def _md_ranged(e: Estimate, name: str, value: int) -> str:
    """A figure, and the range of one the trainer draws at random."""
    if name not in e.ranges:
        return _n(value)
    low, high = e.ranges[name]
    return f"~{_n(value)} ({_n(low)}-{_n(high)})" if low != high else f"~{_n(value)}"


def _md_bill(e: Estimate) -> list[tuple[str, str]]:
    """The billed tokens where they differ from those processed, the rate with its source, and the minimum charge."""
    b = e.cost.bill
    if b is None or b.rate is None:
        return []
    rows = [("billed tokens", _n(b.tokens))] if b.tokens != e.schedule.tokens_processed else []
    rows.append(("price", md_text(f"${b.rate:g} / 1M tokens ({e.cost.price_source})")))
    if b.minimum_applied and b.minimum_usd is not None:
        rows.append(("minimum charge", f"{_money(b.minimum_usd)} (applies)"))
    return rows


ESTIMATE_RENDERERS: dict[str, Renderer[EstimateRun]] = {
    "text": render_text, "json": render_json, "github": render_github, "sarif": render_sarif, "markdown": render_markdown}

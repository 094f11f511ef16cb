"""Renderers for `ftlint estimate`."""

from __future__ import annotations

import orjson

from ..estimate import Estimate


def _n(value: int) -> str:
    return f"{value:,}"


def _money(value: float) -> str:
    return f"${value:,.2f}" if value >= 0.01 or value == 0 else f"${value:.4f}"


def render_text(e: Estimate, paths: list[str]) -> str:
    rows: list[tuple[str, str, str]] = []

    def row(label: str, value: str, how: str = "") -> None:
        rows.append((label, value, how))

    row("lines", _n(e.lines), f"{_n(e.invalid_lines)} with errors, not counted" if e.invalid_lines else "")
    row("records", _n(e.records), "1 per line: OpenAI trains each conversation as one example")
    row("messages", _n(e.messages))
    row("targets", _n(e.targets), "assistant messages trained on (weight 1 or no weight)")
    limit = f"{_n(e.context_limit)}-token limit" if e.context_limit else "no limit"
    over = f", {_n(e.records_over_limit)} over the {limit} counted at it" if e.records_over_limit else f", none over the {limit}"
    row("tokens per epoch", _n(e.tokens), f"formatting overhead included{over}")
    row("trainable tokens", _n(e.trainable_tokens), "in the targets")
    if e.token_stats:
        s = e.token_stats
        row("tokens per record", f"min {_n(int(s['min']))}", f"median {_n(int(s['p50']))}, p90 {_n(int(s['p90']))}, max {_n(int(s['max']))}, mean {s['mean']:,}")
    plan: list[tuple[str, str, str]] = []
    rows_data = rows
    rows = plan
    row("epochs", _n(e.epochs), e.epochs_source)
    row("batch size", _n(e.batch_size), f"per device; {e.batch_size_source}")
    row("effective batch", _n(e.effective_batch_size), f"= {e.batch_size} batch x {e.grad_accum} grad-accum x {e.gpus} GPU{'s' if e.gpus != 1 else ''}")
    if e.drop_last:
        how = f"= floor({_n(e.records)} / {e.effective_batch_size})"
    else:
        how = f"= ceil({_n(e.records)} / {e.effective_batch_size})"
    if e.last_batch:
        tail = f"dropped each epoch (--drop-last)" if e.drop_last else "a partial last batch"
        how += f": {_n(e.full_batches)} full batches and one of {e.last_batch} ({tail})"
    row("steps per epoch", _n(e.steps_per_epoch), how)
    row("total steps", _n(e.total_steps), f"= {_n(e.steps_per_epoch)} x {e.epochs} epochs")
    if e.warmup_ratio is not None:
        warm = f"= ceil({e.warmup_ratio:g} x {_n(e.total_steps)})"
    else:
        warm = "--warmup-steps" if e.warmup_steps else "no warmup (--warmup-ratio or --warmup-steps)"
    row("warmup steps", _n(e.warmup_steps), warm)
    row("tokens processed", _n(e.tokens_processed), f"= {_n(e.tokens)} x {e.epochs} epochs")
    if e.cost_usd is not None and e.price_per_1m is not None:
        row("cost", _money(e.cost_usd), f"= {_n(e.tokens_processed)} x ${e.price_per_1m:g} / 1M tokens ({e.price_source})")
    else:
        row("cost", "unknown", f"no training price for {e.model}; give --price USD_PER_1M_TOKENS")
    width = max(len(label) for label, _, _ in rows_data + plan)
    vwidth = max(len(value) for _, value, _ in rows_data + plan)

    def block(items: list[tuple[str, str, str]]) -> list[str]:
        return [f"  {label:<{width}}  {value:>{vwidth}}  {how}".rstrip() for label, value, how in items]

    lines = [f"dataset: {', '.join(paths)}", *block(rows_data), "",
             f"plan: {e.model} ({e.encoding})", *block(plan)]
    errors = [w for w in e.warnings if w.get("severity") == "error"]
    advice = [w for w in e.warnings if w.get("severity") != "error"]
    if errors:
        lines += ["", "gates failed:"] + [f"  {w['code']} {w['message']}" for w in errors]
    if advice:
        lines += ["", "warnings:"] + [f"  {w['code']} {w['message']}" for w in advice]
    return "\n".join(lines) + "\n"


def render_json(e: Estimate, paths: list[str]) -> str:
    data = {"paths": paths, **e.to_dict()}
    return orjson.dumps(data, option=orjson.OPT_INDENT_2).decode() + "\n"


ESTIMATE_RENDERERS = {"text": render_text, "json": render_json}

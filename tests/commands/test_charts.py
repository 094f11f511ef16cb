"""Pictures where people look: the Mermaid charts of `estimate -o markdown` (what the Action
writes to the job summary), and the HTML tables a notebook shows for CheckResult and Estimate.
Every number is derived here from the records (the OpenAI convention, tests/plan/test_hosted.py)."""

from __future__ import annotations

import html
import itertools
import math
import re
from pathlib import Path

from test_hosted import openai_tokens, records, usd

import ftlint
from conftest import FIXTURES, ROOT, run
from ftlint.report.charts import mermaid_text

TOY = FIXTURES / "oracle" / "toy_chat_fine_tuning.jsonl"  # the cookbook's 5 examples
GPT_4O_MINI = 3.00  # USD per 1M training tokens (ftlint/catalog/openai.toml)


def chart(markdown: str, title_start: str) -> dict[str, str]:
    """The chart whose title starts so: its title, x-axis and bar lines."""
    for block in re.findall(r"```mermaid\n(.*?)```", markdown, re.S):
        found = dict(line.strip().split(" ", 1) for line in block.splitlines()[1:])
        if found["title"].startswith(f'"{title_start}'):
            return found
    raise AssertionError(f"no chart titled {title_start!r} in:\n{markdown}")


def test_the_length_chart_counts_records_per_bin_split_at_the_limit() -> None:
    lengths = [openai_tokens(r)[0] for r in records(TOY)]
    limit = sorted(lengths)[2]  # two records above it at least, one at it
    out = run("estimate", str(TOY.relative_to(ROOT)), "--model", "gpt-4o-mini", "--context", str(limit), "-o", "markdown").stdout
    # bins double from 16; a bin starts at limit + 1, so none holds records on both sides of it
    top = max(lengths)
    edges = sorted({0, limit + 1, *(2**k for k in range(4, math.ceil(math.log2(top + 1)) + 2))})
    edges = edges[: next(i for i, e in enumerate(edges) if e > top) + 1]
    bins = [(lo, hi, sum(lo <= t < hi for t in lengths)) for lo, hi in itertools.pairwise(edges)]
    used = [i for i, (_, _, n) in enumerate(bins) if n]
    bins = bins[used[0]: used[-1] + 1]
    c = chart(out, "records by tokens per record")
    assert c["title"] == f'"records by tokens per record (limit {limit:,})"'
    labels = ", ".join(f'"{lo:,}-{hi - 1:,}{" over" if lo > limit else ""}"' for lo, hi, _ in bins)
    assert c["x-axis"] == f"[{labels}]"
    assert c["bar"] == "[" + ", ".join(str(n) for _, _, n in bins) + "]"
    assert c["y-axis"] == f'"records" 0 --> {max(n for _, _, n in bins)}'  # from 0: a bar's height is its count
    assert sum(n for lo, _, n in bins if lo > limit) == sum(t > limit for t in lengths) >= 2


def test_the_cost_chart_adds_an_epochs_cost_at_each_epochs_last_step() -> None:
    data = records(TOY)
    tokens = sum(openai_tokens(r)[0] for r in data)
    out = run("estimate", str(TOY.relative_to(ROOT)), "--model", "gpt-4o-mini", "--epochs", "3", "--batch-size", "2",
              "-o", "markdown").stdout
    cost, steps = usd(tokens * 3, GPT_4O_MINI), math.ceil(len(data) / 2)
    shown = f"${cost:.4f}" if cost < 0.01 else f"${cost:,.2f}"
    c = chart(out, "cost by epoch")
    assert c["title"] == f'"cost by epoch: {shown} for {steps * 3} steps"'
    assert c["x-axis"] == "[" + ", ".join(f'"epoch {k} (step {k * steps})"' for k in (1, 2, 3)) + "]"
    assert c["bar"] == "[" + ", ".join(f"{round(cost * k / 3, 4):g}" for k in (1, 2, 3)) + "]"
    # the axis starts at 0 (Mermaid's own starts at the lowest bar: epoch 1 drawn as a sliver) and ends at the total
    assert c["y-axis"] == f'"USD" 0 --> {round(cost, 4):g}'
    assert out.index("| cost |") < out.index("```mermaid")  # beside (after) the table


def test_no_text_ends_a_mermaid_label_or_fence() -> None:
    hostile = 'x"] \n```\n<b>#;`{}'
    safe = mermaid_text(hostile)
    assert not set(safe) & set('"`[]{}<>#;\n') and len(safe) == len(hostile)


def test_a_check_result_is_an_html_table_that_escapes_a_records_text() -> None:
    role, name = "<script>alert(1)</script>", "<img src=x onerror=alert(1)>.jsonl"
    result = ftlint.check_records([{"messages": [{"role": role, "content": "x"}, {"role": "assistant", "content": "y"}]}],
                                  name=name)
    shown = result._repr_html_()
    assert "<script" not in shown and "<img" not in shown
    assert html.escape(name) in shown and html.escape(role) in shown
    assert "<caption>ftlint check: 2 errors, 0 warnings</caption>" in shown  # FT104 on the role, FT401: 0 records
    assert shown.count("<tr>") == 1 + 1 + 1 + 2  # the files' header and row, the findings' header and two rows


def test_an_estimate_is_an_html_table_of_its_figures() -> None:
    """docs/api.md's table: the toy file on gpt-4o-mini, 3 epochs."""
    data = records(TOY)
    tokens = sum(openai_tokens(r)[0] for r in data)
    shown = ftlint.estimate(str(TOY), model="gpt-4o-mini", epochs=3)._repr_html_()
    batch = max(1, min(256, math.floor(len(data) * 0.002 + 0.5)))  # OpenAI's auto batch size: 1
    figures = {"records": f"{len(data)}", "tokens": f"{tokens:,}", "effective batch size": f"{batch}",
               "steps per epoch": f"{math.ceil(len(data) / batch)}", "total steps": f"{3 * math.ceil(len(data) / batch)}",
               "tokens processed": f"{tokens * 3:,}", "cost usd": f"{usd(tokens * 3, GPT_4O_MINI):,.4f}"}
    docs = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    for name, value in figures.items():
        assert f"<tr><td>{name}</td><td>{value}</td></tr>" in shown
        assert f"| {name} | {value} |" in docs


# --- issue 35: a chart's size is fixed whatever the epochs; a notebook masks as the terminal does ---

def test_the_cost_chart_has_at_most_20_bars_whatever_the_epochs() -> None:
    data = records(TOY)
    tokens = sum(openai_tokens(r)[0] for r in data)
    epochs = 1000  # the most epochs takes
    out = run("estimate", str(TOY.relative_to(ROOT)), "--model", "gpt-4o-mini", "--epochs", str(epochs), "--batch-size", "5",
              "-o", "markdown").stdout
    cost = usd(tokens * epochs, GPT_4O_MINI)
    shown = [math.ceil(i * epochs / 20) for i in range(1, 21)]  # 50, 100, ..., 1000: evenly spread, the last included
    c = chart(out, "cost by epoch")
    assert c["x-axis"] == "[" + ", ".join(f'"epoch {k} (step {k:,})"' for k in shown) + "]"  # one step an epoch
    assert c["bar"] == "[" + ", ".join(f"{round(cost * k / epochs, 4):g}" for k in shown) + "]"
    assert len(out) < 10_000


def test_a_notebook_masks_and_escapes_a_file_name_as_the_terminal_does(tmp_path: Path) -> None:
    from untrusted import SECRETS

    secret = SECRETS["aws"]
    path = tmp_path / f"data-{secret}\x1b[2J.jsonl"
    path.write_text('{"messages": [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "x"}]}\n')
    result = ftlint.check(str(path))
    shown = result._repr_html_()
    text = run("check", str(path)).stdout
    assert secret not in shown and secret not in text and "\x1b" not in shown
    masked = f"data-{secret[:4]}…\\x1b[2J.jsonl"  # as the text output shows it
    assert masked in text and html.escape(masked) in shown

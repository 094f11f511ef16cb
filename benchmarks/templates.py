"""What the chat-template budget costs (ftlint/chat/sandbox.py, meter.py), and what it saves.

    python benchmarks/templates.py cost [ROUNDS]   every shipped template over the fixtures' conversations,
                                                   ROUNDS times (1,000), unmetered (the sandbox as it was)
                                                   and metered: microseconds per rendering, and the steps
                                                   and characters an honest rendering takes
    python benchmarks/templates.py bombs           each bomb class of tests/untrusted/test_untrusted_templates.py:
                                                   the peak memory of its check under the cap, and its time
"""

from __future__ import annotations

import datetime as dt
import json
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent


def conversations() -> list[tuple[list[dict], Any]]:
    """Every record of the fixtures with a list of messages (and its tools)."""
    found = []
    for path in sorted([*ROOT.glob("fixtures/good/*.jsonl"), *ROOT.glob("fixtures/chat/*.jsonl"),
                        *ROOT.glob("fixtures/formats/*/good.jsonl")]):
        for line in path.read_text().splitlines():
            try:
                record = json.loads(line)
            except ValueError:
                continue
            messages = record.get("messages") if isinstance(record, dict) else None
            if isinstance(messages, list) and messages and all(isinstance(m, dict) for m in messages):
                found.append((messages, record.get("tools")))
    return found


def unmetered(source: str) -> Any:
    """The template as render.py compiled it before the budget: the same sandbox, no meter."""
    import jinja2.ext
    import jinja2.sandbox

    from ftlint.chat import render

    env = jinja2.sandbox.ImmutableSandboxedEnvironment(trim_blocks=True, lstrip_blocks=True,
                                                        extensions=[render._Generation, jinja2.ext.loopcontrols])
    env.filters["tojson"] = render._tojson
    env.globals["raise_exception"] = render._raise
    env.globals["strftime_now"] = dt.datetime(2026, 12, 1).strftime
    return env.from_string(source)


def cost(rounds: int) -> None:
    from ftlint.chat import CHAT_TEMPLATES, template_text
    from ftlint.chat.render import JinjaTemplate, TemplateFailure

    records = conversations()
    for name, spec in CHAT_TEMPLATES.items():
        if spec.source == "python":
            continue
        source = template_text(name)
        metered, plain = JinjaTemplate(source, dt.date(2026, 12, 1)), JinjaTemplate(source, dt.date(2026, 12, 1))
        plain.template = unmetered(source)  # the same rendering around it (normalised messages, spans)
        usable = []
        for messages, tools in records:
            try:
                metered.render(messages, tools)
                usable.append((messages, tools))
            except TemplateFailure:  # a record the template refuses (roles, tools): the same either way
                pass
        steps = chars = 0
        for messages, tools in usable:
            metered.render(messages, tools)
            steps, chars = max(steps, metered.env.meter.steps), max(chars, metered.env.meter.chars)
        timings = [float("inf"), float("inf")]
        for _ in range(5):  # the best of five batches each, in turns (a shared machine is noisy)
            for k, template in enumerate((plain, metered)):
                start = time.process_time()
                for _ in range(rounds // 5):
                    for messages, tools in usable:
                        template.render(messages, tools)
                timings[k] = min(timings[k], (time.process_time() - start) / (rounds // 5 * len(usable)) * 1e6)
        print(f"{name:20s} {len(usable):3d} records: {timings[0]:7.1f} -> {timings[1]:7.1f} us per rendering "
              f"(x{timings[1] / timings[0]:.2f}); at most {steps} steps, {chars:,} characters")


# runs ftlint under the cap and prints the kernel's high-water mark of its largest process (ru_maxrss):
# a spike between two samples of run_limited is not missed
_HIGH_WATER = """import resource, subprocess, sys
limit = int(sys.argv[1]) << 20
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
code = subprocess.run([sys.executable, "-m", "ftlint", *sys.argv[2:]], capture_output=True).returncode
print(code, resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10)
"""


def bombs() -> None:
    import subprocess
    import tempfile

    sys.path.insert(0, str(ROOT / "tests"))
    import test_untrusted_templates as t

    for name, (bomb, _) in [("none (a clean template)", ("", "")), *t.BOMBS.items()]:
        with tempfile.TemporaryDirectory() as folder:
            repo = t.repository(Path(folder) / "repo", t.TEMPLATE.replace("BOMB", bomb))
            start = time.perf_counter()
            _, out, _, sampled = t.check(repo)
            took = time.perf_counter() - start
            code, high = subprocess.run([sys.executable, "-c", _HIGH_WATER, str(t.CAP_MIB), "check", "train.jsonl"], cwd=repo,
                                        capture_output=True, text=True).stdout.split()
            finding = next((line.split(": ", 1)[1][:60] for line in out.splitlines() if " FT238 " in line), "no FT238")
            print(f"{name:28s} exit {code}, peak {high:>4s} MiB (sampled {sampled} MiB) under a {t.CAP_MIB} MiB cap, "
                  f"{took:4.1f} s: {finding}")


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("cost", "bombs"):
        sys.exit(__doc__)
    cost(int(sys.argv[2]) if len(sys.argv) > 2 else 1000) if sys.argv[1] == "cost" else bombs()

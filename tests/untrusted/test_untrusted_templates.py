"""Chat templates from an untrusted repository (issue 24, items 1 and 4): each bomb class as a real
repository (an ftlint.toml naming `chat-template` and `tokenizer = "qwen2"`, a train.jsonl, the
template), checked by a real ftlint process under an address-space cap (tests/untrusted.py
run_limited). The record that sets a bomb off is FT238 and the run goes on: the other records of
the file are still counted; memory stays under PEAK_MIB; nothing is a traceback. A template that
cannot be read or compiled is one line, exit 2."""

from __future__ import annotations

import json
import os
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest
from untrusted import run_limited, tree_peak_rss

CAP_MIB = 1536  # address space of the ftlint process (polars alone reserves ~800 MiB)
PEAK_MIB = 400  # resident memory of the whole run, its workers included (a clean check of the same file: ~90 MiB)
RAY_PEAK_MIB = 3072  # what the run adds to this process's tree (its driver, the cluster's workers starting and judging):
# 0.3 GiB alone, 1.3 GiB within the suite (workers started anew); the bomb without the budget passed 8 GiB
BOMB_LINE = 6  # the record that sets the bomb off; the 10 others are good
SUMMARY = "checked 1 file (openai-chat), 11 lines: 10 valid, 1 with errors (0 blank)"

# ChatML, as a repository would write it; its `bomb` goes off on the record whose message says "boom"
TEMPLATE = """{%- for message in messages %}
{{- '<|im_start|>' + message.role + '\\n' + message.content + '<|im_end|>\\n' }}
{%- if message.content == 'boom' %}BOMB{% endif %}
{%- endfor %}"""
GIGABYTE_OF_TEXT = "{% for i in range(100000) %}" + "A" * 10_000 + "{% endfor %}"  # 100,000 x 10 KB
BOMBS = {  # class: (the bomb, the budget it goes over)
    "repetition": ("{{ 'x' * 1500000000 }}", "--template-max-chars"),
    "nested-range-loops": ("{% for i in range(100000) %}{% for j in range(100000) %}{{ j }}{% endfor %}{% endfor %}",
                           "--template-max-steps"),
    "tojson-indent": ("{{ messages|tojson(indent=10**9) }}", "--template-max-chars"),
    "namespace-doubling": ("{% set ns = namespace(s='x') %}{% for i in range(64) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}"
                           "{{ ns.s|length }}", "--template-max-chars"),
    "text-in-a-macro": ("{% macro m() %}" + GIGABYTE_OF_TEXT + "{% endmacro %}{{ m()|length }}", "--template-max-chars"),
    "text-in-a-set-block": ("{% set x %}" + GIGABYTE_OF_TEXT + "{% endset %}{{ x|length }}", "--template-max-chars"),
    "exponential-macro-recursion": ("{% macro f(n) %}{% if n %}{{ f(n - 1) }}{{ f(n - 1) }}{% endif %}{% endmacro %}{{ f(64) }}",
                                    "--template-max-steps"),
    "center-width": ("{{ 'x'|center(1500000000) }}", "--template-max-chars"),
    "format-width": ("{{ '%1500000000s'|format('x') }}", "--template-max-chars"),
    "str-format-width": ("{{ '{:>1500000000}'.format('x') }}", "--template-max-chars"),
    # one long string many times over, without repeating it: shared references, then written out
    "shared-references": ("{{ dict.fromkeys(range(100000), 'x' * 1000000)|tojson }}", "--template-max-chars"),
    "tojson-separators": ("{{ range(100000)|list|tojson(separators=('x' * 1000000, ':')) }}", "--template-max-chars"),
    "str-ljust": ("{{ 'x'.ljust(1500000000) }}", "--template-max-chars"),
    "sum-in-a-loop": ("{% set r = range(100000) %}{% for i in r %}{{ r|sum }}{% endfor %}", "--template-max-steps"),
}


def records() -> list[dict]:
    return [{"messages": [{"role": "user", "content": "boom" if n == BOMB_LINE else f"question {n}"},
                          {"role": "assistant", "content": f"answer {n}"}]} for n in range(1, 12)]


def repository(folder: Path, template: str | None, name: str = "evil.jinja") -> Path:
    """A repository whose configuration names its own chat template (relative names, run from
    the folder: they mean the same relative to the working directory and to the file)."""
    folder.mkdir(exist_ok=True)
    (folder / "ftlint.toml").write_text(f'chat-template = "{name}"\ntokenizer = "qwen2"\n')
    (folder / "train.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records()))
    if template is not None:
        (folder / name).write_text(template)
    return folder


def check(folder: Path, *args: str, timeout: float = 120) -> tuple[int, str, str, int]:
    return run_limited(["check", "train.jsonl", *args], memory_mib=CAP_MIB, cwd=str(folder), timeout=timeout)


def assert_bomb_is_one_finding(result: tuple[int, str, str, int], flag: str, shown: str = "train.jsonl") -> None:
    code, out, err, peak = result
    assert "Traceback" not in err and "internal error" not in err, err
    found = [line for line in out.splitlines() if ": FT" in line]
    assert len(found) == 1 and found[0].startswith(f"{shown}:{BOMB_LINE}:1: FT238 the chat template went over its budget"), out
    assert flag in found[0]
    assert SUMMARY in out and code == 1
    assert peak < PEAK_MIB, f"{peak} MiB"


@pytest.mark.parametrize("bomb", BOMBS, ids=list(BOMBS))
def test_each_bomb_is_a_finding_on_its_record_and_the_run_goes_on(bomb: str, tmp_path: Path) -> None:
    source, flag = BOMBS[bomb]
    folder = repository(tmp_path / "repo", TEMPLATE.replace("BOMB", source))
    assert_bomb_is_one_finding(check(folder, timeout=60), flag)


def test_a_template_in_a_tokenizer_config_is_bounded_too(tmp_path: Path) -> None:
    folder = repository(tmp_path / "repo", None, "tokenizer_config.json")
    config = {"chat_template": TEMPLATE.replace("BOMB", BOMBS["repetition"][0]), "eos_token": "<|im_end|>"}
    (folder / "tokenizer_config.json").write_text(json.dumps(config))
    assert_bomb_is_one_finding(check(folder), "--template-max-chars")


def test_the_budget_is_the_users_to_set(tmp_path: Path) -> None:
    """Lower than a template needs, every record is over it; the message names the flag. The
    configuration's keys are the flags' names."""
    folder = repository(tmp_path / "repo", TEMPLATE.replace("BOMB", ""))
    assert check(folder)[:2] == (0, "checked 1 file (openai-chat), 11 lines: 11 valid, 0 with errors (0 blank)\n0 errors, 0 warnings\n")
    code, out, err, _ = check(folder, "--template-max-chars", "40")
    assert code == 1 and out.count(": FT238 ") == 11 and "--template-max-chars raises the budget" in out, out + err
    with (folder / "ftlint.toml").open("a") as config:
        config.write("template-max-steps = 1\n")
    code, out, err, _ = check(folder)
    assert code == 1 and out.count(": FT238 ") == 11 and "more than 1 step (" in out, out + err


def nested(depth: int) -> str:
    return "{{ " + "(" * depth + "1" + ")" * depth + " }}"


@pytest.mark.parametrize(("template", "says"), [
    (nested(5_000), "the chat template does not compile: it nests too deeply"),
    ("{% if x %}" * 1_000 + "{% endif %}" * 1_000, "the chat template does not compile: it nests too deeply"),
    ("{# a comment #}" * 100_000, "over the 1,048,576 a template may have"),
    ("{{ x }}" * 20_000, "more than 16,384 tokens"),
], ids=["parentheses", "if-blocks", "over-1-MiB", "too-many-tokens"])
def test_a_template_that_cannot_be_compiled_is_one_line(template: str, says: str, tmp_path: Path) -> None:
    code, out, err, peak = check(repository(tmp_path / "repo", template))
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("ftlint: error: --chat-template ") and says in err, err
    assert peak < PEAK_MIB


@pytest.mark.parametrize("kind", ["fifo", "dev-zero"])
def test_a_template_that_is_not_a_regular_file_is_one_line(kind: str, tmp_path: Path) -> None:
    folder = repository(tmp_path / "repo", None)
    if kind == "fifo":
        os.mkfifo(folder / "evil.jinja")  # nobody writes to it: reading it would wait for ever
    else:
        (folder / "evil.jinja").symlink_to("/dev/zero")  # endless zeros
    # the configuration names the FIFO; /dev/zero is outside the repository, which a configuration
    # may not name (tests/untrusted/test_untrusted_configs.py), so the user names it with the flag
    if kind == "fifo":
        code, out, err, peak = check(folder, timeout=60)
    else:
        code, out, err, peak = run_limited(["--no-config", "check", "train.jsonl", "--chat-template", "evil.jinja", "--tokenizer",
                                            "qwen2"], memory_mib=CAP_MIB, cwd=str(folder), timeout=60)
    assert code == 2 and out == "" and len(err.splitlines()) == 1, err
    assert err.startswith("ftlint: error: --chat-template ")
    assert ("a FIFO, not a regular file" if kind == "fifo" else "a device, not a regular file") in err
    assert peak < PEAK_MIB


def test_check_records_with_a_chat_template_is_bounded(tmp_path: Path) -> None:
    template = tmp_path / "evil.jinja"
    template.write_text(TEMPLATE.replace("BOMB", BOMBS["namespace-doubling"][0]))
    code = ("import json, ftlint\n"
            f"result = ftlint.check_records(json.loads({json.dumps(json.dumps(records()))}), chat_template={str(template)!r},"
            " tokenizer='qwen2')\n"
            "print(json.dumps([[d.line, d.code] for d in result.findings]))\nprint(result.records)\n")
    status, out, err, peak = run_limited([], memory_mib=CAP_MIB, python=["-c", code])
    assert status == 0 and "Traceback" not in err, err
    assert out.splitlines() == [json.dumps([[BOMB_LINE, "FT238"]]), "10"], out
    assert peak < PEAK_MIB


def test_the_api_takes_the_budget_by_keyword(tmp_path: Path) -> None:
    import ftlint

    template = tmp_path / "chatml.jinja"
    template.write_text(TEMPLATE.replace("BOMB", ""))
    result = ftlint.check_records(records(), chat_template=str(template), tokenizer="qwen2", template_max_steps=1)
    assert [d.code for d in result.findings if d.line] == ["FT238"] * 11
    assert "more than 1 step (" in result.findings[0].message


@pytest.fixture(scope="module")
def ray_cluster() -> Iterator[str]:
    """A local Ray cluster, started as tests/engine/test_ray.py starts it but with a small object store:
    a run that joins the cluster maps the store whole, and runs under the cap. Its address."""
    ray = pytest.importorskip("ray")
    from ftlint.engine import ray as on_ray

    ray.init(num_cpus=2, object_store_memory=128 << 20, include_dashboard=False, log_to_driver=False)
    on_ray.connect()
    yield ray.get_runtime_context().gcs_address
    ray.shutdown()


@pytest.mark.xdist_group("ray")  # one Ray cluster at a time on the machine: the tests of Ray run in one worker
def test_on_ray_the_bomb_is_a_finding_too(ray_cluster: str, tmp_path: Path) -> None:
    """The budget travels to the Ray workers with the judging settings. The run joins this
    process's cluster (one does not start under the cap), so the workers are children of this
    process: the second peak is this process's tree (this process, the cluster, the run)."""
    folder = repository(tmp_path / "repo", TEMPLATE.replace("BOMB", BOMBS["nested-range-loops"][0]))
    data = str(folder / "train.jsonl")  # the workers read it from their own folder
    stop = threading.Event()
    before = tree_peak_rss(os.getpid(), stop)  # this process's tree as it was (pytest's own memory included)
    time.sleep(0.3)
    stop.set()
    stop = threading.Event()
    everything = tree_peak_rss(os.getpid(), stop)
    try:
        result = run_limited(["check", "--engine", "ray", data], memory_mib=2048, cwd=str(folder), timeout=120,
                             env={**os.environ, "RAY_ADDRESS": ray_cluster})
    finally:
        stop.set()
    assert_bomb_is_one_finding(result, "--template-max-steps", data)
    grown = (everything[0] - before[0]) >> 10  # what the run (its driver, its workers' judging) added to the tree
    assert grown < RAY_PEAK_MIB, f"{grown} MiB more than the {before[0] >> 10} MiB before"

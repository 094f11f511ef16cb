"""A repository's own files in CI (issue 24, items 4 and 7): the paths its configuration names
stay inside the configuration's folder, and a trainer's mapping (LLaMA-Factory's
dataset_info.json, an axolotl config) is one bounded regular file of checked types. Each case is
a real repository in tmp_path and a real ftlint process; bombs run under an address-space cap."""

from __future__ import annotations

import json
import os
from pathlib import Path

import click
import pytest
from untrusted import run_limited

from conftest import FIXTURES, Result, run_process

CAP_MIB = 1536  # polars and the interpreter need about 800 MiB of address space


def chats(n: int = 12) -> str:
    return "".join(json.dumps({"messages": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]}) + "\n"
                   for i in range(n))


def one_line_error(r: Result, *words: str) -> str:
    """Exit 2 and exactly one line on standard error, holding every word."""
    err = r.stderr
    assert r.exit_code == 2, (r.exit_code, r.stdout, err)
    assert err.startswith("ftlint: error: ") and err.count("\n") == 1, err
    assert "Traceback" not in err and "internal error" not in err, err
    for word in words:
        assert word in err, (word, err)
    return err


# --- mappings (item 7) -------------------------------------------------------------------------

def _mapping_repo(tmp_path: Path) -> Path:
    for name in ("qa.json", "chats.jsonl", "turns.jsonl"):
        (tmp_path / name).write_bytes((FIXTURES / "mapping" / name).read_bytes())
    return tmp_path


@pytest.mark.parametrize(("name", "text", "words"), [
    ("columns-list.json", '{"qa": {"file_name": "qa.json", "columns": ["prompt", "question"]}}',
     ["$.qa.columns", "expected object, got array"]),
    ("tags-string.json", '{"chats": {"file_name": "chats.jsonl", "formatting": "sharegpt", "tags": "role"}}',
     ["$.chats.tags", "expected object, got string"]),
    ("column-number.json", '{"qa": {"file_name": "qa.json", "columns": {"prompt": 5}}}',
     ["$.qa.columns.prompt", "expected string or null, got integer"]),
    ("ranking-string.json", '{"qa": {"file_name": "qa.json", "ranking": "yes"}}', ["$.qa.ranking", "expected boolean"]),
    ("tag-list.json", '{"chats": {"file_name": "chats.jsonl", "formatting": "sharegpt", "tags": {"role_tag": ["role"]}}}',
     ["$.chats.tags.role_tag", "expected string or null, got array"]),
    ("roles-string.yaml", "datasets:\n  - path: turns.jsonl\n    type: chat_template\n    roles: user\n",
     ["$.datasets[0].roles", "expected object or null, got string"]),
    ("role-names-string.yaml", "datasets:\n  - path: turns.jsonl\n    roles:\n      user: client\n",
     ["$.datasets[0].roles.user", "expected array, got string"]),
    ("mappings-list.yaml", "datasets:\n  - path: turns.jsonl\n    message_property_mappings: [role, content]\n",
     ["$.datasets[0].message_property_mappings", "expected object or null, got array"]),
    ("roles-to-train-string.yaml", "datasets:\n  - path: turns.jsonl\n    roles_to_train: assistant\n",
     ["$.datasets[0].roles_to_train", "expected array or null, got string"]),
    ("entry-string.yaml", "datasets:\n  - turns.jsonl\n", ["$.datasets[0]", "expected object, got string"]),
    ("timestamp.yaml", "datasets:\n  - path: 2026-12-01\n", ["$.datasets[0].path", "a YAML date"]),
    ("number-key.yaml", "datasets:\n  - path: turns.jsonl\n    roles: {1: [client]}\n", ["$.datasets[0].roles", "the key 1 is not a string"]),
    ("cycle.yaml", "datasets:\n  - path: turns.jsonl\n    roles: &r {user: *r}\n", ["refers to the node that holds it"]),
])
def test_a_mapping_of_the_wrong_types_is_one_line_naming_the_json_path(tmp_path: Path, name: str, text: str,
                                                                       words: list[str]) -> None:
    """Before: AttributeError ('list' object has no attribute 'get', ...) as an internal error, or a
    value of the wrong type silently skipped (a number as a column, a list as a tag)."""
    repo = _mapping_repo(tmp_path)
    (repo / name).write_text(text)
    data = "turns.jsonl" if name.endswith(".yaml") else "qa.json" if "qa" in text else "chats.jsonl"
    one_line_error(run_process("check", data, "--mapping", name, cwd=repo), f"--mapping {name}: ", *words)


def test_a_null_in_an_axolotl_entry_is_axolotls_default(tmp_path: Path) -> None:
    """axolotl's fields default to None. Before: `field_messages: null` read the column 'None' (FT109 on
    every record) and `roles_to_train: null` was refused as a value not modelled."""
    repo = _mapping_repo(tmp_path)
    (repo / "nulls.yaml").write_text("datasets:\n  - path: chats.jsonl\n    type: chat_template\n    field_messages: null\n"
                                     "    message_property_mappings: null\n    roles: null\n    roles_to_train: null\n")
    nulls = run_process("check", "chats.jsonl", "--mapping", "nulls.yaml", "-o", "json", cwd=repo)
    assert nulls.exit_code in (0, 1) and "FT109" not in nulls.stdout, (nulls.stdout, nulls.stderr)


@pytest.mark.parametrize(("name", "text", "words"), [
    ("deep.json", '{"qa": ' + '{"a": ' * 50_000 + "1" + "}" * 50_001, ["nested more than 64 levels deep"]),
    ("deep-lists.json", '{"qa": {"file_name": "qa.json", "x": ' + "[" * 900 + "]" * 900 + "}}", ["nested more than 64 levels deep"]),
    ("deep.yaml", "datasets: " + "[" * 50_000 + "]" * 50_000 + "\n", ["nested more than 64 levels deep"]),
    ("deep-block.yaml", "datasets:\n" + "".join("  " * i + f"- k{i}:\n" for i in range(1, 400)) + "  " * 400 + "- x\n",
     ["nested more than 64 levels deep"]),
])
def test_deep_mappings_are_one_line_not_a_recursion_error(tmp_path: Path, name: str, text: str, words: list[str]) -> None:
    """Before: RecursionError from json.loads or PyYAML's composer, an internal error."""
    repo = _mapping_repo(tmp_path)
    (repo / name).write_text(text)
    code, _out, err, peak = run_limited(["check", "qa.json", "--mapping", name], memory_mib=CAP_MIB, cwd=str(repo))
    assert code == 2 and err.count("\n") == 1 and all(w in err for w in words) and "Traceback" not in err, (code, err[-2000:])
    assert peak < 200, peak


def _laughs(levels: int = 9) -> str:
    """'Billion laughs': each line's anchor is nine aliases of the previous one: 9^9 strings."""
    lines = ['l0: &l0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"l{i}: &l{i} [" + ", ".join([f"*l{i - 1}"] * 9) + "]" for i in range(1, levels + 1)]
    return "\n".join(lines) + f"\ndatasets:\n  - path: turns.jsonl\n    roles:\n      user: *l{levels}\n"


def test_a_billion_laughs_yaml_is_refused_before_it_is_walked(tmp_path: Path) -> None:
    """Before: 1.2 GB, then MemoryError (internal error) under this cap, after 40 s of walking
    the aliases. Now: the composed graph is measured, 9^9 expanded nodes refused, flat memory."""
    repo = _mapping_repo(tmp_path)
    (repo / "laughs.yaml").write_text(_laughs())
    assert (repo / "laughs.yaml").stat().st_size < 1000
    code, _out, err, peak = run_limited(["check", "turns.jsonl", "--mapping", "laughs.yaml"], memory_mib=CAP_MIB, cwd=str(repo),
                                       timeout=60)
    assert code == 2 and err.count("\n") == 1 and "more than 100,000 YAML nodes, its aliases expanded" in err, err[-2000:]
    assert peak < 200, peak


def test_a_large_flat_json_mapping_is_refused_before_it_is_parsed(tmp_path: Path) -> None:
    """60 MB of two-letter strings parse to 1.2 GB of Python objects: before, a MemoryError under
    this cap; now the values are counted from the text first (commas and brackets)."""
    repo = _mapping_repo(tmp_path)
    (repo / "flat.json").write_text('{"qa": {"file_name": "qa.json", "x": [' + ",".join(['"ab"'] * 12_000_000) + "]}}")
    code, _out, err, peak = run_limited(["check", "qa.json", "--mapping", "flat.json"], memory_mib=CAP_MIB, cwd=str(repo))
    assert code == 2 and err.count("\n") == 1 and "JSON values (commas and brackets counted), over the 1,000,000" in err, err[-2000:]
    assert peak < 400, peak


@pytest.mark.parametrize("kind", ["fifo", "dev-zero", "folder", "large"])
def test_a_mapping_that_is_not_a_bounded_regular_file_is_refused_at_once(tmp_path: Path, kind: str) -> None:
    """Before: a FIFO blocked forever; /dev/zero behind a symlink was read to 2.9 GB."""
    repo = _mapping_repo(tmp_path)
    target = repo / "dataset_info.json"
    args = ["check", "qa.json", "--mapping", target.name]
    if kind == "fifo":
        os.mkfifo(target)
    elif kind == "dev-zero":
        target.symlink_to("/dev/zero")
    elif kind == "folder":
        target.mkdir()
    else:
        target.write_text(json.dumps({"qa": {"file_name": "qa.json", "padding": "x" * 5000}}))
        args += ["--max-file-bytes", "4096"]
    code, _out, err, peak = run_limited(args, memory_mib=CAP_MIB, cwd=str(repo), timeout=60)
    expected = {"fifo": "a FIFO, not a regular file", "dev-zero": "a device, not a regular file",
                "folder": "a directory, not a regular file", "large": "over the 4,096-byte limit for it"}[kind]
    assert code == 2 and err.startswith(f"ftlint: error: --mapping {target.name}: ") and err.count("\n") == 1, err
    assert expected in err and "Traceback" not in err, err
    assert peak < 200, peak



# --- paths a configuration names (item 4) ------------------------------------------------------

def _byte_tokenizer() -> str:
    """A byte-level BPE tokenizer.json of the 256 single bytes (one token a byte: counts unlike
    any model's, so a run that used it would change every token figure)."""
    printable = [*range(ord("!"), ord("~") + 1), *range(ord("¡"), ord("¬") + 1), *range(ord("®"), ord("ÿ") + 1)]
    others = [b for b in range(256) if b not in printable]
    # GPT-2's byte-level alphabet: a printable byte stands for itself, the others for 256 + their order
    vocab = {chr(b) if b in printable else chr(256 + others.index(b)): b for b in range(256)}
    return json.dumps({"model": {"type": "BPE", "vocab": vocab, "merges": []}, "added_tokens": [],
                       "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "use_regex": True}})


def _outside_and_repo(tmp_path: Path) -> tuple[Path, Path]:
    """tmp_path/outside: a template, a tokenizer, a mapping and a validation file that work;
    tmp_path/repo: the repository, with its training data and a link to the outside template."""
    outside, repo = tmp_path / "outside", tmp_path / "repo"
    outside.mkdir()
    repo.mkdir()
    (outside / "tpl.jinja").write_text("{% for m in messages %}<{{ m.role }}>{{ m.content }}{% endfor %}")
    (outside / "tokenizer.json").write_text(_byte_tokenizer())
    (outside / "dataset_info.json").write_text('{"chats": {"file_name": "train.jsonl", "formatting": "sharegpt", '
                                               '"tags": {"role_tag": "role", "content_tag": "content", '
                                               '"user_tag": "user", "assistant_tag": "assistant"}, "columns": {"messages": "messages"}}}')
    (outside / "val.jsonl").write_text(chats(3))
    (repo / "train.jsonl").write_text(chats())
    (repo / "linked.jinja").symlink_to(outside / "tpl.jinja")
    return outside, repo


PATH_CASES = {  # name: (key, value; {outside} is the outside folder)
    "passwd-template": ("chat-template", "/etc/passwd"),
    "dotdot-template": ("chat-template", "../outside/tpl.jinja"),
    "linked-template": ("chat-template", "linked.jinja"),
    "absolute-tokenizer": ("tokenizer", "{outside}/tokenizer.json"),
    "outside-mapping": ("mapping", "../outside/dataset_info.json:chats"),
    "outside-validation": ("validation", "{outside}/val.jsonl"),
}
PLACES = {  # where the key is written: (file name, text before the key, how the error shows the key)
    "ftlint.toml": ("ftlint.toml", "", "{key}"),
    "pyproject": ("pyproject.toml", '[project]\nname = "x"\n\n[tool.ftlint]\n', "{key}"),
    "check-section": ("ftlint.toml", "[check]\n", "check.{key}"),
}


@pytest.mark.parametrize("place", sorted(PLACES))
@pytest.mark.parametrize("case", sorted(PATH_CASES))
def test_a_configuration_may_not_name_a_file_outside_its_folder(tmp_path: Path, case: str, place: str) -> None:
    """Before: each was used without a word (exit 0 or 1): /etc/passwd rendered as the template,
    an outside tokenizer's counts, mapping and validation file taken as the repository's."""
    outside, repo = _outside_and_repo(tmp_path)
    key, value = PATH_CASES[case]
    value = value.format(outside=outside)
    name, head, shown = PLACES[place]
    tokenizer = 'tokenizer = "qwen2"\n' if key == "chat-template" else ""
    (repo / name).write_text(f"{head}{tokenizer}{key} = {json.dumps(value)}\n")
    r = run_process("check", "train.jsonl", cwd=repo)
    err = one_line_error(r, f"{name}: {shown.format(key=key)} = ", "outside", "the folder of the configuration file")
    assert "root:" not in r.stdout + err  # nothing of /etc/passwd is shown


def test_a_configurations_relative_paths_are_relative_to_its_folder(tmp_path: Path) -> None:
    """The repository's own tokenizer, template and validation file, named relative to
    ftlint.toml, work from a subfolder (the file found upwards) and from elsewhere (--config):
    the same figures as the same files given as flags. Before: they were taken relative to the
    working directory (no such file)."""
    outside, repo = _outside_and_repo(tmp_path)
    (repo / "ft").mkdir()
    for name in ("tpl.jinja", "val.jsonl", "tokenizer.json"):
        (repo / "ft" / name).write_bytes((outside / name).read_bytes())
    (repo / "ftlint.toml").write_text('tokenizer = "ft/tokenizer.json"\nchat-template = "ft/tpl.jinja"\nvalidation = "ft/val.jsonl"\n')
    sub = repo / "data"
    sub.mkdir()
    (repo / "train.jsonl").rename(sub / "train.jsonl")
    flags = [f"--{key}={repo / 'ft' / name}" for key, name in
             (("tokenizer", "tokenizer.json"), ("chat-template", "tpl.jinja"), ("validation", "val.jsonl"))]
    expected = json.loads(run_process("--no-config", "estimate", "train.jsonl", "-o", "json", *flags, cwd=sub).stdout)
    plain = json.loads(run_process("--no-config", "estimate", "train.jsonl", "-o", "json", cwd=sub).stdout)
    assert plain["tokens"] != expected["tokens"] and expected["validation"]["records"] == 3  # the files count
    found = run_process("estimate", "train.jsonl", "-o", "json", cwd=sub)
    named = run_process("--config", str(repo / "ftlint.toml"), "estimate", str(sub / "train.jsonl"), "-o", "json", cwd=tmp_path)
    for r in (found, named):
        assert r.exit_code == 0, r.stderr
        e = json.loads(r.stdout)
        assert (e["tokens"], e["encoding"]) == (expected["tokens"], expected["encoding"]), (e, expected)
        assert {**e["validation"], "paths": None} == {**expected["validation"], "paths": None}, (e, expected)
    # a flag is the user's own: an outside template on the command line is used, config or not
    flag = run_process("estimate", "train.jsonl", "-o", "json", "--chat-template", str(outside / "tpl.jinja"), cwd=sub)
    assert flag.exit_code == 0 and json.loads(flag.stdout)["tokens"] == expected["tokens"], flag.stderr


def test_a_mapping_named_by_a_configuration_is_read_from_its_folder(tmp_path: Path) -> None:
    """`mapping = "ft/dataset_info.json:qa"` from a subfolder and through --config: the findings
    of the same mapping given as a flag. Before: no such file (taken from the working directory)."""
    repo = tmp_path / "repo"
    (repo / "ft").mkdir(parents=True)
    (repo / "ft" / "dataset_info.json").write_bytes((FIXTURES / "mapping" / "dataset_info.json").read_bytes())
    (repo / "ftlint.toml").write_text('mapping = "ft/dataset_info.json:qa"\n')
    sub = repo / "data"
    sub.mkdir()
    (sub / "qa.json").write_bytes((FIXTURES / "mapping" / "qa.json").read_bytes())
    flag = run_process("--no-config", "check", "qa.json", "-o", "json", "--mapping", f"{repo}/ft/dataset_info.json:qa", cwd=sub)
    assert flag.exit_code == 1 and "FT109" in flag.stdout, flag.stderr
    found = run_process("check", "qa.json", "-o", "json", cwd=sub)
    named = run_process("--config", str(repo / "ftlint.toml"), "check", "qa.json", "-o", "json", cwd=sub)
    for r in (found, named):
        assert (r.exit_code, r.stdout) == (1, flag.stdout), r.stderr


def test_every_option_that_names_a_file_is_confined() -> None:
    """Driven by the options' declarations: each option of a configurable command whose value is
    a file (a click.Path, or a FILE or PATH metavar) is refused outside the configuration's folder,
    so a path flag added later cannot escape the rule. Before: all were accepted."""
    from ftlint.cli import cli
    from ftlint.cli import config as cfg

    commands = {name: cmd for name, cmd in cli.commands.items() if name in cfg.SECTIONS}
    keys = {opt.lstrip("-") for cmd in commands.values() for p in cmd.params if isinstance(p, click.Option)
            and (isinstance(p.type, click.Path) or any(w in (p.metavar or "") for w in ("FILE", "PATH", "DIR")))
            for opt in p.opts if opt.startswith("--")} - set(cfg.NOT_FROM_FILES)
    assert keys >= {"tokenizer", "chat-template", "mapping", "validation"}, keys
    config = FIXTURES / "mapping" / "ftlint.toml"  # need not exist: only its folder matters
    for key in sorted(keys):
        with pytest.raises(cfg.ConfigError, match=f"{key} = '../x': outside"):
            cfg.build(config, {key: "../x"}, commands)


@pytest.mark.parametrize("kind", ["dev-zero", "fifo", "folder", "deep", "explicit-fifo"])
def test_a_configuration_file_that_is_no_bounded_regular_file_is_refused(tmp_path: Path, kind: str) -> None:
    """Before: ftlint.toml as a FIFO or a link to /dev/zero was passed over without a word (a
    parent's configuration, or none, applied), --config of a FIFO was 'no such file', and deeply
    nested TOML was an internal RecursionError."""
    (tmp_path / "train.jsonl").write_text(chats())
    target = tmp_path / "ftlint.toml"
    args = ["check", "train.jsonl"]
    if kind == "dev-zero":
        target.symlink_to("/dev/zero")
    elif kind in ("fifo", "explicit-fifo"):
        os.mkfifo(target)
        args = ["--config", "ftlint.toml", *args] if kind == "explicit-fifo" else args
    elif kind == "folder":
        target.mkdir()
    else:
        target.write_text("epochs = " + "[" * 100_000 + "]" * 100_000 + "\n")
    code, _out, err, peak = run_limited(args, memory_mib=CAP_MIB, cwd=str(tmp_path), timeout=60)
    expected = {"dev-zero": "a device, not a regular file", "fifo": "a FIFO, not a regular file", "folder": "a directory",
                "deep": "nested too deeply", "explicit-fifo": "--config ftlint.toml: a FIFO"}[kind]
    assert code == 2 and err.startswith("ftlint: error: ") and err.count("\n") == 1 and expected in err, err[-2000:]
    assert peak < 200, peak

"""A repository's own files in CI (issue 24, items 4 and 7): the paths its configuration names
stay inside the configuration's folder, and a trainer's mapping (LLaMA-Factory's
dataset_info.json, an axolotl config) is one bounded regular file of checked types. Each case is
a real repository in tmp_path and a real ftlint process; bombs run under an address-space cap."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from untrusted import run_limited

from conftest import FIXTURES, run_process

CAP_MIB = 1536  # polars and the interpreter need about 800 MiB of address space


def chats(n: int = 12) -> str:
    return "".join(json.dumps({"messages": [{"role": "user", "content": f"q{i}"}, {"role": "assistant", "content": f"a{i}"}]}) + "\n"
                   for i in range(n))


def one_line_error(r: object, *words: str) -> str:
    """Exit 2 and exactly one line on standard error, holding every word."""
    err = r.stderr  # type: ignore[attr-defined]
    assert r.exit_code == 2, (r.exit_code, r.stdout, err)  # type: ignore[attr-defined]
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


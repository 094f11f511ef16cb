"""Record mistral-finetune's own verdicts on fixtures/peer-cases/mistral-finetune/*.jsonl.

Not part of the suite and not run in CI: it needs a checkout of mistral-finetune
(https://github.com/mistralai/mistral-finetune, Apache-2.0) and an interpreter whose mistral-common
that checkout can import. Tests only read the manifest.json it writes.

What it runs, per line, is what mistral-finetune's utils/validate_data.py runs in its per-line loop,
by importing the checkout given with --source (nothing of it is copied into ftlint):

    json.loads(line)                                   (validate_data.py reads the file with readlines())
    finetune.data.tokenize.build_instruct_sample(data)  (files listed under `instruct_data`)
    finetune.data.tokenize.get_pretrain_sample(data)    (files listed under `data`, pretraining)
    finetune.data.tokenize.tokenize(sample, MistralTokenizer.v3().instruct_tokenizer)

utils/validate_data.py itself cannot be imported without the GPU stack (it imports finetune.args and
finetune.data.dataset, which import torch, simple_parsing and model/), but finetune/data/tokenize.py
imports only mistral-common and finetune/data/exceptions.py, and finetune/__init__.py and
finetune/data/__init__.py are empty, so `import finetune.data.tokenize` from the checkout needs no torch.
Which exceptions validate_data.py reports (rather than crashing on) is read from its `except` clauses
with `ast`, and each failing line says whether its exception would have been caught there.

When torch (a CPU wheel is enough), numpy, simple_parsing and tqdm are importable, two more things are
recorded: per file, the verdict of utils/validate_data.py's own main() (imported by path, run in-process
on a one-file train YAML: pass, reported, or crash with the exception), which also catches what no single
line shows (an empty file divides by zero in get_train_stats); and per valid instruct line, how many extra
samples training's dynamic_chunk_fn_call makes of it (finetune/data/dataset.py: maybe_chunk_lines) and
whether each of them encodes. --lines-only skips both.

Every file is recorded in instruct mode (ftlint's `mistral-finetune` format); files named pretrain_*.jsonl
are recorded in pretrain mode as well.

mistral-finetune imports InstructRequest from mistral_common.tokens.instruct.request and
InstructTokenizerBase from mistral_common.tokens.tokenizers.sentencepiece; mistral-common 1.5.5 moved
the second and 1.10.0 removed the first, so the faithful interpreter is one with mistral-common<=1.5.4:

    python -m venv /tmp/mf && /tmp/mf/bin/pip install mistral-common==1.5.4 simple-parsing tqdm pyyaml
    /tmp/mf/bin/pip install torch --index-url https://download.pytorch.org/whl/cpu    (optional, see above)
    git clone https://github.com/mistralai/mistral-finetune /tmp/mistral-finetune-src
    /tmp/mf/bin/python tools/record_mistral_finetune.py --source /tmp/mistral-finetune-src

With a newer mistral-common, --alias-moved-imports points the two old import paths at their new homes
(recorded in the manifest's header); the validator behind them is then that newer one, not the one
mistral-finetune was written against.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import contextlib
import datetime
import importlib
import importlib.metadata
import importlib.util
import io
import json
import platform
import subprocess
import sys
import tempfile
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
CASES = ROOT / "fixtures" / "peer-cases" / "mistral-finetune"
VALIDATE_DATA = "utils/validate_data.py"
TOKENIZE = "finetune/data/tokenize.py"
ERROR_CHARS = 200
# the calls inside utils/validate_data.py's per-line `try` blocks, and the stage each one is
STAGES = {"json.loads": "json", "build_instruct_sample": "sample", "tokenize": "tokenize"}
Chunker = Callable[[str], dict[str, Any]]


def git(source: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(source), *args], check=True, capture_output=True, text=True).stdout.strip()


def alias_moved_imports() -> list[str]:
    """Point the import paths mistral-finetune uses at where newer mistral-common keeps the same classes."""
    done: list[str] = []
    try:
        importlib.import_module("mistral_common.tokens.instruct.request")
    except ImportError:
        request = importlib.import_module("mistral_common.protocol.instruct.request")
        package = types.ModuleType("mistral_common.tokens.instruct")
        package.__path__ = []
        package.request = request  # type: ignore[attr-defined]
        sys.modules["mistral_common.tokens.instruct"] = package
        sys.modules["mistral_common.tokens.instruct.request"] = request
        done.append("mistral_common.tokens.instruct.request -> mistral_common.protocol.instruct.request")
    sentencepiece = importlib.import_module("mistral_common.tokens.tokenizers.sentencepiece")
    if not hasattr(sentencepiece, "InstructTokenizerBase"):
        instruct = importlib.import_module("mistral_common.tokens.tokenizers.instruct")
        sentencepiece.InstructTokenizerBase = instruct.InstructTokenizerBase  # type: ignore[attr-defined]
        done.append("mistral_common.tokens.tokenizers.sentencepiece.InstructTokenizerBase -> "
                    "mistral_common.tokens.tokenizers.instruct.InstructTokenizerBase")
    return done


def import_tokenize(source: Path) -> types.ModuleType:
    sys.path.insert(0, str(source))
    module = importlib.import_module("finetune.data.tokenize")
    where = Path(module.__file__ or "").resolve()
    if where != (source / TOKENIZE).resolve():
        raise SystemExit(f"finetune.data.tokenize came from {where}, not from {source}")
    return module


def call_names(nodes: list[ast.stmt]) -> set[str]:
    names: set[str] = set()
    for node in nodes:
        for sub in ast.walk(node):
            if isinstance(sub, ast.Call):
                names.add(ast.unparse(sub.func))
    return names


def caught_by_validate_data(source: Path) -> dict[str, dict[str, Any]]:
    """The exception names each per-line `try` of validate_data.py catches, resolved to classes via its imports."""
    tree = ast.parse((source / VALIDATE_DATA).read_text(encoding="utf-8"))
    found: dict[str, dict[str, Any]] = {}
    for node in ast.walk(tree):
        if not isinstance(node, ast.Try):
            continue
        calls = call_names(node.body)
        for call, stage in STAGES.items():
            if call not in calls:
                continue
            names: list[str] = []
            for handler in node.handlers:
                if handler.type is not None:
                    kinds = handler.type.elts if isinstance(handler.type, ast.Tuple) else [handler.type]
                    names += [ast.unparse(kind) for kind in kinds]
            found[stage] = {"call": call, "line": node.lineno, "catches": names}
    missing = set(STAGES.values()) - set(found)
    if missing:
        raise SystemExit(f"{VALIDATE_DATA}: found no `try` around the {sorted(missing)} stage(s); has it changed?")
    return found


def resolve(name: str, homes: dict[str, str | None]) -> type[BaseException]:
    home = homes.get(name)
    kind = getattr(builtins, name) if home is None else getattr(importlib.import_module(home), name)
    if not (isinstance(kind, type) and issubclass(kind, BaseException)):
        raise SystemExit(f"{VALIDATE_DATA} catches {name}, which is not an exception class")
    return kind


def describe(error: BaseException) -> tuple[str, bool]:
    """The error as "Type: message" (cut to ERROR_CHARS), and whether str() of it worked."""
    try:
        text, printable = str(error), True
    except Exception as broken:  # mistral-finetune's UnrecognizedRoleError.__str__ reads attributes it never sets
        text, printable = f"<str() raised {type(broken).__name__}: {broken}>", False
    return f"{type(error).__name__}: {text}"[:ERROR_CHARS], printable


def judge_line(number: int, line: str, mode: str, tokenize: types.ModuleType, instruct_tokenizer: Any,
               catches: dict[str, tuple[type[BaseException], ...]], chunker: Chunker | None) -> dict[str, Any]:
    stage = "json"
    try:
        data = json.loads(line)
        if mode == "pretrain":
            stage = "pretrain-sample"
            sample = tokenize.get_pretrain_sample(data)
        else:
            stage = "sample"
            sample = tokenize.build_instruct_sample(data)
        stage = "tokenize"
        tokens = tokenize.tokenize(sample, instruct_tokenizer)
    except Exception as error:
        text, printable = describe(error)
        # validate_data.py formats every error it catches with str(e), so one whose str() raises stops it as well
        return {"line": number, "ok": False, "error": text, "stage": stage,
                "caught_by_validate_data": isinstance(error, catches.get(stage, ())) and printable}
    verdict: dict[str, Any] = {"line": number, "ok": True, "error": None, "tokens": len(tokens.tokens),
                               "loss_tokens": sum(tokens.masks)}
    if chunker is not None and mode == "instruct":
        verdict |= chunker(line)
    return verdict


def judge_file(path: Path, mode: str, tokenize: types.ModuleType, instruct_tokenizer: Any,
               catches: dict[str, tuple[type[BaseException], ...]], chunker: Chunker | None,
               whole: Callable[[Path, str], dict[str, Any]] | None) -> dict[str, Any]:
    case: dict[str, Any] = {"file": path.name, "mode": mode}
    try:
        with path.open(encoding="utf-8") as handle:  # as validate_data.py opens it
            lines = handle.readlines()
    except UnicodeDecodeError as error:
        verdicts: list[dict[str, Any]] = []
        case["file_error"] = describe(error)[0]
    else:
        verdicts = [judge_line(n, line, mode, tokenize, instruct_tokenizer, catches, chunker) for n, line in enumerate(lines, 1)]
    case["expected_pass"] = "file_error" not in case and all(v["ok"] for v in verdicts)
    if whole is not None:
        case["validate_data"] = whole(path, mode)
        case["expected_pass"] = case["validate_data"]["verdict"] == "pass"
    case["line_verdicts"] = verdicts
    return case


def make_chunker(tokenize: types.ModuleType, instruct_tokenizer: Any) -> Chunker:
    """What training adds with data.instruct.dynamic_chunk_fn_call (the default): finetune/data/dataset.py's
    maybe_chunk_lines makes extra samples from a line, and each is json.loads-ed and encoded like a line."""
    dataset = importlib.import_module("finetune.data.dataset")  # imports torch.distributed and numpy

    def chunker(line: str) -> dict[str, Any]:
        try:
            extra = dataset.maybe_chunk_lines([line])
        except Exception as error:
            return {"chunks": None, "chunk_error": describe(error)[0]}
        result: dict[str, Any] = {"chunks": len(extra)}
        for n, chunk in enumerate(extra, 1):
            try:
                tokenize.encode(json.loads(chunk), instruct_tokenizer=instruct_tokenizer, as_type=tokenize.SampleType.INSTRUCT)
            except Exception as error:
                result["chunk_error"] = f"chunk {n}: " + describe(error)[0]
                break
        return result

    return chunker


def make_whole_run(source: Path, work: Path) -> Callable[[Path, str], dict[str, Any]]:
    """Run utils/validate_data.py's main() on one file, listed as `instruct_data` or as pretraining `data`."""
    spec = importlib.util.spec_from_file_location("mistral_finetune_validate_data", source / VALIDATE_DATA)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load {source / VALIDATE_DATA}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)

    def whole(path: Path, mode: str) -> dict[str, Any]:
        key = "data" if mode == "pretrain" else "instruct_data"
        config = work / "train.yaml"  # JSON strings are YAML strings; the model id only feeds the ETA table
        config.write_text(f"data:\n  {key}: {json.dumps(str(path))}\nmodel_id_or_path: open-mistral-7b\n"
                          f"run_dir: {json.dumps(str(work / 'run'))}\n", encoding="utf-8")
        args = argparse.Namespace(train_yaml=str(config), error_report_txt=str(work / "errors.txt"),
                                  train_stats_json=str(work / "stats.json"), save_reports=False, create_corrected=False)
        printed = io.StringIO()
        try:
            with contextlib.redirect_stdout(printed), contextlib.redirect_stderr(io.StringIO()):
                module.main(args)
        except Exception as error:
            return {"verdict": "crash", "error": describe(error)[0]}
        text = printed.getvalue()
        if "No errors!" in text:
            return {"verdict": "pass"}
        if "Data error report" in text:
            return {"verdict": "reported", "errors": text.count("The data in line ")}
        return {"verdict": "unknown", "printed": text[-ERROR_CHARS:]}

    return whole


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source", type=Path, required=True, help="a checkout of mistral-finetune")
    parser.add_argument("--cases", type=Path, default=CASES, help="the fixture directory (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=None, help="where to write the manifest (default: CASES/manifest.json)")
    parser.add_argument("--alias-moved-imports", action="store_true",
                        help="let mistral-common>=1.5.5 stand in (see the module docstring)")
    parser.add_argument("--lines-only", action="store_true",
                        help="skip the parts that need torch even if it is installed (whole-file runs, chunking)")
    args = parser.parse_args()
    source: Path = args.source.resolve()
    for needed in (VALIDATE_DATA, TOKENIZE):
        if not (source / needed).is_file():
            raise SystemExit(f"{source} has no {needed}: is it a mistral-finetune checkout?")

    aliases = alias_moved_imports() if args.alias_moved_imports else []
    try:
        tokenize = import_tokenize(source)
    except ImportError as error:
        raise SystemExit(f"cannot import {TOKENIZE} ({error}); use mistral-common<=1.5.4 or --alias-moved-imports") from error
    from mistral_common.tokens.tokenizers.mistral import MistralTokenizer

    try:
        instruct_tokenizer = MistralTokenizer.v3().instruct_tokenizer  # the tokenizer utils/validate_data.py checks with
    except ImportError as error:  # mistral-common>=1.6 makes sentencepiece an extra
        raise SystemExit(f"MistralTokenizer.v3() needs sentencepiece: {error}") from error

    tree = ast.parse((source / VALIDATE_DATA).read_text(encoding="utf-8"))
    homes = {alias.asname or alias.name: node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             for alias in node.names}
    found = caught_by_validate_data(source)
    catches = {stage: tuple(resolve(name, homes) for name in info["catches"]) for stage, info in found.items()}

    chunker: Chunker | None = None
    whole: Callable[[Path, str], dict[str, Any]] | None = None
    missing = [name for name in ("torch", "numpy", "simple_parsing", "tqdm") if importlib.util.find_spec(name) is None]
    if not missing and not args.lines_only:
        chunker = make_chunker(tokenize, instruct_tokenizer)
    cases: list[dict[str, Any]] = []
    with tempfile.TemporaryDirectory() as work:
        if chunker is not None:
            whole = make_whole_run(source, Path(work))
        for path in sorted(args.cases.glob("*.jsonl")):
            cases.append(judge_file(path, "instruct", tokenize, instruct_tokenizer, catches, chunker, whole))
            if path.name.startswith("pretrain_"):
                cases.append(judge_file(path, "pretrain", tokenize, instruct_tokenizer, catches, chunker, whole))

    header: dict[str, Any] = {
        "project": "mistral-finetune",
        "repository": "https://github.com/mistralai/mistral-finetune",
        "commit": git(source, "rev-parse", "HEAD"),
        "commit_date": git(source, "log", "-1", "--format=%cI"),
        "checkout_modified": bool(git(source, "status", "--porcelain", "--untracked-files=no")),
        "license": "Apache-2.0",
        "functions": {
            "sample": f"{TOKENIZE}: build_instruct_sample (instruct mode)",
            "pretrain-sample": f"{TOKENIZE}: get_pretrain_sample (pretrain mode)",
            "tokenize": f"{TOKENIZE}: tokenize, with MistralTokenizer.v3().instruct_tokenizer",
            "driver": f"{VALIDATE_DATA}: main (per-line loop; not imported, it needs torch)",
        },
        "validate_data_catches": {stage: {"line": info["line"], "call": info["call"], "catches": info["catches"]}
                                  for stage, info in sorted(found.items())},
        "mistral_common": importlib.metadata.version("mistral_common"),
        "import_aliases": aliases,
        "whole_file_runs": whole is not None,
        "whole_file_runs_missing": missing if whole is None and not args.lines_only else [],
        "torch": importlib.metadata.version("torch") if "torch" in sys.modules else None,
        "python": platform.python_version(),
        "recorded": datetime.date.today().isoformat(),
        "modes": "every file in instruct mode; pretrain_*.jsonl also in pretrain mode",
        "verdict": "line ok: the line passed json.loads, the sample builder and tokenize; caught_by_validate_data: "
                   "validate_data.py would report the error (false: the script stops with a traceback); chunks: extra "
                   "samples dynamic_chunk_fn_call makes in training (chunk_error: one of them fails to encode); "
                   "validate_data: utils/validate_data.py's main() on the file (pass, reported, crash); expected_pass: "
                   "validate_data's verdict is pass when whole_file_runs, else every line ok",
    }
    out: Path = args.out or args.cases / "manifest.json"
    out.write_text(json.dumps({"source": header, "cases": cases}, indent=1, ensure_ascii=False) + "\n", encoding="utf-8")
    failing = sum(not c["expected_pass"] for c in cases)
    print(f"{out}: {len(cases)} cases, {failing} rejected (mistral-finetune {header['commit'][:12]}, "
          f"mistral-common {header['mistral_common']})")


if __name__ == "__main__":
    main()

"""LLaMA-Factory's dataset_info.json as a column mapping (`--mapping dataset_info.json[:NAME]`).

LLaMA-Factory's dataset_info.json (data/README.md of hiyouga/LLaMA-Factory, read 2026-12-01)
names, per dataset, its `formatting` (alpaca, the default, or sharegpt), the `columns` that hold
each part (prompt, query, response, system, history; messages, system, tools) and, for ShareGPT,
the `tags`: which key holds a turn's speaker and content, and which speaker values mean user,
assistant, tool result, function call and system. Each record is read through the mapping into
ftlint's `alpaca` or `sharegpt` shape (ftlint/mapping.py).
"""

from __future__ import annotations

from pathlib import Path

from ...documents import parse_json
from ...mapping import SHAREGPT_TAGS, Mapping, MappingError, document, validate

# src/llamafactory/data/parser.py DatasetAttr: each column's default (None: not read unless named); the
# preference and KTO columns (chosen, rejected, kto_tag) of data/converter.py, for both formattings
PAIRS = {"chosen": ("chosen", None), "rejected": ("rejected", None), "kto_tag": ("kto_tag", None)}
# the media columns (LLaMA-Factory's images, videos, audios: data/README.md) keep their canonical names
MEDIA_COLUMNS = {"images": ("images", None), "videos": ("videos", None), "audios": ("audios", None)}
ALPACA_COLUMNS = {"prompt": ("instruction", "instruction"), "query": ("input", "input"), "response": ("output", "output"),
                  "system": ("system", None), "history": ("history", None), "tools": ("tools", None), **PAIRS,
                  **MEDIA_COLUMNS}
SHAREGPT_COLUMNS = {"messages": ("conversations", "conversations"), "system": ("system", None), "tools": ("tools", None),
                    **PAIRS, **MEDIA_COLUMNS}


def mapping_of(file: str, name: str, paths: tuple[str, ...], limit: int) -> Mapping:
    """The entry NAME, else the one whose file_name is an input's name, else the only entry. The
    file is one regular file of at most `limit` bytes (--max-file-bytes), bounded in depth and size
    (ftlint/documents.py) and valid against schemas/llamafactory-dataset-info.schema.json."""
    info = document(file, limit, parse_json)
    if not isinstance(info, dict):
        raise MappingError(f"--mapping {file}: not a LLaMA-Factory dataset_info.json (an object of dataset entries)")
    validate(file, info, "llamafactory-dataset-info")
    if name:
        if name not in info:
            raise MappingError(f"--mapping {file}: no dataset {name!r} (it has {', '.join(sorted(info)[:8])})")
    else:
        names = {Path(p).name for p in paths}
        chosen = [k for k, v in info.items() if Path(str(v.get("file_name", ""))).name in names]
        if len(chosen) == 1 or len(info) == 1:
            name = chosen[0] if chosen else next(iter(info))
        else:
            raise MappingError(f"--mapping {file}: say which dataset with {file}:NAME ({len(info)} entries, "
                               f"{len(chosen)} naming an input)")
    entry = info[name]
    formatting = entry.get("formatting") or "alpaca"
    if formatting not in ("alpaca", "sharegpt"):  # the schema allows LLaMA-Factory's third, openai
        raise MappingError(f"--mapping {file}:{name}: formatting {formatting!r} is not read through a mapping yet "
                           "(alpaca and sharegpt are)")
    given = {k: v for k, v in (entry.get("columns") or {}).items() if v is not None}  # null: no such column
    if formatting == "alpaca" and set(given) == {"prompt"} and isinstance(given["prompt"], str):
        # data/README.md, Pre-training Dataset: `"columns": {"prompt": "text"}`, and "only the text column
        # will be used" (data/processor/pretrain.py reads the prompt alone): no output to miss
        return Mapping(name, "text", {"text": given["prompt"]}, ("text",),
                       reason=f"{Path(file).name} entry {name}: its one column, prompt, is pre-training text")
    table = ALPACA_COLUMNS if formatting == "alpaca" else SHAREGPT_COLUMNS
    unknown = sorted(set(given) - set(table))
    if unknown:
        raise MappingError(f"--mapping {file}:{name}: unknown columns {unknown} for {formatting}")
    columns: dict[str, str] = {}
    for key, (canonical, default) in table.items():
        column = given.get(key, default)
        if isinstance(column, str):
            columns[canonical] = column
    required = ("conversations",) if formatting == "sharegpt" else ("instruction", "chosen", "rejected") if entry.get("ranking") \
        else ("instruction", "output")
    tags = {**SHAREGPT_TAGS, **{k: v for k, v in (entry.get("tags") or {}).items() if isinstance(v, str)}}
    # src/llamafactory/hparams/data_args.py: media_dir defaults to dataset_dir, the folder of dataset_info.json
    return Mapping(name, formatting, columns, required, tags, media_dir=str(Path(file).resolve().parent),
                   reason=f"{Path(file).name} entry {name}: formatting {formatting}{'' if entry.get('formatting') else ' (the default)'}")

"""Configuration: defaults < ftlint.toml / pyproject.toml [tool.ftlint] < command-line flags.

The file is found by walking up from the working directory; the first directory holding an
`ftlint.toml`, or a `pyproject.toml` with a [tool.ftlint] table, wins. Keys are the flags'
names without dashes in front (`batch-size = 8`). Keys at the top apply to every command that
has the flag; a [check] or [estimate] table (in pyproject: [tool.ftlint.estimate]) applies to
that command only. [per-file-ignores] maps a glob (relative to the config file) to codes.

A key no command knows, or a value its flag would refuse, is an error naming the file and key.
"""

from __future__ import annotations

import fnmatch
import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import click

SECTIONS = ("check", "estimate")


class ConfigError(Exception):
    pass


@dataclass
class Config:
    path: Path | None = None
    default_map: dict[str, dict[str, object]] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()

    @property
    def base_dir(self) -> str | None:
        return str(self.path.parent) if self.path else None


def ignores_for(per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...], base_dir: str | None,
                path: str) -> tuple[str, ...]:
    """Codes [per-file-ignores] ignores for `path` (globs are relative to the config file)."""
    if not per_file_ignores or path == "<stdin>" or base_dir is None:
        return ()
    relative = os.path.relpath(os.path.abspath(path), base_dir)
    codes: list[str] = []
    for pattern, ignored in per_file_ignores:
        if fnmatch.fnmatch(relative, pattern) or fnmatch.fnmatch(os.path.basename(path), pattern):
            codes.extend(ignored)
    return tuple(codes)


def find(start: Path) -> tuple[Path, dict] | None:
    for directory in (start, *start.parents):
        candidate = directory / "ftlint.toml"
        if candidate.is_file():
            return candidate, _load(candidate)
        pyproject = directory / "pyproject.toml"
        if pyproject.is_file():
            table = _load(pyproject).get("tool", {}).get("ftlint")
            if table is not None:
                return pyproject, table
    return None


def _load(path: Path) -> dict:
    try:
        with open(path, "rb") as fh:
            return tomllib.load(fh)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None


def build(path: Path, table: dict, commands: dict[str, click.Command]) -> Config:
    config = Config(path=path)
    for name in SECTIONS:
        config.default_map[name] = {}
    for key, value in table.items():
        if key in SECTIONS:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: [{key}] must be a table")
            for sub_key, sub_value in value.items():
                _set(config, path, commands, (key,), sub_key, sub_value, f"{key}.{sub_key}")
        elif key == "per-file-ignores":
            config.per_file_ignores = _per_file_ignores(path, value)
        else:
            _set(config, path, commands, SECTIONS, key, value, key)
    return config


def _set(config: Config, path: Path, commands: dict[str, click.Command], sections: tuple[str, ...],
         key: str, value: object, shown: str) -> None:
    used = False
    for section in sections:
        option = _option(commands[section], key)
        if option is None:
            continue
        used = True
        ctx = click.Context(commands[section])
        try:
            if option.multiple and isinstance(value, str):
                value = [value]
            converted = option.type_cast_value(ctx, value)
            if option.callback is not None:
                option.callback(ctx, option, converted)
        except click.BadParameter as exc:
            raise ConfigError(f"{path}: {shown} = {value!r}: {exc.message}") from None
        config.default_map[section][option.name] = converted  # type: ignore[index]
    if not used:
        known = sorted({opt.lstrip("-") for s in sections for p in commands[s].params
                        if isinstance(p, click.Option) for opt in p.opts if opt.startswith("--")} - {"help"})
        raise ConfigError(f"{path}: unknown key '{shown}'; known keys: {', '.join(known)}")


def _option(command: click.Command, key: str) -> click.Option | None:
    for param in command.params:
        if isinstance(param, click.Option) and f"--{key}" in param.opts:
            return param
    return None


def _per_file_ignores(path: Path, value: object) -> tuple[tuple[str, tuple[str, ...]], ...]:
    if not isinstance(value, dict):
        raise ConfigError(f"{path}: [per-file-ignores] must map globs to lists of codes")
    out = []
    for pattern, codes in value.items():
        if isinstance(codes, str):
            codes = [codes]
        if not isinstance(codes, list) or not all(isinstance(c, str) for c in codes):
            raise ConfigError(f"{path}: per-file-ignores.{pattern!r} must be a list of codes")
        out.append((pattern, tuple(c.strip().upper() for c in codes)))
    return tuple(out)

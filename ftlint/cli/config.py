"""Configuration: defaults < ftlint.toml / pyproject.toml [tool.ftlint] < command-line flags.

The file is found by walking up from the working directory; the first directory holding an
`ftlint.toml`, or a `pyproject.toml` with a [tool.ftlint] table, wins. Keys are the flags'
names without dashes in front (`batch-size = 8`). Keys at the top apply to every command that
has the flag; a [check], [estimate], [plan], [diff] or [review] table (in pyproject:
[tool.ftlint.estimate]) applies to that command only. [per-file-ignores] maps a glob (relative
to the config file) to codes.

A key no command knows, or a value its flag would refuse, is an error naming the file and key;
values are converted as strictly as the flags (no NaN, no infinity, no float for a whole number).

Trust: a configuration file found in the repository is written by whoever writes the repository
(in CI, by the author of a pull request). It may tune ftlint, but it may not choose where ftlint
writes (`output-file` is refused; give --output-file), nor hide findings behind a baseline
(`baseline` is refused; give --baseline), nor point ftlint at files outside its own folder (a
path it names, for any option that names a file, is taken relative to the file's folder and
must resolve there, symlinks followed: trust.confine), and it cannot silently switch the gate off:
codes of error severity that it ignores or leaves unselected are named on standard error, and
in the report's summary (`Config.notes`). Where the gate belongs to someone else (the GitHub
Action's workflow owns the model, trainer, price and run config), `--not-from-config KEYS` leaves
those keys to the command line and ftlint's defaults: a value the file sets for one is said, in
the same places, and not used.
"""

from __future__ import annotations

import os
import tomllib
from dataclasses import dataclass, field
from pathlib import Path

import click

from ..checked import shown as _shown
from ..trust import MAX_CONFIG_BYTES, Refused, confine, read_file, special

SECTIONS = ("check", "estimate", "plan", "diff", "review")
NOT_FROM_FILES = {
    "output-file": "a configuration file may not choose where ftlint writes; give --output-file on the command line",
    "baseline": "a configuration file may not hide findings behind a baseline; give --baseline on the command line",
}


class ConfigError(Exception):
    pass


@dataclass
class Config:
    path: Path | None = None
    default_map: dict[str, dict[str, object]] = field(default_factory=dict)
    per_file_ignores: tuple[tuple[str, tuple[str, ...]], ...] = ()
    notes: list[str] = field(default_factory=list)  # what the file turns off, said to the user
    withheld: list[str] = field(default_factory=list)  # its values --not-from-config left unused, said for every command

    @property
    def base_dir(self) -> str | None:
        return str(self.path.parent) if self.path else None


def find(start: Path) -> tuple[Path, dict] | None:
    """The first configuration upwards from `start`. A name that is there but no regular file
    (a FIFO, a device, a folder, a dangling link) is refused, not passed over for a parent's."""
    for directory in (start, *start.parents):
        candidate = directory / "ftlint.toml"
        if os.path.lexists(candidate):
            return candidate, _load(candidate, "configuration")
        pyproject = directory / "pyproject.toml"
        if os.path.lexists(pyproject):
            table = _load(pyproject, "configuration").get("tool", {}).get("ftlint")
            if table is not None:
                if not isinstance(table, dict):
                    raise ConfigError(f"{pyproject}: [tool.ftlint] must be a table")
                return pyproject, table
    return None


def load_explicit(path: Path) -> tuple[Path, dict]:
    data = _load(path, "--config")
    table = data.get("tool", {}).get("ftlint", {}) if path.name == "pyproject.toml" else data
    if not isinstance(table, dict):
        raise ConfigError(f"{path}: [tool.ftlint] must be a table")
    return path, table


def _load(path: Path, what: str) -> dict:
    try:
        data = read_file(path, what, MAX_CONFIG_BYTES)
    except Refused as exc:
        raise ConfigError(str(exc)) from None
    try:
        return tomllib.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{path}: {exc}") from None
    except ValueError as exc:  # an integer past Python's 4,300 digits, which tomllib converts with int()
        raise ConfigError(f"{path}: not read ({str(exc).split(';')[0]})") from None
    except RecursionError:  # tomllib parses nested arrays and inline tables recursively
        raise ConfigError(f"{path}: values nested too deeply to be a configuration") from None


def build(path: Path, table: dict, commands: dict[str, click.Command], explicit: bool = False,
          withheld: frozenset[str] = frozenset()) -> Config:
    """The defaults a configuration file gives each command. `explicit`: named with --config by
    the user; the same rules hold (no output-file, paths inside its folder): in CI the file named
    is still the repository's. `withheld`: keys (--not-from-config) whose values are said, not used."""
    config = Config(path=path)
    for name in commands:
        config.default_map[name] = {}
    for key, value in table.items():
        if key in commands:
            if not isinstance(value, dict):
                raise ConfigError(f"{path}: [{key}] must be a table")
            for sub_key, sub_value in value.items():
                if sub_key in withheld:
                    config.withheld.append(_withheld(f"{key}.{sub_key}", sub_key, sub_value))
                    continue
                _set(config, path, commands, (key,), sub_key, sub_value, f"{key}.{sub_key}")
        elif key in withheld:
            config.withheld.append(_withheld(key, key, value))
        elif key == "per-file-ignores":
            config.per_file_ignores = _per_file_ignores(path, value)
        else:
            _set(config, path, commands, tuple(commands), key, value, key)
    config.notes = _weakened(config)
    return config


def _withheld(shown: str, key: str, value: object) -> str:
    from ..redact import redact

    given = redact(repr(value))
    given = given if len(given) <= 80 else given[:77] + "..."
    return f"{shown} = {given} not used: --not-from-config leaves {key} to the command line and ftlint's defaults"


def known_keys(commands: dict[str, click.Command]) -> set[str]:
    """Every key a configuration file may set for these commands."""
    return {opt.lstrip("-") for command in commands.values() for p in command.params
            if isinstance(p, click.Option) for opt in p.opts if opt.startswith("--")} - {"help"} - set(NOT_FROM_FILES)


def _set(config: Config, path: Path, commands: dict[str, click.Command], sections: tuple[str, ...],
         key: str, value: object, shown: str) -> None:
    if key in NOT_FROM_FILES:
        raise ConfigError(f"{path}: {shown}: {NOT_FROM_FILES[key]}")
    used = False
    for section in sections:
        option = _option(commands[section], key)
        if option is None:
            continue
        used = True
        ctx = click.Context(commands[section])
        given = _confined(option, value, path, shown)  # from the file's own value, in every section alike
        try:
            if option.multiple and isinstance(given, str):
                given = [given]
            if option.multiple and not isinstance(given, list):
                raise click.BadParameter(f"expected a list, got {type(given).__name__}")
            if option.is_flag and not isinstance(given, bool):
                raise click.BadParameter(f"expected true or false, got {type(given).__name__}")
            converted = option.type_cast_value(ctx, given)
            if option.callback is not None:
                converted = option.callback(ctx, option, converted)
        except click.BadParameter as exc:
            raise ConfigError(f"{path}: {shown} = {quoted(value)}: {exc.message}") from None
        config.default_map[section][str(option.name)] = converted
    if not used:
        known = sorted(known_keys({s: commands[s] for s in sections}))
        raise ConfigError(f"{path}: unknown key '{shown}'; known keys: {', '.join(known)}")


def quoted(value: object) -> str:
    """A value as an error quotes it: a long one (a 400-digit number) cut short."""
    return _shown(repr(value))


def _confined(option: click.Option, value: object, path: Path, shown: str) -> object:
    """A value that names a file, as a path inside the configuration's folder (relative to it,
    symlinks followed), or refused naming the file, the key and the value. Which options name
    files is declared with them (cli/options.py FileOption; any click.Path option too)."""
    from .options import FileOption, whole_value

    file_part = option.file_part if isinstance(option, FileOption) else whole_value if isinstance(option.type, click.Path) else None
    if file_part is None:
        return value
    if option.multiple and isinstance(value, list):
        return [_confined(option, item, path, shown) for item in value]
    if not isinstance(value, str):
        raise ConfigError(f"{path}: {shown} = {value!r}: expected a path (a string)")
    part = file_part(value, path.parent)
    if part is None:  # a name, not a file (a tokenizer family)
        return value
    file, rest = part
    try:
        inside = confine(file, path, shown)
    except Refused as exc:
        raise ConfigError(str(exc)) from None
    what = special(inside) if isinstance(option.type, click.Path) else None
    if what is not None:  # data (validation): a FIFO or a device would block the data reader, or never end
        raise ConfigError(f"{path}: {shown} = {quoted(value)}: {what}, not a regular file or a folder")
    return _from_here(inside) + rest


def _from_here(resolved: str) -> str:
    """A resolved path, relative to the working directory when it lies below it: findings and
    annotations (GitHub's take paths from the repository's root) name it as the data's paths."""
    here = os.getcwd()
    return os.path.relpath(resolved, here) if resolved.startswith(here.rstrip(os.sep) + os.sep) else resolved


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
        cleaned = tuple(c.strip().upper() for c in codes)
        for code in cleaned:
            if not (code.startswith("FT") and code[2:].isdigit() and len(code) <= 5):
                raise ConfigError(f"{path}: per-file-ignores.{pattern!r}: {code!r} is not a code or code prefix")
        out.append((pattern, cleaned))
    return tuple(out)


def _weakened(config: Config) -> list[str]:
    """What the file turns off of the gate: error codes it ignores or does not select."""
    from ..rules import ERROR, registry

    errors = sorted(code for code, rule in registry().items() if rule.severity == ERROR)
    notes = []
    for section, values in config.default_map.items():
        ignored = _prefixes(values.get("ignore"))
        selected = _prefixes(values.get("select"))
        off = [c for c in errors if (ignored and c.startswith(ignored)) or (selected and not c.startswith(selected))]
        if off:
            notes.append(f"{section}: {_codes(off)} (error codes) switched off by ignore/select")
    for pattern, codes in config.per_file_ignores:
        off = [c for c in errors if c.startswith(codes)]
        if off:
            notes.append(f"files matching {pattern!r}: {_codes(off)} (error codes) switched off by per-file-ignores")
    return notes


def _prefixes(value: object) -> tuple[str, ...]:
    return tuple(str(v) for v in value) if isinstance(value, (list, tuple)) else ()


def _codes(codes: list[str]) -> str:
    return ", ".join(codes) if len(codes) <= 6 else f"{', '.join(codes[:6])} and {len(codes) - 6} more"

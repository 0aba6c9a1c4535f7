"""Declaration files: the TOML files whoever deploys the playground writes, each a table of
named entries (`[services.<name>]`, `[servers.<name>]`, `[agents.<name>]`), read and checked the
same way. Each file's module builds its entries and names its own error, which every message
here goes through with the file and the key it is about.
"""

import re
import tomllib
from collections.abc import Iterator
from pathlib import Path

NAME = re.compile(r"^[a-z0-9][a-z0-9_-]{0,40}$")


def entries(path: Path, key: str, error: type[Exception]) -> Iterator[tuple[str, str, dict]]:
    """Yield `(where, name, table)` for each `[key.<name>]` of the file at `path`, in order,
    each name and table checked just before it is yielded; raise `error` saying what is wrong."""
    try:
        data = tomllib.loads(path.read_text())
    except OSError as problem:
        raise error(f"{path}: cannot read it ({problem.strerror}).") from None
    except tomllib.TOMLDecodeError as problem:
        raise error(f"{path}: not valid TOML: {problem}.") from None
    if unknown := sorted(set(data) - {key}):
        raise error(f"{path}: unknown top-level key {unknown[0]!r}.")
    tables = data.get(key, {})
    if not isinstance(tables, dict):
        raise error(f"{path}: {key} must be a table ([{key}.<name>]).")
    for name, table in tables.items():
        where = f"{path}: {key}.{name}"
        if not NAME.match(name):
            raise error(f"{where}: a name is lowercase letters, digits, - and _.")
        if not isinstance(table, dict):
            raise error(f"{where} must be a table.")
        yield where, name, table


def known_keys(where: str, table: dict, known: set[str], error: type[Exception]) -> None:
    """Raise `error` naming the first key of `table` that is not one of `known`."""
    if unknown := sorted(set(table) - known):
        raise error(f"{where}.{unknown[0]}: unknown key.")


def text(where: str, key: str, value, error: type[Exception]) -> str:
    if not isinstance(value, str) or not value.strip():
        raise error(f"{where}.{key}: must be a non-empty string.")
    return value


def texts(where: str, key: str, value, error: type[Exception]) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise error(f"{where}.{key}: must be a list of strings.")
    return value


def positive(where: str, key: str, value, kind: type, error: type[Exception]) -> float | int:
    if isinstance(value, bool) or not isinstance(value, int | float) or value <= 0:
        raise error(f"{where}.{key}: must be a positive number.")
    return kind(value)

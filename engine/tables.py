"""Typed reads of TOML tables whose errors name the file, the entry and the key.

Content files (``data/*.toml``), spell definitions, primitive parameters and conformance scenarios
all read tables the same way: a key is required or has a default, has a type, sometimes a set of
allowed words or a minimum, and a bad one is reported where it stands. Each reader keeps its own
error class, and with it the wording of its messages, by passing it as ``error``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

ErrorFactory = Callable[[str, str | None, str | None, str], Exception]
"""Builds the exception for ``(file, entry, key, message)``; ``entry`` and ``key`` may be None."""


class TableError(ValueError):
    """A bad value in a data table; the message names the file, the entry and the key."""

    def __init__(self, file: str, entry: str | None, key: str | None, message: str) -> None:
        super().__init__(f"{self.locate(file, entry, key)}: {message}")
        self.file = file
        self.entry = entry
        self.key = key
        self.message = message

    @staticmethod
    def locate(file: str, entry: str | None, key: str | None) -> str:
        """Where the bad value is, as the message starts: ``units.toml: [archer] key 'hp'``."""
        where = file
        if entry is not None:
            where += f": [{entry}]"
        if key is not None:
            where += f" key {key!r}"
        return where


class Table:
    """One table of a data file. ``entry`` names it inside the file (a unit id, a spell id) and
    ``path`` is where it sits under that entry (``requires``, ``turn[0].expect``); the key of
    every failure is written from the path (``turn[0].expect.groups``)."""

    def __init__(
        self,
        file: str,
        entry: str | None,
        raw: object,
        error: ErrorFactory = TableError,
        *,
        path: str = "",
        not_table: str = "must be a table",
    ) -> None:
        self.file = file
        self.entry = entry
        self.path = path
        self.error = error
        if not isinstance(raw, Mapping):
            raise self.fail(None, not_table)
        self.raw: Mapping[str, Any] = raw

    # -------------------------------------------------------------------------- failures

    def key_path(self, key: str | None) -> str | None:
        if key is None:
            return self.path or None
        return f"{self.path}.{key}" if self.path else key

    def fail(self, key: str | None, message: str) -> Exception:
        """The error for a bad ``key`` of this table (``None``: the table itself)."""
        return self.error(self.file, self.entry, self.key_path(key), message)

    def known(self, allowed: Sequence[str], *, also: Sequence[str] = ()) -> Table:
        """Fail on the first key not in ``allowed`` or ``also`` (``also`` names selector keys,
        such as an effect's ``do``, that the message does not list)."""
        for key in self.raw:
            if key not in allowed and key not in also:
                raise self.fail(str(key), f"unknown key (accepted: {', '.join(allowed) or 'none'})")
        return self

    # -------------------------------------------------------------------------- mapping access

    def __contains__(self, key: str) -> bool:
        return key in self.raw

    def get(self, key: str, default: object = None) -> Any:
        return self.raw.get(key, default)

    # -------------------------------------------------------------------------- typed reads

    def text(self, key: str, default: str | None = None, choices: Sequence[str] = ()) -> str:
        """A string; without a ``default`` the key is required."""
        if key not in self.raw:
            if default is None:
                raise self.fail(key, "is required")
            return default
        value = self.raw[key]
        if not isinstance(value, str):
            raise self.fail(key, f"must be a string, not {value!r}")
        if choices and value not in choices:
            raise self.fail(key, f"must be one of {', '.join(choices)}; got {value!r}")
        return value

    def integer(self, key: str, default: int | None = None, minimum: int | None = 0) -> int:
        """An integer (not a boolean) of at least ``minimum``; without a ``default`` the key is
        required."""
        if key not in self.raw:
            if default is None:
                raise self.fail(key, "is required")
            return default
        value = self.raw[key]
        if not isinstance(value, int) or isinstance(value, bool):
            raise self.fail(key, f"must be an integer, not {value!r}")
        if minimum is not None and value < minimum:
            raise self.fail(key, f"must be at least {minimum}, not {value}")
        return value

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.raw.get(key, default)
        if not isinstance(value, bool):
            raise self.fail(key, f"must be true or false, not {value!r}")
        return value

    def texts(
        self, key: str, choices: Sequence[str] = (), *, or_one: bool = False
    ) -> tuple[str, ...]:
        """A list of strings (absent: empty); ``or_one`` also accepts a single string."""
        raw = self.raw.get(key, [])
        values = [raw] if or_one and isinstance(raw, str) else raw
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            kind = "a string or a list of strings" if or_one else "a list of strings"
            raise self.fail(key, f"must be {kind}, not {raw!r}")
        for v in values:
            if choices and v not in choices:
                raise self.fail(key, f"entries must be among {', '.join(choices)}; got {v!r}")
        return tuple(values)

    # -------------------------------------------------------------------------- nested tables

    def table(self, key: str, not_table: str | None = None) -> Table:
        """The sub-table under ``key`` (absent: empty), named by its path."""
        value = self.raw.get(key, {})
        return Table(
            self.file,
            self.entry,
            value,
            self.error,
            path=self.key_path(key) or key,
            not_table=not_table or f"must be a table, not {value!r}",
        )

    def item(self, key: str, value: object, not_table: str | None = None) -> Table:
        """``value`` as a table at ``key`` of this one (a list item: ``key`` is ``"turn[0]"``)."""
        return Table(
            self.file,
            self.entry,
            value,
            self.error,
            path=self.key_path(key) or key,
            not_table=not_table or f"must be a table, not {value!r}",
        )

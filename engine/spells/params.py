"""Typed, frozen parameters of effect and requirement primitives, and their key checks.

A primitive declares its keys with :class:`Key`; :func:`check_keys` reads one raw TOML table (with
:class:`~engine.tables.Table`) into :class:`Params` or raises :class:`BadKeyError` naming the
offending key, which the schema turns into a :class:`~engine.spells.schema.SpellDataError` that
also names the file and the spell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from engine.tables import Table

ParamValue = int | str | bool | tuple[str, ...]


class BadKeyError(ValueError):
    """A bad key inside one primitive table (the caller adds file and spell)."""

    def __init__(self, key: str, message: str) -> None:
        super().__init__(message)
        self.key = key
        self.message = message


@dataclass(frozen=True, slots=True)
class Key:
    """One accepted key: ``kind`` is int, str, bool or strs (a list of strings)."""

    name: str
    kind: str
    required: bool = False
    default: ParamValue | None = None
    choices: tuple[str, ...] = ()
    minimum: int | None = None


@dataclass(frozen=True, slots=True)
class Params:
    """Validated keys of one primitive, in a fixed order (hashable, comparable)."""

    items: tuple[tuple[str, ParamValue], ...] = ()
    # The items by name: the effects read their keys many times a turn (a summoned minion's
    # stats, a modifier's amount), a lookup where a scan of the items compared name after name.
    _by_name: Mapping[str, ParamValue] = field(init=False, repr=False, compare=False, hash=False)

    def __post_init__(self) -> None:
        # Reversed, so that a repeated name keeps its first value, as a scan would find it.
        object.__setattr__(self, "_by_name", dict(reversed(self.items)))

    def get(self, key: str) -> ParamValue | None:
        return self._by_name.get(key)

    def num(self, key: str, default: int = 0) -> int:
        value = self._by_name.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    def text(self, key: str, default: str = "") -> str:
        value = self._by_name.get(key)
        return value if isinstance(value, str) else default

    def flag(self, key: str, default: bool = False) -> bool:
        value = self._by_name.get(key)
        return value if isinstance(value, bool) else default

    def texts(self, key: str) -> tuple[str, ...]:
        value = self._by_name.get(key)
        return value if isinstance(value, tuple) else ()

    def to_dict(self) -> dict[str, object]:
        return {
            name: (list(value) if isinstance(value, tuple) else value) for name, value in self.items
        }


def _bad_key(file: str, entry: str | None, key: str | None, message: str) -> BadKeyError:
    """A primitive table has no file or entry of its own: the schema adds them."""
    return BadKeyError(key or "", message)


def _check_one(spec: Key, table: Table) -> ParamValue:
    if spec.kind == "int":
        return table.integer(spec.name, minimum=spec.minimum)
    if spec.kind == "bool":
        return table.flag(spec.name)
    if spec.kind == "str":
        return table.text(spec.name, choices=spec.choices)
    if spec.kind == "strs":
        return table.texts(spec.name, spec.choices, or_one=True)
    raise AssertionError(f"unknown key kind {spec.kind}")


def check_keys(
    table: Mapping[str, object], keys: tuple[Key, ...], *, skip: tuple[str, ...]
) -> Params:
    """Validate ``table`` against ``keys``; ``skip`` names selector keys (``do``, ``req``)."""
    known = {spec.name for spec in keys}
    reader = Table("", None, table, _bad_key).known(sorted(known), also=skip)
    items: list[tuple[str, ParamValue]] = []
    for spec in keys:
        if spec.name in table:
            items.append((spec.name, _check_one(spec, reader)))
        elif spec.required:
            raise reader.fail(spec.name, "is required")
        elif spec.default is not None:
            items.append((spec.name, spec.default))
    return Params(tuple(items))

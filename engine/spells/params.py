"""Typed, frozen parameters of effect and requirement primitives, and their key checks.

A primitive declares its keys with :class:`Key`; :func:`check_keys` turns one raw TOML table into
:class:`Params` or raises :class:`BadKeyError` naming the offending key, which the schema turns into
a :class:`~engine.spells.schema.SpellDataError` that also names the file and the spell.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

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

    def get(self, key: str) -> ParamValue | None:
        for name, value in self.items:
            if name == key:
                return value
        return None

    def num(self, key: str, default: int = 0) -> int:
        value = self.get(key)
        return value if isinstance(value, int) and not isinstance(value, bool) else default

    def text(self, key: str, default: str = "") -> str:
        value = self.get(key)
        return value if isinstance(value, str) else default

    def flag(self, key: str, default: bool = False) -> bool:
        value = self.get(key)
        return value if isinstance(value, bool) else default

    def texts(self, key: str) -> tuple[str, ...]:
        value = self.get(key)
        return value if isinstance(value, tuple) else ()

    def to_dict(self) -> dict[str, object]:
        return {
            name: (list(value) if isinstance(value, tuple) else value) for name, value in self.items
        }


def _check_one(spec: Key, raw: object) -> ParamValue:
    if spec.kind == "int":
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise BadKeyError(spec.name, f"must be an integer, not {raw!r}")
        if spec.minimum is not None and raw < spec.minimum:
            raise BadKeyError(spec.name, f"must be at least {spec.minimum}, not {raw}")
        return raw
    if spec.kind == "bool":
        if not isinstance(raw, bool):
            raise BadKeyError(spec.name, f"must be true or false, not {raw!r}")
        return raw
    if spec.kind == "str":
        if not isinstance(raw, str):
            raise BadKeyError(spec.name, f"must be a string, not {raw!r}")
        if spec.choices and raw not in spec.choices:
            raise BadKeyError(spec.name, f"must be one of {', '.join(spec.choices)}; got {raw!r}")
        return raw
    if spec.kind == "strs":
        values = [raw] if isinstance(raw, str) else raw
        if not isinstance(values, list) or not all(isinstance(v, str) for v in values):
            raise BadKeyError(spec.name, f"must be a string or a list of strings, not {raw!r}")
        for value in values:
            if spec.choices and value not in spec.choices:
                raise BadKeyError(
                    spec.name, f"entries must be among {', '.join(spec.choices)}; got {value!r}"
                )
        return tuple(values)
    raise AssertionError(f"unknown key kind {spec.kind}")


def check_keys(
    table: Mapping[str, object], keys: tuple[Key, ...], *, skip: tuple[str, ...]
) -> Params:
    """Validate ``table`` against ``keys``; ``skip`` names selector keys (``do``, ``req``)."""
    known = {spec.name for spec in keys}
    for name in table:
        if name not in known and name not in skip:
            allowed = ", ".join(sorted(known)) or "none"
            raise BadKeyError(name, f"unknown key (accepted: {allowed})")
    items: list[tuple[str, ParamValue]] = []
    for spec in keys:
        if spec.name in table:
            items.append((spec.name, _check_one(spec, table[spec.name])))
        elif spec.required:
            raise BadKeyError(spec.name, "is required")
        elif spec.default is not None:
            items.append((spec.name, spec.default))
    return Params(tuple(items))

"""Scenario values that the engine's types parse: squares, sides, owners, mana, and the names a
scenario gives to groups, minions and structures. Each fails at the key it was read from."""

from __future__ import annotations

from pathlib import Path

from conformance.model import Labels, ScenarioError
from engine.coords import Coord, CoordError
from engine.state import HostRef, Mana, Owner, Side, owner_from
from engine.tables import Table


def scenario_table(path: Path, raw: object) -> Table:
    """The top of a scenario file: keys are named by their path from here."""
    return Table(str(path), None, raw, ScenarioError)


def coord(table: Table, key: str | None, value: object) -> Coord:
    if not isinstance(value, str):
        raise table.fail(key, f"must be a square name such as C3, not {value!r}")
    try:
        return Coord.parse(value)
    except CoordError as exc:
        raise table.fail(key, str(exc)) from None


def owner(table: Table, key: str, value: object) -> Owner:
    try:
        return owner_from(value)
    except ValueError as exc:
        raise table.fail(key, str(exc)) from None


def side(table: Table, key: str | None, value: object) -> Side:
    if value not in ("red", "blue"):
        raise table.fail(key, f"must be red or blue, not {value!r}")
    return Side(value)


def mana(table: Table, key: str, value: object) -> Mana:
    try:
        return Mana.from_dict(value)
    except ValueError as exc:
        raise table.fail(key, str(exc)) from None


def host(table: Table, key: str, text: object, labels: Labels) -> HostRef:
    """``globe``, ``square:C3`` or ``group:NAME`` / ``minion:NAME`` / ``structure:NAME``."""
    if text == "globe":
        return HostRef.globe()
    if not isinstance(text, str) or ":" not in text:
        raise table.fail(key, "use globe, group:NAME, minion:NAME, square:C3 or structure:NAME")
    kind, _, ref = text.partition(":")
    if kind == "square":
        return HostRef.square(coord(table, key, ref))
    named = {"group": labels.groups, "minion": labels.minions, "structure": labels.structures}
    if kind not in named:
        raise table.fail(key, f"unknown host kind {kind!r}")
    if ref not in named[kind]:
        raise table.fail(key, f"no {kind} named {ref!r}")
    return HostRef(kind, named[kind][ref])  # type: ignore[arg-type]


def group_ref(table: Table, key: str, ref: object, labels: Labels) -> int:
    """A group by its scenario name (or, already, its id)."""
    if isinstance(ref, int):
        return ref
    if ref not in labels.groups:
        raise table.fail(key, f"no group named {ref!r}")
    return labels.groups[str(ref)]


def any_ref(table: Table, key: str | None, ref: object, labels: Labels) -> int:
    """A group, minion or structure by its scenario name (or its id)."""
    if isinstance(ref, int):
        return ref
    for named in (labels.groups, labels.minions, labels.structures):
        if ref in named:
            return named[str(ref)]
    raise table.fail(key, f"no group, minion or structure named {ref!r}")

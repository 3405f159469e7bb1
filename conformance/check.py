"""Checking one turn's ``[turn.expect]`` against the position and report it produced.

Each expectation key has one checker; every difference becomes a readable line
(``group g at: expected 'C1', got 'B1'``), in the order of :data:`CHECKS`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final

from conformance import read
from conformance.model import Labels, Scenario
from engine.coords import Coord
from engine.report import Event, TurnReport
from engine.state import GameState, Group, HostRef
from engine.tables import Table
from engine.view import view_for

EXPECT_KEYS: Final = (
    "initiative", "winner", "groups", "gone", "minions", "at", "empty", "pools",
    "hands", "structures", "terrain", "events", "no_events", "turn", "spells",
    "hand_sizes", "deck_sizes", "discards", "views", "replays",
)  # fmt: skip
VIEW_KEYS: Final = ("spells", "hand", "enemy_hand_size", "enemy_deck_count")
# Event fields that hold an id the scenario may have named.
NAMED_FIELDS: Final = ("group", "into", "minion", "attacker", "victim", "structure", "by")
EVENTS_SHOWN: Final = 40


@dataclass(frozen=True)
class _Turn:
    """One turn's expectations and what the turn produced."""

    expect: Table
    state: GameState
    report: TurnReport
    scenario: Scenario

    @property
    def labels(self) -> Labels:
        return self.scenario.labels


def check_expectations(
    expect: Table, state: GameState, report: TurnReport, scenario: Scenario
) -> list[str]:
    """Every difference between ``expect`` and the position/report, as readable lines."""
    expect.known(EXPECT_KEYS)
    turn = _Turn(expect, state, report, scenario)
    return [line for check in CHECKS for line in check(turn)]


def _differ(what: str, want: object, got: object) -> Iterator[str]:
    if want != got:
        yield f"{what}: expected {want!r}, got {got!r}"


def _check_header(t: _Turn) -> Iterator[str]:
    if "turn" in t.expect:
        yield from _differ("turn", t.expect.get("turn"), t.state.turn)
    if "initiative" in t.expect:
        yield from _differ("initiative", t.expect.get("initiative"), str(t.state.initiative))
    if "winner" in t.expect:
        result = t.state.result
        winner = "none" if result is None else str(result.winner or "draw")
        yield from _differ("winner", t.expect.get("winner"), winner)


def _check_groups(t: _Turn) -> Iterator[str]:
    groups = t.expect.table("groups")
    for name in groups.raw:
        group = t.state.group(read.group_ref(groups, name, name, t.labels))
        if group is None:
            yield f"group {name}: expected on the board, but it is gone"
        else:
            yield from _group_diff(f"group {name}", groups.table(name), group)
    for name in t.expect.get("gone", []):
        group = t.state.group(read.group_ref(t.expect, "gone", name, t.labels))
        if group is not None:
            yield f"group {name}: expected gone, but it is on {group.coord.name}"


def _check_minions(t: _Turn) -> Iterator[str]:
    minions = t.expect.table("minions")
    for name in minions.raw:
        if name not in t.labels.minions:
            raise minions.fail(name, "no minion of that name")
        minion = t.state.minion(t.labels.minions[name])
        want = minions.table(name)
        if want.get("dead", False):
            if minion is not None:
                yield f"minion {name}: expected dead, but it has {minion.hp} HP"
        elif minion is None:
            yield f"minion {name}: expected alive, but it is gone"
        else:
            for key, value in want.raw.items():
                if key != "dead":
                    yield from _differ(f"minion {name} {key}", value, getattr(minion, key, None))


def _check_squares(t: _Turn) -> Iterator[str]:
    at = t.expect.table("at")
    for square in at.raw:
        group = t.state.group_at(read.coord(at, square, square))
        if group is None:
            yield f"{square}: expected a group, found none"
        else:
            yield from _group_diff(square, at.table(square), group)
    for square in t.expect.get("empty", []):
        group = t.state.group_at(read.coord(t.expect, "empty", square))
        if group is not None:
            yield f"{square}: expected empty, found {group.owner} group {group.id}"


def _check_players(t: _Turn) -> Iterator[str]:
    pools = t.expect.table("pools")
    for name, want in pools.raw.items():
        side = read.side(pools, None, name)
        got = t.state.player(side).pool
        yield from _differ(f"{side} pool", read.mana(pools, name, want), got)
    hands = t.expect.table("hands")
    for name, want in hands.raw.items():
        hand = t.state.player(read.side(hands, None, name)).hand
        yield from _differ(f"{name} hand", sorted(want), sorted(c.spell_id for c in hand))
    hand_sizes = t.expect.table("hand_sizes")
    for name, want in hand_sizes.raw.items():
        hand = t.state.player(read.side(hand_sizes, None, name)).hand
        yield from _differ(f"{name} hand size", want, len(hand))
    deck_sizes = t.expect.table("deck_sizes")
    for name, want in deck_sizes.raw.items():
        deck = t.state.player(read.side(deck_sizes, None, name)).deck
        yield from _differ(f"{name} deck size", want, len(deck))
    discards = t.expect.table("discards")
    for name, want in discards.raw.items():
        pile = t.state.player(read.side(discards, None, name)).discard
        yield from _differ(f"{name} discard pile", sorted(want), sorted(c.spell_id for c in pile))


def _check_views(t: _Turn) -> Iterator[str]:
    """Expectations on what one side (or ``public``) sees (G12)."""
    views = t.expect.table("views")
    for viewer in views.raw:
        want = views.table(viewer).known(VIEW_KEYS)
        side = None if viewer == "public" else read.side(views, None, viewer)
        view = view_for(t.state, side, t.scenario.content)
        got: dict[str, object] = {
            "spells": sorted(f"{s.spell_id}@{_host_label(s.host, t.labels)}" for s in view.spells),
            "hand": sorted(c.spell_id for c in view.hand),
        }
        if side is not None:
            got["enemy_hand_size"] = view.player(side.other).hand_size
            got["enemy_deck_count"] = view.player(side.other).deck_count
        for key, value in want.raw.items():
            expected = sorted(value) if isinstance(value, list) else value
            if got.get(key) != expected:
                yield f"{viewer}'s view {key}: expected {expected!r}, got {got.get(key)!r}"


def _check_structures(t: _Turn) -> Iterator[str]:
    structures = t.expect.table("structures")
    for name in structures.raw:
        sid = t.labels.structures.get(name)
        structure = t.state.structure(sid) if sid is not None else None
        want = structures.table(name)
        if want.get("destroyed", False):
            if structure is not None:
                yield f"structure {name}: expected destroyed, but it stands"
            continue
        if structure is None:
            yield f"structure {name}: expected standing, but it is gone"
            continue
        for key, value in want.raw.items():
            actual: object = getattr(structure, key, None)
            if key == "novices":
                actual = len(structure.novices)
            elif key == "owner":
                actual = str(structure.owner)
            yield from _differ(f"structure {name} {key}", value, actual)


def _check_board(t: _Turn) -> Iterator[str]:
    terrain = t.expect.table("terrain")
    for square, want in terrain.raw.items():
        sq = t.state.square(read.coord(terrain, square, square))
        yield from _differ(f"terrain {square}", want, None if sq is None else sq.terrain)
    if "spells" in t.expect:
        got = sorted(f"{s.spell_id}@{_host_label(s.host, t.labels)}" for s in t.state.active_spells)
        yield from _differ("active spells", sorted(t.expect.get("spells")), got)


def _check_events(t: _Turn) -> Iterator[str]:
    """``events`` must appear in the report in this order (others may come between);
    ``no_events`` names kinds that must not appear at all."""
    events = [_normalise(e, t.labels) for e in t.report.events]
    position = 0
    for i, raw in enumerate(t.expect.get("events", [])):
        want = t.expect.item(f"events[{i}]", raw)
        found = _find(events, want.raw, position)
        if found is None:
            yield f"event {dict(want.raw)} not found (in order) in the report"
            yield from ("  report: " + str(e) for e in events[position : position + EVENTS_SHOWN])
            break
        position = found + 1
    for kind in t.expect.get("no_events", []):
        hits = [e for e in events if e["kind"] == kind]
        if hits:
            yield f"expected no {kind!r} event, got {hits[0]}"


CHECKS: Final[tuple[Callable[[_Turn], Iterator[str]], ...]] = (
    _check_header,
    _check_groups,
    _check_minions,
    _check_squares,
    _check_players,
    _check_views,
    _check_structures,
    _check_board,
    _check_events,
)


def _host_label(host: HostRef, labels: Labels) -> str:
    if host.kind == "globe":
        return "globe"
    if isinstance(host.ref, Coord):
        return f"square:{host.ref.name}"
    names = labels.names()
    return f"{host.kind}:{names.get(host.ref, host.ref) if host.ref is not None else ''}"


def _group_diff(what: str, want: Table, group: Group) -> Iterator[str]:
    checks = {
        "at": group.coord.name,
        "owner": str(group.owner),
        "size": len(group.minions),
        "hp": [m.hp for m in group.minions],
        "units": [m.unit for m in group.minions],
        "levels": [m.level for m in group.minions],
        "id": group.id,
    }
    for key, value in want.raw.items():
        if key not in checks:
            yield f"{what}: unknown expectation {key!r} (use {', '.join(checks)})"
        elif checks[key] != value:
            yield f"{what} {key}: expected {value!r}, got {checks[key]!r}"


def _normalise(event: Event, labels: Labels) -> dict[str, Any]:
    """An event as a dict, with the scenario's names in place of ids."""
    names = labels.names()
    out: dict[str, Any] = {"kind": event.kind}
    for key, value in event.fields:
        if key in NAMED_FIELDS and isinstance(value, int):
            out[key] = names.get(value, value)
        elif key == "groups" and isinstance(value, tuple):
            out[key] = [names.get(v, v) if isinstance(v, int) else v for v in value]
        else:
            out[key] = list(value) if isinstance(value, tuple) else value
    return out


def _find(events: list[dict[str, Any]], want: Mapping[str, Any], start: int) -> int | None:
    for index in range(start, len(events)):
        event = events[index]
        if all(event.get(k) == (list(v) if isinstance(v, tuple) else v) for k, v in want.items()):
            return index
    return None

"""A turn report read into marks: what the overlay draws, as positions in board squares.

Both sides get the same marks because a TurnReport holds only public events.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from engine.report import Event, TurnReport
from render.scene import BoardScene, SpellBadge

XY = tuple[int, int]
SpellLookup = Callable[[str], tuple[str, str]]


@dataclass(frozen=True, slots=True)
class MoveMark:
    start: XY
    end: XY
    owner: str
    bounced: bool = False


@dataclass(frozen=True, slots=True)
class CombatMark:
    at: XY
    against: XY
    losses: tuple[tuple[str, int], ...] = ()


@dataclass(frozen=True, slots=True)
class DeathMark:
    at: XY
    count: int


@dataclass(frozen=True, slots=True)
class CastMark:
    side: str
    spell: SpellBadge
    target: XY | None  # None: the globe
    squandered: bool = False


@dataclass(frozen=True, slots=True)
class CaptureMark:
    at: XY
    side: str


@dataclass(frozen=True, slots=True)
class TrainMark:
    at: XY
    side: str
    label: str  # "+Sw", "+2 Ar", "+Mana"


@dataclass(frozen=True, slots=True)
class TurnMarks:
    moves: tuple[MoveMark, ...] = ()
    combats: tuple[CombatMark, ...] = ()
    deaths: tuple[DeathMark, ...] = ()
    casts: tuple[CastMark, ...] = ()
    captures: tuple[CaptureMark, ...] = ()
    trained: tuple[TrainMark, ...] = ()
    terrain_changed: tuple[XY, ...] = ()


TRAINED_SHORT = {"swordsman": "Sw", "archer": "Ar", "mana": "Mana"}


GROUP_PLACES = frozenset(
    {
        "moved",
        "bounced",
        "blocked",
        "died",
        "group_died",
        "group_created",
        "moonwalk_failed",
        "joined",
        "terrain_damage",
        "damaged",
    }
)


def parse_square(value: object) -> XY | None:
    """A square name such as "D4" as (x, y); None for anything else."""
    if not isinstance(value, str) or len(value) < 2:
        return None
    letter, digits = value[0].upper(), value[1:].strip()
    if not ("A" <= letter <= "Z") or not digits.isdigit():
        return None
    return (ord(letter) - ord("A"), int(digits) - 1)


def _int(value: object) -> int | None:
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    if isinstance(value, str) and value.isdigit():
        return int(value)
    return None


def _str(value: object, default: str = "") -> str:
    return value if isinstance(value, str) else default


class _Positions:
    """Where each target was when spells executed: groups before they moved, or where they died."""

    def __init__(self, scene: BoardScene, events: tuple[Event, ...]) -> None:
        self.groups: dict[int, XY] = {}
        self.minion_group: dict[int, int] = {}
        for square in scene.squares:
            for group in square.groups:
                self.groups[group.group_id] = (square.x, square.y)
                for minion in group.minion_ids:
                    self.minion_group[minion] = group.group_id
        self.structures: dict[int, XY] = {}
        # Walking backwards leaves each group at its earliest known square of the turn.
        for event in reversed(events):
            gid = _int(event.get("group"))
            where = parse_square(event.get("at")) or parse_square(event.get("from"))
            if gid is not None and where is not None and event.kind in GROUP_PLACES:
                self.groups[gid] = where
            mid = _int(event.get("minion"))
            if mid is not None and gid is not None:
                self.minion_group[mid] = gid
            sid = _int(event.get("structure"))
            at = parse_square(event.get("at"))
            if sid is not None and at is not None:
                self.structures[sid] = at

    def target(self, value: object) -> tuple[bool, XY | None]:
        """(is the globe, square) of an event's target, in any of the forms events use."""
        kind: str = ""
        ref: object = value
        if isinstance(value, tuple) and len(value) == 2:
            kind, ref = _str(value[0]), value[1]
        elif isinstance(value, str) and ":" in value:
            kind, _sep, ref = value.partition(":")
        elif isinstance(value, str) and " " in value:
            kind, _sep, ref = value.partition(" ")
        if kind == "globe" or value == "globe":
            return True, None
        square = parse_square(ref)
        if square is not None:
            return False, square
        number = _int(ref)
        if number is None:
            return False, None
        if kind == "structure":
            return False, self.structures.get(number)
        if kind == "minion":
            group = self.minion_group.get(number)
            return False, None if group is None else self.groups.get(group)
        return False, self.groups.get(number)


def marks_from_report(
    report: TurnReport, scene: BoardScene, spell_lookup: SpellLookup
) -> TurnMarks:
    """The marks a report draws, in the report's order."""
    events = report.events
    positions = _Positions(scene, events)
    moves: list[MoveMark] = []
    combats: list[CombatMark] = []
    deaths: dict[XY, int] = {}
    casts: list[CastMark] = []
    captures: list[CaptureMark] = []
    trained: dict[tuple[XY, str, str], int] = {}
    terrain_changed: list[XY] = []
    fight: tuple[XY, XY] | None = None
    losses: dict[str, int] = {}

    def close_fight() -> None:
        nonlocal fight, losses
        if fight is not None:
            combats.append(CombatMark(fight[0], fight[1], tuple(sorted(losses.items()))))
        fight, losses = None, {}

    for event in events:
        kind = event.kind
        side = _str(event.get("side"), "neutral")
        if kind in ("moved", "bounced", "blocked"):
            start, end = parse_square(event.get("from")), parse_square(event.get("to"))
            if start is None or end is None or start == end:
                continue
            if kind == "moved":
                moves.append(MoveMark(start, end, side))
            elif kind == "blocked":
                moves.append(MoveMark(start, end, side, bounced=True))
            else:
                # A bounce sends a group from the square it entered back home: its move is
                # redrawn as one that stopped at the border.
                entered = MoveMark(end, start, side)
                if entered in moves:
                    moves.remove(entered)
                moves.append(MoveMark(end, start, side, bounced=True))
        elif kind == "combat":
            close_fight()
            at, against = parse_square(event.get("at")), parse_square(event.get("against"))
            if at is not None and against is not None:
                fight = (at, against)
        elif kind == "combat_ended":
            close_fight()
        elif kind == "died":
            at = parse_square(event.get("at"))
            if at is not None:
                deaths[at] = deaths.get(at, 0) + 1
            if fight is not None:
                losses[side] = losses.get(side, 0) + 1
        elif kind in ("spell_executed", "spell_squandered"):
            spell_id = _str(event.get("spell"))
            name, house = spell_lookup(spell_id)
            is_globe, target = positions.target(event.get("target"))
            if target is None and not is_globe:
                target = parse_square(event.get("at"))
            if target is None and not is_globe:
                continue
            badge = SpellBadge(spell_id, name, side, house)
            casts.append(CastMark(side, badge, target, squandered=kind == "spell_squandered"))
        elif kind in ("captured", "sanctum_captured"):
            at = parse_square(event.get("at"))
            if at is not None:
                captures.append(CaptureMark(at, side))
        elif kind == "trained":
            at = parse_square(event.get("at"))
            trained_as = _str(event.get("trained_as"))
            if at is not None:
                key = (at, side, TRAINED_SHORT.get(trained_as, trained_as[:4].capitalize()))
                trained[key] = trained.get(key, 0) + 1
        elif kind == "terrain_changed":
            at = parse_square(event.get("at"))
            if at is not None and at not in terrain_changed:
                terrain_changed.append(at)
    close_fight()
    return TurnMarks(
        moves=tuple(moves),
        combats=tuple(c for c in combats if c.losses),
        deaths=tuple(DeathMark(at, n) for at, n in deaths.items()),
        casts=tuple(casts),
        captures=tuple(captures),
        trained=tuple(
            TrainMark(at, side, f"+{short}" if n == 1 else f"+{n} {short}")
            for (at, side, short), n in trained.items()
        ),
        terrain_changed=tuple(terrain_changed),
    )

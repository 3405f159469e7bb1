"""A small hand-built board for spell tests: an 8x8 plains field with two Sancta."""

from __future__ import annotations

import random
import tomllib
from dataclasses import dataclass, field, replace

from engine.content import Content, load_content
from engine.coords import Coord
from engine.orders import CastOrder, Target
from engine.spells.catalogue import check_catalogue, parse_spell_table
from engine.spells.hooks import SPELL_HOOKS
from engine.spells.phase import run_spell_phase
from engine.state import (
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    Mana,
    Minion,
    Options,
    PlayerState,
    Side,
    Square,
    Structure,
)
from engine.world import World

RED, BLUE = Side.RED, Side.BLUE


def at(name: str) -> Coord:
    return Coord.parse(name)


def content_with(toml_text: str = "") -> Content:
    """The catalogue plus inline ``[[spell]]`` tables (as a scenario may define them)."""
    base = load_content()
    if not toml_text:
        return base
    extra = {}
    for table in tomllib.loads(toml_text)["spell"]:
        spell = parse_spell_table(table, "<test>")
        extra[spell.id] = spell
    content = base.with_spells(extra)
    check_catalogue(content.spells)
    return content


@dataclass
class Board:
    """Builds a GameState step by step; ids come from one counter as in the engine."""

    width: int = 8
    height: int = 8
    next_id: int = 1
    terrain: dict[Coord, str] = field(default_factory=dict)
    structures: list[Structure] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    hands: dict[Side, list[Card]] = field(default_factory=lambda: {RED: [], BLUE: []})
    decks: dict[Side, list[Card]] = field(default_factory=lambda: {RED: [], BLUE: []})
    pools: dict[Side, Mana] = field(default_factory=lambda: {RED: Mana(), BLUE: Mana()})
    houses: dict[Side, str] = field(default_factory=lambda: {RED: "war", BLUE: "hope"})
    spells: list[ActiveSpell] = field(default_factory=list)
    cast_log: dict[Side, tuple[str, ...]] = field(default_factory=lambda: {RED: (), BLUE: ()})
    initiative: Side = RED
    turn: int = 3
    duel: bool = False

    def __post_init__(self) -> None:
        for x in range(self.width):
            for y in range(self.height):
                self.terrain[Coord(x, y)] = "plains"
        self.structure("sanctum", "A1", RED)
        self.structure("sanctum", f"{chr(ord('A') + self.width - 1)}{self.height}", BLUE)

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def structure(self, kind: str, square: str, owner: Side | str) -> int:
        sid = self.new_id()
        self.structures.append(Structure(sid, kind, at(square), owner, mana_type="order"))  # type: ignore[arg-type]
        return sid

    def group(
        self, owner: Side | str, square: str, *units: str, hp: int = 7, traits: tuple[str, ...] = ()
    ) -> int:
        gid = self.new_id()
        minions = []
        for unit in units or ("swordsman",):
            kind = "monster" if unit == "monster" else "recruit"
            minions.append(
                Minion(
                    self.new_id(),
                    kind,  # type: ignore[arg-type]
                    unit,
                    None,
                    hp,
                    hp,
                    hand=2 if unit != "archer" else 0,
                    missile=1 if unit == "archer" else 0,
                    traits=frozenset(traits),
                )
            )
        self.groups.append(Group(gid, owner, owner, at(square), tuple(minions)))  # type: ignore[arg-type]
        return gid

    def minion_ids(self, gid: int) -> list[int]:
        return [m.id for g in self.groups if g.id == gid for m in g.minions]

    def card(self, side: Side, spell_id: str) -> int:
        uid = self.new_id()
        self.hands[side].append(Card(uid, spell_id))
        return uid

    def deck_card(self, side: Side, spell_id: str) -> int:
        uid = self.new_id()
        self.decks[side].append(Card(uid, spell_id))
        return uid

    def pool(self, side: Side, **mana: int) -> None:
        self.pools[side] = Mana(**mana)

    def active(self, spell_id: str, owner: Side, host: HostRef, **data: object) -> int:
        uid = self.new_id()
        self.spells.append(
            ActiveSpell(uid, spell_id, owner, host, self.turn - 1, data=tuple(sorted(data.items())))  # type: ignore[arg-type]
        )
        return uid

    def state(self) -> GameState:
        players = tuple(
            PlayerState(
                side,
                self.houses[side],
                deck=tuple(self.decks[side]),
                hand=tuple(self.hands[side]),
                pool=self.pools[side],
                cast_log=self.cast_log[side],
            )
            for side in (RED, BLUE)
        )
        return GameState(
            seed=7,
            turn=self.turn,
            options=Options.for_ruleset("duel" if self.duel else "classic"),
            width=self.width,
            height=self.height,
            squares=tuple(
                Square(c, t)
                for c, t in sorted(self.terrain.items(), key=lambda i: (i[0].y, i[0].x))
            ),
            structures=tuple(self.structures),
            groups=tuple(self.groups),
            players=(players[0], players[1]),
            initiative=self.initiative,
            active_spells=tuple(self.spells),
            next_id=self.next_id,
        )


def world_of(state: GameState, content: Content | None = None, seed: int = 1) -> World:
    return World(state, random.Random(seed), content or load_content(), SPELL_HOOKS)


def cast(card: int, kind: str, ref: int | str | None = None, **kw: object) -> CastOrder:
    target_ref: int | Coord | None = at(ref) if isinstance(ref, str) else ref
    return CastOrder(card, Target(kind, target_ref), **kw)  # type: ignore[arg-type]


def run(
    board: Board,
    casts: dict[Side, list[CastOrder]],
    content: Content | None = None,
    seed: int = 1,
) -> World:
    world = world_of(board.state(), content, seed)
    run_spell_phase(world, {RED: casts.get(RED, []), BLUE: casts.get(BLUE, [])})
    return world


def kinds(world: World, *names: str) -> list[tuple[str, ...]]:
    """(kind, spell, side) of spell events in order."""
    return [
        (e.kind, str(e.get("spell")), str(e.get("side"))) for e in world.report if e.kind in names
    ]


def hp(world: World, minion_id: int) -> int | None:
    m = world.minion(minion_id)
    return None if m is None else m.hp


def with_pool(board: Board, side: Side, amount: int = 20) -> None:
    board.pools[side] = Mana(*(amount for _ in range(6)))


def replace_state(state: GameState, **kw: object) -> GameState:
    return replace(state, **kw)  # type: ignore[arg-type]

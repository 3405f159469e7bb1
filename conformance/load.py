"""Reading a scenario file (format in ``docs/scenarios.md``) into a :class:`Scenario`.

A scenario either starts from a real opening (``setup.opening = true``: ``new_game`` with the
scenario's seed, realm and houses) or writes its position out: the board, structures, groups,
the players' cards and mana, and spells already active. Ids are handed out in file order
(structures, then each group's minions and the group, then cards, then active spells), so a
scenario's ids never change while its file does not.
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from pathlib import Path
from typing import Any, Final

from conformance import read
from conformance.model import DICE, Labels, Scenario, ScenarioError
from engine.content import Content, load_content
from engine.coords import Coord, coord
from engine.setup import MatchConfig, SetupError, default_deck, new_game
from engine.spells.catalogue import check_catalogue, parse_spell_table
from engine.state import (
    NEUTRAL,
    SIDES,
    ActiveSpell,
    Card,
    GameState,
    Group,
    Minion,
    Options,
    Owner,
    PlayerState,
    Side,
    Square,
    Structure,
    StructureKind,
)
from engine.tables import Table

TOP_KEYS: Final = (
    "name",
    "rules",
    "description",
    "board",
    "setup",
    "structure",
    "group",
    "players",
    "spell",
    "active",
    "turn",
)
SETUP_KEYS: Final = (
    "seed",
    "turn",
    "initiative",
    "ruleset",
    "dice",
    "max_rounds",
    "opening",
    "realm",
    "symmetric",
)
BOARD_KEYS: Final = ("name", "mask", "terrain", "default_terrain")
STRUCTURE_KEYS: Final = ("kind", "at", "owner", "novices", "counter", "mana_type", "name")
GROUP_KEYS: Final = ("name", "owner", "controller", "at", "minions")
MINION_KEYS: Final = (
    "unit", "name", "nation", "hp", "max_hp", "armor", "attacks", "hand", "missile",
    "level", "walks", "traits", "earned_level",
)  # fmt: skip
MINION_NUMBERS: Final = ("hp", "max_hp", "armor", "attacks", "hand", "missile", "level")
PLAYER_KEYS: Final = (
    "house",
    "hand",
    "deck",
    "discard",
    "pool",
    "mana_novices",
    "captured",
    "lost",
)
ACTIVE_KEYS: Final = ("spell", "owner", "host", "visible", "data", "cast_turn")
DEFAULT_HOUSE: Final = {Side.RED: "war", Side.BLUE: "life"}


def load_scenario(path: Path, content: Content | None = None) -> Scenario:
    """Read and check one scenario file; a :class:`ScenarioError` names the bad key."""
    root = _read_file(path)
    root.known(TOP_KEYS)
    content = _with_inline_spells(root, content or load_content())
    name, rules = _title(root)
    setup = root.table("setup").known(SETUP_KEYS)
    dice = setup.get("dice")
    if dice is not None and dice not in DICE:
        raise setup.fail("dice", f"must be one of {', '.join(DICE)}")
    turns = _turns(root)
    if setup.get("opening", False):
        state, labels = _opening(root, setup, content)
    else:
        state, labels = _Position(root, content).build(setup)
    return Scenario(path, name, rules, state, content, labels, turns, dice)


def _read_file(path: Path) -> Table:
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise ScenarioError(str(path), None, "file", f"not valid TOML: {exc}") from None
    return read.scenario_table(path, data)


def _title(root: Table) -> tuple[str, tuple[str, ...]]:
    name = root.get("name")
    if not isinstance(name, str):
        raise root.fail("name", "every scenario needs a name")
    rules = root.get("rules")
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        raise root.fail("rules", 'list the rule ids the scenario checks, e.g. ["I4"]')
    return name, tuple(rules)


def _turns(root: Table) -> list[Mapping[str, Any]]:
    turns = root.get("turn", [])
    if not isinstance(turns, list) or not turns:
        raise root.fail("turn", "a scenario needs at least one [[turn]]")
    return [root.item(f"turn[{i}]", t).raw for i, t in enumerate(turns)]


def _with_inline_spells(root: Table, content: Content) -> Content:
    """``content`` with the scenario's own ``[[spell]]`` tables, checked like data files."""
    raw = root.get("spell", [])
    if not raw:
        return content
    if not isinstance(raw, list):
        raise root.fail("spell", "inline spells are a [[spell]] list")
    extra = {}
    for i, value in enumerate(raw):
        table = root.item(f"spell[{i}]", value)
        try:
            spell = parse_spell_table(table.raw, root.file)
        except ValueError as exc:
            raise root.fail(f"spell[{i}]", str(exc)) from None
        extra[spell.id] = spell
    merged = content.with_spells(extra)
    try:
        check_catalogue(merged.spells)
    except ValueError as exc:
        raise root.fail("spell", str(exc)) from None
    return merged


# ------------------------------------------------------------------------------ openings


def _opening(root: Table, setup: Table, content: Content) -> tuple[GameState, Labels]:
    """A real opening from ``new_game`` (G1-G3): the seed, realm and houses of the scenario."""
    for key in ("structure", "group", "active"):
        if key in root:
            raise root.fail(key, "an opening scenario starts from new_game; no " + key)
    board = root.table("board").known(("name",))
    players = root.table("players")
    houses: dict[Side, str] = {}
    decks: dict[Side, list[str]] = {}
    for side in SIDES:
        p = players.table(side.value).known(("house", "deck"))
        houses[side] = str(p.get("house", DEFAULT_HOUSE[side]))
        if houses[side] not in content.houses:
            raise p.fail("house", f"unknown house {houses[side]!r}")
        decks[side] = list(p.get("deck", default_deck(houses[side], content)))
    config = MatchConfig(
        seed=int(setup.get("seed", 1)),
        ruleset=str(setup.get("ruleset", "classic")),
        realm=str(setup.get("realm", "veldt")),
        board=str(board.get("name", "classic")),
        symmetric=bool(setup.get("symmetric", False)),
        houses=houses,
        decks=decks,
    )
    try:
        state = new_game(config, content)
    except SetupError as exc:
        raise root.fail("setup", str(exc)) from None
    return state, _opening_labels(state)


def _opening_labels(state: GameState) -> Labels:
    """``red_sanctum``, ``blue_sanctum``, ``town1``... and ``red_start``, ``blue_start``."""
    labels = Labels()
    towns = 0
    for structure in state.structures:
        if structure.kind == "sanctum":
            labels.structures[f"{structure.owner}_sanctum"] = structure.id
        else:
            towns += 1
            labels.structures[f"town{towns}"] = structure.id
    for group in state.groups:
        labels.groups[f"{group.owner}_start"] = group.id
    return labels


# ------------------------------------------------------------------------------ written positions


class _Position:
    """A position written out in the file, read part by part; ids are handed out in file order."""

    def __init__(self, root: Table, content: Content) -> None:
        self.root = root
        self.content = content
        self.labels = Labels()
        self.next_id = 1
        self.terrain: dict[Coord, str] = {}
        self.houses: dict[Side, str] = {}

    def new_id(self) -> int:
        self.next_id += 1
        return self.next_id - 1

    def build(self, setup: Table) -> tuple[GameState, Labels]:
        width, height, playable, board_name = self._board()
        self.terrain = self._terrain(playable)
        self.houses = self._houses()
        structures = self._structures()
        groups = self._groups()
        players = self._players()
        turn = int(setup.get("turn", 1))
        spells = self._active(turn)
        options = Options.for_ruleset(
            setup.get("ruleset", "classic"),
            board=board_name,
            max_rounds=int(setup.get("max_rounds", 6)),
        )
        squares = tuple(Square(at, t) for at, t in sorted(self.terrain.items(), key=_reading_order))
        state = GameState(
            seed=int(setup.get("seed", 1)),
            turn=turn,
            options=options,
            width=width,
            height=height,
            squares=squares,
            structures=tuple(structures),
            groups=tuple(groups),
            players=(players[0], players[1]),
            initiative=read.side(setup, "initiative", setup.get("initiative", "red")),
            active_spells=tuple(spells),
            next_id=self.next_id,
        )
        return state, self.labels

    def _board(self) -> tuple[int, int, frozenset[Coord], str]:
        """A named board of ``data/boards`` or a ``mask`` of ``.`` (square) and ``-`` (none)."""
        table = self.root.table("board").known(BOARD_KEYS)
        if "mask" in table:
            rows = [r.strip() for r in str(table.get("mask")).strip().splitlines() if r.strip()]
            width = len(rows[0])
            if any(len(r) != width for r in rows):
                raise table.fail("mask", "every row must have the same length")
            playable = set()
            for line_no, row in enumerate(rows):
                for x, ch in enumerate(row):
                    if ch not in ".-":
                        raise table.fail(
                            "mask", f"use . (square) and - (off the board), not {ch!r}"
                        )
                    if ch == ".":
                        playable.add(coord(x, len(rows) - 1 - line_no))
            return width, len(rows), frozenset(playable), "custom"
        name = table.get("name", "classic")
        if name not in self.content.boards:
            raise table.fail("name", f"unknown board {name!r}")
        board = self.content.boards[name]
        return board.width, board.height, board.playable, name

    def _terrain(self, playable: frozenset[Coord]) -> dict[Coord, str]:
        board = self.root.table("board")
        default = board.get("default_terrain", "plains")
        terrain = dict.fromkeys(playable, default)
        overrides = board.table("terrain")
        for name, t in overrides.raw.items():
            at = read.coord(overrides, name, name)
            if at not in terrain:
                raise overrides.fail(name, "is not on the board")
            if t not in self.content.terrains:
                raise overrides.fail(name, f"unknown terrain {t!r}")
            terrain[at] = t
        if default not in self.content.terrains and default in terrain.values():
            raise board.fail("default_terrain", f"unknown terrain {default!r}")
        return terrain

    def _houses(self) -> dict[Side, str]:
        players = self.root.table("players")
        houses: dict[Side, str] = {}
        for side in SIDES:
            p = players.table(side.value)
            house = p.get("house", DEFAULT_HOUSE[side])
            if house not in self.content.houses:
                raise p.fail("house", f"unknown house {house!r}")
            houses[side] = house
        return houses

    def _nation(self, owner: Owner) -> str | None:
        """The nation of a side's house; None for neutral."""
        if owner == NEUTRAL:
            return None
        return self.content.houses[self.houses[Side(owner)]].nation

    def _on_board(self, table: Table, key: str) -> Coord:
        at = read.coord(table, key, table.get(key))
        if at not in self.terrain:
            raise table.fail(key, "is not on the board")
        return at

    def _structures(self) -> list[Structure]:
        structures: list[Structure] = []
        for i, raw in enumerate(self.root.get("structure", [])):
            s = self.root.item(f"structure[{i}]", raw).known(STRUCTURE_KEYS)
            kind: StructureKind = s.get("kind", "town")
            if kind not in ("sanctum", "town", "colony"):
                raise s.fail("kind", "must be sanctum, town or colony")
            at = self._on_board(s, "at")
            owner = read.owner(s, "owner", s.get("owner", "neutral"))
            novices_raw = s.get("novices", 0)
            if isinstance(novices_raw, int):
                novices = (self._nation(owner) or "human",) * novices_raw
            else:
                novices = tuple(novices_raw)
            sid = self.new_id()
            structures.append(
                Structure(
                    sid, kind, at, owner, novices, int(s.get("counter", 0)), s.get("mana_type")
                )
            )
            if "name" in s:
                self.labels.structures[str(s.get("name"))] = sid
            self.terrain[at] = "plains"
        return structures

    def _groups(self) -> list[Group]:
        groups: list[Group] = []
        for i, raw in enumerate(self.root.get("group", [])):
            g = self.root.item(f"group[{i}]", raw).known(GROUP_KEYS)
            owner = read.owner(g, "owner", g.get("owner"))
            controller = read.owner(g, "controller", g.get("controller", owner))
            at = self._on_board(g, "at")
            minions_raw = g.get("minions")
            if not isinstance(minions_raw, list) or not 1 <= len(minions_raw) <= 8:
                raise g.fail("minions", "list 1 to 8 minions")
            nation = self._nation(owner)
            minions = [
                self._minion(g, f"minions[{j}]", m, nation) for j, m in enumerate(minions_raw)
            ]
            gid = self.new_id()
            groups.append(Group(gid, owner, controller, at, tuple(minions)))
            self.labels.groups[str(g.get("name", f"g{i + 1}"))] = gid
        return groups

    def _minion(self, group: Table, key: str, raw: object, nation: str | None) -> Minion:
        """A unit of ``data/units.toml`` (a bare string is its unit), with overrides."""
        m = group.item(key, {"unit": raw} if isinstance(raw, str) else raw).known(MINION_KEYS)
        unit = m.get("unit")
        if unit not in self.content.units:
            raise m.fail("unit", f"unknown unit {unit!r} (data/units.toml)")
        minion_id = self.new_id()
        base = self.content.make_minion(minion_id, str(unit), m.get("nation", nation))
        values: dict[str, Any] = {}
        for number in MINION_NUMBERS:
            if number in m:
                if not isinstance(m.get(number), int):
                    raise m.fail(number, "must be an integer")
                values[number] = m.get(number)
        if "hp" in values and "max_hp" not in values:
            values["max_hp"] = max(base.max_hp, values["hp"])
        if "walks" in m:
            values["walks"] = frozenset(m.get("walks"))
        if "traits" in m:
            values["traits"] = frozenset(m.get("traits"))
        if "earned_level" in m:
            values["earned_level"] = bool(m.get("earned_level"))
        if "name" in m:
            self.labels.minions[str(m.get("name"))] = minion_id
        return base._replace(**values)

    def _players(self) -> list[PlayerState]:
        players = self.root.table("players")
        out: list[PlayerState] = []
        for side in SIDES:
            p = players.table(side.value).known(PLAYER_KEYS)
            cards = {pile: self._cards(p, pile) for pile in ("hand", "deck", "discard")}
            out.append(
                PlayerState(
                    side=side,
                    house=self.houses[side],
                    deck=cards["deck"],
                    hand=cards["hand"],
                    discard=cards["discard"],
                    pool=read.mana(p, "pool", p.get("pool", {})),
                    mana_novices=read.mana(p, "mana_novices", p.get("mana_novices", {})),
                    captured=int(p.get("captured", 0)),
                    lost=int(p.get("lost", 0)),
                )
            )
        return out

    def _cards(self, player: Table, pile: str) -> tuple[Card, ...]:
        ids = player.get(pile, [])
        if not isinstance(ids, list):
            raise player.fail(pile, "must be a list of spell ids")
        for spell_id in ids:
            if spell_id not in self.content.spells:
                raise player.fail(pile, f"unknown spell {spell_id!r}")
        return tuple(Card(self.new_id(), str(s)) for s in ids)

    def _active(self, turn: int) -> list[ActiveSpell]:
        """Spells already in play; by default cast the turn before the scenario starts."""
        spells: list[ActiveSpell] = []
        for i, raw in enumerate(self.root.get("active", [])):
            a = self.root.item(f"active[{i}]", raw).known(ACTIVE_KEYS)
            spell_id = str(a.get("spell"))
            if spell_id not in self.content.spells:
                raise a.fail("spell", f"unknown spell {spell_id!r}")
            definition = self.content.spells[spell_id]
            host = read.host(a, "host", a.get("host", "globe"), self.labels)
            spells.append(
                ActiveSpell(
                    uid=self.new_id(),
                    spell_id=spell_id,
                    owner=read.side(a, "owner", a.get("owner")),
                    host=host,
                    cast_turn=int(a.get("cast_turn", turn - 1)),
                    visible=bool(a.get("visible", definition.visible)),
                    helper=definition.helper,
                    data=tuple(sorted(a.table("data").raw.items())),
                )
            )
        return spells


def _reading_order(square: tuple[Coord, str]) -> tuple[int, int]:
    return square[0].y, square[0].x

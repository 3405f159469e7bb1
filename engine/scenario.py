"""The conformance suite runner: declarative TOML scenarios (format in ``docs/scenarios.md``).

``python -m engine.scenario PATH... [--coverage]`` runs every scenario file (folders are searched
for ``*.toml``), prints a readable diff for each failure and exits non-zero on any. With
``--coverage`` it lists every rule id of the shared specification with the scenarios and the
tests named after it, and flags the uncovered ones.
"""

from __future__ import annotations

import argparse
import random
import re
import sys
import tomllib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final

from engine.content import Content, ContentError, load_content
from engine.coords import Coord, CoordError, coord
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    Target,
    TrainOrder,
)
from engine.report import Event, TurnReport
from engine.setup import MatchConfig, SetupError, default_deck, new_game
from engine.state import (
    NEUTRAL,
    SIDES,
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    Mana,
    Minion,
    Options,
    Owner,
    PlayerState,
    Side,
    Square,
    Structure,
    StructureKind,
    owner_from,
)
from engine.turn import resolve_turn
from engine.view import view_for

REPO: Final = Path(__file__).resolve().parent.parent
RULES_PATHS: Final = (
    REPO.parent / "shared" / "rules" / "README.md",
    REPO / "docs" / "rules-spec.md",
)
RULE_ID: Final = re.compile(r"^- ([A-Z]\d+)\.", re.MULTILINE)
DECISION_ID: Final = re.compile(r"\*\*(D-[A-Z0-9-]+)\.\*\*")


class ScenarioError(ValueError):
    """A scenario file that cannot be read; the message names the file and the key."""

    def __init__(self, file: str, where: str, message: str) -> None:
        super().__init__(f"{file}: {where}: {message}")


# ------------------------------------------------------------------------------ dice


class FixedDice(random.Random):
    """A generator whose ``random()`` always returns one value: 0.0 makes every strike hit,
    0.999 makes every strike miss until the two-miss rule forces a hit."""

    def __init__(self, value: float, seed: int) -> None:
        super().__init__(seed)
        self.value = value

    def random(self) -> float:
        return self.value


DICE: Final = {"hit": 0.0, "miss": 0.999}


# ------------------------------------------------------------------------------ model


@dataclass
class Labels:
    groups: dict[str, int] = field(default_factory=dict)
    minions: dict[str, int] = field(default_factory=dict)
    structures: dict[str, int] = field(default_factory=dict)

    def names(self) -> dict[int, str]:
        out: dict[int, str] = {}
        for table in (self.groups, self.minions, self.structures):
            out.update({v: k for k, v in table.items()})
        return out


@dataclass
class Scenario:
    path: Path
    name: str
    rules: tuple[str, ...]
    state: GameState
    content: Content
    labels: Labels
    turns: list[Mapping[str, Any]]
    dice: str | None


@dataclass
class Failure:
    turn: int
    lines: list[str]


# ------------------------------------------------------------------------------ reading


class _Reader:
    def __init__(self, path: Path) -> None:
        self.file = str(path)

    def fail(self, where: str, message: str) -> ScenarioError:
        return ScenarioError(self.file, where, message)

    def table(self, value: object, where: str) -> Mapping[str, Any]:
        if not isinstance(value, Mapping):
            raise self.fail(where, f"must be a table, not {value!r}")
        return value

    def coord(self, value: object, where: str) -> Coord:
        if not isinstance(value, str):
            raise self.fail(where, f"must be a square name such as C3, not {value!r}")
        try:
            return Coord.parse(value)
        except CoordError as exc:
            raise self.fail(where, str(exc)) from None

    def owner(self, value: object, where: str) -> Owner:
        try:
            return owner_from(value)
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None

    def side(self, value: object, where: str) -> Side:
        if value not in ("red", "blue"):
            raise self.fail(where, f"must be red or blue, not {value!r}")
        return Side(value)

    def mana(self, value: object, where: str) -> Mana:
        try:
            return Mana.from_dict(value)
        except ValueError as exc:
            raise self.fail(where, str(exc)) from None

    def known(self, table: Mapping[str, Any], allowed: Sequence[str], where: str) -> None:
        for key in table:
            if key not in allowed:
                raise self.fail(f"{where}.{key}", f"unknown key (accepted: {', '.join(allowed)})")


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


def load_scenario(path: Path, content: Content | None = None) -> Scenario:
    reader = _Reader(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as exc:
        raise reader.fail("file", f"not valid TOML: {exc}") from None
    reader.known(data, TOP_KEYS, "scenario")
    base = content or load_content()
    content = _with_inline_spells(reader, base, data.get("spell", []))
    name = data.get("name")
    if not isinstance(name, str):
        raise reader.fail("name", "every scenario needs a name")
    rules = data.get("rules")
    if not isinstance(rules, list) or not rules or not all(isinstance(r, str) for r in rules):
        raise reader.fail("rules", 'list the rule ids the scenario checks, e.g. ["I4"]')
    setup = reader.table(data.get("setup", {}), "setup")
    reader.known(
        setup,
        (
            "seed",
            "turn",
            "initiative",
            "ruleset",
            "dice",
            "max_rounds",
            "opening",
            "realm",
            "symmetric",
        ),
        "setup",
    )
    dice = setup.get("dice")
    if dice is not None and dice not in DICE:
        raise reader.fail("setup.dice", f"must be one of {', '.join(DICE)}")
    turns = data.get("turn", [])
    if not isinstance(turns, list) or not turns:
        raise reader.fail("turn", "a scenario needs at least one [[turn]]")
    turn_tables = [reader.table(t, "turn") for t in turns]
    if setup.get("opening", False):
        state, labels = _opening(reader, data, setup, content)
        return Scenario(path, name, tuple(rules), state, content, labels, turn_tables, dice)
    labels = Labels()
    next_id = [1]

    def new_id() -> int:
        next_id[0] += 1
        return next_id[0] - 1

    width, height, playable, board_name = _board(reader, data.get("board", {}), content)
    board_table = reader.table(data.get("board", {}), "board")
    default = board_table.get("default_terrain", "plains")
    terrain = {at: default for at in playable}
    for name_, t in reader.table(board_table.get("terrain", {}), "board.terrain").items():
        at = reader.coord(name_, f"board.terrain.{name_}")
        if at not in terrain:
            raise reader.fail(f"board.terrain.{name_}", "is not on the board")
        if t not in content.terrains:
            raise reader.fail(f"board.terrain.{name_}", f"unknown terrain {t!r}")
        terrain[at] = t
    for at, t in terrain.items():
        if t not in content.terrains:
            raise reader.fail("board.default_terrain", f"unknown terrain {t!r}")
        terrain[at] = t

    players_raw = reader.table(data.get("players", {}), "players")
    houses: dict[Side, str] = {}
    for side in SIDES:
        p = reader.table(players_raw.get(side.value, {}), f"players.{side}")
        house = p.get("house", "war" if side is Side.RED else "life")
        if house not in content.houses:
            raise reader.fail(f"players.{side}.house", f"unknown house {house!r}")
        houses[side] = house

    structures: list[Structure] = []
    for i, raw in enumerate(data.get("structure", [])):
        where = f"structure[{i}]"
        s = reader.table(raw, where)
        reader.known(s, ("kind", "at", "owner", "novices", "counter", "mana_type", "name"), where)
        kind = s.get("kind", "town")
        if kind not in ("sanctum", "town", "colony"):
            raise reader.fail(f"{where}.kind", "must be sanctum, town or colony")
        at = reader.coord(s.get("at"), f"{where}.at")
        if at not in terrain:
            raise reader.fail(f"{where}.at", "is not on the board")
        owner = reader.owner(s.get("owner", "neutral"), f"{where}.owner")
        novices_raw = s.get("novices", 0)
        if isinstance(novices_raw, int):
            nation = content.houses[houses[Side(owner)]].nation if owner != NEUTRAL else "human"
            novices = (nation,) * novices_raw
        else:
            novices = tuple(novices_raw)
        sid = new_id()
        structure_kind: StructureKind = kind
        structures.append(
            Structure(
                sid,
                structure_kind,
                at,
                owner,
                novices,
                int(s.get("counter", 0)),
                s.get("mana_type"),
            )
        )
        if "name" in s:
            labels.structures[str(s["name"])] = sid
        terrain[at] = "plains"

    groups: list[Group] = []
    for i, raw in enumerate(data.get("group", [])):
        where = f"group[{i}]"
        g = reader.table(raw, where)
        reader.known(g, ("name", "owner", "controller", "at", "minions"), where)
        owner = reader.owner(g.get("owner"), f"{where}.owner")
        controller = reader.owner(g.get("controller", owner), f"{where}.controller")
        at = reader.coord(g.get("at"), f"{where}.at")
        if at not in terrain:
            raise reader.fail(f"{where}.at", "is not on the board")
        minions_raw = g.get("minions")
        if not isinstance(minions_raw, list) or not 1 <= len(minions_raw) <= 8:
            raise reader.fail(f"{where}.minions", "list 1 to 8 minions")
        group_nation = content.houses[houses[Side(owner)]].nation if owner != NEUTRAL else None
        minions = [
            _minion(
                reader,
                content,
                m,
                where=f"{where}.minions[{j}]",
                nation=group_nation,
                minion_id=new_id(),
                labels=labels,
            )
            for j, m in enumerate(minions_raw)
        ]
        gid = new_id()
        groups.append(Group(gid, owner, controller, at, tuple(minions)))
        label = g.get("name", f"g{i + 1}")
        labels.groups[str(label)] = gid

    players: list[PlayerState] = []
    for side in SIDES:
        where = f"players.{side}"
        p = reader.table(players_raw.get(side.value, {}), where)
        reader.known(
            p,
            ("house", "hand", "deck", "discard", "pool", "mana_novices", "captured", "lost"),
            where,
        )
        cards: dict[str, tuple[Card, ...]] = {}
        for pile in ("hand", "deck", "discard"):
            ids = p.get(pile, [])
            if not isinstance(ids, list):
                raise reader.fail(f"{where}.{pile}", "must be a list of spell ids")
            for spell_id in ids:
                if spell_id not in content.spells:
                    raise reader.fail(f"{where}.{pile}", f"unknown spell {spell_id!r}")
            cards[pile] = tuple(Card(new_id(), str(s)) for s in ids)
        players.append(
            PlayerState(
                side=side,
                house=houses[side],
                deck=cards["deck"],
                hand=cards["hand"],
                discard=cards["discard"],
                pool=reader.mana(p.get("pool", {}), f"{where}.pool"),
                mana_novices=reader.mana(p.get("mana_novices", {}), f"{where}.mana_novices"),
                captured=int(p.get("captured", 0)),
                lost=int(p.get("lost", 0)),
            )
        )

    turn = int(setup.get("turn", 1))
    spells: list[ActiveSpell] = []
    for i, raw in enumerate(data.get("active", [])):
        where = f"active[{i}]"
        a = reader.table(raw, where)
        reader.known(a, ("spell", "owner", "host", "visible", "data", "cast_turn"), where)
        spell_id = str(a.get("spell"))
        if spell_id not in content.spells:
            raise reader.fail(f"{where}.spell", f"unknown spell {spell_id!r}")
        definition = content.spells[spell_id]
        host = _host(reader, a.get("host", "globe"), labels, f"{where}.host")
        spells.append(
            ActiveSpell(
                uid=new_id(),
                spell_id=str(spell_id),
                owner=reader.side(a.get("owner"), f"{where}.owner"),
                host=host,
                cast_turn=int(a.get("cast_turn", turn - 1)),
                visible=bool(a.get("visible", definition.visible)),
                helper=definition.helper,
                data=tuple(sorted(reader.table(a.get("data", {}), f"{where}.data").items())),
            )
        )

    ruleset = setup.get("ruleset", "classic")
    options = Options.for_ruleset(
        ruleset, board=board_name, max_rounds=int(setup.get("max_rounds", 6))
    )
    state = GameState(
        seed=int(setup.get("seed", 1)),
        turn=turn,
        options=options,
        width=width,
        height=height,
        squares=tuple(Square(at, terrain[at]) for at in sorted(terrain, key=lambda c: (c.y, c.x))),
        structures=tuple(structures),
        groups=tuple(groups),
        players=(players[0], players[1]),
        initiative=reader.side(setup.get("initiative", "red"), "setup.initiative"),
        active_spells=tuple(spells),
        next_id=next_id[0],
    )
    return Scenario(path, name, tuple(rules), state, content, labels, turn_tables, dice)


def _opening(
    reader: _Reader, data: Mapping[str, Any], setup: Mapping[str, Any], content: Content
) -> tuple[GameState, Labels]:
    """A real opening from ``new_game`` (G1-G3): the seed, realm and houses of the scenario."""
    for key in ("structure", "group", "active"):
        if key in data:
            raise reader.fail(key, "an opening scenario starts from new_game; no " + key)
    board = reader.table(data.get("board", {}), "board")
    reader.known(board, ("name",), "board")
    players = reader.table(data.get("players", {}), "players")
    houses: dict[Side, str] = {}
    decks: dict[Side, list[str]] = {}
    for side in SIDES:
        p = reader.table(players.get(side.value, {}), f"players.{side}")
        reader.known(p, ("house", "deck"), f"players.{side}")
        houses[side] = str(p.get("house", "war" if side is Side.RED else "life"))
        if houses[side] not in content.houses:
            raise reader.fail(f"players.{side}.house", f"unknown house {houses[side]!r}")
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
        raise reader.fail("setup", str(exc)) from None
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
    return state, labels


def _with_inline_spells(reader: _Reader, content: Content, raw: object) -> Content:
    if not raw:
        return content
    from engine.spells.catalogue import check_catalogue, parse_spell_table

    if not isinstance(raw, list):
        raise reader.fail("spell", "inline spells are a [[spell]] list")
    extra = {}
    for i, table in enumerate(raw):
        try:
            spell = parse_spell_table(reader.table(table, f"spell[{i}]"), reader.file)
        except ValueError as exc:
            raise reader.fail(f"spell[{i}]", str(exc)) from None
        extra[spell.id] = spell
    merged = content.with_spells(extra)
    try:
        check_catalogue(merged.spells)
    except ValueError as exc:
        raise reader.fail("spell", str(exc)) from None
    return merged


def _board(
    reader: _Reader, raw: object, content: Content
) -> tuple[int, int, frozenset[Coord], str]:
    table = reader.table(raw, "board")
    reader.known(table, ("name", "mask", "terrain", "default_terrain"), "board")
    if "mask" in table:
        rows = [r.strip() for r in str(table["mask"]).strip().splitlines() if r.strip()]
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise reader.fail("board.mask", "every row must have the same length")
        playable = set()
        for line_no, row in enumerate(rows):
            for x, ch in enumerate(row):
                if ch not in ".-":
                    raise reader.fail(
                        "board.mask", f"use . (square) and - (off the board), not {ch!r}"
                    )
                if ch == ".":
                    playable.add(coord(x, len(rows) - 1 - line_no))
        return width, len(rows), frozenset(playable), "custom"
    name = table.get("name", "classic")
    if name not in content.boards:
        raise reader.fail("board.name", f"unknown board {name!r}")
    board = content.boards[name]
    return board.width, board.height, board.playable, name


def _minion(
    reader: _Reader,
    content: Content,
    raw: object,
    *,
    where: str,
    nation: str | None,
    minion_id: int,
    labels: Labels,
) -> Minion:
    if isinstance(raw, str):
        raw = {"unit": raw}
    m = reader.table(raw, where)
    allowed = (
        "unit", "name", "nation", "hp", "max_hp", "armor", "attacks", "hand", "missile",
        "level", "walks", "traits", "earned_level",
    )  # fmt: skip
    reader.known(m, allowed, where)
    unit = m.get("unit")
    if unit not in content.units:
        raise reader.fail(f"{where}.unit", f"unknown unit {unit!r} (data/units.toml)")
    base = content.make_minion(minion_id, str(unit), m.get("nation", nation))
    values: dict[str, Any] = {}
    for key in ("hp", "max_hp", "armor", "attacks", "hand", "missile", "level"):
        if key in m:
            if not isinstance(m[key], int):
                raise reader.fail(f"{where}.{key}", "must be an integer")
            values[key] = m[key]
    if "hp" in values and "max_hp" not in values:
        values["max_hp"] = max(base.max_hp, values["hp"])
    if "walks" in m:
        values["walks"] = frozenset(m["walks"])
    if "traits" in m:
        values["traits"] = frozenset(m["traits"])
    if "earned_level" in m:
        values["earned_level"] = bool(m["earned_level"])
    if "name" in m:
        labels.minions[str(m["name"])] = minion_id
    return base._replace(**values)


def _host(reader: _Reader, text: object, labels: Labels, where: str) -> HostRef:
    if text == "globe":
        return HostRef.globe()
    if not isinstance(text, str) or ":" not in text:
        raise reader.fail(where, "use globe, group:NAME, minion:NAME, square:C3 or structure:NAME")
    kind, _, ref = text.partition(":")
    if kind == "square":
        return HostRef.square(reader.coord(ref, where))
    table = {"group": labels.groups, "minion": labels.minions, "structure": labels.structures}
    if kind not in table:
        raise reader.fail(where, f"unknown host kind {kind!r}")
    if ref not in table[kind]:
        raise reader.fail(where, f"no {kind} named {ref!r}")
    return HostRef(kind, table[kind][ref])  # type: ignore[arg-type]


# ------------------------------------------------------------------------------ orders


def _orders(
    reader: _Reader, raw: object, *, where: str, labels: Labels, state: GameState, side: Side
) -> Orders:
    t = reader.table(raw or {}, where)
    reader.known(t, ("moves", "trains", "casts", "discard", "mana_choices"), where)
    moves = []
    for i, m in enumerate(t.get("moves", [])):
        if not isinstance(m, list) or len(m) != 2:
            raise reader.fail(f"{where}.moves[{i}]", 'write ["group name", "C3"]')
        gid = _group_ref(reader, m[0], labels, f"{where}.moves[{i}]")
        moves.append(MoveOrder(gid, reader.coord(m[1], f"{where}.moves[{i}]")))
    trains = []
    for i, tr in enumerate(t.get("trains", [])):
        if not isinstance(tr, list) or len(tr) not in (2, 3):
            raise reader.fail(
                f"{where}.trains[{i}]", 'write ["C3", "archer"] or ["C3", "mana", "order"]'
            )
        trains.append(
            TrainOrder(
                reader.coord(tr[0], f"{where}.trains[{i}]"), tr[1], tr[2] if len(tr) == 3 else None
            )
        )
    hand = list(state.player(side).hand)
    used: set[int] = set()

    def card(ref: object, at: str) -> int:
        if isinstance(ref, int):
            return ref
        if not isinstance(ref, str):
            raise reader.fail(at, "name a card by its spell id")
        for c in hand:
            if c.spell_id == ref and c.uid not in used:
                used.add(c.uid)
                return c.uid
        raise reader.fail(at, f"no {ref!r} in {side}'s hand")

    casts = []
    for i, raw_cast in enumerate(t.get("casts", [])):
        at = f"{where}.casts[{i}]"
        c = reader.table(raw_cast, at)
        reader.known(c, ("card", "target", "boosted", "power", "bound_source", "spell"), at)
        bound = c.get("bound_source")
        casts.append(
            CastOrder(
                card_uid=0 if bound is not None else card(c.get("card"), at),
                target=_target(reader, c.get("target", "globe"), labels, f"{at}.target"),
                boosted=bool(c.get("boosted", False)),
                power=c.get("power"),
                bound_source=None if bound is None else _any_ref(reader, bound, labels, at),
                spell_id=c.get("spell"),
            )
        )
    discard = None
    if "discard" in t:
        discard = DiscardOrder(card(t["discard"], f"{where}.discard"))
    choices = reader.table(t.get("mana_choices", {}), f"{where}.mana_choices")
    mana_choices = tuple(
        ManaChoice(reader.coord(at, f"{where}.mana_choices"), str(mana_type))
        for at, mana_type in choices.items()
    )
    return Orders(tuple(casts), tuple(moves), tuple(trains), discard, mana_choices=mana_choices)


def _group_ref(reader: _Reader, ref: object, labels: Labels, where: str) -> int:
    if isinstance(ref, int):
        return ref
    if ref not in labels.groups:
        raise reader.fail(where, f"no group named {ref!r}")
    return labels.groups[str(ref)]


def _any_ref(reader: _Reader, ref: object, labels: Labels, where: str) -> int:
    if isinstance(ref, int):
        return ref
    for table in (labels.groups, labels.minions, labels.structures):
        if ref in table:
            return table[str(ref)]
    raise reader.fail(where, f"no group, minion or structure named {ref!r}")


def _target(reader: _Reader, text: object, labels: Labels, where: str) -> Target:
    host = _host(reader, text, labels, where)
    return Target(host.kind, host.ref)


# ------------------------------------------------------------------------------ running


def run_scenario(scenario: Scenario) -> list[Failure]:
    reader = _Reader(scenario.path)
    state = scenario.state
    failures: list[Failure] = []
    for number, turn in enumerate(scenario.turns, start=1):
        where = f"turn[{number - 1}]"
        reader.known(turn, ("red", "blue", "expect", "dice"), where)
        orders = {
            side: _orders(
                reader,
                turn.get(side.value),
                where=f"{where}.{side}",
                labels=scenario.labels,
                state=state,
                side=side,
            )
            for side in SIDES
        }
        dice = turn.get("dice", scenario.dice)
        rng = FixedDice(DICE[dice], state.seed) if dice in DICE else None
        before = state
        state, report = resolve_turn(state, orders, rng, content=scenario.content)
        expect = reader.table(turn.get("expect", {}), f"{where}.expect")
        if expect.get("replays", False):
            again = FixedDice(DICE[dice], before.seed) if dice in DICE else None
            if resolve_turn(before, orders, again, content=scenario.content) != (state, report):
                failures.append(Failure(number, ["replaying the turn gave a different result"]))
                break
        lines = check_expectations(
            reader, reader.table(turn.get("expect", {}), f"{where}.expect"), state, report, scenario
        )
        if lines:
            failures.append(Failure(number, lines))
            break
    return failures


def check_expectations(
    reader: _Reader,
    expect: Mapping[str, Any],
    state: GameState,
    report: TurnReport,
    scenario: Scenario,
) -> list[str]:
    """Every difference between ``expect`` and the position/report, as readable lines."""
    labels = scenario.labels
    reader.known(
        expect,
        (
            "initiative", "winner", "groups", "gone", "minions", "at", "empty", "pools",
            "hands", "structures", "terrain", "events", "no_events", "turn", "spells",
            "hand_sizes", "deck_sizes", "views", "replays",
        ),
        "expect",
    )  # fmt: skip
    out: list[str] = []

    def differ(what: str, want: object, got: object) -> None:
        if want != got:
            out.append(f"{what}: expected {want!r}, got {got!r}")

    if "turn" in expect:
        differ("turn", expect["turn"], state.turn)
    if "initiative" in expect:
        differ("initiative", expect["initiative"], str(state.initiative))
    if "winner" in expect:
        result = state.result
        winner = "none" if result is None else str(result.winner or "draw")
        differ("winner", expect["winner"], winner)
    for name, want in reader.table(expect.get("groups", {}), "expect.groups").items():
        gid = _group_ref(reader, name, labels, f"expect.groups.{name}")
        group = state.group(gid)
        if group is None:
            out.append(f"group {name}: expected on the board, but it is gone")
            continue
        out += _group_diff(f"group {name}", reader.table(want, f"expect.groups.{name}"), group)
    for name in expect.get("gone", []):
        gid = _group_ref(reader, name, labels, "expect.gone")
        group = state.group(gid)
        if group is not None:
            out.append(f"group {name}: expected gone, but it is on {group.coord.name}")
    for name, want in reader.table(expect.get("minions", {}), "expect.minions").items():
        if name not in labels.minions:
            raise reader.fail(f"expect.minions.{name}", "no minion of that name")
        minion = state.minion(labels.minions[name])
        want_t = reader.table(want, f"expect.minions.{name}")
        if want_t.get("dead", False):
            if minion is not None:
                out.append(f"minion {name}: expected dead, but it has {minion.hp} HP")
            continue
        if minion is None:
            out.append(f"minion {name}: expected alive, but it is gone")
            continue
        for key, value in want_t.items():
            if key == "dead":
                continue
            differ(f"minion {name} {key}", value, getattr(minion, key, None))
    for square, want in reader.table(expect.get("at", {}), "expect.at").items():
        at = reader.coord(square, f"expect.at.{square}")
        group = state.group_at(at)
        if group is None:
            out.append(f"{square}: expected a group, found none")
            continue
        out += _group_diff(square, reader.table(want, f"expect.at.{square}"), group)
    for square in expect.get("empty", []):
        group = state.group_at(reader.coord(square, "expect.empty"))
        if group is not None:
            out.append(f"{square}: expected empty, found {group.owner} group {group.id}")
    for side_name, want in reader.table(expect.get("pools", {}), "expect.pools").items():
        side = reader.side(side_name, "expect.pools")
        differ(
            f"{side} pool", reader.mana(want, f"expect.pools.{side_name}"), state.player(side).pool
        )
    for side_name, want in reader.table(expect.get("hands", {}), "expect.hands").items():
        side = reader.side(side_name, "expect.hands")
        differ(
            f"{side} hand",
            sorted(want),
            sorted(c.spell_id for c in state.player(side).hand),
        )
    for side_name, want in reader.table(expect.get("hand_sizes", {}), "expect.hand_sizes").items():
        side = reader.side(side_name, "expect.hand_sizes")
        differ(f"{side} hand size", want, len(state.player(side).hand))
    for side_name, want in reader.table(expect.get("deck_sizes", {}), "expect.deck_sizes").items():
        side = reader.side(side_name, "expect.deck_sizes")
        differ(f"{side} deck size", want, len(state.player(side).deck))
    for viewer, want in reader.table(expect.get("views", {}), "expect.views").items():
        out += _view_diff(
            reader, viewer, reader.table(want, f"expect.views.{viewer}"), state, scenario
        )
    for name, want in reader.table(expect.get("structures", {}), "expect.structures").items():
        sid = labels.structures.get(name)
        structure = state.structure(sid) if sid is not None else None
        want_t = reader.table(want, f"expect.structures.{name}")
        if want_t.get("destroyed", False):
            if structure is not None:
                out.append(f"structure {name}: expected destroyed, but it stands")
            continue
        if structure is None:
            out.append(f"structure {name}: expected standing, but it is gone")
            continue
        for key, value in want_t.items():
            actual: object = getattr(structure, key, None)
            if key == "novices":
                actual = len(structure.novices)
            elif key == "owner":
                actual = str(structure.owner)
            differ(f"structure {name} {key}", value, actual)
    for square, want in reader.table(expect.get("terrain", {}), "expect.terrain").items():
        sq = state.square(reader.coord(square, f"expect.terrain.{square}"))
        differ(f"terrain {square}", want, None if sq is None else sq.terrain)
    if "spells" in expect:
        got_spells = sorted(
            f"{s.spell_id}@{_host_label(s.host, labels)}" for s in state.active_spells
        )
        differ("active spells", sorted(expect["spells"]), got_spells)
    events = [_normalise(e, labels) for e in report.events]
    position = 0
    for i, want in enumerate(expect.get("events", [])):
        want_t = reader.table(want, f"expect.events[{i}]")
        found = _find(events, want_t, position)
        if found is None:
            out.append(f"event {dict(want_t)} not found (in order) in the report")
            out += ["  report: " + str(e) for e in events[position : position + 40]]
            break
        position = found + 1
    for kind in expect.get("no_events", []):
        hits = [e for e in events if e["kind"] == kind]
        if hits:
            out.append(f"expected no {kind!r} event, got {hits[0]}")
    return out


def _view_diff(
    reader: _Reader, viewer: str, want: Mapping[str, Any], state: GameState, scenario: Scenario
) -> list[str]:
    """Expectations on what one side (or ``public``) sees (G12)."""
    side = None if viewer == "public" else reader.side(viewer, "expect.views")
    view = view_for(state, side, scenario.content)
    reader.known(want, ("spells", "hand", "enemy_hand_size", "enemy_deck_count"), "expect.views")
    got: dict[str, object] = {
        "spells": sorted(
            f"{s.spell_id}@{_host_label(s.host, scenario.labels)}" for s in view.spells
        ),
        "hand": sorted(c.spell_id for c in view.hand),
    }
    if side is not None:
        got["enemy_hand_size"] = view.player(side.other).hand_size
        got["enemy_deck_count"] = view.player(side.other).deck_count
    out = []
    for key, value in want.items():
        expected = sorted(value) if isinstance(value, list) else value
        if got.get(key) != expected:
            out.append(f"{viewer}'s view {key}: expected {expected!r}, got {got.get(key)!r}")
    return out


def _host_label(host: HostRef, labels: Labels) -> str:
    if host.kind == "globe":
        return "globe"
    if isinstance(host.ref, Coord):
        return f"square:{host.ref.name}"
    names = labels.names()
    return f"{host.kind}:{names.get(host.ref, host.ref) if host.ref is not None else ''}"


def _group_diff(what: str, want: Mapping[str, Any], group: Group) -> list[str]:
    out = []
    checks = {
        "at": group.coord.name,
        "owner": str(group.owner),
        "size": len(group.minions),
        "hp": [m.hp for m in group.minions],
        "units": [m.unit for m in group.minions],
        "levels": [m.level for m in group.minions],
        "id": group.id,
    }
    for key, value in want.items():
        if key not in checks:
            out.append(f"{what}: unknown expectation {key!r} (use {', '.join(checks)})")
        elif checks[key] != value:
            out.append(f"{what} {key}: expected {value!r}, got {checks[key]!r}")
    return out


def _normalise(event: Event, labels: Labels) -> dict[str, Any]:
    names = labels.names()
    out: dict[str, Any] = {"kind": event.kind}
    for key, value in event.fields:
        if key in (
            "group",
            "into",
            "minion",
            "attacker",
            "victim",
            "structure",
            "by",
        ) and isinstance(value, int):
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


# ------------------------------------------------------------------------------ coverage


def rule_ids() -> list[str]:
    for path in RULES_PATHS:
        if path.exists():
            return RULE_ID.findall(path.read_text(encoding="utf-8"))
    raise FileNotFoundError("no rules specification found (../shared/rules/README.md)")


def decision_ids() -> list[str]:
    """The ``D-...`` decision ids of ``docs/rules.md``, then those of ``docs/spells.md``."""
    found: list[str] = []
    for name in ("rules.md", "spells.md"):
        path = REPO / "docs" / name
        if path.exists():
            found += DECISION_ID.findall(path.read_text(encoding="utf-8"))
    return found


def _test_rule_names(tests_dir: Path) -> dict[str, list[str]]:
    """Rule and decision ids named by test functions (``def test_I4_...``,
    ``def test_D_MOVE_VOTE_...``) under ``tests_dir``."""
    found: dict[str, list[str]] = {}
    pattern = re.compile(r"def (test_([A-Z]\d+|D(?:_[A-Z0-9]+)+?)_[a-z]\w*)")
    for path in sorted(tests_dir.rglob("test_*.py")):
        for match in pattern.finditer(path.read_text(encoding="utf-8")):
            rule = match.group(2).replace("_", "-")
            found.setdefault(rule, []).append(f"{path.name}::{match.group(1)}")
    return found


def coverage(scenarios: Sequence[Scenario], tests_dir: Path) -> tuple[list[str], list[str]]:
    """Report lines and the uncovered ids (the specification's rules, then the decisions of
    docs/rules.md and docs/spells.md)."""
    by_rule: dict[str, list[str]] = {}
    for s in scenarios:
        for r in s.rules:
            by_rule.setdefault(r, []).append(f"{s.path.parent.name}/{s.path.name}")
    tests = _test_rule_names(tests_dir)
    lines: list[str] = []
    uncovered: list[str] = []
    for rule in [*rule_ids(), *decision_ids()]:
        scen = by_rule.get(rule, [])
        named = tests.get(rule, [])
        if not scen and not named:
            uncovered.append(rule)
            lines.append(f"{rule:4} UNCOVERED")
            continue
        lines.append(f"{rule:4} {len(scen)} scenario(s), {len(named)} test(s)")
        lines += [f"       scenario {n}" for n in scen]
        lines += [f"       test {n}" for n in named]
    return lines, uncovered


def find_files(paths: Sequence[str]) -> list[Path]:
    files: list[Path] = []
    for p in paths:
        path = Path(p)
        files += sorted(path.rglob("*.toml")) if path.is_dir() else [path]
    return files


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m engine.scenario", description=__doc__)
    parser.add_argument("paths", nargs="+", help="scenario files or folders")
    parser.add_argument("--coverage", action="store_true", help="list rule ids and their cover")
    args = parser.parse_args(argv)
    files = find_files(args.paths)
    loaded: list[Scenario] = []
    failed = 0
    for path in files:
        try:
            scenario = load_scenario(path)
            failures = run_scenario(scenario)
        except (ScenarioError, ContentError, ValueError, TypeError, KeyError) as exc:
            print(f"ERROR {path}: {type(exc).__name__}: {exc}")
            failed += 1
            continue
        loaded.append(scenario)
        if failures:
            failed += 1
            print(f"FAIL  {path}: {scenario.name}")
            for f in failures:
                print(f"  after turn {f.turn}:")
                for line in f.lines:
                    print(f"    {line}")
        else:
            print(f"ok    {path}: {scenario.name}")
    print(f"{len(files) - failed} passed, {failed} failed")
    if args.coverage:
        lines, uncovered = coverage(loaded, REPO / "tests")
        print("\nRule coverage:")
        print("\n".join(lines))
        print(f"\n{len(uncovered)} uncovered: {', '.join(uncovered) or 'none'}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

"""Game content read from ``data/``: unit types, nations, houses, terrains, realms, boards, spells,
the economy.

Every file is validated on load; a :class:`ContentError` names the file, the entry and the key.
:func:`load_content` caches the default content of ``./data`` (the repository's data folder).
"""

from __future__ import annotations

import tomllib
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from engine.coords import Coord, coord
from engine.spells.catalogue import load_spells
from engine.spells.index import CatalogueIndex
from engine.state import MANA_TYPES, OPPOSED, Minion, Side
from engine.tables import Table, TableError

if TYPE_CHECKING:
    from engine.spells.schema import SpellDef

DATA_DIR: Final = Path(__file__).resolve().parent.parent / "data"
WALKS: Final = ("waterwalk", "mountainwalk", "swampwalk", "flight")
# Builds a named tuple from its fields in order, without the Python-level constructor.
_new: Final = tuple.__new__


class ContentError(TableError):
    """A bad data file; the message names the file, the entry and the key."""


@dataclass(frozen=True, slots=True)
class UnitType:
    id: str
    kind: str
    name: str
    hp: int
    armor: int = 0
    attacks: int = 1
    hand: int = 0
    missile: int = 0
    level: int = 0
    walks: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()


@dataclass(frozen=True, slots=True)
class Nation:
    id: str
    name: str
    plural: str
    house: str
    hp_bonus: int = 0
    walks: frozenset[str] = frozenset()
    bonus_mode: str | None = None
    bonus_round: int = 0
    bonus_amount: int = 0


@dataclass(frozen=True, slots=True)
class House:
    id: str
    name: str
    primary: str
    secondary: str
    nation: str


@dataclass(frozen=True, slots=True)
class Terrain:
    id: str
    name: str
    needs: str = ""
    damage: int = 0
    fatal: str = ""
    fatal_unless: str = ""
    conceals: bool = False

    @property
    def blocks(self) -> bool:
        """A group with no walk cannot cross it: it needs a walk to enter, or kills (D-ACCESS)."""
        return bool(self.needs or self.fatal)


@dataclass(frozen=True, slots=True)
class Realm:
    id: str
    name: str
    towns_min: int
    towns_max: int
    default: str = ""
    weights: tuple[tuple[str, float], ...] = ()
    picks: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class Board:
    """A board mask: playable squares, the two Sancta and tiers of town sites."""

    id: str
    width: int
    height: int
    playable: frozenset[Coord]
    sancta: tuple[tuple[Side, Coord], ...]
    town_sites: tuple[tuple[int, Coord], ...]

    def sanctum(self, side: Side) -> Coord:
        return dict(self.sancta)[side]

    def entrances(self) -> frozenset[Coord]:
        return frozenset(n for _, at in self.sancta for n in at.neighbours() if n in self.playable)

    @staticmethod
    def parse(board_id: str, text: str, file: str = "<board>") -> Board:
        rows = [
            line.rstrip("\n")
            for line in text.splitlines()
            if line.strip() and not line.lstrip().startswith(";")
        ]
        if not rows:
            raise ContentError(file, board_id, None, "the board has no rows")
        width = len(rows[0])
        if any(len(r) != width for r in rows):
            raise ContentError(file, board_id, None, "every row must have the same length")
        height = len(rows)
        if width > 26 or height > 26:
            raise ContentError(file, board_id, None, "boards are at most 26x26")
        playable: set[Coord] = set()
        sancta: dict[Side, Coord] = {}
        sites: list[tuple[int, Coord]] = []
        for line_no, row in enumerate(rows):
            y = height - 1 - line_no
            for x, ch in enumerate(row):
                at = coord(x, y)
                if ch == "-":
                    continue
                if ch not in ".RB123456789":
                    raise ContentError(
                        file, board_id, at.name, f"unknown mask character {ch!r} (use - . R B 1-9)"
                    )
                playable.add(at)
                if ch in "RB":
                    side = Side.RED if ch == "R" else Side.BLUE
                    if side in sancta:
                        raise ContentError(file, board_id, at.name, f"a second {side} Sanctum")
                    sancta[side] = at
                elif ch.isdigit():
                    sites.append((int(ch), at))
        for side in (Side.RED, Side.BLUE):
            if side not in sancta:
                raise ContentError(
                    file, board_id, None, f"no {side} Sanctum ({side.value[0].upper()})"
                )
        return Board(
            board_id,
            width,
            height,
            frozenset(playable),
            ((Side.RED, sancta[Side.RED]), (Side.BLUE, sancta[Side.BLUE])),
            tuple(sorted(sites, key=lambda s: (s[0], s[1].y, s[1].x))),
        )


@dataclass(frozen=True, slots=True)
class Economy:
    """The opening and the economy (``data/economy.toml``; G3, G5, G9): the starting group and
    novices, what each owned structure makes, and the Sanctum's guard."""

    start_recruits: tuple[str, ...] = ("swordsman", "swordsman", "archer", "archer")
    start_novices: int = 0
    blue_novices: int = 0
    """Novices blue's Sanctum holds on turn 1 besides ``start_novices``: blue starts without the
    initiative (I1), which is worth a side's opening race for the towns (D-START-NOVICES)."""
    novice_every: Mapping[str, int] = field(
        default_factory=lambda: {"sanctum": 4, "town": 2, "colony": 2}
    )
    sanctum_primary: int = 1
    sanctum_secondary: int = 1
    sanctum_guard: int = 0
    structure_mana: Mapping[str, int] = field(default_factory=lambda: {"town": 1, "colony": 1})
    reshuffle: bool = False
    """Whether an empty deck takes the shuffled discard pile before a draw (D-DRAW)."""


@dataclass(frozen=True, slots=True)
class Content:
    """Everything the rules read from data files."""

    units: Mapping[str, UnitType]
    nations: Mapping[str, Nation]
    houses: Mapping[str, House]
    terrains: Mapping[str, Terrain]
    realms: Mapping[str, Realm]
    boards: Mapping[str, Board]
    spells: Mapping[str, SpellDef] = field(default_factory=dict)
    economy: Economy = field(default_factory=Economy)
    index: CatalogueIndex = field(init=False, repr=False, compare=False)
    """What the rules derive from ``spells``, built with them."""
    blocking: frozenset[str] = field(init=False, repr=False, compare=False)
    """The terrains a group with no walk cannot cross (:attr:`Terrain.blocks`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "index", CatalogueIndex.of(self.spells))
        blocking = frozenset(t.id for t in self.terrains.values() if t.blocks)
        object.__setattr__(self, "blocking", blocking)

    def terrain(self, terrain_id: str) -> Terrain:
        return self.terrains[terrain_id]

    def make_minion(
        self, minion_id: int, unit: str, nation: str | None, traits: frozenset[str] = frozenset()
    ) -> Minion:
        """A fresh minion of ``unit`` with its nation's hit points and walks (digest 14)."""
        ut = self.units[unit]
        hp = ut.hp
        walks = ut.walks
        if nation is not None:
            spec = self.nations[nation]
            hp += spec.hp_bonus
            walks = walks | spec.walks
        # The fields in order, without the named tuple's keyword constructor (training and
        # summoning make minions every turn).
        return _new(
            Minion,
            (
                minion_id,
                "recruit" if ut.kind == "recruit" else "monster",
                unit,
                nation,
                hp,
                hp,
                ut.armor,
                ut.attacks,
                ut.hand,
                ut.missile,
                ut.level,
                walks,
                ut.traits | traits if traits else ut.traits,
                False,
                ut.name,
            ),
        )

    def with_spells(self, extra: Mapping[str, SpellDef]) -> Content:
        """This content with more spells (scenarios' inline spells)."""
        merged = dict(self.spells)
        merged.update(extra)
        return Content(
            self.units,
            self.nations,
            self.houses,
            self.terrains,
            self.realms,
            self.boards,
            merged,
            self.economy,
        )


# ------------------------------------------------------------------------------ reading


def _entry(file: str, entry: str, raw: object, allowed: tuple[str, ...]) -> Table:
    """One entry of a content file, its keys checked against ``allowed``."""
    return Table(file, entry, raw, ContentError).known(allowed)


def _read_toml(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as fh:
            return tomllib.load(fh)
    except FileNotFoundError:
        raise ContentError(str(path), None, None, "file not found") from None
    except tomllib.TOMLDecodeError as exc:
        raise ContentError(str(path), None, None, f"not valid TOML: {exc}") from None


def _load_units(path: Path) -> dict[str, UnitType]:
    units: dict[str, UnitType] = {}
    for uid, raw in _read_toml(path).items():
        e = _entry(
            path.name,
            uid,
            raw,
            (
                "kind",
                "name",
                "hp",
                "armor",
                "attacks",
                "hand",
                "missile",
                "level",
                "walks",
                "traits",
            ),
        )
        units[uid] = UnitType(
            id=uid,
            kind=e.text("kind", choices=("recruit", "monster")),
            name=e.text("name"),
            hp=e.integer("hp", minimum=1),
            armor=e.integer("armor", 0),
            attacks=e.integer("attacks", 1),
            hand=e.integer("hand", 0),
            missile=e.integer("missile", 0),
            level=e.integer("level", 0),
            walks=frozenset(e.texts("walks", WALKS)),
            traits=frozenset(e.texts("traits")),
        )
    for needed in ("swordsman", "archer"):
        if needed not in units or units[needed].kind != "recruit":
            raise ContentError(path.name, needed, None, "a recruit unit of this id is required")
    return units


def _load_nations(path: Path) -> dict[str, Nation]:
    nations: dict[str, Nation] = {}
    for nid, raw in _read_toml(path).items():
        e = _entry(path.name, nid, raw, ("name", "plural", "house", "hp_bonus", "walks", "bonus"))
        mode: str | None = None
        rnd = amount = 0
        if "bonus" in e.raw:
            b = _entry(path.name, f"{nid}.bonus", e.raw["bonus"], ("mode", "round", "amount"))
            mode = b.text("mode", choices=("hand", "missile"))
            rnd = b.integer("round", minimum=1)
            amount = b.integer("amount", minimum=1)
        nations[nid] = Nation(
            id=nid,
            name=e.text("name"),
            plural=e.text("plural"),
            house=e.text("house"),
            hp_bonus=e.integer("hp_bonus", 0),
            walks=frozenset(e.texts("walks", WALKS)),
            bonus_mode=mode,
            bonus_round=rnd,
            bonus_amount=amount,
        )
    return nations


def _load_houses(path: Path, nations: Mapping[str, Nation]) -> dict[str, House]:
    houses: dict[str, House] = {}
    for hid, raw in _read_toml(path).items():
        e = _entry(path.name, hid, raw, ("name", "primary", "secondary", "nation"))
        primary = e.text("primary", choices=MANA_TYPES)
        secondary = e.text("secondary", choices=MANA_TYPES)
        if secondary in (primary, OPPOSED[primary]):
            raise e.fail("secondary", f"{secondary} cannot pair with {primary}")
        nation = e.text("nation")
        if nation not in nations:
            raise e.fail("nation", f"no nation {nation!r} in nations.toml")
        houses[hid] = House(hid, e.text("name"), primary, secondary, nation)
    for nat in nations.values():
        if nat.house not in houses:
            raise ContentError("nations.toml", nat.id, "house", f"no house {nat.house!r}")
    return houses


def _load_realms(path: Path) -> tuple[dict[str, Terrain], dict[str, Realm]]:
    data = _read_toml(path)
    unknown = set(data) - {"terrain", "realm"}
    if unknown:
        raise ContentError(path.name, sorted(unknown)[0], None, "only [terrain.*] and [realm.*]")
    terrains: dict[str, Terrain] = {}
    for tid, raw in _section(path, data, "terrain").items():
        e = _entry(
            path.name,
            f"terrain.{tid}",
            raw,
            ("name", "needs", "damage", "fatal", "fatal_unless", "conceals"),
        )
        terrains[tid] = Terrain(
            id=tid,
            name=e.text("name"),
            needs=e.text("needs", "", choices=("", *WALKS)),
            damage=e.integer("damage", 0),
            fatal=e.text("fatal", "", choices=("", "dies", "removed")),
            fatal_unless=e.text("fatal_unless", "", choices=("", *WALKS)),
            conceals=e.flag("conceals"),
        )
    if "plains" not in terrains:
        raise ContentError(path.name, "terrain.plains", None, "plains is required")
    realms: dict[str, Realm] = {}
    for rid, raw in _section(path, data, "realm").items():
        e = _entry(path.name, f"realm.{rid}", raw, ("name", "towns", "default", "weights", "picks"))
        towns = e.raw.get("towns")
        if (
            not isinstance(towns, list)
            or len(towns) != 2
            or not all(isinstance(t, int) and not isinstance(t, bool) for t in towns)
            or not 0 <= towns[0] <= towns[1]
        ):
            raise e.fail("towns", f"must be [min, max] with 0 <= min <= max, not {towns!r}")
        picks = e.texts("picks")
        weights: list[tuple[str, float]] = []
        default = ""
        if picks:
            if "weights" in e.raw or "default" in e.raw:
                raise e.fail("picks", "a realm that picks another has no weights or default")
        else:
            default = e.text("default", choices=tuple(terrains))
            raw_w = e.raw.get("weights")
            if not isinstance(raw_w, Mapping) or not raw_w:
                raise e.fail("weights", "must be a table of terrain = average count")
            for tname, w in raw_w.items():
                if tname not in terrains:
                    raise e.fail("weights", f"unknown terrain {tname!r}")
                if not isinstance(w, int | float) or isinstance(w, bool) or w <= 0:
                    raise e.fail("weights", f"weight of {tname} must be a positive number")
                weights.append((tname, float(w)))
            if terrains[default].needs or terrains[default].fatal or terrains[default].damage:
                raise e.fail("default", f"{default} must be passable and harmless")
        realms[rid] = Realm(rid, e.text("name"), towns[0], towns[1], default, tuple(weights), picks)
    for realm in realms.values():
        for pick in realm.picks:
            if pick not in realms or realms[pick].picks:
                raise ContentError(path.name, f"realm.{realm.id}", "picks", f"bad realm {pick!r}")
    return terrains, realms


def _section(path: Path, data: Mapping[str, Any], name: str) -> Mapping[str, Any]:
    """The ``[name.*]`` tables of a file: ``name`` must be a table of tables, if present."""
    section = data.get(name, {})
    if not isinstance(section, Mapping):
        raise ContentError(
            path.name, None, name, f"must be a table of [{name}.<id>] tables, not {section!r:.40}"
        )
    return section


def _load_economy(path: Path, units: Mapping[str, UnitType]) -> Economy:
    data = _read_toml(path)
    unknown = set(data) - {"start", "sanctum", "town", "colony", "deck"}
    if unknown:
        raise ContentError(path.name, sorted(unknown)[0], None, "unknown table")
    start = _entry(
        path.name, "start", data.get("start", {}), ("recruits", "novices", "blue_novices")
    )
    recruits = start.texts("recruits")
    for unit in recruits:
        if units.get(unit) is None or units[unit].kind != "recruit":
            raise start.fail("recruits", f"{unit!r} is not a recruit unit of units.toml")
    if not 1 <= len(recruits) <= 8:
        raise start.fail("recruits", "must name 1 to 8 recruits (one group)")
    sanctum = _entry(
        path.name,
        "sanctum",
        data.get("sanctum", {}),
        ("novice_every", "primary", "secondary", "guard"),
    )
    rates = {"sanctum": sanctum.integer("novice_every", minimum=1)}
    amounts: dict[str, int] = {}
    for kind in ("town", "colony"):
        e = _entry(path.name, kind, data.get(kind, {}), ("novice_every", "mana"))
        rates[kind] = e.integer("novice_every", minimum=1)
        amounts[kind] = e.integer("mana")
    deck = _entry(path.name, "deck", data.get("deck", {}), ("reshuffle",))
    return Economy(
        start_recruits=recruits,
        start_novices=start.integer("novices"),
        blue_novices=start.integer("blue_novices", default=0),
        novice_every=rates,
        sanctum_primary=sanctum.integer("primary"),
        sanctum_secondary=sanctum.integer("secondary"),
        sanctum_guard=sanctum.integer("guard"),
        structure_mana=amounts,
        reshuffle=deck.flag("reshuffle"),
    )


def _load_boards(folder: Path) -> dict[str, Board]:
    boards: dict[str, Board] = {}
    for path in sorted(folder.glob("*.txt")):
        board = Board.parse(path.stem, path.read_text(encoding="utf-8"), f"boards/{path.name}")
        boards[board.id] = board
    if "classic" not in boards:
        raise ContentError(str(folder), "classic", None, "the classic board is required")
    return boards


def load_content(data_dir: Path | str | None = None) -> Content:
    """Load and validate every content file; ``None`` means the repository's ``data/`` (cached)."""
    if data_dir is None:
        return _default_content()
    return _load(Path(data_dir))


@cache
def _default_content() -> Content:
    return _load(DATA_DIR)


def _load(folder: Path) -> Content:
    units = _load_units(folder / "units.toml")
    nations = _load_nations(folder / "nations.toml")
    houses = _load_houses(folder / "houses.toml", nations)
    terrains, realms = _load_realms(folder / "realms.toml")
    boards = _load_boards(folder / "boards")
    spells = load_spells(folder / "spells")
    economy = _load_economy(folder / "economy.toml", units)
    return Content(units, nations, houses, terrains, realms, boards, spells, economy)

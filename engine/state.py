"""The public game state: frozen values, JSON-safe through ``to_dict``/``from_dict``.

This file is long because it is the whole model in one place: each value class carries its own
JSON codec beside its fields, so a field and its encoding change together, and splitting the
codecs out would leave every class in two files.

A :class:`GameState` is the position between two turns, waiting for orders. Turn resolution never
mutates it: :mod:`engine.world` copies it into a private working copy and freezes the result.

Ids: groups, minions, structures, cards and active spells share one counter (``next_id``), so an
id names one thing for the whole match and creation order is id order.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field, fields, replace
from enum import StrEnum
from itertools import repeat
from json.encoder import encode_basestring_ascii
from operator import attrgetter, call, ge
from types import MappingProxyType
from typing import Any, Final, Literal, NamedTuple, TypeAlias, TypeVar, cast

from engine.coords import MAX_SIZE, Coord, coord

FORMAT_VERSION: Final = 1

JsonScalar: TypeAlias = int | str | bool | None
JsonValue: TypeAlias = JsonScalar | tuple["JsonValue", ...]


class StateFormatError(ValueError):
    """A serialized state, order set or report that cannot be read."""


class Side(StrEnum):
    RED = "red"
    BLUE = "blue"

    @property
    def other(self) -> Side:
        return _OTHER_SIDE[self]


# The sides by module-level names, for the turn's hot paths: in Python 3.11 reading an enum
# class's attribute (``Side.RED``) goes through ``EnumType.__getattr__``, about a thousand
# instructions, where a module's name is a few.
RED: Final = Side.RED
BLUE: Final = Side.BLUE
_OTHER_SIDE: Final[Mapping[Side, Side]] = MappingProxyType({RED: BLUE, BLUE: RED})

NEUTRAL: Final = "neutral"
Owner: TypeAlias = Side | Literal["neutral"]
SIDES: Final = (RED, BLUE)


# Owners by their stored names: a lookup, not the enum's call, for the hundreds of owners a
# late-game state holds.
_OWNERS: Final[Mapping[object, Owner]] = MappingProxyType(
    {"red": RED, "blue": BLUE, NEUTRAL: NEUTRAL}
)


def owner_from(value: object) -> Owner:
    try:
        return _OWNERS[value]
    except (KeyError, TypeError):
        raise StateFormatError(f"owner must be red, blue or neutral, not {value!r}") from None


def hostile(a: Owner, b: Owner) -> bool:
    """Different owners are hostile; neutral is hostile to both sides (and not to itself)."""
    return a != b


# --------------------------------------------------------------------------------------- mana

MANA_TYPES: Final = ("order", "strife", "clarity", "mystery", "will", "world")
OPPOSED: Final = {
    "order": "strife",
    "strife": "order",
    "clarity": "mystery",
    "mystery": "clarity",
    "will": "world",
    "world": "will",
}


class Mana(NamedTuple):
    """An amount of each of the six mana types (a pool, a cost, a production).

    A named tuple rather than a frozen dataclass: a turn builds tens of Mana values (costs,
    productions, pools), and a frozen dataclass's constructor sets each field through
    ``object.__setattr__``, three times the cost of building the tuple."""

    order: int = 0
    strife: int = 0
    clarity: int = 0
    mystery: int = 0
    will: int = 0
    world: int = 0

    @staticmethod
    def of(**amounts: int) -> Mana:
        return Mana(**amounts)

    @staticmethod
    def single(mana_type: str, amount: int = 1) -> Mana:
        return _NO_MANA.plus(((mana_type, amount),))

    def plus(self, amounts: Iterable[tuple[str, int]]) -> Mana:
        """This amount with each ``(mana type, amount)`` added: one value built for a whole sum
        (a production, a cost of two types) instead of one per term."""
        values = list(self)
        # The place by subscript (a method call on the read-only map costs twice as much).
        try:
            for mana_type, amount in amounts:
                values[_MANA_PLACES[mana_type]] += amount
        except KeyError:
            raise ValueError(f"unknown mana type {mana_type!r}") from None
        return _new(Mana, values)

    def get(self, mana_type: str) -> int:
        return cast(int, getattr(self, mana_type))

    def items(self) -> Iterator[tuple[str, int]]:
        for name in MANA_TYPES:
            yield name, self.get(name)

    # A turn adds and takes pools and costs by the dozen: the six amounts unpacked and summed in
    # place cost less than a map over them, which calls the operator once per amount.
    def __add__(self, other: Mana) -> Mana:  # type: ignore[override]
        order, strife, clarity, mystery, will, world = self
        order2, strife2, clarity2, mystery2, will2, world2 = other
        return _new(
            Mana,
            (
                order + order2,
                strife + strife2,
                clarity + clarity2,
                mystery + mystery2,
                will + will2,
                world + world2,
            ),
        )

    def __sub__(self, other: Mana) -> Mana:
        order, strife, clarity, mystery, will, world = self
        order2, strife2, clarity2, mystery2, will2, world2 = other
        return _new(
            Mana,
            (
                order - order2,
                strife - strife2,
                clarity - clarity2,
                mystery - mystery2,
                will - will2,
                world - world2,
            ),
        )

    # Compared over the six amounts in C (the tuple's own items).
    def covers(self, cost: Mana) -> bool:
        return all(map(ge, self, cost))

    def clamped(self) -> Mana:
        """No type below zero (a pool is never negative)."""
        if min(self) >= 0:
            return self
        return Mana(*(max(0, v) for _, v in self.items()))

    @property
    def total(self) -> int:
        # Summed over the tuple's own items in C: the search asks it of every pool it scores.
        return sum(self)

    def __str__(self) -> str:
        parts = [f"{v} {k}" for k, v in self.items() if v]
        return " + ".join(parts) if parts else "nothing"

    def to_dict(self) -> dict[str, int]:
        return {k: v for k, v in self.items() if v}

    @staticmethod
    def from_dict(data: object) -> Mana:
        if not isinstance(data, Mapping):
            raise StateFormatError(f"mana must be a table of types to amounts, not {data!r}")
        for key, value in data.items():
            if key not in MANA_TYPES:
                raise StateFormatError(
                    f"unknown mana type {key!r} (known: {', '.join(MANA_TYPES)})"
                )
            if not isinstance(value, int) or isinstance(value, bool):
                raise StateFormatError(f"mana amount for {key} must be an integer, not {value!r}")
        return Mana(**{str(k): int(v) for k, v in data.items()})


_NO_MANA: Final = Mana()
_MANA_PLACES: Final[Mapping[str, int]] = MappingProxyType(
    {name: at for at, name in enumerate(MANA_TYPES)}
)


# ------------------------------------------------------------------------------- board items

# Every square's canonical name ("D4"), as states store them: a lookup instead of the parser's
# regular expression for the hundreds of squares a state names.
_COORD_NAMES: Final[Mapping[str, Coord]] = MappingProxyType(
    {coord(x, y).name: coord(x, y) for x in range(MAX_SIZE) for y in range(MAX_SIZE)}
)


def parse_coord(text: object) -> Coord:
    """:meth:`Coord.parse` (which reads any spelling it accepts), quicker on canonical names."""
    found = _COORD_NAMES.get(text) if isinstance(text, str) else None
    return Coord.parse(cast(str, text)) if found is None else found


@dataclass(frozen=True, slots=True)
class Square:
    """A playable square and its terrain (a terrain id of ``data/realms.toml``)."""

    coord: Coord
    terrain: str

    def to_dict(self) -> dict[str, Any]:
        return {"coord": self.coord.name, "terrain": self.terrain}

    def to_json(self) -> str:
        """``json_text(self.to_dict())``, written directly (a state has about a hundred)."""
        return f'{{"coord":"{self.coord.name}","terrain":{_quoted(self.terrain)}}}'

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Square:
        return Square(parse_coord(data["coord"]), str(data["terrain"]))


StructureKind: TypeAlias = Literal["sanctum", "town", "colony"]
STRUCTURE_KINDS: Final = ("sanctum", "town", "colony")


@dataclass(frozen=True, slots=True)
class Structure:
    """A Sanctum, town or colony. ``novices`` lists each waiting novice's nation.

    ``counter`` counts turns towards the next novice (digest 9.2); ``mana_type`` is what a town or
    colony produces for its owner (chosen at capture).
    """

    id: int
    kind: StructureKind
    coord: Coord
    owner: Owner
    novices: tuple[str, ...] = ()
    counter: int = 0
    mana_type: str | None = None

    def with_novices(self, novices: tuple[str, ...], counter: int) -> Structure:
        """This structure with ``novices`` waiting and its counter at ``counter``: every owned
        structure changes so every turn. Built as evolve builds records (see record_builder)."""
        return _build_structure(
            self.id, self.kind, self.coord, self.owner, novices, counter, self.mana_type
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "coord": self.coord.name,
            "owner": str(self.owner),
            "novices": list(self.novices),
            "counter": self.counter,
            "mana_type": self.mana_type,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Structure:
        kind = data["kind"]
        if kind not in STRUCTURE_KINDS:
            raise StateFormatError(f"unknown structure kind {kind!r}")
        return Structure(
            id=int(data["id"]),
            kind=kind,
            coord=parse_coord(data["coord"]),
            owner=owner_from(data["owner"]),
            novices=tuple(str(n) for n in data.get("novices", ())),
            counter=int(data.get("counter", 0)),
            mana_type=data.get("mana_type"),
        )


_object_new: Final = object.__new__


def record_builder(cls: type) -> Callable[..., Any]:
    """A function making a record of the frozen, slotted class ``cls`` from the values of its
    slots in order: for the records a turn builds by the dozen (structures, players, states).

    A frozen dataclass's __init__ sets each field through ``object.__setattr__``, and calling
    its slots' own setters is a C call each: about a thousand instructions a field either way.
    The function fills an instance of a plain class with the same slots instead, where a store
    is a few instructions, then gives it ``cls`` as its class. The two classes have the same
    layout, so that assignment only changes the type: the record is a ``cls`` like any other
    (the same fields, equality, hash and pickle). The function is written out once per class
    here, as ``dataclasses`` writes an __init__: a loop over the slots would cost what the
    setters cost."""
    names: tuple[str, ...] = cls.__slots__  # type: ignore[attr-defined]
    draft = type(f"{cls.__name__}Draft", (), {"__slots__": names})
    stores = "".join(f"    record.{name} = {name}\n" for name in names)
    source = (
        f"def build({', '.join(names)}):\n    record = new(draft)\n{stores}"
        "    record.__class__ = cls\n    return record\n"
    )
    namespace: dict[str, Any] = {"new": _object_new, "draft": draft, "cls": cls}
    exec(source, namespace)
    build: Callable[..., Any] = namespace["build"]
    return build


# Structure from its fields in order (see Structure.with_novices).
_build_structure: Final[Callable[..., Structure]] = record_builder(Structure)

# Builds a named tuple from its fields in order, without the Python-level constructor.
_new = tuple.__new__

MinionKind: TypeAlias = Literal["recruit", "monster"]


class Minion(NamedTuple):
    """A recruit or monster with its base (unmodified) stats.

    ``hand`` and ``missile`` are damage per hit of each attack mode, ``attacks`` the attacks per
    combat round. ``walks`` are terrainwalks (``"flight"`` counts as every walk). ``traits`` are
    keywords such as ``"hero"`` or ``"immobile"``. ``earned_level`` marks a recruit that qualified
    for a level, awarded at the next start of turn.
    """

    id: int
    kind: MinionKind
    unit: str
    nation: str | None
    hp: int
    max_hp: int
    armor: int = 0
    attacks: int = 1
    hand: int = 0
    missile: int = 0
    level: int = 0
    walks: frozenset[str] = frozenset()
    traits: frozenset[str] = frozenset()
    earned_level: bool = False
    name: str = ""

    def with_hp(self, hp: int) -> Minion:
        """This minion with ``hp`` hit points (a fast path for combat's many updates: the named
        tuple's own constructor is a Python function, ``tuple.__new__`` builds the same record)."""
        return _new(Minion, (*self[:4], hp, *self[5:]))

    def with_level(self, level: int) -> Minion:
        """This minion at ``level``, its earned level spent (start of turn step 1 awards many
        levels at once)."""
        return _new(Minion, (*self[:10], level, self[11], self[12], False, self[14]))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "kind": self.kind,
            "unit": self.unit,
            "nation": self.nation,
            "hp": self.hp,
            "max_hp": self.max_hp,
            "armor": self.armor,
            "attacks": self.attacks,
            "hand": self.hand,
            "missile": self.missile,
            "level": self.level,
            "walks": sorted(self.walks),
            "traits": sorted(self.traits),
            "earned_level": self.earned_level,
            "name": self.name,
        }

    def to_json(self) -> str:
        """``json_text(self.to_dict())``, written directly: a late-game state holds a couple of
        hundred minions, and encoding their dicts was most of the cost of storing it."""
        nation = "null" if self.nation is None else _quoted(self.nation)
        return (
            f'{{"armor":{self.armor},"attacks":{self.attacks},'
            f'"earned_level":{"true" if self.earned_level else "false"},"hand":{self.hand},'
            f'"hp":{self.hp},"id":{self.id},"kind":{_quoted(self.kind)},"level":{self.level},'
            f'"max_hp":{self.max_hp},"missile":{self.missile},"name":{_quoted(self.name)},'
            f'"nation":{nation},"traits":{_quoted_names(self.traits)},'
            f'"unit":{_quoted(self.unit)},"walks":{_quoted_names(self.walks)}}}'
        )

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Minion:
        kind = data["kind"]
        if kind not in ("recruit", "monster"):
            raise StateFormatError(f"unknown minion kind {kind!r}")
        get = data.get
        # The fields in order, without the named tuple's keyword constructor: a late-game state
        # holds a couple of hundred minions.
        return _new(
            Minion,
            (
                int(data["id"]),
                kind,
                str(data["unit"]),
                get("nation"),
                int(data["hp"]),
                int(data["max_hp"]),
                int(get("armor", 0)),
                int(get("attacks", 1)),
                int(get("hand", 0)),
                int(get("missile", 0)),
                int(get("level", 0)),
                frozenset(get("walks", ())),
                frozenset(get("traits", ())),
                bool(get("earned_level", False)),
                str(get("name", "")),
            ),
        )


MAX_GROUP_SIZE: Final = 8


class Group(NamedTuple):
    """1-8 minions on one square. ``owner`` fights for it; ``controller`` gives it orders.

    Groups are kept in creation order (which is also id order).
    """

    id: int
    owner: Owner
    controller: Owner
    coord: Coord
    minions: tuple[Minion, ...]

    # Loops rather than all() over a generator (a frame and a resumption per member): movement,
    # captures and targeting ask these of many groups every turn.
    @property
    def is_recruit_group(self) -> bool:
        for m in self.minions:  # noqa: SIM110
            if m.kind != "recruit":
                return False
        return True

    @property
    def is_monster_group(self) -> bool:
        for m in self.minions:  # noqa: SIM110
            if m.kind != "monster":
                return False
        return True

    @property
    def player_controlled(self) -> bool:
        """Controlled by its own owner (a red or blue player), as opposed to a computer."""
        return self.controller == self.owner and self.owner != NEUTRAL

    def minion(self, minion_id: int) -> Minion | None:
        for m in self.minions:
            if m.id == minion_id:
                return m
        return None

    def with_minions(self, minions: tuple[Minion, ...]) -> Group:
        """This group with ``minions`` (a fast path for the turn's many membership changes)."""
        return _new(Group, (self.id, self.owner, self.controller, self.coord, minions))

    def moved_to(self, at: Coord) -> Group:
        """This group on ``at`` (the same fast path: movement places groups by the dozen)."""
        return _new(Group, (self.id, self.owner, self.controller, at, self.minions))

    def to_dict(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "owner": str(self.owner),
            "controller": str(self.controller),
            "coord": self.coord.name,
            "minions": [m.to_dict() for m in self.minions],
        }

    def to_json(self) -> str:
        """``json_text(self.to_dict())``, written directly (see :meth:`Minion.to_json`)."""
        minions = ",".join([m.to_json() for m in self.minions])
        return (
            f'{{"controller":{_quoted(str(self.controller))},"coord":"{self.coord.name}",'
            f'"id":{self.id},"minions":[{minions}],"owner":{_quoted(str(self.owner))}}}'
        )

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Group:
        minion = Minion.from_dict
        return _new(
            Group,
            (
                int(data["id"]),
                owner_from(data["owner"]),
                owner_from(data.get("controller", data["owner"])),
                parse_coord(data["coord"]),
                tuple([minion(m) for m in data["minions"]]),
            ),
        )


# ----------------------------------------------------------------------------- cards, spells


@dataclass(frozen=True, slots=True)
class Card:
    """One copy of a spell in a deck, hand or discard pile; ``uid`` is unique in the match."""

    uid: int
    spell_id: str

    def to_dict(self) -> dict[str, Any]:
        return {"uid": self.uid, "spell_id": self.spell_id}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Card:
        return Card(int(data["uid"]), str(data["spell_id"]))


HostKind: TypeAlias = Literal["minion", "group", "square", "structure", "globe"]
HOST_KINDS: Final = ("minion", "group", "square", "structure", "globe")


class HostRef(NamedTuple):
    """What an active spell sits on: a minion, group or structure id, a square, or the globe."""

    kind: HostKind
    ref: int | Coord | None = None

    # Built from the fields in order, without the named tuple's Python-level constructor: every
    # spell lookup, death and target check names a host.
    @staticmethod
    def minion(minion_id: int) -> HostRef:
        return _new(HostRef, ("minion", minion_id))

    @staticmethod
    def group(group_id: int) -> HostRef:
        return _new(HostRef, ("group", group_id))

    @staticmethod
    def square(at: Coord) -> HostRef:
        return _new(HostRef, ("square", at))

    @staticmethod
    def structure(structure_id: int) -> HostRef:
        return _new(HostRef, ("structure", structure_id))

    @staticmethod
    def globe() -> HostRef:
        return GLOBE

    def to_dict(self) -> dict[str, Any]:
        ref: JsonScalar = self.ref.name if isinstance(self.ref, Coord) else self.ref
        return {"kind": self.kind, "ref": ref}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> HostRef:
        kind = data["kind"]
        if kind not in HOST_KINDS:
            raise StateFormatError(f"unknown host kind {kind!r}")
        raw = data.get("ref")
        if kind == "globe":
            return GLOBE
        if kind == "square":
            if not isinstance(raw, str):
                raise StateFormatError(f"a square host needs a square name, not {raw!r}")
            return HostRef("square", parse_coord(raw))
        if not isinstance(raw, int) or isinstance(raw, bool):
            raise StateFormatError(f"a {kind} host needs an id, not {raw!r}")
        return HostRef(kind, raw)


GLOBE: Final = HostRef("globe", None)


_SCALARS: Final = frozenset({int, str, bool, type(None)})


def json_value(value: object) -> JsonValue:
    """``value`` as a JSON-safe field value (lists become tuples); raises for anything else."""
    if type(value) in _SCALARS:
        return value  # type: ignore[return-value]
    if isinstance(value, list | tuple):
        return tuple(json_value(v) for v in value)
    if isinstance(value, str):  # subclasses such as Side
        return str(value)
    raise StateFormatError(f"value {value!r} is not JSON-safe")


def json_plain(value: JsonValue) -> object:
    if isinstance(value, tuple):
        return [json_plain(v) for v in value]
    return value


def json_text(doc: object) -> str:
    """``doc`` as compact JSON with sorted keys: how states and reports are stored."""
    return json.dumps(doc, separators=(",", ":"), sort_keys=True)


# The encoder of JSON strings that ``json.dumps`` uses (quotes and escapes included).
_quoted: Final = encode_basestring_ascii


def _quoted_names(names: frozenset[str]) -> str:
    return "[" + ",".join([_quoted(n) for n in sorted(names)]) + "]" if names else "[]"


@dataclass(frozen=True, slots=True)
class ActiveSpell:
    """An alteration or conjuration in play (S8, S9), or a helper placed by the engine or a spell.

    ``uid`` orders casting (oldest first). ``card_uid`` is the card it came from, if any.
    ``data`` holds the spell's own counters and parameters (e.g. turns left), as sorted pairs.
    """

    uid: int
    spell_id: str
    owner: Side
    host: HostRef
    cast_turn: int
    visible: bool = True
    boosted: bool = False
    power: int | None = None
    card_uid: int | None = None
    helper: bool = False
    data: tuple[tuple[str, JsonValue], ...] = ()

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        for name, value in self.data:
            if name == key:
                return value
        return default

    def with_data(self, **values: JsonValue) -> ActiveSpell:
        merged = dict(self.data)
        merged.update(values)
        return replace(self, data=tuple(sorted(merged.items())))

    def to_dict(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "spell_id": self.spell_id,
            "owner": str(self.owner),
            "host": self.host.to_dict(),
            "cast_turn": self.cast_turn,
            "visible": self.visible,
            "boosted": self.boosted,
            "power": self.power,
            "card_uid": self.card_uid,
            "helper": self.helper,
            "data": {k: json_plain(v) for k, v in self.data},
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> ActiveSpell:
        return ActiveSpell(
            uid=int(data["uid"]),
            spell_id=str(data["spell_id"]),
            owner=Side(data["owner"]),
            host=HostRef.from_dict(data["host"]),
            cast_turn=int(data["cast_turn"]),
            visible=bool(data.get("visible", True)),
            boosted=bool(data.get("boosted", False)),
            power=data.get("power"),
            card_uid=data.get("card_uid"),
            helper=bool(data.get("helper", False)),
            data=tuple(sorted((str(k), json_value(v)) for k, v in data.get("data", {}).items())),
        )


# ------------------------------------------------------------------------------------ players


@dataclass(frozen=True, slots=True)
class PlayerState:
    """One side's wizard. ``deck`` is in draw order (top first).

    ``mana_novices`` is the production added by novices trained as mana (G5).
    ``captured``/``lost`` count towns and colonies since the previous start of turn (I3).
    ``cast_log`` lists the spell ids this side has successfully cast, oldest first (S12).
    """

    side: Side
    house: str
    deck: tuple[Card, ...] = ()
    hand: tuple[Card, ...] = ()
    discard: tuple[Card, ...] = ()
    pool: Mana = field(default_factory=Mana)
    mana_novices: Mana = field(default_factory=Mana)
    captured: int = 0
    lost: int = 0
    cast_log: tuple[str, ...] = ()

    # A turn changes each player's pool and cards several times (mana, casts, the draw): these
    # build the new record as evolve does (see record_builder) without its keyword call.
    def with_pool(self, pool: Mana) -> PlayerState:
        return self.with_mana(pool, self.mana_novices)

    def with_mana(self, pool: Mana, mana_novices: Mana) -> PlayerState:
        return _build_player(
            self.side,
            self.house,
            self.deck,
            self.hand,
            self.discard,
            pool,
            mana_novices,
            self.captured,
            self.lost,
            self.cast_log,
        )

    def with_cards(
        self, deck: tuple[Card, ...], hand: tuple[Card, ...], discard: tuple[Card, ...]
    ) -> PlayerState:
        return _build_player(
            self.side,
            self.house,
            deck,
            hand,
            discard,
            self.pool,
            self.mana_novices,
            self.captured,
            self.lost,
            self.cast_log,
        )

    def with_cast(
        self,
        pool: Mana,
        hand: tuple[Card, ...],
        discard: tuple[Card, ...],
        cast_log: tuple[str, ...],
    ) -> PlayerState:
        """This player after a cast: its pool, hand, discard pile and cast log."""
        return _build_player(
            self.side,
            self.house,
            self.deck,
            hand,
            discard,
            pool,
            self.mana_novices,
            self.captured,
            self.lost,
            cast_log,
        )

    def card(self, uid: int) -> Card | None:
        for c in self.hand:
            if c.uid == uid:
                return c
        return None

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": str(self.side),
            "house": self.house,
            "deck": [c.to_dict() for c in self.deck],
            "hand": [c.to_dict() for c in self.hand],
            "discard": [c.to_dict() for c in self.discard],
            "pool": self.pool.to_dict(),
            "mana_novices": self.mana_novices.to_dict(),
            "captured": self.captured,
            "lost": self.lost,
            "cast_log": list(self.cast_log),
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> PlayerState:
        return PlayerState(
            side=Side(data["side"]),
            house=str(data["house"]),
            deck=tuple(Card.from_dict(c) for c in data.get("deck", ())),
            hand=tuple(Card.from_dict(c) for c in data.get("hand", ())),
            discard=tuple(Card.from_dict(c) for c in data.get("discard", ())),
            pool=Mana.from_dict(data.get("pool", {})),
            mana_novices=Mana.from_dict(data.get("mana_novices", {})),
            captured=int(data.get("captured", 0)),
            lost=int(data.get("lost", 0)),
            cast_log=tuple(str(s) for s in data.get("cast_log", ())),
        )


# PlayerState from its fields in order (see PlayerState.with_pool).
_build_player: Final[Callable[..., PlayerState]] = record_builder(PlayerState)


# ------------------------------------------------------------------------------------ options


RULESETS: Final = ("classic", "duel")


@dataclass(frozen=True, slots=True)
class Options:
    """The ruleset record stored with a match, so old matches replay under their own rules."""

    ruleset: str = "classic"
    magic_duel: bool = False
    board: str = "classic"
    realm: str = "veldt"
    symmetric: bool = False
    hand_size: int = 5
    max_rounds: int = 6

    @staticmethod
    def for_ruleset(ruleset: str, **overrides: Any) -> Options:
        if ruleset not in RULESETS:
            raise ValueError(f"unknown ruleset {ruleset!r} (known: {', '.join(RULESETS)})")
        return Options(ruleset=ruleset, magic_duel=ruleset == "duel", **overrides)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ruleset": self.ruleset,
            "magic_duel": self.magic_duel,
            "board": self.board,
            "realm": self.realm,
            "symmetric": self.symmetric,
            "hand_size": self.hand_size,
            "max_rounds": self.max_rounds,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Options:
        known = set(Options.__dataclass_fields__)
        unknown = set(data) - known
        if unknown:
            raise StateFormatError(f"unknown option(s): {', '.join(sorted(unknown))}")
        return Options(**dict(data))


@dataclass(frozen=True, slots=True)
class Result:
    """How a match ended: ``winner`` is None for a draw."""

    winner: Side | None
    reason: str

    def to_dict(self) -> dict[str, Any]:
        return {"winner": None if self.winner is None else str(self.winner), "reason": self.reason}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Result:
        winner = data.get("winner")
        return Result(None if winner is None else Side(winner), str(data["reason"]))


# --------------------------------------------------------------------------------------- state


class Records(NamedTuple):
    """A position's records in dicts (see :meth:`GameState.records`): structures, groups and
    active spells by id in id order, each minion's group id, each structure's square; and
    whether any minion has earned a level not yet awarded."""

    structures: dict[int, Structure]
    groups: dict[int, Group]
    spells: dict[int, ActiveSpell]
    minion_group: dict[int, int]
    structure_at: dict[Coord, int]
    earned: bool


class SpellAnswers(NamedTuple):
    """See :meth:`GameState.spell_answers`: the presence's answers by event (reacting ids), by
    spell id set (where they sit) and the queries' memo."""

    reacting: dict[str, frozenset[str]]
    reach: dict[frozenset[str], Any]
    memo: dict[tuple[object, ...], object]


# The records' sort keys, read in C (a lambda is a Python call per record).
_ID: Final = attrgetter("id")
_UID: Final = attrgetter("uid")


@dataclass(frozen=True, slots=True)
class GameState:
    """A whole match position between turns (after start of turn ``turn``, before its orders)."""

    seed: int
    turn: int
    options: Options
    width: int
    height: int
    squares: tuple[Square, ...]
    structures: tuple[Structure, ...]
    groups: tuple[Group, ...]
    players: tuple[PlayerState, PlayerState]
    initiative: Side = Side.RED
    active_spells: tuple[ActiveSpell, ...] = ()
    next_id: int = 1
    result: Result | None = None
    # Square -> terrain of ``squares``, derived once per state and kept with it (see
    # terrain_index): not a field of the position (no equality, no codec).
    _terrain: Mapping[Coord, str] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )
    # The records by id and where they stand, derived once per state (see records).
    _records: Records | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )
    # Answers about the active spells, shared by the turns resolved from this state (see
    # spell_answers).
    _spell_answers: tuple[object, object, SpellAnswers] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )

    def records(self) -> Records:
        """The records by id (in id order) and where they stand, read only: built on first use
        and kept with the state. A turn's World starts from copies of them, which for a
        position the computer's search resolves many times over are a copy of each dict
        instead of sorting and indexing the records again."""
        found = self._records
        if found is None:
            groups = {g.id: g for g in sorted(self.groups, key=_ID)}
            structures = {s.id: s for s in sorted(self.structures, key=_ID)}
            found = Records(
                structures,
                groups,
                {s.uid: s for s in sorted(self.active_spells, key=_UID)},
                {m.id: g.id for g in groups.values() for m in g.minions},
                {s.coord: s.id for s in structures.values()},
                any(m.earned_level for g in self.groups for m in g.minions),
            )
            object.__setattr__(self, "_records", found)
        return found

    def spell_answers(self, content: object, reacting: object) -> SpellAnswers:
        """Where the turns resolved from this state with ``content`` and the spell rules'
        ``reacting`` keep what depends only on the active spells and the rules (which spell ids
        react to an event, where the spells of given ids sit, the queries' memo). A computer's
        search resolves one position many times over: each turn's World fills these while its
        spells are still this state's and starts its own as soon as one comes, goes or
        changes, so they hold only answers about this state's spells."""
        found = self._spell_answers
        if found is None or found[0] is not content or found[1] != reacting:
            found = (content, reacting, SpellAnswers({}, {}, {}))
            object.__setattr__(self, "_spell_answers", found)
        return found[2]

    def __getstate__(self) -> tuple[object, ...]:
        # A pickled state leaves its derived maps and answers behind (rebuilt on first use):
        # the answers hold the content and the rules.
        return tuple(getattr(self, name) for name in _STATE_FIELDS)

    def __setstate__(self, values: tuple[object, ...]) -> None:
        _set_all(_STATE_SET, self, (*values, None, None, None))

    # -- lookups (linear: states are small; the turn's World keeps indexes for hot paths)

    def player(self, side: Side) -> PlayerState:
        return self.players[0] if side is RED else self.players[1]

    def square(self, at: Coord) -> Square | None:
        for sq in self.squares:
            if sq.coord == at:
                return sq
        return None

    def terrain_map(self) -> dict[Coord, str]:
        return dict(self.terrain_index())

    def terrain_index(self) -> Mapping[Coord, str]:
        """Square -> terrain, read only: built on first use and kept with the state. A
        computer's search resolves one position many times over, and a turn's World starts
        from it (a board's hundred squares were a twentieth of a search turn); the World's
        snapshot hands over its own map."""
        found = self._terrain
        if found is None:
            found = {sq.coord: sq.terrain for sq in self.squares}
            object.__setattr__(self, "_terrain", found)
        return found

    def group(self, group_id: int) -> Group | None:
        for g in self.groups:
            if g.id == group_id:
                return g
        return None

    def group_at(self, at: Coord) -> Group | None:
        for g in self.groups:
            if g.coord == at:
                return g
        return None

    def minion(self, minion_id: int) -> Minion | None:
        for g in self.groups:
            for m in g.minions:
                if m.id == minion_id:
                    return m
        return None

    def group_of(self, minion_id: int) -> Group | None:
        for g in self.groups:
            for m in g.minions:
                if m.id == minion_id:
                    return g
        return None

    def structure(self, structure_id: int) -> Structure | None:
        for s in self.structures:
            if s.id == structure_id:
                return s
        return None

    def structure_at(self, at: Coord) -> Structure | None:
        for s in self.structures:
            if s.coord == at:
                return s
        return None

    def sanctum(self, side: Side) -> Structure | None:
        for s in self.structures:
            if s.kind == "sanctum" and s.owner == side:
                return s
        return None

    def groups_of(self, owner: Owner) -> tuple[Group, ...]:
        return tuple(g for g in self.groups if g.owner == owner)

    def spells_on(self, host: HostRef) -> tuple[ActiveSpell, ...]:
        """The host's active spells in casting order (S9)."""
        return tuple(s for s in self.active_spells if s.host == host)

    def spells_of(self, side: Side) -> tuple[ActiveSpell, ...]:
        """The side's list of active spells in casting order (S9)."""
        return tuple(s for s in self.active_spells if s.owner == side)

    @property
    def over(self) -> bool:
        return self.result is not None

    # -- serialization

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "seed": self.seed,
            "turn": self.turn,
            "options": self.options.to_dict(),
            "width": self.width,
            "height": self.height,
            "squares": [s.to_dict() for s in self.squares],
            "structures": [s.to_dict() for s in self.structures],
            "groups": [g.to_dict() for g in self.groups],
            "players": [p.to_dict() for p in self.players],
            "initiative": str(self.initiative),
            "active_spells": [s.to_dict() for s in self.active_spells],
            "next_id": self.next_id,
            "result": None if self.result is None else self.result.to_dict(),
        }

    def to_json(self) -> str:
        """``json_text(self.to_dict())``, the text the service stores, with the squares and
        groups (most of a state) written directly instead of through their dicts."""
        spells = ",".join([json_text(s.to_dict()) for s in self.active_spells])
        groups = ",".join([g.to_json() for g in self.groups])
        players = ",".join([json_text(p.to_dict()) for p in self.players])
        result = "null" if self.result is None else json_text(self.result.to_dict())
        squares = ",".join([sq.to_json() for sq in self.squares])
        structures = ",".join([json_text(s.to_dict()) for s in self.structures])
        return (
            f'{{"active_spells":[{spells}],"format_version":{FORMAT_VERSION},'
            f'"groups":[{groups}],"height":{self.height},'
            f'"initiative":{_quoted(str(self.initiative))},"next_id":{self.next_id},'
            f'"options":{json_text(self.options.to_dict())},"players":[{players}],'
            f'"result":{result},"seed":{self.seed},"squares":[{squares}],'
            f'"structures":[{structures}],"turn":{self.turn},"width":{self.width}}}'
        )

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> GameState:
        version = data.get("format_version") if isinstance(data, Mapping) else None
        if version != FORMAT_VERSION:
            raise StateFormatError(
                f"state format_version {version!r} is not supported (this engine reads "
                f"{FORMAT_VERSION})"
            )
        try:
            players = tuple(PlayerState.from_dict(p) for p in data["players"])
            if len(players) != 2 or players[0].side is not RED or players[1].side is not BLUE:
                raise StateFormatError("players must list red then blue")
            result = data.get("result")
            return GameState(
                seed=int(data["seed"]),
                turn=int(data["turn"]),
                options=Options.from_dict(data["options"]),
                width=int(data["width"]),
                height=int(data["height"]),
                squares=tuple(Square.from_dict(s) for s in data["squares"]),
                structures=tuple(Structure.from_dict(s) for s in data["structures"]),
                groups=tuple(Group.from_dict(g) for g in data["groups"]),
                players=(players[0], players[1]),
                initiative=Side(data["initiative"]),
                active_spells=tuple(ActiveSpell.from_dict(s) for s in data["active_spells"]),
                next_id=int(data["next_id"]),
                result=None if result is None else Result.from_dict(result),
            )
        except StateFormatError:
            raise
        except (KeyError, TypeError, ValueError) as exc:
            raise StateFormatError(f"malformed state: {exc!r}") from exc


_R = TypeVar("_R")


class _Layout(NamedTuple):
    """A record class's fields: ``read`` gives all their values in order in one call;
    ``build`` makes a record from them when its slots alone make one (see evolve)."""

    read: Callable[[Any], tuple[Any, ...]]
    places: Mapping[str, int]
    build: Callable[..., Any] | None


def _layout(cls: type) -> _Layout:
    names: tuple[str, ...] = getattr(cls, "_fields", None) or tuple(
        f.name for f in fields(cls) if f.init
    )
    build = None
    if (
        not issubclass(cls, tuple)
        and not hasattr(cls, "__post_init__")
        and tuple(getattr(cls, "__slots__", ())) == names
    ):
        build = record_builder(cls)
    places = MappingProxyType({name: i for i, name in enumerate(names)})
    if len(names) == 1:
        only = attrgetter(names[0])
        return _Layout(lambda record: (only(record),), places, build)
    return _Layout(attrgetter(*names), places, build)


# The records a turn evolves, introspected once here rather than on every call.
_LAYOUTS: Final[Mapping[type, _Layout]] = MappingProxyType(
    {
        cls: _layout(cls)
        for cls in (
            Mana,
            Square,
            Structure,
            Minion,
            Group,
            Card,
            HostRef,
            ActiveSpell,
            PlayerState,
            Options,
            Result,
        )
    }
)


def evolve(record: _R, **changes: Any) -> _R:
    """A copy of a frozen record with some fields changed: ``dataclasses.replace`` without its
    per-call introspection, for the hot paths of a turn (combat, movement, levels, mana). The
    fields are read in one C call and only the changed ones are looked at one by one."""
    cls = type(record)
    try:
        layout = _LAYOUTS[cls]
    except KeyError:
        layout = _layout(cls)
    values = list(layout.read(record))
    places = layout.places
    try:
        for name, value in changes.items():
            values[places[name]] = value
    except KeyError:
        unknown = ", ".join(sorted(set(changes) - places.keys()))
        raise TypeError(f"{cls.__name__} has no field {unknown}") from None
    build = layout.build
    if build is None:
        return cls(*values)
    # A frozen dataclass's __init__ sets each field through object.__setattr__; with nothing
    # else to do (no __post_init__), the class's builder makes the same record for less.
    copy: _R = build(*values)
    return copy


def state_of(values: tuple[Any, ...], terrain: Mapping[Coord, str]) -> GameState:
    """A GameState from its fields in order and the square -> terrain map of its squares (the
    World's snapshot, which hands over its own map), made as :func:`evolve` makes a copy (see
    :func:`record_builder`): a frozen dataclass's keyword __init__ costs several times as much."""
    state: GameState = _build_state(*values, terrain, None, None)
    return state


# GameState from its slots in order: its fields of the position, then its derived maps and
# answers (see state_of).
_build_state: Final[Callable[..., GameState]] = record_builder(GameState)
# GameState's slot setters in the same order (an unpickled state fills itself, __setstate__),
# and its fields of the position.
_STATE_SET: Final = tuple(getattr(GameState, f.name).__set__ for f in fields(GameState))
_STATE_FIELDS: Final = tuple(f.name for f in fields(GameState) if f.init)


def _set_all(setters: tuple[Callable[[Any, Any], None], ...], record: object, values: Any) -> None:
    """Each slot setter called with ``record`` and its value, the loop run in C: a setter
    returns None, so ``any`` calls every one (a Python loop cost as much as the setters)."""
    any(map(call, setters, repeat(record), values))

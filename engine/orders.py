"""One side's orders for a turn: casts, moves, trainings and at most one discard (S5).

Orders are frozen values with ``to_dict``/``from_dict``. :func:`engine.validate.validate_orders`
returns every problem at once, each a :class:`Problem` with a code and a message a player
understands. :func:`add_orders` and :func:`remove_order` change one side's orders as a player
does, by the numbers :func:`all_orders` gives them in the echo.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Final, Literal, TypeAlias

from engine.coords import Coord, CoordError
from engine.state import FORMAT_VERSION, HOST_KINDS, HostKind, StateFormatError

TRAIN_KINDS: Final = ("swordsman", "archer", "mana")
TrainKind: TypeAlias = Literal["swordsman", "archer", "mana"]


@dataclass(frozen=True, slots=True)
class Target:
    """What a cast is aimed at: ``kind`` is a host kind, ``ref`` an id, a square or None (globe).

    A group or minion target names the id it has when the orders are given; a group trained this
    turn is named by its square (``ref`` a Coord), resolved to the group standing there once
    training is done.
    """

    kind: HostKind
    ref: int | Coord | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "kind": self.kind,
            "ref": self.ref.name if isinstance(self.ref, Coord) else self.ref,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Target:
        kind = data.get("kind")
        if kind not in HOST_KINDS:
            raise StateFormatError(
                f"target kind must be one of {', '.join(HOST_KINDS)}, not {kind!r}"
            )
        raw = data.get("ref")
        ref: int | Coord | None
        if raw is None:
            ref = None
        elif isinstance(raw, bool):
            raise StateFormatError(f"target ref {raw!r} is neither an id nor a square")
        elif isinstance(raw, int):
            ref = raw
        elif isinstance(raw, str):
            try:
                ref = Coord.parse(raw)
            except CoordError as exc:
                raise StateFormatError(str(exc)) from None
        else:
            raise StateFormatError(f"target ref {raw!r} is neither an id nor a square")
        return Target(kind, ref)


@dataclass(frozen=True, slots=True)
class CastOrder:
    """Cast the card ``card_uid`` from hand on ``target``.

    ``boosted`` picks the boosted version (N7); ``power`` the level of a bound spell (N8);
    ``bound_source`` the id of the structure, hero or active spell carrying a bound spell (N5),
    in which case ``spell_id`` names it and ``card_uid`` is 0.
    """

    card_uid: int
    target: Target
    boosted: bool = False
    power: int | None = None
    bound_source: int | None = None
    spell_id: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "card_uid": self.card_uid,
            "target": self.target.to_dict(),
            "boosted": self.boosted,
            "power": self.power,
            "bound_source": self.bound_source,
            "spell_id": self.spell_id,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> CastOrder:
        return CastOrder(
            card_uid=_int(data, "card_uid"),
            target=Target.from_dict(_table(data, "target")),
            boosted=bool(data.get("boosted", False)),
            power=_opt_int(data, "power"),
            bound_source=_opt_int(data, "bound_source"),
            spell_id=_opt_str(data, "spell_id"),
        )


@dataclass(frozen=True, slots=True)
class MoveOrder:
    """Move group ``group_id`` to ``dest`` (issue order is the last movement tiebreaker)."""

    group_id: int
    dest: Coord

    def to_dict(self) -> dict[str, Any]:
        return {"group_id": self.group_id, "dest": self.dest.name}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> MoveOrder:
        return MoveOrder(_int(data, "group_id"), _coord(data, "dest"))


@dataclass(frozen=True, slots=True)
class TrainOrder:
    """Train one novice of the structure on ``structure`` as a swordsman, archer or mana."""

    structure: Coord
    kind: TrainKind
    mana_type: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"structure": self.structure.name, "kind": self.kind, "mana_type": self.mana_type}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> TrainOrder:
        kind = data.get("kind")
        if kind not in TRAIN_KINDS:
            raise StateFormatError(
                f"train kind must be one of {', '.join(TRAIN_KINDS)}, not {kind!r}"
            )
        return TrainOrder(_coord(data, "structure"), kind, _opt_str(data, "mana_type"))


@dataclass(frozen=True, slots=True)
class DiscardOrder:
    """Drop the card ``card_uid`` on the whirlpool."""

    card_uid: int

    def to_dict(self) -> dict[str, Any]:
        return {"card_uid": self.card_uid}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> DiscardOrder:
        return DiscardOrder(_int(data, "card_uid"))


@dataclass(frozen=True, slots=True)
class ManaChoice:
    """The mana type the town or colony on ``structure`` is to produce if this side captures it
    at the coming start of turn (digest 9.3 item 6; D-TOWN-MANA). Without one, a captured
    structure produces the house's primary type."""

    structure: Coord
    mana_type: str

    def to_dict(self) -> dict[str, Any]:
        return {"structure": self.structure.name, "mana_type": self.mana_type}

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> ManaChoice:
        mana_type = data.get("mana_type")
        if not isinstance(mana_type, str):
            raise StateFormatError(f"mana_type must be a mana type name, not {mana_type!r}")
        return ManaChoice(_coord(data, "structure"), mana_type)


@dataclass(frozen=True, slots=True)
class Orders:
    """Everything one side orders in a turn; casts and moves keep their issue order.

    ``mana_choices`` are standing choices, one per structure, applied only to a capture at the
    start of turn that follows.
    """

    casts: tuple[CastOrder, ...] = ()
    moves: tuple[MoveOrder, ...] = ()
    trains: tuple[TrainOrder, ...] = ()
    discard: DiscardOrder | None = None
    confirmed: bool = False
    mana_choices: tuple[ManaChoice, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "casts": [c.to_dict() for c in self.casts],
            "moves": [m.to_dict() for m in self.moves],
            "trains": [t.to_dict() for t in self.trains],
            "discard": None if self.discard is None else self.discard.to_dict(),
            "confirmed": self.confirmed,
            "mana_choices": [c.to_dict() for c in self.mana_choices],
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Orders:
        """Read orders (``format_version`` optional: UIs may omit it); raises
        :class:`StateFormatError` naming the bad part."""
        if not isinstance(data, Mapping):
            raise StateFormatError(f"orders must be a table, not {data!r}")
        unknown = set(data) - {
            "format_version",
            "casts",
            "moves",
            "trains",
            "discard",
            "confirmed",
            "mana_choices",
        }
        if unknown:
            raise StateFormatError(f"unknown order section(s): {', '.join(sorted(unknown))}")
        if data.get("format_version", FORMAT_VERSION) != FORMAT_VERSION:
            raise StateFormatError(
                f"orders format_version {data['format_version']!r} is not supported"
            )
        discard = data.get("discard")
        try:
            return Orders(
                casts=tuple(
                    CastOrder.from_dict(_as_table(c, "cast")) for c in _list(data, "casts")
                ),
                moves=tuple(
                    MoveOrder.from_dict(_as_table(m, "move")) for m in _list(data, "moves")
                ),
                trains=tuple(
                    TrainOrder.from_dict(_as_table(t, "train")) for t in _list(data, "trains")
                ),
                discard=None
                if discard is None
                else DiscardOrder.from_dict(_as_table(discard, "discard")),
                confirmed=bool(data.get("confirmed", False)),
                mana_choices=tuple(
                    ManaChoice.from_dict(_as_table(c, "mana choice"))
                    for c in _list(data, "mana_choices")
                ),
            )
        except (KeyError, TypeError) as exc:
            raise StateFormatError(f"malformed orders: {exc}") from None


Order: TypeAlias = CastOrder | MoveOrder | TrainOrder | DiscardOrder | ManaChoice


class OrderNumberError(ValueError):
    """An order number the echo does not show; the message is written for the player."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


def all_orders(orders: Orders) -> list[Order]:
    """The orders in the sequence the echo numbers them: casts, moves, trains, discard, mana
    choices."""
    listed: list[Order] = [*orders.casts, *orders.moves, *orders.trains]
    if orders.discard is not None:
        listed.append(orders.discard)
    listed.extend(orders.mana_choices)
    return listed


def add_orders(orders: Orders, new: Sequence[Order]) -> Orders:
    """``orders`` plus ``new``; a new discard, a new move of a group or a new mana choice for a
    structure replaces the old one."""
    casts = list(orders.casts)
    moves = list(orders.moves)
    trains = list(orders.trains)
    discard = orders.discard
    choices = list(orders.mana_choices)
    for order in new:
        if isinstance(order, CastOrder):
            casts.append(order)
        elif isinstance(order, MoveOrder):
            moves = [m for m in moves if m.group_id != order.group_id]
            moves.append(order)
        elif isinstance(order, TrainOrder):
            trains.append(order)
        elif isinstance(order, ManaChoice):
            choices = [c for c in choices if c.structure != order.structure]
            choices.append(order)
        else:
            discard = order
    return Orders(
        casts=tuple(casts),
        moves=tuple(moves),
        trains=tuple(trains),
        discard=discard,
        mana_choices=tuple(choices),
    )


def remove_order(orders: Orders, index: int) -> Orders:
    """``orders`` without the ``index``-th (1-based) line of the echo."""
    listed = all_orders(orders)
    if not 1 <= index <= len(listed):
        raise OrderNumberError(
            f"there is no order {index}; you have {len(listed)}"
            if listed
            else "you have no orders to cancel"
        )
    del listed[index - 1]
    return add_orders(Orders(), listed)


@dataclass(frozen=True, slots=True)
class Problem:
    """Why an order cannot be given; ``order_index`` points into the section ``section``."""

    code: str
    message: str
    order_index: int | None = None
    section: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "code": self.code,
            "message": self.message,
            "order_index": self.order_index,
            "section": self.section,
        }

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Problem:
        return Problem(
            str(data["code"]), str(data["message"]), data.get("order_index"), data.get("section")
        )


# -- readers that turn malformed input into StateFormatError with the key's name


def _table(data: Mapping[str, Any], key: str) -> Mapping[str, Any]:
    if key not in data:
        raise StateFormatError(f"missing {key!r}")
    return _as_table(data[key], key)


def _as_table(value: object, what: str) -> Mapping[str, Any]:
    if not isinstance(value, Mapping):
        raise StateFormatError(f"{what} must be a table, not {value!r}")
    return value


def _list(data: Mapping[str, Any], key: str) -> list[Any]:
    value = data.get(key, [])
    if not isinstance(value, list | tuple):
        raise StateFormatError(f"{key} must be a list, not {value!r}")
    return list(value)


def _int(data: Mapping[str, Any], key: str) -> int:
    value = data.get(key)
    if not isinstance(value, int) or isinstance(value, bool):
        raise StateFormatError(f"{key} must be an integer id, not {value!r}")
    return value


def _opt_int(data: Mapping[str, Any], key: str) -> int | None:
    return None if data.get(key) is None else _int(data, key)


def _opt_str(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise StateFormatError(f"{key} must be a string, not {value!r}")
    return value


def _coord(data: Mapping[str, Any], key: str) -> Coord:
    value = data.get(key)
    if not isinstance(value, str):
        raise StateFormatError(f"{key} must be a square name such as D4, not {value!r}")
    try:
        return Coord.parse(value)
    except CoordError as exc:
        raise StateFormatError(f"{key}: {exc}") from None

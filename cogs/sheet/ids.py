"""Component ids: one grammar for the custom_id of every component the bot sends, the values its
menus carry, and the item that a clicked id is rebuilt into.

Every custom_id is ``sanctum:<action>:<match id>``, then ``:<turn>`` for a component that belongs
to a turn, then ``:<argument>`` for a menu that needs one (the cast a target menu is for, the
group a destination menu moves, the square a mana menu is for). Ids outlive the process (a sheet
sent yesterday is clicked today, after a restart), so the grammar keeps its shape. Discord takes
at most 100 characters in a custom_id and in a menu option's value; the longest id here has 86.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any, Self, TypeVar, cast

import discord

from cogs.errors import RefusalError
from engine.coords import Coord
from engine.legal import CastOption
from engine.orders import Target, TrainOrder

PREFIX = "sanctum"
# Discord's limit on a custom_id and on a select option's value.
CUSTOM_ID_LIMIT = 100
SHEET_SELECTS = ("cast", "target", "move", "dest", "train", "discard", "mana")
SHEET_BUTTONS = ("confirm", "unconfirm", "clear", "undo", "type", "back", "help")
TYPED = "typed"  # the typed-orders modal
JOIN = "join"  # the Join button of a match's first post
JOIN_DECK = "joindeck"  # the deck menu that button opens


@dataclass(frozen=True, slots=True)
class _Shape:
    turn: bool
    arg: bool


_SHAPES: dict[str, _Shape] = {
    **{action: _Shape(turn=True, arg=True) for action in SHEET_SELECTS + SHEET_BUTTONS},
    TYPED: _Shape(turn=True, arg=False),
    # Turn 0: a match that has not begun.
    JOIN: _Shape(turn=True, arg=False),
    JOIN_DECK: _Shape(turn=False, arg=False),
}
_MATCH = r"(?P<match>\d{1,20})"
_TURN = r"(?P<turn>\d{1,6})"
_ARG = r"(?P<arg>[A-Za-z0-9_-]{1,40})"
_GRAMMAR = re.compile(rf"{PREFIX}:(?P<action>[a-z]{{1,20}}):{_MATCH}(?::{_TURN}(?::{_ARG})?)?")


@dataclass(frozen=True, slots=True)
class ComponentId:
    """A component's custom_id, decoded: what it does, in which match (and turn), with what."""

    action: str
    match_id: int
    turn: int | None = None
    arg: str | None = None

    def encode(self) -> str:
        parts = [PREFIX, self.action, str(self.match_id)]
        if self.turn is not None:
            parts.append(str(self.turn))
        if self.arg is not None:
            parts.append(self.arg)
        text = ":".join(parts)
        if ComponentId.decode(text) != self:
            raise ValueError(f"{self} has no custom_id in the grammar")
        return text

    @classmethod
    def decode(cls, text: str) -> ComponentId | None:
        """The id ``text`` spells, or None when it is not one of the bot's."""
        found = _GRAMMAR.fullmatch(text)
        shape = _SHAPES.get(found["action"]) if found is not None else None
        if found is None or shape is None:
            return None
        turn, arg = found["turn"], found["arg"]
        if (turn is not None) != shape.turn or (arg is not None and not shape.arg):
            return None
        return cls(found["action"], int(found["match"]), None if turn is None else int(turn), arg)


def template(*actions: str) -> str:
    """The pattern of the ids of ``actions`` (all of one shape), for a :class:`PersistentItem`."""
    shapes = {_SHAPES[action] for action in actions}
    if len(shapes) != 1:
        raise ValueError(f"{actions} are not ids of one shape")
    (shape,) = shapes
    tail = f":{_MATCH}"
    if shape.turn:
        tail += f":{_TURN}"
    if shape.arg:
        tail += f"(?::{_ARG})?"
    return rf"{PREFIX}:(?P<action>{'|'.join(actions)}){tail}"


def paged(key: str, row: int) -> str:
    """The argument of the ``row``-th menu of a list split over several (targets, squares)."""
    return f"{key}x{row}"


def page_key(arg: str | None) -> str:
    # The row follows the last "x"; a spell id in the key may hold one too.
    return (arg or "").rpartition("x")[0]


# -- the values the sheet's menus carry

# The train menu's value for "choose the mana of the town on <square>" (D-TOWN-MANA).
TOWN_PREFIX = "town-"


def encode_cast(option: CastOption) -> str:
    """A short name of a cast option, unique in a turn (it travels in custom ids): the card,
    the hereditary spell or the bound spell's carrier and power, and the boost."""
    if option.source == "hand":
        return f"{option.card_uid}b" if option.boosted else str(option.card_uid)
    if option.source == "hereditary":
        return f"h-{option.spell_id}" + ("-b" if option.boosted else "")
    return f"p{option.power}-{option.bound_source}-{option.spell_id}"


def encode_target(target: Target) -> str:
    ref = target.ref
    if isinstance(ref, Coord):
        return f"{'s' if target.kind == 'square' else 'G'}-{ref.name}"
    # "s" is a square's: a structure is "t".
    code = "t" if target.kind == "structure" else target.kind[0]
    return f"{code}-{'' if ref is None else ref}"


def decode_target(value: str) -> Target:
    code, _, ref = value.partition("-")
    if code == "s":
        return Target("square", Coord.parse(ref))
    if code == "G":
        return Target("group", Coord.parse(ref))
    kinds = {"g": "group", "m": "minion", "s": "square", "t": "structure"}
    if code == "w" or (code == "g" and not ref):
        return Target("globe", None)
    kind = kinds.get(code)
    if kind is None or not ref.isdigit():
        raise RefusalError("That choice could not be read; open a fresh sheet with /orders.")
    if kind == "group":
        return Target("group", int(ref))
    if kind == "minion":
        return Target("minion", int(ref))
    return Target("structure", int(ref))


def encode_train(order: TrainOrder) -> str:
    kind = order.kind if order.mana_type is None else f"mana_{order.mana_type}"
    return f"{kind}-{order.structure.name}"


def decode_train(value: str) -> TrainOrder:
    kind, _, where = value.partition("-")
    at = Coord.parse(where)
    if kind.startswith("mana_"):
        return TrainOrder(at, "mana", kind.removeprefix("mana_"))
    if kind == "swordsman":
        return TrainOrder(at, "swordsman")
    return TrainOrder(at, "archer")


def encode_town(at: Coord) -> str:
    return f"{TOWN_PREFIX}{at.name}"


def decode_town(value: str) -> Coord | None:
    """The square of a town's mana choice, or None when ``value`` is a novice to train."""
    if not value.startswith(TOWN_PREFIX):
        return None
    return Coord.parse(value.removeprefix(TOWN_PREFIX))


# -- the item a clicked id is rebuilt into

ItemT = TypeVar("ItemT", bound="discord.ui.Item[Any]")


# The base's own pattern matches nothing: only its subclasses are registered.
class PersistentItem(discord.ui.DynamicItem[ItemT], template=r"(?!)"):
    """A component rebuilt from its custom_id when clicked, so it works after a restart too.
    A subclass names the actions it answers (``actions=``), which gives discord.py its pattern."""

    def __init_subclass__(cls, *, actions: tuple[str, ...]) -> None:
        super().__init_subclass__(template=template(*actions))

    def __init__(self, item: ItemT) -> None:
        super().__init__(item)

    @classmethod
    async def from_custom_id(
        cls,
        interaction: discord.Interaction,
        item: discord.ui.Item[Any],
        match: re.Match[str],
        /,
    ) -> Self:
        # discord.py hands back the kind of item this class was sent with.
        return cls(cast(ItemT, item))

    @property
    def component_id(self) -> ComponentId:
        found = ComponentId.decode(self.custom_id)
        assert found is not None, "the item's pattern admits only ids of the grammar"
        return found

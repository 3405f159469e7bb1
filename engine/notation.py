"""Orders as text: a forgiving parser for typed orders and the echo that writes them back.

This file is long because it is one concept, like python-chess's ``pgn.py``: the context that
names a player's cards, groups and squares, the parser that reads them, and the formatter that
writes the same words back, which must stay in step.

Players type orders in a direct message (``cast Fireball on E5``, ``move g2 north``,
``train archer at sanctum``, ``discard Plague``, ``mana D7 world``, ``confirm``).
:func:`parse_command` turns one line into a :class:`Command` or raises :class:`NotationError`
whose message says exactly what was not understood and, where a close name exists, suggests it.
Only the shape of an order is checked here; whether it is legal is for
:func:`engine.validate.validate_orders`.

:func:`format_order` writes an order back in the same notation, so the echo a player reads can be
typed again and means the same order.
"""

from __future__ import annotations

import difflib
import re
import unicodedata
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field, replace
from enum import StrEnum
from types import MappingProxyType
from typing import TYPE_CHECKING

from engine.coords import Coord, CoordError, coord
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Order,
    Orders,
    Target,
    TrainKind,
    TrainOrder,
    all_orders,
)
from engine.spells.targeting import order_kind
from engine.spells.vocab import GROUP_KINDS, MINION_KINDS, SQUARE_KINDS
from engine.state import MANA_TYPES, HostRef

if TYPE_CHECKING:
    from engine.content import Content
    from engine.view import PlayerView

# Row 1 is the bottom row (red's side), so north is towards higher row numbers.
DIRECTIONS: dict[str, tuple[int, int]] = {
    "north": (0, 1),
    "n": (0, 1),
    "up": (0, 1),
    "south": (0, -1),
    "s": (0, -1),
    "down": (0, -1),
    "east": (1, 0),
    "e": (1, 0),
    "right": (1, 0),
    "west": (-1, 0),
    "w": (-1, 0),
    "left": (-1, 0),
    "northeast": (1, 1),
    "ne": (1, 1),
    "northwest": (-1, 1),
    "nw": (-1, 1),
    "southeast": (1, -1),
    "se": (1, -1),
    "southwest": (-1, -1),
    "sw": (-1, -1),
}

VERBS: dict[str, str] = {
    "cast": "cast",
    "c": "cast",
    "play": "cast",
    "move": "move",
    "m": "move",
    "mv": "move",
    "go": "move",
    "train": "train",
    "t": "train",
    "discard": "discard",
    "d": "discard",
    "drop": "discard",
    "whirlpool": "discard",
    "mana": "mana",
    "confirm": "confirm",
    "done": "confirm",
    "ready": "confirm",
    "unconfirm": "unconfirm",
    "unready": "unconfirm",
    "clear": "clear",
    "reset": "clear",
    "orders": "orders",
    "show": "orders",
    "list": "orders",
    "status": "orders",
    "cancel": "cancel",
    "remove": "cancel",
    "undo": "cancel",
    "help": "help",
    "?": "help",
}

TRAIN_KINDS: dict[str, TrainKind] = {
    "swordsman": "swordsman",
    "swordsmen": "swordsman",
    "swordsmans": "swordsman",
    "sword": "swordsman",
    "swords": "swordsman",
    "s": "swordsman",
    "archer": "archer",
    "archers": "archer",
    "bow": "archer",
    "bows": "archer",
    "a": "archer",
    "mana": "mana",
    "m": "mana",
}

TARGET_WORDS = frozenset({"on", "at", "onto", "to", "target", "targeting", "@"})
BOOST_WORDS = frozenset({"boosted", "boost", "+", "b"})
FILLER_WORDS = frozenset({"the", "a", "an", "my", "group", "square"})
GLOBE_WORDS = frozenset({"globe", "world-globe", "everywhere", "board"})
SANCTUM_WORDS = frozenset({"sanctum", "home", "base"})
POWER_WORDS = frozenset({"power", "level"})
CARRIER_WORD = "from"
MAX_TRAIN = 8

HELP_TEXT = (
    "Orders, one per line:\n"
    "  cast Fireball on E5        cast Fireball on E5 boosted      cast Adriel's Timepiece\n"
    "  move g2 north              move g2 to E6                    move 2 n\n"
    "  train archer at sanctum    train swordsman at D7            train mana world\n"
    "  cast Dragon Breath on E5 power 2   (a bound spell at a power level; `from D7` names\n"
    "                                       its carrier when two carry it)\n"
    "  cast Assassin's Mark on E5#2       (one minion: the 2nd of the group on E5)\n"
    "  cast Jumping Land on F3    (a ground spell names a square, even an empty one)\n"
    "  mana D7 world              (the town on D7 makes world mana if you take it this turn)\n"
    "  discard Plague             cancel 2                         orders\n"
    "  confirm                    unconfirm                        clear\n"
    "Directions are the same for both sides: north is up on every board (towards row 12)."
)

# Numbers are ASCII digits only: str.isdigit() and \d also accept "²" or "٣", which a player
# never means as a number (and int() rejects some of them).
_TOKEN = re.compile(r"[A-Za-z][0-9]{1,2}#[0-9]+|[0-9]+|[\w'’.-]+|[+@?]")
_MINION_REF = re.compile(r"^([A-Za-z][0-9]{1,2})#([0-9]+)$")
_GROUP_LABEL = re.compile(r"^g?([0-9]+)$")
_SQUARE = re.compile(r"^[A-Za-z][0-9]{1,2}$")
# Longer numbers mean nothing in an order (and int() refuses strings past 4300 digits).
_MAX_DIGITS = 6


class NotationError(ValueError):
    """A line that cannot be read as an order; the message is written for the player."""

    def __init__(self, message: str, suggestion: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.suggestion = suggestion


class Action(StrEnum):
    ADD = "add"
    CONFIRM = "confirm"
    UNCONFIRM = "unconfirm"
    CLEAR = "clear"
    SHOW = "orders"
    CANCEL = "cancel"
    HELP = "help"


@dataclass(frozen=True, slots=True)
class Command:
    """What one line asks for: new orders, or an action on the sheet."""

    action: Action
    orders: tuple[Order, ...] = ()
    index: int | None = None  # CANCEL: 1-based position in the echo


@dataclass(frozen=True, slots=True)
class CardInfo:
    """A spell the player may cast: ``target_kind`` is one of the ten target types (S3).

    ``source`` is "hand" for a card (``uid`` its card), "hereditary" for the house's own spell
    (N3) or "bound" for a spell carried by ``carrier`` (standing on ``carrier_at``) with power
    levels ``powers`` (N5, N8); the last two are cast without a card, by ``spell_id``.
    ``aim`` is what the order's target names (:func:`engine.spells.targeting.order_kind`):
    a ground spell aims at a square and a focused one at a minion although their target type
    is a group (N11); None takes it from ``target_kind`` alone.
    """

    uid: int
    name: str
    target_kind: str
    boostable: bool = False
    source: str = "hand"
    spell_id: str | None = None
    carrier: int | None = None
    powers: tuple[int, ...] = ()
    aim: str | None = None
    carrier_at: Coord | None = None

    @property
    def order_kind(self) -> str:
        """globe, square, group, minion or structure: what a cast of it is aimed at."""
        if self.aim is not None:
            return self.aim
        if self.target_kind in SQUARE_KINDS:
            return "square"
        if self.target_kind in GROUP_KINDS:
            return "group"
        if self.target_kind in MINION_KINDS:
            return "minion"
        return self.target_kind

    def describe_target(self) -> str:
        """The target in a player's words: "square", "square: a ground spell", ..."""
        aim = self.order_kind
        if aim == "square" and self.target_kind not in SQUARE_KINDS:
            return "square: a ground spell"
        if aim == "minion" and self.target_kind in GROUP_KINDS:
            return "one minion: a focused spell"
        return self.target_kind.replace("_", " ")


@dataclass(frozen=True, slots=True)
class GroupInfo:
    group_id: int
    at: Coord
    owner: str
    minions: tuple[int, ...] = ()


@dataclass(frozen=True, slots=True)
class StructureInfo:
    structure_id: int
    at: Coord
    kind: str  # sanctum | town | colony
    owner: str


@dataclass(frozen=True, slots=True)
class NotationContext:
    """What a player can name: their hand, the board's groups and structures, their mana types.

    ``known_spells`` are every spell name of the catalogue, so that a spell the player does not
    hold is told apart from a typo. ``used_cards`` are the hand cards already in the player's
    orders: a second ``cast Fireball`` then takes a second copy when there is one.
    ``training_at`` are the squares where the player trains this turn: a group trained there is
    a target before it exists. ``used_carriers`` are the carriers whose bound spell is already
    ordered: a second ``cast`` of that bound spell takes the next carrier.
    """

    side: str
    hand: tuple[CardInfo, ...]
    groups: tuple[GroupInfo, ...]
    structures: tuple[StructureInfo, ...]
    mana_types: tuple[str, ...]
    known_spells: tuple[str, ...] = ()
    used_cards: frozenset[int] = field(default_factory=frozenset)
    training_at: frozenset[Coord] = field(default_factory=frozenset)
    used_carriers: frozenset[int] = field(default_factory=frozenset)

    @property
    def own_groups(self) -> tuple[GroupInfo, ...]:
        """The player's groups, in the order that gives them their labels g1, g2, ..."""
        return tuple(g for g in self.groups if g.owner == self.side)

    def group_label(self, group_id: int) -> str:
        for number, group in enumerate(self.own_groups, start=1):
            if group.group_id == group_id:
                return f"g{number}"
        return f"group {group_id}"

    def group_by_id(self, group_id: int) -> GroupInfo | None:
        return next((g for g in self.groups if g.group_id == group_id), None)

    def group_at(self, at: Coord) -> GroupInfo | None:
        return next((g for g in self.groups if g.at == at), None)

    def structure_at(self, at: Coord) -> StructureInfo | None:
        return next((s for s in self.structures if s.at == at), None)

    def sanctum(self) -> StructureInfo | None:
        return next(
            (s for s in self.structures if s.kind == "sanctum" and s.owner == self.side), None
        )

    def card(self, uid: int) -> CardInfo | None:
        return next((c for c in self.hand if c.uid == uid and c.source == "hand"), None)

    def source_of(self, cast: CastOrder) -> CardInfo | None:
        """What ``cast`` casts: a card in hand, the hereditary spell or a bound one."""
        if cast.card_uid != 0 or cast.spell_id is None:
            return self.card(cast.card_uid)
        for info in self.hand:
            if info.spell_id == cast.spell_id and (
                info.source == "hereditary" or info.carrier == cast.bound_source
            ):
                return info
        return None

    def taking(self, orders: Sequence[Order]) -> NotationContext:
        """This context with the cards and carriers ``orders`` use counted as used too."""
        casts = [o for o in orders if isinstance(o, CastOrder)]
        cards = {c.card_uid for c in casts} | {
            o.card_uid for o in orders if isinstance(o, DiscardOrder)
        }
        return replace(
            self,
            used_cards=self.used_cards | cards,
            used_carriers=self.used_carriers
            | {c.bound_source for c in casts if c.bound_source is not None},
        )

    def with_orders(self, orders: Orders) -> NotationContext:
        """This context with the cards of ``orders`` counted as used."""
        used = {cast.card_uid for cast in orders.casts}
        if orders.discard is not None:
            used.add(orders.discard.card_uid)
        return replace(
            self,
            used_cards=frozenset(used),
            training_at=frozenset(train.structure for train in orders.trains),
            used_carriers=frozenset(
                cast.bound_source for cast in orders.casts if cast.bound_source is not None
            ),
        )

    def carriers_of(self, info: CardInfo) -> tuple[CardInfo, ...]:
        """Every carrier's entry of the bound spell ``info`` (one per carrier)."""
        return tuple(c for c in self.hand if c.source == "bound" and c.spell_id == info.spell_id)


def context_for(
    view: PlayerView, content: Content, orders: Orders | None = None
) -> NotationContext:
    """What the viewer of ``view`` can name, with ``orders`` already given this turn."""
    side = view.viewer
    if side is None:
        raise ValueError("orders belong to a side; this is the public view")
    hand = []
    for card in view.hand:
        spell = content.spells[card.spell_id]
        boostable = spell.boosted_cost is not None
        hand.append(
            CardInfo(card.uid, spell.name, spell.target.kind, boostable, aim=order_kind(spell))
        )
    house_id = view.player(side).house
    for spell in content.spells.values():
        if spell.spell_class == "hereditary" and spell.house == house_id and not spell.helper:
            boostable = spell.boosted_cost is not None
            hand.append(
                CardInfo(
                    0,
                    spell.name,
                    spell.target.kind,
                    boostable,
                    "hereditary",
                    spell.id,
                    aim=order_kind(spell),
                )
            )
    for active in view.spells:
        carrier_def = content.spells.get(active.spell_id)
        if active.owner is not side or carrier_def is None:
            continue
        for effect in content.index.effects_of(active.spell_id).get("bind", ()):
            bound = content.spells.get(effect.params.text("spell"))
            if bound is not None and bound.power is not None:
                powers = tuple(sorted(set(bound.power)))
                hand.append(
                    CardInfo(
                        0,
                        bound.name,
                        bound.target.kind,
                        False,
                        "bound",
                        bound.id,
                        active.uid,
                        powers,
                        aim=order_kind(bound),
                        carrier_at=_host_square(view, active.host),
                    )
                )
    house = content.houses.get(house_id)
    ctx = NotationContext(
        side=str(side),
        hand=tuple(hand),
        groups=tuple(
            GroupInfo(g.id, g.coord, str(g.owner), tuple(m.id for m in g.minions))
            for g in view.groups
        ),
        structures=tuple(
            StructureInfo(s.id, s.coord, str(s.kind), str(s.owner)) for s in view.structures
        ),
        mana_types=() if house is None else (house.primary, house.secondary),
        known_spells=tuple(spell.name for spell in content.spells.values()),
    )
    return ctx if orders is None else ctx.with_orders(orders)


def _host_square(view: PlayerView, host: HostRef) -> Coord | None:
    """The square an active spell's host stands on (None for the globe or a host out of sight)."""
    ref = host.ref
    if isinstance(ref, Coord):
        return ref
    if host.kind == "structure":
        return next((s.coord for s in view.structures if s.id == ref), None)
    for group in view.groups:
        if (host.kind == "group" and group.id == ref) or (
            host.kind == "minion" and any(m.id == ref for m in group.minions)
        ):
            return group.coord
    return None


def _normal(name: str) -> str:
    return re.sub(r"[^a-z0-9]+", " ", name.lower().replace("’", "'").replace("'", "")).strip()


def _suggest(word: str, choices: Iterable[str]) -> str | None:
    pool = list(dict.fromkeys(choices))
    by_normal = {_normal(c): c for c in pool}
    found = difflib.get_close_matches(_normal(word), list(by_normal), n=1, cutoff=0.6)
    return by_normal[found[0]] if found else None


def _did_you_mean(message: str, word: str, choices: Iterable[str]) -> NotationError:
    suggestion = _suggest(word, choices)
    if suggestion is None:
        return NotationError(message)
    return NotationError(f"{message}; did you mean {suggestion}?", suggestion)


_FULL_WIDTH = MappingProxyType(
    {code: code - 0xFEE0 for code in range(0xFF01, 0xFF5F)} | {0x3000: ord(" ")}
)


def _tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.strip())


def _number(word: str) -> int | None:
    """``word`` as a number when it is one written in ASCII digits, else None."""
    digits = word.lstrip("0") or "0"
    if not (word.isascii() and word.isdigit()) or len(digits) > _MAX_DIGITS:
        return None
    return int(digits)


def parse_command(text: str, ctx: NotationContext) -> Command:
    """Read one line of orders; raises :class:`NotationError` with a message for the player."""
    # Full-width letters and digits (a phone's other keyboard) read as the plain ones; other
    # compatibility forms ("²", "①") stay what they are, no number.
    text = text.translate(_FULL_WIDTH)
    stray = next((ch for ch in text if unicodedata.category(ch)[0] == "S" and ch not in "+@"), None)
    if stray is not None:
        raise NotationError(
            f"'{stray}' is not part of the order notation; name spells, squares and groups "
            "in words (type `help` for the notation)"
        )
    words = _tokens(text)
    if not words:
        raise NotationError("nothing to read; type `help` for the order notation")
    head = words[0].lower()
    verb = VERBS.get(head)
    if verb is None:
        raise _did_you_mean(
            f"unknown order '{words[0]}' (type `help` for the notation)", head, _VERB_NAMES
        )
    rest = words[1:]
    if verb == "cast":
        return Command(Action.ADD, (_parse_cast(rest, ctx),))
    if verb == "move":
        return Command(Action.ADD, (_parse_move(rest, ctx),))
    if verb == "train":
        return Command(Action.ADD, _parse_train(rest, ctx))
    if verb == "discard":
        card = _find_card(rest, ctx, purpose="discard")
        return Command(Action.ADD, (DiscardOrder(card_uid=card.uid),))
    if verb == "mana":
        return Command(Action.ADD, (_parse_mana(rest, ctx),))
    if verb == "cancel":
        return _parse_cancel(rest)
    if rest:
        raise NotationError(f"`{head}` takes nothing after it")
    return Command(Action(verb) if verb != "orders" else Action.SHOW)


def parse_lines(text: str, ctx: NotationContext) -> list[Command | NotationError]:
    """Read a message of one order per line (or separated by ';'), each line on its own, in
    the order given: a card a line casts or discards is taken, so a second `cast Fireball` in
    the same message takes the next copy, as it would in the next message."""
    results: list[Command | NotationError] = []
    for line in re.split(r"[\n;]", text):
        if not line.strip():
            continue
        try:
            command = parse_command(line, ctx)
        except NotationError as error:
            results.append(error)
            continue
        results.append(command)
        if command.action is Action.ADD:
            ctx = ctx.taking(command.orders)
    return results


_VERB_NAMES = (
    "cast",
    "move",
    "train",
    "discard",
    "mana",
    "confirm",
    "unconfirm",
    "clear",
    "orders",
)


def _parse_cancel(rest: Sequence[str]) -> Command:
    if not rest:
        return Command(Action.CANCEL, index=None)
    index = _number(rest[0]) if len(rest) == 1 else None
    if index is not None and index >= 1:
        return Command(Action.CANCEL, index=index)
    raise NotationError(
        "`cancel` takes the number of an order as listed by `orders`, e.g. cancel 2"
    )


def _name_matches(
    words: Sequence[str], ctx: NotationContext, *, hand_only: bool = False
) -> list[CardInfo]:
    wanted = _normal(" ".join(words))
    return [
        c for c in ctx.hand if _normal(c.name) == wanted and (c.source == "hand" or not hand_only)
    ]


def _is_used(card: CardInfo, ctx: NotationContext) -> bool:
    if card.source == "bound":
        return card.carrier in ctx.used_carriers
    return card.source == "hand" and card.uid in ctx.used_cards


def _pick_copy(copies: Sequence[CardInfo], ctx: NotationContext) -> CardInfo:
    return next((card for card in copies if not _is_used(card, ctx)), copies[0])


def _pick_carrier(copies: Sequence[CardInfo], word: str, ctx: NotationContext) -> CardInfo:
    """The copy of a bound spell carried by what stands on the square ``word`` names."""
    name = copies[0].name
    if copies[0].source != "bound":
        raise NotationError(f"only bound spells are cast from a carrier; {name} is not one")
    at = _target_square(word, ctx)
    here = [c for c in copies if c.carrier_at == at]
    if not here:
        where = ", ".join(str(c.carrier_at) for c in copies if c.carrier_at is not None)
        raise NotationError(
            f"nothing of yours on {at} carries {name}" + (f" (it is on {where})" if where else "")
        )
    return _pick_copy(here, ctx)


def _missing_card(words: Sequence[str], ctx: NotationContext, purpose: str) -> NotationError:
    typed = " ".join(words)
    hand_names = [c.name for c in ctx.hand if c.source == "hand"]
    castable = [c.name for c in ctx.hand if purpose == "cast" or c.source == "hand"]
    suggestion = _suggest(typed, castable)
    if suggestion is not None:
        return NotationError(
            f"no spell '{typed}' in your hand; did you mean {suggestion}?", suggestion
        )
    known = {_normal(n) for n in ctx.known_spells}
    holding = ", ".join(hand_names) if hand_names else "nothing"
    if _normal(typed) in known:
        return NotationError(f"you do not hold {typed} (your hand: {holding})")
    return NotationError(f"no spell '{typed}' in your hand (your hand: {holding})")


def _find_card(words: Sequence[str], ctx: NotationContext, *, purpose: str) -> CardInfo:
    if not words:
        raise NotationError(f"{purpose} which spell? e.g. `{purpose} {_example_card(ctx)}`")
    copies = _name_matches(words, ctx, hand_only=True)
    if not copies:
        raise _missing_card(words, ctx, purpose)
    return _pick_copy(copies, ctx)


def _example_card(ctx: NotationContext) -> str:
    return ctx.hand[0].name if ctx.hand else "Fireball"


def _parse_cast(words: Sequence[str], ctx: NotationContext) -> CastOrder:
    if not words:
        raise NotationError(f"cast which spell? e.g. `cast {_example_card(ctx)} on E5`")
    boosted = False
    power: int | None = None
    carrier: str | None = None
    trimmed = list(words)
    while trimmed:
        last = trimmed[-1].lower()
        before = trimmed[-2].lower() if len(trimmed) >= 2 else ""
        if last in BOOST_WORDS | {"version"}:
            boosted = boosted or last in BOOST_WORDS
            trimmed.pop()
        elif before in POWER_WORDS and power is None:
            power = _number(last)
            if power is None:
                raise NotationError(f"'{trimmed[-1]}' is no power level; write e.g. power 2")
            del trimmed[-2:]
        elif before == CARRIER_WORD and carrier is None:
            carrier = trimmed[-1]
            del trimmed[-2:]
        else:
            break
    # The longest prefix naming a card in hand is the spell, whatever words it contains
    # (a name may hold "on"); the rest is the target.
    for split in range(len(trimmed), 0, -1):
        copies = _name_matches(trimmed[:split], ctx)
        if copies:
            card = (
                _pick_copy(copies, ctx) if carrier is None else _pick_carrier(copies, carrier, ctx)
            )
            target_words = trimmed[split:]
            break
    else:
        split = next(
            (i for i, w in enumerate(trimmed) if w.lower() in TARGET_WORDS or _is_square(w)),
            len(trimmed),
        )
        raise _missing_card(trimmed[:split] or trimmed, ctx, "cast")
    if target_words and target_words[0].lower() in TARGET_WORDS:
        target_words = target_words[1:]
    target_words = [w for w in target_words if w.lower() not in FILLER_WORDS]
    if boosted and not card.boostable:
        raise NotationError(f"{card.name} has no boosted version")
    target = _parse_target(card, target_words, ctx)
    if card.source == "bound":
        if power is None:
            power = card.powers[0]
        if power not in card.powers:
            levels = " or ".join(str(p) for p in card.powers)
            raise NotationError(f"{card.name} is cast at power {levels}, not {power}")
        return CastOrder(0, target, power=power, bound_source=card.carrier, spell_id=card.spell_id)
    if power is not None:
        raise NotationError(f"only bound spells have a power level; {card.name} is not one")
    if card.source == "hereditary":
        return CastOrder(0, target, boosted=boosted, spell_id=card.spell_id)
    return CastOrder(card_uid=card.uid, target=target, boosted=boosted)


def _is_square(word: str) -> bool:
    if _SQUARE.match(word) is None:
        return False
    try:
        Coord.parse(word)
    except CoordError:
        return False
    return True


def _square(word: str) -> Coord:
    if not _is_square(word):
        raise NotationError(f"'{word}' is not a square (a column letter then a row, e.g. E5)")
    return Coord.parse(word)


def _parse_target(card: CardInfo, words: Sequence[str], ctx: NotationContext) -> Target:
    # The order names what the engine aims at (order_kind), not the target type: a ground
    # spell on a group is typed with a square, a focused one with a minion (N11).
    aim = card.order_kind
    if aim == "globe":
        if words and not (len(words) == 1 and words[0].lower() in GLOBE_WORDS):
            raise NotationError(f"{card.name} is cast on the globe; write `cast {card.name}`")
        return Target(kind="globe", ref=None)
    if not words:
        example = "E5#1" if aim == "minion" else "E5"
        raise NotationError(
            f"{card.name} needs a target ({card.describe_target()}): "
            f"`cast {card.name} on {example}`"
        )
    if len(words) > 2:
        raise NotationError(f"cannot read the target '{' '.join(words)}'; write a square like E5")
    first = words[0]
    minion_index: int | None = None
    ref = _MINION_REF.match(first)
    if ref is not None:
        first, minion_index = ref.group(1), _number(ref.group(2))
        if minion_index is None:
            raise NotationError(f"no group holds {ref.group(2)} minions; write e.g. E5#2")
    elif len(words) == 2:
        minion_index = _number(words[1])
        if minion_index is None:
            raise NotationError(
                f"cannot read the target '{' '.join(words)}'; write e.g. E5 or E5#2"
            )
    at = _target_square(first, ctx)
    if aim == "square":
        if minion_index is not None:
            raise NotationError(
                f"{card.name} is cast on a square: write `cast {card.name} on {at}`"
            )
        return Target(kind="square", ref=at)
    if aim == "structure":
        structure = ctx.structure_at(at)
        if structure is None:
            raise NotationError(f"there is no town or colony on {at}")
        return Target(kind="structure", ref=structure.structure_id)
    group = ctx.group_at(at)
    if group is None:
        structure = ctx.structure_at(at)
        trains_here = at in ctx.training_at or (
            structure is not None and structure.owner == ctx.side
        )
        if aim == "group" and trains_here and minion_index is None:
            # The group training raises there this turn, named by its square (engine.orders.
            # Target); the train order may come on a later line, and validation checks it.
            return Target(kind="group", ref=at)
        raise NotationError(f"there is no group on {at} for {card.name}")
    if aim == "group":
        if minion_index is not None:
            raise NotationError(f"{card.name} targets a whole group; write just {at}")
        return Target(kind="group", ref=group.group_id)
    # A minion or focused spell on a group of one needs no number; otherwise the player names
    # the minion.
    count = len(group.minions)
    if minion_index is None and count == 1:
        minion_index = 1
    if minion_index is None or not 1 <= minion_index <= count:
        raise NotationError(
            f"{card.name} targets one minion; the group on {at} has {count}: "
            f"write {at}#1" + (f" to {at}#{count}" if count > 1 else "")
        )
    return Target(kind="minion", ref=group.minions[minion_index - 1])


def _target_square(word: str, ctx: NotationContext) -> Coord:
    low = word.lower()
    if low in SANCTUM_WORDS:
        sanctum = ctx.sanctum()
        if sanctum is None:
            raise NotationError("you have no Sanctum on the board")
        return sanctum.at
    group = _own_group_by_label(word, ctx)
    if group is not None:
        return group.at
    return _square(word)


def _own_group_by_label(word: str, ctx: NotationContext) -> GroupInfo | None:
    """The player's group labelled ``g2`` in the sheet, or None when ``word`` is no label.

    Column G makes "g2" a square name too: a lowercase ``g`` with the number of one of the
    player's groups is that label, anything else is a square (the echo writes squares in
    capitals, so what it writes reads back the same).
    """
    own = ctx.own_groups
    label = _GROUP_LABEL.match(word)
    if label is not None and word.startswith("g"):
        number = _number(label.group(1))
        if number is not None and 1 <= number <= len(own):
            return own[number - 1]
        if not _is_square(word):
            raise NotationError(_no_such_group(word, ctx))
    return None


def _no_such_group(word: str, ctx: NotationContext) -> str:
    labels = [f"g{i} on {g.at}" for i, g in enumerate(ctx.own_groups, start=1)]
    listing = ", ".join(labels) if labels else "none"
    return f"you have no group '{word}' (your groups: {listing})"


def _mover(word: str, ctx: NotationContext) -> GroupInfo:
    group = _own_group_by_label(word, ctx)
    if group is not None:
        return group
    number = _number(word)
    if number is not None:
        if 1 <= number <= len(ctx.own_groups):
            return ctx.own_groups[number - 1]
        raise NotationError(_no_such_group(word, ctx))
    if _is_square(word):
        at = Coord.parse(word)
        found = ctx.group_at(at)
        if found is None or found.owner != ctx.side:
            raise NotationError(_no_such_group(word, ctx))
        return found
    raise NotationError(_no_such_group(word, ctx))


def _parse_move(words: Sequence[str], ctx: NotationContext) -> MoveOrder:
    if not words:
        raise NotationError("move which group? e.g. `move g1 north` or `move g1 to E6`")
    group = _mover(words[0], ctx)
    rest = [w.lower() for w in words[1:] if w.lower() not in FILLER_WORDS]
    if rest and rest[0] in TARGET_WORDS:
        rest = rest[1:]
    if not rest:
        raise NotationError(
            f"move {ctx.group_label(group.group_id)} where? a direction or a square"
        )
    if len(rest) == 1 and _is_square(rest[0]):
        return MoveOrder(group_id=group.group_id, dest=Coord.parse(rest[0]))
    x, y = group.at.x, group.at.y
    for word in rest:
        step = DIRECTIONS.get(word)
        if step is None:
            raise _did_you_mean(
                f"'{word}' is neither a direction nor a square",
                word,
                ("north", "south", "east", "west"),
            )
        x, y = x + step[0], y + step[1]
    if not (0 <= x < 26 and 0 <= y < 26):
        raise NotationError(f"that leads off the board from {group.at}")
    return MoveOrder(group_id=group.group_id, dest=coord(x, y))


def _parse_train(words: Sequence[str], ctx: NotationContext) -> tuple[TrainOrder, ...]:
    rest = [w.lower() for w in words if w.lower() not in FILLER_WORDS]
    count = 1
    number = _number(rest[0]) if rest else None
    if number is not None:
        count = number
        rest.pop(0)
        if not 1 <= count <= MAX_TRAIN:
            raise NotationError(f"train between 1 and {MAX_TRAIN} at once")
    if not rest:
        raise NotationError("train what? swordsman, archer or mana, e.g. `train archer at sanctum`")
    kind = TRAIN_KINDS.get(rest[0])
    if kind is None:
        raise _did_you_mean(
            f"cannot train '{rest[0]}': swordsman, archer or mana", rest[0], TRAIN_KINDS
        )
    rest = rest[1:]
    mana_type: str | None = None
    if kind == "mana":
        if rest and rest[0] not in TARGET_WORDS:
            word = rest.pop(0)
            if word not in ctx.mana_types:
                raise _did_you_mean(
                    f"your Sanctum trains mana of {' or '.join(ctx.mana_types)}, not '{word}'",
                    word,
                    ctx.mana_types,
                )
            mana_type = word
        elif not ctx.mana_types:
            raise NotationError("your house trains no mana")
        elif len(ctx.mana_types) == 1:
            mana_type = ctx.mana_types[0]
        else:
            raise NotationError(
                f"train mana of which type? `train mana {ctx.mana_types[0]}`"
                + (f" or `train mana {ctx.mana_types[1]}`" if len(ctx.mana_types) > 1 else "")
            )
    if rest and rest[0] in TARGET_WORDS:
        rest = rest[1:]
    if len(rest) > 1:
        raise NotationError(f"cannot read '{' '.join(rest)}'; write `at sanctum` or `at D7`")
    if not rest or rest[0] in SANCTUM_WORDS:
        sanctum = ctx.sanctum()
        if sanctum is None:
            raise NotationError("you have no Sanctum on the board")
        at = sanctum.at
    else:
        at = _square(rest[0])
        structure = ctx.structure_at(at)
        if structure is None:
            raise NotationError(f"there is no structure on {at} to train in")
        if kind == "mana":
            raise NotationError("mana is trained only in your Sanctum")
    return tuple(TrainOrder(structure=at, kind=kind, mana_type=mana_type) for _ in range(count))


def _parse_mana(words: Sequence[str], ctx: NotationContext) -> ManaChoice:
    """``mana D7 world`` (either order, ``at``/``to`` allowed): the mana type of the town or
    colony on D7 if this side captures it at the coming start of turn (D-TOWN-MANA)."""
    rest = [w for w in words if w.lower() not in FILLER_WORDS | TARGET_WORDS | _MANA_FILLER]
    squares = [w for w in rest if _is_square(w)]
    others = [w.lower() for w in rest if not _is_square(w)]
    example = "e.g. `mana D7 world`"
    if len(squares) != 1:
        raise NotationError(f"name one town or colony by its square and a mana type, {example}")
    at = Coord.parse(squares[0])
    if not others:
        raise NotationError(f"which mana type should {at} make? one of {', '.join(MANA_TYPES)}")
    if len(others) > 1:
        raise NotationError(f"cannot read '{' '.join(others)}'; {example}")
    if others[0] not in MANA_TYPES:
        raise _did_you_mean(
            f"'{others[0]}' is not a mana type ({', '.join(MANA_TYPES)})", others[0], MANA_TYPES
        )
    structure = ctx.structure_at(at)
    if structure is None or structure.kind == "sanctum":
        raise NotationError(f"there is no town or colony on {at}")
    return ManaChoice(structure=at, mana_type=others[0])


_MANA_FILLER = frozenset({"town", "colony", "of", "makes", "make", "produce", "produces", "type"})


def format_target(target: Target, ctx: NotationContext) -> str:
    """A target as the parser reads it: a square, ``E5#2`` for one minion, or ``globe``."""
    ref = target.ref
    if isinstance(ref, Coord):
        return ref.name
    if target.kind == "globe" or ref is None:
        return "globe"
    if target.kind == "structure":
        found = next((s for s in ctx.structures if s.structure_id == ref), None)
        return found.at.name if found is not None else f"structure {ref}"
    if target.kind == "group":
        group = ctx.group_by_id(ref)
        return group.at.name if group is not None else f"group {ref}"
    for group in ctx.groups:
        if ref in group.minions:
            return f"{group.at}#{group.minions.index(ref) + 1}"
    return f"minion {ref}"


def format_order(order: Order, ctx: NotationContext) -> str:
    """One order in the notation :func:`parse_command` reads."""
    if isinstance(order, CastOrder):
        card = ctx.source_of(order)
        name = card.name if card is not None else order.spell_id or f"card {order.card_uid}"
        text = f"cast {name}"
        if order.target.kind != "globe":
            text += f" on {format_target(order.target, ctx)}"
        if order.power is not None:
            text += f" power {order.power}"
        if card is not None and card.carrier_at is not None and len(ctx.carriers_of(card)) > 1:
            text += f" {CARRIER_WORD} {card.carrier_at}"
        return text + (" boosted" if order.boosted else "")
    if isinstance(order, MoveOrder):
        return f"move {ctx.group_label(order.group_id)} to {order.dest}"
    if isinstance(order, ManaChoice):
        return f"mana {order.structure} {order.mana_type}"
    if isinstance(order, TrainOrder):
        sanctum = ctx.sanctum()
        where = "sanctum" if sanctum is not None and sanctum.at == order.structure else None
        if order.kind == "mana":
            return f"train mana {order.mana_type}"
        return f"train {order.kind} at {where or order.structure}"
    card = ctx.card(order.card_uid)
    return f"discard {card.name if card is not None else f'card {order.card_uid}'}"


def format_orders(orders: Orders, ctx: NotationContext) -> list[str]:
    """The echo: one numbered line per order, in the order :func:`all_orders` gives."""
    return [f"{i}. {format_order(o, ctx)}" for i, o in enumerate(all_orders(orders), start=1)]

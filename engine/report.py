"""The record of one resolved turn: every event in order (log, overlay image and tests read it).

An :class:`Event` is a kind plus JSON-safe fields (squares as names such as ``"D4"``, ids as ints,
sides as ``"red"``/``"blue"``). :data:`EVENT_KINDS` lists every kind with its meaning and fields.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, Final, NamedTuple, Protocol

from engine.state import (
    FORMAT_VERSION,
    JsonValue,
    Result,
    Side,
    StateFormatError,
    json_plain,
    json_text,
    json_value,
    record_builder,
)

EVENT_KINDS: Final[Mapping[str, str]] = {
    # start of turn (digest section 3)
    "turn_started": "turn: a new turn's start-of-turn steps begin",
    "level_gained": "minion, group, level: a recruit earned a level (step 1)",
    "terrain_fatal": "minion, group, at, terrain, fate: terrain drowned or removed a minion",
    "drew": "side, count: cards drawn to refill the hand (step 4; the cards stay private)",
    "reshuffled": "side, count: an empty deck took the shuffled discard pile (step 4, D-DRAW)",
    "deck_empty": "side: the deck ran out while drawing",
    "captured": "structure, at, structure_kind, side, from, mana_type: a town or colony was taken",
    "novice": "structure, at, side, nation: a structure produced a novice (step 6)",
    "structure_delta": "red, blue: each side's structure delta (step 7)",
    "initiative": "side, from, reason: initiative changed hands",
    "mana": "side, gained, pool: mana generated (step 8)",
    # orders that act before spells
    "order_refused": "side, section, index, code, message: an order that could not be carried out",
    "trained": "side, structure, at, trained_as, group, minion, mana_type: a novice was trained",
    "discarded": "side, card, spell: a card went to the whirlpool",
    # spells (emitted by the spell phase)
    "spell_cast": "side, card, spell, target: a cast begins executing",
    "spell_executed": "side, card, spell, target: a cast succeeded",
    "spell_squandered": (
        "side, card, spell, target, reason, code: a cast squandered (paid, or its failure cost"
        " paid instead, and no effect); code is stable, reason is words"
    ),
    "spell_fizzled": "side, card, spell, target, reason: an unpaid fizzle (nothing paid)",
    "spell_effect": "spell, text: one effect of a spell, in words",
    "spell_ended": "spell, uid, host, reason: an active spell left play",
    "spell_added": "spell, uid, side, host, card: a spell became active on a host",
    "initiative_swapped": "side: a spell swapped initiative",
    # movement
    "moved": "group, side, from, to: a group moved",
    "blocked": "group, side, from, to, reason: a move order failed a check of pass I",
    "bounced": "group, side, from, to, reason: a group bounced back in pass II",
    "joined": "group, into, side, at: a group merged into a friendly group",
    "split": "group, new, side, at: a spell split a member out of a group into a new group on at",
    "moonwalk_failed": "group, side, at: a bounce found no square; the group left the game",
    # combat
    "combat": "at, against, groups, sides: a fight begins between two groups",
    "round": (
        "number, groups, hits, misses, damage, kills: a combat round; each figure is a pair, one"
        " per group in the order of groups (strikes that hit, strikes that missed, hit points it"
        " took off the other group, minions of the other group it killed)"
    ),
    "strike": (
        "attacker, victim, mode, hit, damage, soaked, hp: one attack (recorded after its round"
        " only when the turn is resolved with strikes=True)"
    ),
    "combat_ended": (
        "groups, rounds, reason, levels: a fight ended; levels: how many recruits of each group"
        " earned a level in it"
    ),
    # minions and groups
    "damaged": (
        "minion, group, amount, source: damage outside combat (a terrain id for terrain, "
        "sanctum for a Sanctum's guard)"
    ),
    "died": "minion, group, side, at, cause, by: a minion died (killed, died, removed)",
    "group_died": "group, side, at: a group became empty and left the board",
    "group_created": "group, side, at: a new group appeared",
    "structure_created": "structure, at, structure_kind, side",
    "structure_destroyed": "structure, at, structure_kind, side: counts as lost by its owner (I3)",
    "terrain_changed": "at, from, to",
    # end of game
    "sanctum_captured": "side, at: a recruit group captured the enemy Sanctum (step 9)",
    "game_over": "winner, reason",
}


class Event(NamedTuple):
    """One thing that happened; ``fields`` are sorted (name, value) pairs (read one with
    :meth:`get`). A named tuple: a big turn builds a thousand of them."""

    kind: str
    fields: tuple[tuple[str, JsonValue], ...] = ()

    @staticmethod
    def make(kind: str, /, **fields: object) -> Event:
        if kind not in EVENT_KINDS:
            raise ValueError(f"unknown event kind {kind!r}")
        if "kind" in fields:
            raise ValueError("an event field cannot be called 'kind'")
        pairs = sorted(fields.items())
        for index, (key, value) in enumerate(pairs):
            if type(value) not in _SCALARS:
                pairs[index] = (key, json_value(value))
        return Event.raw(kind, tuple(pairs))  # type: ignore[arg-type]

    @staticmethod
    def raw(kind: str, fields: tuple[tuple[str, JsonValue], ...]) -> Event:
        """An event from a known kind and already sorted, JSON-safe pairs, built without checks:
        the fast path for the thousands of strikes of a big turn."""
        return _new(Event, (kind, fields))

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        for name, value in self.fields:
            if name == key:
                return value
        return default

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"kind": self.kind}
        out.update({k: json_plain(v) for k, v in self.fields})
        return out

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> Event:
        kind = data.get("kind")
        if not isinstance(kind, str) or kind not in EVENT_KINDS:
            raise StateFormatError(f"unknown event kind {kind!r}")
        return Event(
            kind, tuple(sorted((str(k), json_value(v)) for k, v in data.items() if k != "kind"))
        )

    def __str__(self) -> str:
        body = ", ".join(f"{k}={v}" for k, v in self.fields)
        return f"{self.kind}({body})"


# The named tuple's own __new__ is a Python function; tuple.__new__ builds the same record.
_new = tuple.__new__
_SCALARS: Final = frozenset({int, str, bool, type(None)})


class Emit(Protocol):
    """Records an event of ``kind`` (see :data:`EVENT_KINDS`) with ``fields``."""

    def __call__(self, kind: str, /, **fields: object) -> None: ...


class Recorder:
    """The report a turn builds: its events in order.

    ``Recorder(recording=False)`` is the silent one (``resolve_turn(..., record=False)``, for
    searches that play many turns and read only the states): :meth:`emit` builds nothing and
    :meth:`append` drops what it is given. Nothing in the engine reads the report back, so a
    silent turn ends in the same state.
    """

    __slots__ = ("append", "events", "recording")

    def __init__(self, *, recording: bool = True) -> None:
        self.recording = recording
        self.events: list[Event] = []
        # The list's own append (no call through this class): combat appends a thousand events.
        self.append: Callable[[Event], None] = self.events.append if recording else _drop

    def emit(self, kind: str, /, **fields: object) -> None:
        """Record an event of ``kind`` (see :data:`EVENT_KINDS`) with ``fields``."""
        if self.recording:
            self.events.append(Event.make(kind, **fields))

    def __iter__(self) -> Iterator[Event]:
        return iter(self.events)

    def __len__(self) -> int:
        return len(self.events)


def _drop(event: Event) -> None:
    """What a silent recorder does with an event."""


@dataclass(frozen=True, slots=True)
class TurnReport:
    """Everything that happened while resolving ``turn`` and the next start of turn."""

    turn: int
    events: tuple[Event, ...]
    initiative_before: Side
    initiative_after: Side
    result: Result | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format_version": FORMAT_VERSION,
            "turn": self.turn,
            "events": [e.to_dict() for e in self.events],
            "initiative_before": str(self.initiative_before),
            "initiative_after": str(self.initiative_after),
            "result": None if self.result is None else self.result.to_dict(),
        }

    def to_json(self) -> str:
        """:meth:`to_dict` as compact JSON with sorted keys, the text the service stores. An
        event's values go to the encoder as the tuples they are, which it writes as the same
        arrays as :meth:`to_dict`'s lists: no copy of the fields of a thousand events."""
        events = []
        for event in self.events:
            doc: dict[str, Any] = {"kind": event.kind}
            doc.update(event.fields)
            events.append(doc)
        return json_text(
            {
                "format_version": FORMAT_VERSION,
                "turn": self.turn,
                "events": events,
                "initiative_before": str(self.initiative_before),
                "initiative_after": str(self.initiative_after),
                "result": None if self.result is None else self.result.to_dict(),
            }
        )

    @staticmethod
    def from_dict(data: Mapping[str, Any]) -> TurnReport:
        if data.get("format_version") != FORMAT_VERSION:
            raise StateFormatError(
                f"report format_version {data.get('format_version')!r} is not supported"
            )
        result = data.get("result")
        return TurnReport(
            turn=int(data["turn"]),
            events=tuple(Event.from_dict(e) for e in data["events"]),
            initiative_before=Side(data["initiative_before"]),
            initiative_after=Side(data["initiative_after"]),
            result=None if result is None else Result.from_dict(result),
        )


# TurnReport from its fields in order, as state.record_builder makes records: a turn's report is
# built on every turn a search plays, where the frozen dataclass's __init__ sets each field
# through object.__setattr__.
build_report: Final[Callable[[int, tuple[Event, ...], Side, Side, Result | None], TurnReport]] = (
    record_builder(TurnReport)
)

"""What one side may see (G12): the only thing renderers, the bot and computer players get.

A :class:`PlayerView` carries the board, all groups and structures, the visible spells plus the
viewer's own non-visible ones, the viewer's hand, both sides' pools, production, hand sizes and
deck counts, initiative, turn and result. Never the enemy's hand, deck order, orders, or
non-visible enemy spells.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from engine.coords import Coord
from engine.mana import production
from engine.state import (
    RED,
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    JsonValue,
    Mana,
    Result,
    Side,
    Square,
    Structure,
)

if TYPE_CHECKING:
    from engine.content import Content


@dataclass(frozen=True, slots=True)
class SpellView:
    """An active spell as a viewer sees it."""

    uid: int
    spell_id: str
    owner: Side
    host: HostRef
    visible: bool
    cast_turn: int
    # The spell's counters as the viewer may know them: the turn it expires, a ward's uses left,
    # the members a group spell reaches, when a bound spell was last cast at its higher level.
    data: tuple[tuple[str, JsonValue], ...] = ()

    def get(self, key: str, default: JsonValue = None) -> JsonValue:
        return dict(self.data).get(key, default)

    def to_dict(self) -> dict[str, Any]:
        return {
            "uid": self.uid,
            "spell_id": self.spell_id,
            "owner": str(self.owner),
            "host": self.host.to_dict(),
            "visible": self.visible,
            "cast_turn": self.cast_turn,
            "data": {k: list(v) if isinstance(v, tuple) else v for k, v in self.data},
        }


@dataclass(frozen=True, slots=True)
class PlayerPublic:
    """What everyone knows about one side."""

    side: Side
    house: str
    pool: Mana
    production: Mana
    hand_size: int
    deck_count: int
    discard: tuple[Card, ...]

    def to_dict(self) -> dict[str, Any]:
        return {
            "side": str(self.side),
            "house": self.house,
            "pool": self.pool.to_dict(),
            "production": self.production.to_dict(),
            "hand_size": self.hand_size,
            "deck_count": self.deck_count,
            "discard": [c.to_dict() for c in self.discard],
        }


@dataclass(frozen=True, slots=True)
class PlayerView:
    """One side's (or a spectator's, ``viewer=None``) picture of the match."""

    viewer: Side | None
    turn: int
    initiative: Side
    width: int
    height: int
    board: str
    realm: str
    squares: tuple[Square, ...]
    structures: tuple[Structure, ...]
    groups: tuple[Group, ...]
    spells: tuple[SpellView, ...]
    players: tuple[PlayerPublic, PlayerPublic]
    hand: tuple[Card, ...]
    result: Result | None

    def player(self, side: Side) -> PlayerPublic:
        return self.players[0] if side is RED else self.players[1]

    def group_at(self, at: Coord) -> Group | None:
        for g in self.groups:
            if g.coord == at:
                return g
        return None

    def structure_at(self, at: Coord) -> Structure | None:
        for s in self.structures:
            if s.coord == at:
                return s
        return None

    def spells_on(self, host: HostRef) -> tuple[SpellView, ...]:
        return tuple(s for s in self.spells if s.host == host)

    def to_dict(self) -> dict[str, Any]:
        return {
            "viewer": None if self.viewer is None else str(self.viewer),
            "turn": self.turn,
            "initiative": str(self.initiative),
            "width": self.width,
            "height": self.height,
            "board": self.board,
            "realm": self.realm,
            "squares": [s.to_dict() for s in self.squares],
            "structures": [s.to_dict() for s in self.structures],
            "groups": [g.to_dict() for g in self.groups],
            "spells": [s.to_dict() for s in self.spells],
            "players": [p.to_dict() for p in self.players],
            "hand": [c.to_dict() for c in self.hand],
            "result": None if self.result is None else self.result.to_dict(),
        }


def _can_see(spell: ActiveSpell, viewer: Side | None) -> bool:
    return spell.visible or spell.owner is viewer


def view_for(state: GameState, side: Side | None, content: Content) -> PlayerView:
    """``side``'s view of ``state`` (``None``: the public view of a spectator)."""
    players = tuple(
        PlayerPublic(
            side=p.side,
            house=p.house,
            pool=p.pool,
            production=production(state, p.side, content),
            hand_size=len(p.hand),
            deck_count=len(p.deck),
            discard=p.discard,
        )
        for p in state.players
    )
    return PlayerView(
        viewer=side,
        turn=state.turn,
        initiative=state.initiative,
        width=state.width,
        height=state.height,
        board=state.options.board,
        realm=state.options.realm,
        squares=state.squares,
        structures=state.structures,
        groups=state.groups,
        spells=tuple(
            SpellView(s.uid, s.spell_id, s.owner, s.host, s.visible, s.cast_turn, s.data)
            for s in state.active_spells
            if _can_see(s, side)
        ),
        players=(players[0], players[1]),
        hand=() if side is None else state.player(side).hand,
        result=state.result,
    )

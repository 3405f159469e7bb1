"""The records of the position a turn works on, and every read of them.

:class:`Store` holds the frozen records of a :class:`GameState` in dicts (by id, in creation
order) with the indexes a turn reads most, and answers every read of
:class:`~engine.position.Position` from them live; where active spells sit is its
:class:`~engine.spells.presence.SpellPresence`'s. Its writes are the plain ones: a record
replaced, with no event and no spell consequence (a pool paid, a card moved, a minion's hit
points). The turn's :class:`~engine.world.World` adds the changes the rules speak of (events,
deaths, spells coming and going, broadcasts) and the report.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from engine.coords import Coord
from engine.spells.presence import Reacting, SpellPresence
from engine.state import (
    BLUE,
    RED,
    ActiveSpell,
    Card,
    GameState,
    Group,
    HostRef,
    Mana,
    Minion,
    PlayerState,
    Result,
    Side,
    Square,
    Structure,
    evolve,
    state_of,
)

if TYPE_CHECKING:
    from engine.content import Content


def _without(cards: tuple[Card, ...], uid: int) -> tuple[Card, ...]:
    """``cards`` without the card ``uid`` (uids are unique in a match), the same tuple when it
    is not there: one loop, where a generator over the hand costs a frame and a resumption a
    card."""
    for at, card in enumerate(cards):
        if card.uid == uid:
            return cards[:at] + cards[at + 1 :]
    return cards


class Store:
    """The records of a position in dicts, read live (a :class:`~engine.position.Position`)."""

    # Slots, not an instance dict: the turn reads these fields thousands of times, and past
    # thirty fields (the World's own with these) an instance's dict no longer shares its keys
    # with the class's other instances, and every read and method lookup on it takes the slow
    # generic path.
    __slots__ = (
        "_board",
        "_minion_group",
        "_placement",
        "_squares",
        "_structure_at",
        "content",
        "group_map",
        "height",
        "initiative",
        "levels_earned",
        "next_id",
        "options",
        "player_map",
        "presence",
        "result",
        "revision",
        "seed",
        "spell_map",
        "structure_map",
        "terrain",
        "turn",
        "width",
    )

    def __init__(
        self, state: GameState, content: Content, reacting: Reacting, *, skip_deaf: bool
    ) -> None:
        """``reacting`` and ``skip_deaf`` tell the presence which spells hear which events."""
        self.content = content
        self.seed = state.seed
        self.turn = state.turn
        self.options = state.options
        self.width = state.width
        self.height = state.height
        self.initiative: Side = state.initiative
        self.result: Result | None = state.result
        self.next_id = state.next_id
        # The state's own map, shared: a change of terrain replaces it (set_terrain).
        self.terrain: Mapping[Coord, str] = state.terrain_index()
        self._squares: tuple[Square, ...] | None = state.squares
        self._board = state.squares  # the records the squares are rebuilt from
        # The state's own dicts, copied: the turn changes these in place.
        records = state.records()
        self.structure_map: dict[int, Structure] = records.structures.copy()
        self.group_map: dict[int, Group] = records.groups.copy()
        self.player_map: dict[Side, PlayerState] = {p.side: p for p in state.players}
        self.spell_map: dict[int, ActiveSpell] = records.spells.copy()
        self._minion_group: dict[int, int] = records.minion_group.copy()
        self._structure_at: dict[Coord, int] = records.structure_at.copy()
        # Whether a minion may hold a level earned and not yet awarded: one in the state, or one
        # a fight of this turn marks (combat). When none does, the start of turn's levels step
        # looks at no minion.
        self.levels_earned = records.earned
        # Bumped by every change to groups, minions or spells, so that a phase holding its own
        # scratch copy (combat) knows when to re-read.
        self.revision = 0
        # placement_memo(): the memo and the (revision, spell generation) it was filled at.
        self._placement: tuple[int, int, dict[object, object]] = (-1, -1, {})
        self.presence = SpellPresence(
            self.spell_map,
            self._structure_at,
            content,
            reacting,
            skip_deaf=skip_deaf,
            answers=state.spell_answers(content, reacting),
        )

    # ------------------------------------------------------------------ snapshot

    @property
    def state(self) -> GameState:
        """A frozen snapshot of the current position."""
        # GameState's fields in order; the terrain map is never changed in place.
        return state_of(
            (
                self.seed,
                self.turn,
                self.options,
                self.width,
                self.height,
                self.squares,
                self.structures,
                self.groups,
                self.players,
                self.initiative,
                self.active_spells,
                self.next_id,
                self.result,
            ),
            self.terrain,
        )

    # ------------------------------------------------------------------ the Position reads

    @property
    def groups(self) -> tuple[Group, ...]:
        """Groups in creation order."""
        return tuple(self.group_map.values())

    @property
    def structures(self) -> tuple[Structure, ...]:
        return tuple(self.structure_map.values())

    @property
    def players(self) -> tuple[PlayerState, PlayerState]:
        return (self.player_map[RED], self.player_map[BLUE])

    @property
    def active_spells(self) -> tuple[ActiveSpell, ...]:
        """Every active spell in casting order."""
        return tuple(self.spell_map.values())

    @property
    def squares(self) -> tuple[Square, ...]:
        if self._squares is None:
            # The board's squares in row order; a square whose terrain did not change keeps
            # its record (set_terrain changes a square or two, not the board).
            terrain = self.terrain
            self._squares = tuple(
                sq if sq.terrain == terrain[sq.coord] else Square(sq.coord, terrain[sq.coord])
                for sq in sorted(self._board, key=lambda sq: (sq.coord.y, sq.coord.x))
            )
        return self._squares

    # ------------------------------------------------------------------ lookups

    def on_board(self, at: Coord) -> bool:
        return at in self.terrain

    def terrain_at(self, at: Coord) -> str:
        return self.terrain[at]

    def group(self, group_id: int) -> Group | None:
        return self.group_map.get(group_id)

    def groups_at(self, at: Coord) -> list[Group]:
        """Every group on ``at``: more than one only during an overstack."""
        return [g for g in self.group_map.values() if g.coord == at]

    def group_at(self, at: Coord) -> Group | None:
        for g in self.group_map.values():
            if g.coord == at:
                return g
        return None

    def minion(self, minion_id: int) -> Minion | None:
        gid = self._minion_group.get(minion_id)
        if gid is None:
            return None
        return self.group_map[gid].minion(minion_id)

    def group_of(self, minion_id: int) -> Group | None:
        gid = self._minion_group.get(minion_id)
        return None if gid is None else self.group_map[gid]

    def structure(self, structure_id: int) -> Structure | None:
        return self.structure_map.get(structure_id)

    def structure_at(self, at: Coord) -> Structure | None:
        sid = self._structure_at.get(at)
        return None if sid is None else self.structure_map[sid]

    def sanctum(self, side: Side) -> Structure | None:
        for s in self.structure_map.values():
            if s.kind == "sanctum" and s.owner == side:
                return s
        return None

    def player(self, side: Side) -> PlayerState:
        return self.player_map[side]

    def host_exists(self, host: HostRef) -> bool:
        if host.kind == "globe":
            return True
        if host.kind == "square":
            return isinstance(host.ref, Coord) and host.ref in self.terrain
        if not isinstance(host.ref, int):
            return False
        if host.kind == "group":
            return host.ref in self.group_map
        if host.kind == "minion":
            return host.ref in self._minion_group
        return host.ref in self.structure_map

    def host_coord(self, host: HostRef) -> Coord | None:
        """The square a host stands on (None for the globe or a host that is gone)."""
        if host.kind == "square":
            return host.ref if isinstance(host.ref, Coord) else None
        if not isinstance(host.ref, int):
            return None
        if host.kind == "group":
            g = self.group_map.get(host.ref)
            return None if g is None else g.coord
        if host.kind == "minion":
            g = self.group_of(host.ref)
            return None if g is None else g.coord
        if host.kind == "structure":
            s = self.structure_map.get(host.ref)
            return None if s is None else s.coord
        return None

    def initiative_order(self) -> tuple[Side, Side]:
        return (self.initiative, self.initiative.other)

    def spells_on(self, host: HostRef) -> tuple[ActiveSpell, ...]:
        """The host's active spells, oldest first (S9)."""
        return self.presence.spells_on(host)

    def spells_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        return self.presence.spells_among(ids)

    def globe_among(self, ids: frozenset[str]) -> list[ActiveSpell]:
        return self.presence.globe_among(ids)

    def minion_hosts(self) -> set[int]:
        return self.presence.minion_hosts()

    def placement_memo(self) -> dict[object, object]:
        """Kept while the revision (every change to groups, minions or spells) and the spells'
        generation stay as they were; a new one after any change."""
        revision, generation, memo = self._placement
        if revision != self.revision or generation != self.presence.generation:
            memo = {}
            self._placement = (self.revision, self.presence.generation, memo)
        return memo

    def spells_of(self, side: Side) -> tuple[ActiveSpell, ...]:
        """The side's active spells, oldest first (S9)."""
        return tuple(s for s in self.spell_map.values() if s.owner == side)

    # ------------------------------------------------------------------ plain writes

    def update_minion(self, minion: Minion) -> None:
        """Replace a minion's record (same id) inside its group."""
        gid = self._minion_group[minion.id]
        group = self.group_map[gid]
        mid = minion.id
        # The new record in the old one's place, found by a loop (a generator over the members
        # costs a frame and a resumption per member).
        minions = group.minions
        for at, m in enumerate(minions):
            if m.id == mid:
                minions = (*minions[:at], minion, *minions[at + 1 :])
                break
        self.group_map[gid] = group.with_minions(minions)
        self.revision += 1

    def update_group(self, group: Group) -> None:
        """Replace a group's record (same id)."""
        self.group_map[group.id] = group
        self.revision += 1

    def place_group(self, group_id: int, at: Coord) -> None:
        """Put a group on ``at`` without any check or event (movement and spells decide those)."""
        self.group_map[group_id] = self.group_map[group_id].moved_to(at)
        self.revision += 1

    def update_structure(self, structure: Structure) -> None:
        self.structure_map[structure.id] = structure

    def _count(self, side: Side, captured: int = 0, lost: int = 0) -> None:
        """Structures ``side`` took and lost this turn (its delta, I3)."""
        p = self.player_map[side]
        self.player_map[side] = evolve(p, captured=p.captured + captured, lost=p.lost + lost)

    def update_player(self, player: PlayerState) -> None:
        self.player_map[player.side] = player

    def gain(self, side: Side, amount: Mana) -> None:
        """Add mana (negative parts drain); a pool never drops below zero."""
        p = self.player_map[side]
        self.player_map[side] = p.with_pool((p.pool + amount).clamped())

    def take_card(self, side: Side, card_uid: int) -> Card | None:
        """Remove a card from the hand (None when it is no longer there)."""
        p = self.player_map[side]
        card = p.card(card_uid)
        if card is None:
            return None
        self.player_map[side] = p.with_cards(p.deck, _without(p.hand, card_uid), p.discard)
        return card

    def put_card(self, side: Side, card: Card, where: str) -> None:
        """Put a card into "hand", "discard", "deck_top" or "deck_bottom"."""
        p = self.player_map[side]
        if where == "hand":
            p = p.with_cards(p.deck, (*p.hand, card), p.discard)
        elif where == "discard":
            p = p.with_cards(p.deck, p.hand, (*p.discard, card))
        elif where == "deck_top":
            p = p.with_cards((card, *p.deck), p.hand, p.discard)
        elif where == "deck_bottom":
            p = p.with_cards((*p.deck, card), p.hand, p.discard)
        else:
            raise ValueError(f"unknown card place {where!r}")
        self.player_map[side] = p

    def settle_cast(
        self,
        side: Side,
        cost: Mana | None,
        card: Card | None,
        *,
        discard: bool,
        cast: str | None,
    ) -> None:
        """A cast's bookkeeping in one player record (a cast's pay, card and log used to build
        up to four): take ``cost`` from the pool if it covers it (None: nothing to pay), take
        ``card`` from the hand if it is there and, with ``discard``, put it on the discard pile
        (as :meth:`take_card` and :meth:`put_card`), and add ``cast`` to the cast log (None:
        the cast does not count as cast, S12)."""
        p = self.player_map[side]
        pool, hand, pile, log = p.pool, p.hand, p.discard, p.cast_log
        if cost is not None and pool.covers(cost):
            pool = pool - cost
        if card is not None:
            hand = _without(hand, card.uid)
            if discard:
                pile = (*pile, card)
        if cast is not None:
            log = (*log, cast)
        self.player_map[side] = p.with_cast(pool, hand, pile, log)

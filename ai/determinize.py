"""A playable :class:`GameState` built from a :class:`PlayerView` (determinization).

The engine simulates and validates on full states, but a computer player may only know what its
view shows (G12). The hidden parts are filled in with guesses drawn from the caller's generator:
the enemy's hand and both decks are sampled from the spells each side is known or likely to
play (its discard pile, its active spells, its house's deck spells). The viewer's own hand, pool,
groups and everything on the board are exact, so orders valid here are valid in the real game
(see :func:`ai.options.legalize` for the few hidden facts that can still matter).
"""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import replace

from engine.content import Content
from engine.mana import structure_output
from engine.state import (
    ActiveSpell,
    Card,
    GameState,
    Mana,
    Options,
    PlayerState,
    Side,
)
from engine.view import PlayerPublic, PlayerView

NOT_IN_DECKS = frozenset({"hereditary", "attribute", "bound"})


def deck_spells(content: Content, house: str) -> list[str]:
    """The spells of ``house`` a deck may hold (never hereditary, attribute, bound or helpers)."""
    return sorted(
        s.id
        for s in content.spells.values()
        if s.house == house and s.spell_class not in NOT_IN_DECKS and not s.helper
    )


def _max_id(view: PlayerView) -> int:
    ids = [0]
    ids += [s.id for s in view.structures]
    for g in view.groups:
        ids.append(g.id)
        ids += [m.id for m in g.minions]
    ids += [s.uid for s in view.spells]
    ids += [c.uid for c in view.hand]
    for p in view.players:
        ids += [c.uid for c in p.discard]
    return max(ids)


def _likely_spells(view: PlayerView, side: Side, content: Content) -> list[str]:
    """Spell ids ``side`` probably holds, with repeats as weights (seen cards count double)."""
    player = view.player(side)
    seen = [c.spell_id for c in player.discard]
    seen += [s.spell_id for s in view.spells if s.owner is side]
    if side is view.viewer:
        seen += [c.spell_id for c in view.hand]
    pool = [sid for sid in seen if _deckable(sid, content)] * 2
    pool += deck_spells(content, player.house)
    return pool or sorted(sid for sid in content.spells if _deckable(sid, content))


def _deckable(spell_id: str, content: Content) -> bool:
    spell = content.spells.get(spell_id)
    return spell is not None and spell.spell_class not in NOT_IN_DECKS and not spell.helper


def _mana_novices(view: PlayerView, public: PlayerPublic, content: Content) -> Mana:
    """Production minus what the side's structures make: the novices trained as mana (G5)."""
    house = content.houses[public.house]
    made = Mana()
    for s in view.structures:
        if s.owner == public.side:
            made = made + structure_output(s, house.primary, house.secondary, content.economy)
    return (public.production - made).clamped()


def _cast_log(view: PlayerView, side: Side, content: Content) -> tuple[str, ...]:
    """Once-per-game spells the side may have cast: every one in its discard pile or in play.

    Over-counting only stops the computer from trying a spell it might still be allowed to cast;
    under-counting would make it give an illegal order.
    """
    ids = [c.spell_id for c in view.player(side).discard]
    ids += [s.spell_id for s in view.spells if s.owner is side]
    return tuple(sid for sid in ids if (sp := content.spells.get(sid)) and sp.once_per_game)


def _sample_cards(
    likely: Sequence[str], count: int, first_uid: int, rng: random.Random
) -> tuple[Card, ...]:
    return tuple(Card(first_uid + i, rng.choice(likely)) for i in range(count))


def determinize(
    view: PlayerView, rng: random.Random, content: Content, options: Options | None = None
) -> GameState:
    """One plausible full state behind ``view`` (the viewer's own facts are exact).

    ``options`` is the match's ruleset (public: both players know it; the view does not carry
    it), so a duel match is simulated with its dice; without it the classic rules are assumed.
    """
    viewer = view.viewer
    if viewer is None:
        raise ValueError("a spectator's view has no side to play")
    next_uid = _max_id(view) + 1
    players: list[PlayerState] = []
    for public in view.players:
        side = public.side
        likely = _likely_spells(view, side, content)
        if side is viewer:
            hand = view.hand
        else:
            hand = _sample_cards(likely, public.hand_size, next_uid, rng)
            next_uid += len(hand)
        deck = _sample_cards(likely, public.deck_count, next_uid, rng)
        next_uid += len(deck)
        players.append(
            PlayerState(
                side=side,
                house=public.house,
                deck=deck,
                hand=hand,
                discard=public.discard,
                pool=public.pool,
                mana_novices=_mana_novices(view, public, content),
                cast_log=_cast_log(view, side, content),
            )
        )
    spells = tuple(
        ActiveSpell(
            uid=s.uid,
            spell_id=s.spell_id,
            owner=s.owner,
            host=s.host,
            cast_turn=s.cast_turn,
            visible=s.visible,
            helper=bool((d := content.spells.get(s.spell_id)) and d.helper),
            data=s.data,
        )
        for s in view.spells
    )
    return GameState(
        seed=rng.randrange(1 << 30),
        turn=view.turn,
        options=replace(options or Options(), board=view.board, realm=view.realm),
        width=view.width,
        height=view.height,
        squares=view.squares,
        structures=view.structures,
        groups=view.groups,
        players=(players[0], players[1]),
        initiative=view.initiative,
        active_spells=spells,
        next_id=next_uid,
        result=view.result,
    )

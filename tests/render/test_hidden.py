"""What is hidden from a viewer is not drawn into their images (G12).

Each board and order sheet the bot sends is drawn twice from a mid-game position: once as it
is, and once with everything the viewer may not know replaced by something else (the other
side's hand and deck, and every non-visible spell the viewer does not own). The two PNGs must
be the same bytes. The other side's orders never reach these functions: a sheet is drawn from
the viewer's view and the viewer's own orders only.
"""

from __future__ import annotations

from dataclasses import replace

import pytest

from engine.content import Content, load_content
from engine.orders import Orders
from engine.setup import MatchConfig, new_game
from engine.state import ActiveSpell, Card, GameState, HostRef, PlayerState, Side
from engine.view import view_for
from render import render_board, render_order_sheet

HOUSES = sorted(load_content().houses)
# Every house is drawn once as red and once as blue, against a different house each time.
PAIRS = [(HOUSES[i], HOUSES[(i + 1) % len(HOUSES)]) for i in range(len(HOUSES))]


def usable(content: Content) -> list[str]:
    spells = content.spells.values()
    return sorted(s.id for s in spells if s.spell_class in ("standard", "learned") and not s.helper)


def position(red: str, blue: str, content: Content) -> GameState:
    """A new game between the two houses, with visible and non-visible spells in play."""
    spells = usable(content)
    config = MatchConfig(
        seed=7,
        houses={Side.RED: red, Side.BLUE: blue},
        decks={Side.RED: (spells[:8] * 4)[:30], Side.BLUE: (spells[8:16] * 4)[:30]},
    )
    state = new_game(config, content)
    red_group = state.groups_of(Side.RED)[0].id
    blue_group = state.groups_of(Side.BLUE)[0].id
    active = (
        ActiveSpell(900, "fortitude", Side.RED, HostRef.group(red_group), 1),
        ActiveSpell(901, "pact_sealed", Side.RED, HostRef.globe(), 1, visible=False),
        ActiveSpell(902, "embargo", Side.BLUE, HostRef.globe(), 1, visible=False),
        ActiveSpell(903, "fortitude", Side.BLUE, HostRef.group(blue_group), 1),
        ActiveSpell(904, "pact_sealed", Side.BLUE, HostRef.group(blue_group), 1, visible=False),
    )
    return replace(state, active_spells=active, next_id=905)


def _other_cards(cards: tuple[Card, ...], content: Content) -> tuple[Card, ...]:
    """As many cards, each of a spell it was not, with other uids."""
    spells = usable(content)[::-1]
    return tuple(Card(c.uid + 5000, next(s for s in spells if s != c.spell_id)) for c in cards)


def poisoned(state: GameState, viewer: Side | None, content: Content) -> GameState:
    """``state`` with what ``viewer`` may not know replaced by different content."""

    def player(p: PlayerState) -> PlayerState:
        if p.side is viewer:
            return p
        return replace(
            p,
            hand=_other_cards(p.hand, content),
            deck=_other_cards(p.deck, content),
            cast_log=("embargo", "pact_sealed"),
        )

    def spell(s: ActiveSpell) -> ActiveSpell:
        if s.visible or s.owner is viewer:
            return s
        other = "embargo" if s.spell_id == "pact_sealed" else "pact_sealed"
        return replace(s, spell_id=other, cast_turn=s.cast_turn + 3, data=(("turns", 9),))

    red, blue = state.players
    return replace(
        state,
        players=(player(red), player(blue)),
        active_spells=tuple(spell(s) for s in state.active_spells),
    )


def images(state: GameState, viewer: Side | None, content: Content) -> list[bytes]:
    """What the bot draws for ``viewer``: the board, and for a player the order sheet."""
    view = view_for(state, viewer, content)
    drawn = [render_board(view)]
    if viewer is not None:
        drawn.append(render_order_sheet(view, Orders()))
    return drawn


@pytest.mark.parametrize(("red", "blue"), PAIRS, ids=[f"{r}-{b}" for r, b in PAIRS])
@pytest.mark.parametrize("viewer", [Side.RED, Side.BLUE, None], ids=["red", "blue", "spectator"])
def test_poisoning_what_a_viewer_may_not_know_leaves_their_images_unchanged(
    red: str, blue: str, viewer: Side | None, content: Content
) -> None:
    state = position(red, blue, content)
    assert images(poisoned(state, viewer, content), viewer, content) == images(
        state, viewer, content
    )


def test_the_comparison_sees_a_change_in_what_the_viewer_may_know(content: Content) -> None:
    """The control: the same poisoning applied to the viewer's own side changes their images,
    and so does a non-visible spell made visible."""
    state = position("war", "life", content)
    for seen_by_all in (poisoned(state, Side.BLUE, content), poisoned(state, None, content)):
        assert images(seen_by_all, Side.RED, content) != images(state, Side.RED, content)
    shown = replace(
        state, active_spells=tuple(replace(s, visible=True) for s in state.active_spells)
    )
    assert images(shown, Side.RED, content)[0] != images(state, Side.RED, content)[0]

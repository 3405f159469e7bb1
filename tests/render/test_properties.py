"""Properties over random positions and reports: drawing never fails and never leaks."""

from __future__ import annotations

from dataclasses import replace
from io import BytesIO

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from PIL import Image

from engine.content import Content
from engine.report import Event, TurnReport
from engine.state import (
    ActiveSpell,
    GameState,
    Group,
    HostRef,
    Minion,
    MinionKind,
    Owner,
    Side,
)
from engine.view import view_for
from render import DEFAULT_THEME, render_board
from render.geometry import Layout
from tests.render.fixtures import midgame_state, spell_book

BASE = midgame_state()
BOOK = spell_book()
SQUARES = [square.coord for square in BASE.squares]
OWNERS: list[Owner] = [Side.RED, Side.BLUE, "neutral"]
KINDS: list[MinionKind] = ["recruit", "monster"]
SQUARE_NAMES = [at.name for at in SQUARES] + ["A1", "Z26", "??", ""]


@st.composite
def positions(draw: st.DrawFn) -> GameState:
    ids = iter(range(10_000, 20_000))
    places = draw(st.lists(st.sampled_from(SQUARES), max_size=12, unique=True))
    groups = []
    for at in places:
        owner = draw(st.sampled_from(OWNERS))
        kind = draw(st.sampled_from(KINDS))
        size = draw(st.integers(1, 8))
        traits = frozenset({"hero"}) if kind == "recruit" and draw(st.booleans()) else frozenset()
        minions = tuple(
            Minion(next(ids), kind, "unit", None, 7, 7, traits=traits if i == 0 else frozenset())
            for i in range(size)
        )
        groups.append(Group(next(ids), owner, owner, at, minions))
    hosts = [HostRef.globe()] + [HostRef.square(at) for at in SQUARES[:20]]
    hosts += [HostRef.group(g.id) for g in groups] + [
        HostRef.minion(g.minions[0].id) for g in groups
    ]
    hosts += [HostRef.structure(s.id) for s in BASE.structures]
    spells = draw(
        st.lists(
            st.tuples(
                st.sampled_from(sorted(BOOK)),
                st.sampled_from([Side.RED, Side.BLUE]),
                st.sampled_from(hosts),
                st.booleans(),
            ),
            max_size=15,
        )
    )
    active = tuple(
        ActiveSpell(next(ids), spell_id, owner, host, cast_turn=1, visible=visible)
        for spell_id, owner, host, visible in spells
    )
    return replace(BASE, groups=tuple(groups), active_spells=active)


@st.composite
def reports(draw: st.DrawFn) -> TurnReport:
    square = st.sampled_from(SQUARE_NAMES)
    side = st.sampled_from(["red", "blue", "neutral", "purple"])
    target = st.one_of(
        st.just("globe"),
        square.map(lambda name: f"square:{name}"),
        st.integers(0, 20_000).map(lambda n: f"group:{n}"),
        st.integers(0, 20_000).map(lambda n: f"minion:{n}"),
        st.text(max_size=8),
    )
    event = st.one_of(
        st.builds(
            lambda a, b, s: Event.make("moved", side=s, to=b, **{"from": a}), square, square, side
        ),
        st.builds(
            lambda a, b, s: Event.make("bounced", side=s, to=b, **{"from": a}), square, square, side
        ),
        st.builds(lambda a, b: Event.make("combat", at=a, against=b), square, square),
        st.builds(lambda a, s: Event.make("died", at=a, side=s), square, side),
        st.builds(lambda: Event.make("combat_ended")),
        st.builds(
            lambda t, s, k: Event.make(k, side=s, spell="fireball", target=t),
            target,
            side,
            st.sampled_from(["spell_executed", "spell_squandered"]),
        ),
        st.builds(lambda a, s: Event.make("captured", at=a, side=s), square, side),
        st.builds(lambda a: Event.make("trained", at=a, side="red", trained_as="archer"), square),
        st.builds(lambda a: Event.make("terrain_changed", at=a), square),
    )
    events = draw(st.lists(event, max_size=25))
    return TurnReport(BASE.turn - 1, tuple(events), Side.RED, Side.BLUE)


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions(), report=reports(), side=st.sampled_from([None, Side.RED, Side.BLUE]))
def test_any_position_and_report_draw_at_the_same_size(
    state: GameState, report: TurnReport, side: Side | None, content: Content
) -> None:
    png = render_board(view_for(state, side, content), report, spells=BOOK)
    image = Image.open(BytesIO(png))
    assert image.size == Layout(state.width, state.height, DEFAULT_THEME).size
    assert len(png) <= 250_000


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(state=positions())
def test_hidden_spells_never_change_the_public_image(state: GameState, content: Content) -> None:
    seen_by_all = tuple(s for s in state.active_spells if s.visible)
    public = render_board(view_for(state, None, content), spells=BOOK)
    assert public == render_board(
        view_for(replace(state, active_spells=seen_by_all), None, content), spells=BOOK
    )

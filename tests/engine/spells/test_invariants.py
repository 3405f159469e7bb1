"""Hypothesis: random legal casts over random positions never crash the spell phase and keep
its invariants (every card in exactly one place, pools never negative, host and player lists in
casting order, every active spell on a host that exists)."""

from collections import Counter

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.content import load_content
from engine.coords import Coord
from engine.orders import CastOrder
from engine.spells.phase import run_spell_phase
from engine.spells.targeting import legal_targets, validate_casts
from engine.spells.vocab import HOUSES
from engine.state import HostRef, Mana, Side
from tests.engine.spells.helpers import BLUE, RED, Board, world_of

CONTENT = load_content()
CASTABLE = sorted(
    s.id
    for s in CONTENT.spells.values()
    if not s.helper and s.spell_class not in ("attribute", "bound")
)
ACTIVE = sorted(
    s.id
    for s in CONTENT.spells.values()
    if not s.instant and not s.helper and s.target.kind in ("group", "recruit_group")
)
TERRAINS = ("plains", "plains", "forest", "water", "mountain", "lava")
SQUARES = [Coord(x, y) for x in range(8) for y in range(8)]


@st.composite
def positions(draw: st.DrawFn) -> Board:
    b = Board(initiative=draw(st.sampled_from([RED, BLUE])), turn=draw(st.integers(1, 9)))
    b.duel = draw(st.booleans())
    for at in draw(st.lists(st.sampled_from(SQUARES), max_size=8, unique=True)):
        if at not in (Coord(0, 0), Coord(7, 7)):
            b.terrain[at] = draw(st.sampled_from(TERRAINS))
    used = {Coord(0, 0), Coord(7, 7)}
    free = [c for c in SQUARES if c not in used]
    spots = draw(st.lists(st.sampled_from(free), min_size=2, max_size=9, unique=True))
    for i, at in enumerate(spots):
        owner = (RED, BLUE, "neutral")[i % 3] if i > 1 else (RED, BLUE)[i]
        if i % 4 == 3:
            sid = b.structure("town", at.name, owner)
            b.terrain[at] = "plains"
            if owner != "neutral" and draw(st.booleans()):
                b.active("shadow_altar", owner, HostRef.structure(sid))  # type: ignore[arg-type]
            continue
        units = draw(
            st.lists(st.sampled_from(["swordsman", "archer", "monster"]), min_size=1, max_size=4)
        )
        if "monster" in units:
            units = ["monster"] * len(units)
        traits = ("hero",) if draw(st.integers(0, 5)) == 0 and units[0] != "monster" else ()
        gid = b.group(owner, at.name, *units, hp=draw(st.integers(1, 12)), traits=traits)
        if draw(st.booleans()):
            b.active(
                draw(st.sampled_from(ACTIVE)),
                draw(st.sampled_from([RED, BLUE])),
                HostRef.group(gid),
            )
    for side in (RED, BLUE):
        b.houses[side] = draw(st.sampled_from(sorted(HOUSES)))
        for spell_id in draw(st.lists(st.sampled_from(CASTABLE), min_size=1, max_size=6)):
            b.card(side, spell_id)
        for spell_id in draw(st.lists(st.sampled_from(CASTABLE), max_size=3)):
            b.deck_card(side, spell_id)
        amount = draw(st.integers(0, 9))
        b.pools[side] = Mana(*(amount for _ in range(6)))
    return b


def _casts(data: st.DataObject, b: Board, side: Side) -> list[CastOrder]:
    state = b.state()
    orders: list[CastOrder] = []
    for card in b.hands[side]:
        if not data.draw(st.booleans()):
            continue
        spell = CONTENT.spells[card.spell_id]
        targets = legal_targets(state, side, spell, load_content())
        if not targets:
            continue
        target = data.draw(st.sampled_from(targets))
        boosted = spell.boosted_cost is not None and data.draw(st.booleans())
        orders.append(CastOrder(card.uid, target, boosted=boosted))
    hereditary = next(
        s
        for s in CONTENT.spells.values()
        if s.house == b.houses[side] and s.spell_class == "hereditary"
    )
    aims = legal_targets(state, side, hereditary, load_content())
    use_hereditary: bool = data.draw(st.booleans())
    if aims and use_hereditary:
        orders.append(CastOrder(0, data.draw(st.sampled_from(aims)), spell_id=hereditary.id))
    for carrier in b.spells:
        if (
            carrier.owner is side
            and carrier.spell_id == "shadow_altar"
            and data.draw(st.booleans())
        ):
            lash = CONTENT.spells["shadow_lash"]
            targets = legal_targets(state, side, lash, load_content())
            if targets:
                power = data.draw(st.sampled_from([1, 3]))
                orders.append(
                    CastOrder(
                        0,
                        data.draw(st.sampled_from(targets)),
                        power=power,
                        bound_source=carrier.uid,
                        spell_id="shadow_lash",
                    )
                )
    problems = validate_casts(state, side, orders, load_content())
    bad = {p.order_index for p in problems}
    return [o for i, o in enumerate(orders) if i not in bad]


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), data=st.data(), seed=st.integers(0, 2**16))
def test_random_legal_casts_keep_the_invariants(board, data, seed):
    cards_before = Counter(
        c.uid for side in (RED, BLUE) for c in (*board.hands[side], *board.decks[side])
    )
    casts = {side: _casts(data, board, side) for side in (RED, BLUE)}
    world = world_of(board.state(), seed=seed)
    run_spell_phase(world, casts)
    state = world.state
    # Every card is in exactly one place: deck, hand (held or targeted), discard, or in play.
    places: Counter[int] = Counter()
    for player in state.players:
        for pile in (player.deck, player.hand, player.discard):
            places.update(c.uid for c in pile)
    places.update(s.card_uid for s in state.active_spells if s.card_uid is not None)
    expected = cards_before + Counter(s.card_uid for s in board.spells if s.card_uid is not None)
    assert places == expected
    for player in state.players:
        assert all(v >= 0 for _, v in player.pool.items())
    uids = [s.uid for s in state.active_spells]
    assert uids == sorted(uids)
    for side in (RED, BLUE):
        mine = [s.uid for s in state.spells_of(side)]
        assert mine == sorted(mine)
    for spell in state.active_spells:
        host_list = [s.uid for s in state.spells_on(spell.host)]
        assert host_list == sorted(host_list)
        assert world.host_exists(spell.host)
    for group in state.groups:
        assert 1 <= len(group.minions) <= 8


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(board=positions(), data=st.data())
def test_whole_turns_with_random_casts_never_crash(board, data):
    from engine.orders import Orders
    from engine.turn import resolve_turn

    state = board.state()
    for _ in range(2):
        if state.result is not None:
            break
        b = Board()
        b.groups, b.structures, b.spells = list(state.groups), list(state.structures), []
        orders = {}
        for side in (RED, BLUE):
            b.hands[side] = list(state.player(side).hand)
            orders[side] = Orders(casts=tuple(_casts_on(data, state, side)))
        state, report = resolve_turn(state, orders, content=CONTENT)
        for player in state.players:
            assert all(v >= 0 for _, v in player.pool.items())
        uids = [s.uid for s in state.active_spells]
        assert uids == sorted(uids) and len(set(uids)) == len(uids)
        assert all(1 <= len(g.minions) <= 8 for g in state.groups)
        assert report.turn == state.turn - 1


def _casts_on(data: st.DataObject, state, side: Side) -> list[CastOrder]:  # type: ignore[no-untyped-def]
    orders: list[CastOrder] = []
    for card in state.player(side).hand:
        if not data.draw(st.booleans()):
            continue
        targets = legal_targets(state, side, CONTENT.spells[card.spell_id], load_content())
        if targets:
            orders.append(CastOrder(card.uid, data.draw(st.sampled_from(targets))))
    bad = {p.order_index for p in validate_casts(state, side, orders, load_content())}
    return [o for i, o in enumerate(orders) if i not in bad]

"""resolve_turn: determinism (G11), concession and agreed draws (G8), legal-order helpers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from conformance import load_scenario
from engine.content import Content, load_content
from engine.legal import castable, legal_moves, trainable
from engine.orders import MoveOrder, Orders
from engine.state import Card, GameState, Result, Side, evolve
from engine.turn import GameOverError, agree_draw, concede, resolve_turn
from engine.validate import validate_orders


def _march(state: GameState) -> dict[Side, Orders]:
    orders = {}
    for side in (Side.RED, Side.BLUE):
        moves = legal_moves(state, side, load_content())
        orders[side] = Orders(
            moves=tuple(MoveOrder(gid, dests[0]) for gid, dests in moves.items() if dests)
        )
    return orders


def test_G11_a_turn_replays_exactly(opening: GameState, content: Content) -> None:
    a = resolve_turn(opening, _march(opening), content=content)
    b = resolve_turn(opening, _march(opening), content=content)
    assert a == b


def test_G11_default_generator_comes_from_seed_and_turn(
    opening: GameState, content: Content
) -> None:
    from engine.rng import turn_rng

    explicit = resolve_turn(opening, {}, turn_rng(opening.seed, opening.turn), content=content)
    assert explicit == resolve_turn(opening, {}, content=content)


def test_resolve_turn_never_mutates_its_input(opening: GameState, content: Content) -> None:
    before = opening.to_dict()
    resolve_turn(opening, _march(opening), random.Random(4), content=content)
    assert opening.to_dict() == before


def test_G8_concession_and_agreed_draw(opening: GameState) -> None:
    assert concede(opening, Side.RED).result == Result(Side.BLUE, "concession")
    assert agree_draw(opening).result == Result(None, "agreement")


def test_D_GAME_OVER_no_turn_after_the_end(opening: GameState, content: Content) -> None:
    with pytest.raises(GameOverError):
        resolve_turn(agree_draw(opening), {}, content=content)
    with pytest.raises(GameOverError):
        concede(agree_draw(opening), Side.BLUE)


def test_legal_moves_are_accepted_by_validation(opening: GameState, content: Content) -> None:
    for side in (Side.RED, Side.BLUE):
        for gid, dests in legal_moves(opening, side, content).items():
            assert dests
            for dest in dests:
                orders = Orders(moves=(MoveOrder(gid, dest),))
                assert validate_orders(opening, side, orders, content) == []


def test_castable_targets_are_accepted(opening: GameState, content: Content) -> None:
    state = opening
    for _ in range(4):
        state, _ = resolve_turn(state, {}, content=content)
    for side in (Side.RED, Side.BLUE):
        for uid, targets in castable(state, side, content).items():
            assert state.player(side).card(uid) is not None
            assert targets


def test_trainable_lists_only_structures_with_novices(opening: GameState, content: Content) -> None:
    sanctum = opening.sanctum(Side.RED)
    assert sanctum is not None and sanctum.novices  # D-START-NOVICES
    options = trainable(opening, Side.RED, content)
    assert set(options) == {sanctum.coord}  # the neutral towns have none, and are not red's
    kinds = {(o.kind, o.mana_type) for o in options[sanctum.coord]}
    assert kinds == {("swordsman", None), ("archer", None), ("mana", "strife"), ("mana", "clarity")}


def test_D_MOVE_RANGE_legal_moves_follow_every_step(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text(
        """
name = "x"
rules = ["D-MOVE-RANGE"]
[board]
mask = \"\"\"
.....
.....
.....
\"\"\"
terrain = { B2 = "water", C1 = "water" }
[[spell]]
id = "test_haste"
name = "Test Haste"
house = "body"
cost = "1+0"
type = "alteration"
target = "group"
rules = "One square further."
effects = [{ do = "modify", stat = "moves", amount = 1 }]
[[group]]
name = "g"
owner = "red"
at = "A1"
minions = ["swordsman"]
[[group]]
name = "foe"
owner = "blue"
at = "A3"
minions = ["swordsman"]
[[active]]
spell = "test_haste"
owner = "red"
host = "group:g"
[[turn]]
""",
        encoding="utf-8",
    )
    scenario = load_scenario(path)
    gid = scenario.labels.groups["g"]
    dests = {c.name for c in legal_moves(scenario.state, Side.RED, scenario.content)[gid]}
    # Two king steps reach A3 (the enemy's), B2 and C1 (water) and, past the water of B2, B3,
    # C2 and C3: only A2 and B1 remain.
    assert dests == {"A2", "B1"}


def _emptied(
    state: GameState, side: Side, discard: tuple[Card, ...], cast_log: tuple[str, ...]
) -> GameState:
    """``state`` with ``side``'s deck empty, one card short of a full hand, and ``discard``."""
    assert len(state.player(side).hand) == 5
    players = tuple(
        evolve(p, hand=p.hand[1:], deck=(), discard=discard, cast_log=cast_log)
        if p.side is side
        else p
        for p in state.players
    )
    return evolve(state, players=players)


def test_D_DRAW_a_spent_once_per_game_spell_stays_in_the_discard_pile(
    opening: GameState, content: Content
) -> None:
    """The reshuffle leaves out a once-per-game spell its side has cast: it could never be cast
    again, and the pile is where the other side sees it was spent."""
    hero = min(s.id for s in content.spells.values() if s.once_per_game)
    pile = (Card(9001, hero), Card(9002, "fear"))
    state = _emptied(opening, Side.RED, pile, cast_log=(hero,))
    after = resolve_turn(state, {}, content=content)[0].player(Side.RED)
    assert [c.spell_id for c in after.hand][-1] == "fear"
    assert after.discard == (Card(9001, hero),)
    assert after.deck == ()


def test_D_DRAW_an_unspent_once_per_game_card_is_shuffled_back(
    opening: GameState, content: Content
) -> None:
    hero = min(s.id for s in content.spells.values() if s.once_per_game)
    state = _emptied(opening, Side.RED, (Card(9001, hero),), cast_log=())
    after = resolve_turn(state, {}, content=content)[0].player(Side.RED)
    assert after.hand[-1] == Card(9001, hero)
    assert after.discard == ()

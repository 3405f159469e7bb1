"""Turn resolution (G4): orders, spells, movement, combat, end of turn, then the next start of turn.

``resolve_turn`` never mutates its inputs and gives equal outputs for equal inputs: every random
draw comes from one generator seeded by the match seed and the turn number (G11). Orders that
cannot be carried out are skipped with an "order_refused" event; nothing a player sends makes the
engine fail.
"""

from __future__ import annotations

import gc
import random
from collections.abc import Mapping
from dataclasses import replace
from typing import TYPE_CHECKING, Final

from engine.combat import resolve_combat
from engine.movement import resolve_movement
from engine.orders import CastOrder, Orders, Problem
from engine.report import TurnReport, build_report
from engine.rng import turn_rng
from engine.spells.hooks import SPELL_HOOKS
from engine.spells.phase import run_spell_phase
from engine.spells.targeting import cast_problems
from engine.start import run_start_of_turn
from engine.state import SIDES, GameState, Result, Side
from engine.training import apply_training
from engine.validate import mana_choice_problems
from engine.world import World

if TYPE_CHECKING:
    from engine.content import Content


# A side that sends nothing gives no orders (one frozen record, not one built per side and turn).
_NO_ORDERS: Final = Orders()


class GameOverError(ValueError):
    """The match has ended; no turn can be resolved."""


def resolve_turn(
    state: GameState,
    orders_by_side: Mapping[Side, Orders],
    rng: random.Random | None = None,
    *,
    content: Content,
    record: bool = True,
    strikes: bool = False,
) -> tuple[GameState, TurnReport]:
    """Resolve ``state.turn`` with both sides' orders (a missing side gives no orders).

    The report records combat per round; ``strikes=True`` also records every strike. Either way
    the turn is the same (same state, same report but for the "strike" events), so the detail of
    a stored turn is had by resolving its state and orders again with ``strikes=True``.

    ``record=False`` is for searches that play many turns and read only the states (computer
    players): the turn records no events (``World.emit`` builds none), and the report carries
    none (its turn, initiative and result are still right). The new state is the same either
    way."""
    if state.result is not None:
        raise GameOverError(f"the game is over ({state.result.reason})")
    # A turn allocates hundreds of thousands of short-lived records and frees them in order; the
    # cyclic collector walking them meanwhile is a twentieth of the turn and finds nothing it
    # must free now, so it waits for the end of the turn (and is left off if it already was).
    collecting = gc.isenabled()
    gc.disable()
    try:
        return _resolve(state, orders_by_side, rng, content, record=record, strikes=strikes)
    finally:
        if collecting:
            gc.enable()


def _resolve(
    state: GameState,
    orders_by_side: Mapping[Side, Orders],
    rng: random.Random | None,
    content: Content,
    *,
    record: bool,
    strikes: bool,
) -> tuple[GameState, TurnReport]:
    world = World(
        state, rng or turn_rng(state.seed, state.turn), content, SPELL_HOOKS, record=record
    )
    orders = {side: orders_by_side.get(side, _NO_ORDERS) for side in SIDES}

    for side in SIDES:
        choices = orders[side].mana_choices
        if choices:
            refused = mana_choice_problems(world, side, choices)
            _refuse(world, side, refused)
            bad = {p.order_index for p in refused}
            world.mana_choices[side] = {
                c.structure: c.mana_type for i, c in enumerate(choices) if i not in bad
            }
    for side in SIDES:
        _refuse(world, side, apply_training(world, side, orders[side].trains))
    for side in SIDES:
        _discard(world, side, orders[side])
    moves = {side: orders[side].moves for side in SIDES}
    run_spell_phase(world, {side: _castable(world, side, orders[side]) for side in SIDES})
    if world.result is None:
        resolve_movement(world, moves)
        resolve_combat(world, strikes)
        world.broadcast("end_of_turn")
    world.forced_moves.clear()
    if world.result is None:
        world.turn += 1
        run_start_of_turn(world)
    else:
        world.turn += 1
    new_state = world.state
    report = build_report(
        state.turn,
        tuple(world.report.events),
        state.initiative,
        new_state.initiative,
        new_state.result,
    )
    return new_state, report


def _refuse(world: World, side: Side, problems: list[Problem]) -> None:
    for p in problems:
        world.emit(
            "order_refused",
            side=str(side),
            section=p.section,
            index=p.order_index,
            code=p.code,
            message=p.message,
        )


def _discard(world: World, side: Side, orders: Orders) -> None:
    if orders.discard is None:
        return
    uid = orders.discard.card_uid
    if any(c.card_uid == uid for c in orders.casts):
        _refuse(world, side, [Problem("discard_and_cast", "cast and discarded", 0, "discard")])
        return
    card = world.take_card(side, uid)
    if card is None:
        _refuse(
            world, side, [Problem("card_not_in_hand", f"card {uid} is not in hand", 0, "discard")]
        )
        return
    world.put_card(side, card, "discard")
    world.emit("discarded", side=str(side), card=card.uid, spell=card.spell_id)


def _castable(world: World, side: Side, orders: Orders) -> list[CastOrder]:
    """The casts that pass targeting on the position after training (the rest are refused)."""
    if not orders.casts:
        return []
    problems = cast_problems(world, side, list(orders.casts))
    _refuse(world, side, problems)
    bad = {p.order_index for p in problems if p.section in (None, "casts")}
    if None in bad:
        return []
    return [c for i, c in enumerate(orders.casts) if i not in bad]


def concede(state: GameState, side: Side) -> GameState:
    """``side`` concedes: the other side wins (G8)."""
    if state.result is not None:
        raise GameOverError(f"the game is over ({state.result.reason})")
    return replace(state, result=Result(side.other, "concession"))


def agree_draw(state: GameState) -> GameState:
    """Both players agree to a draw (G8)."""
    if state.result is not None:
        raise GameOverError(f"the game is over ({state.result.reason})")
    return replace(state, result=Result(None, "agreement"))

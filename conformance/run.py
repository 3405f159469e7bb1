"""Playing a scenario's turns: each side's orders are read against the position of that turn (a
card is named by its spell id and found in the hand), the turn is resolved with the scenario's
dice, and the expectations are checked; the first turn that fails ends the run."""

from __future__ import annotations

from dataclasses import replace

from conformance import read
from conformance.check import check_expectations
from conformance.model import DICE, Failure, FixedDice, Labels, Scenario, ScenarioError
from engine.orders import (
    CastOrder,
    DiscardOrder,
    ManaChoice,
    MoveOrder,
    Orders,
    Target,
    TrainOrder,
)
from engine.report import TurnReport
from engine.state import SIDES, GameState, Side
from engine.tables import Table
from engine.turn import resolve_turn

TURN_KEYS = ("red", "blue", "expect", "dice")
ORDER_KEYS = ("moves", "trains", "casts", "discard", "mana_choices")
CAST_KEYS = ("card", "target", "boosted", "power", "bound_source", "spell")


def run_scenario(scenario: Scenario) -> list[Failure]:
    file = str(scenario.path)
    state = scenario.state
    for number, raw in enumerate(scenario.turns, start=1):
        turn = Table(file, None, raw, ScenarioError, path=f"turn[{number - 1}]").known(TURN_KEYS)
        orders = {
            side: _orders(turn.table(side.value), scenario.labels, state, side) for side in SIDES
        }
        dice = turn.get("dice", scenario.dice)
        rng = FixedDice(DICE[dice], state.seed) if dice in DICE else None
        before = state
        # Expectations may name strikes, so the turn is resolved with its strike detail; the
        # turn as stored (without it) must be the same turn.
        state, report = resolve_turn(state, orders, rng, content=scenario.content, strikes=True)
        plain = FixedDice(DICE[dice], before.seed) if dice in DICE else None
        if resolve_turn(before, orders, plain, content=scenario.content) != (
            state,
            without_strikes(report),
        ):
            return [Failure(number, ["the turn without its strike detail is another turn"])]
        expect = turn.table("expect")
        if expect.get("replays", False):
            again = FixedDice(DICE[dice], before.seed) if dice in DICE else None
            replayed = resolve_turn(before, orders, again, content=scenario.content, strikes=True)
            if replayed != (state, report):
                return [Failure(number, ["replaying the turn gave a different result"])]
        lines = check_expectations(expect, state, report, scenario)
        if lines:
            return [Failure(number, lines)]
    return []


def without_strikes(report: TurnReport) -> TurnReport:
    """The report as a turn resolved without its strike detail records it."""
    return replace(report, events=tuple(e for e in report.events if e.kind != "strike"))


def _orders(t: Table, labels: Labels, state: GameState, side: Side) -> Orders:
    t.known(ORDER_KEYS)
    moves = []
    for i, m in enumerate(t.get("moves", [])):
        key = f"moves[{i}]"
        if not isinstance(m, list) or len(m) != 2:
            raise t.fail(key, 'write ["group name", "C3"]')
        moves.append(MoveOrder(read.group_ref(t, key, m[0], labels), read.coord(t, key, m[1])))
    trains = []
    for i, tr in enumerate(t.get("trains", [])):
        key = f"trains[{i}]"
        if not isinstance(tr, list) or len(tr) not in (2, 3):
            raise t.fail(key, 'write ["C3", "archer"] or ["C3", "mana", "order"]')
        trains.append(TrainOrder(read.coord(t, key, tr[0]), tr[1], tr[2] if len(tr) == 3 else None))
    hand = _Hand(state, side)
    casts = []
    for i, raw_cast in enumerate(t.get("casts", [])):
        c = t.item(f"casts[{i}]", raw_cast).known(CAST_KEYS)
        bound = c.get("bound_source")
        casts.append(
            CastOrder(
                card_uid=0 if bound is not None else hand.card(c, None, c.get("card")),
                target=_target(c, labels),
                boosted=bool(c.get("boosted", False)),
                power=c.get("power"),
                bound_source=None if bound is None else read.any_ref(c, None, bound, labels),
                spell_id=c.get("spell"),
            )
        )
    discard = None
    if "discard" in t:
        discard = DiscardOrder(hand.card(t, "discard", t.get("discard")))
    choices = t.table("mana_choices")
    mana_choices = tuple(
        ManaChoice(read.coord(t, "mana_choices", at), str(mana_type))
        for at, mana_type in choices.raw.items()
    )
    return Orders(tuple(casts), tuple(moves), tuple(trains), discard, mana_choices=mana_choices)


def _target(cast: Table, labels: Labels) -> Target:
    host = read.host(cast, "target", cast.get("target", "globe"), labels)
    return Target(host.kind, host.ref)


class _Hand:
    """The cards of one side's hand, each named once: two casts of one spell id take two cards."""

    def __init__(self, state: GameState, side: Side) -> None:
        self.cards = list(state.player(side).hand)
        self.side = side
        self.used: set[int] = set()

    def card(self, table: Table, key: str | None, ref: object) -> int:
        if isinstance(ref, int):
            return ref
        if not isinstance(ref, str):
            raise table.fail(key, "name a card by its spell id")
        for c in self.cards:
            if c.spell_id == ref and c.uid not in self.used:
                self.used.add(c.uid)
                return c.uid
        raise table.fail(key, f"no {ref!r} in {self.side}'s hand")

"""The anchor, side by side: MILA diplomacy's adjudication and our turn, interleaved in one process.

    .venv/bin/pip install -e '.[bench]'      # diplomacy, pinned in pyproject.toml
    .venv/bin/python -m bench.anchor [--phases 12] [--rounds 20]

A standard diplomacy game is played from the classic opening: spring 1901 with the usual
openings of the seven powers, every later phase with orders drawn by a fixed seed from the legal
ones (`get_all_possible_orders`, one per orderable location), so every run adjudicates the same
phases. Each round replays that game from the start; after each `Game.process()` (timed, CPU
time) one of our late-game turns and one of our mid-game turns are timed (`bench.engine`'s
fixtures), so both sides see the same minute of a shared machine. Printed: diplomacy's ms per
phase (median over the rounds), ours per turn, and the ratios per phase, per ordered piece
(group against unit), per minion (against unit) and per strike (against adjudicated order), the
strikes counted from our turn report's round records. Setting the orders (diplomacy's
validation) is not timed.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from typing import Any

from bench.engine import late_game, mid_game
from engine.content import Content, load_content
from engine.orders import Orders
from engine.report import TurnReport
from engine.state import GameState, Side
from engine.turn import resolve_turn

# Spring 1901: the common openings (Russia and Turkey meet in the Black Sea, Austria and Russia
# in Galicia, so the first phase has bounces to adjudicate).
OPENING = {
    "AUSTRIA": ["A BUD - SER", "A VIE - GAL", "F TRI - ALB"],
    "ENGLAND": ["F EDI - NWG", "F LON - NTH", "A LVP - YOR"],
    "FRANCE": ["F BRE - MAO", "A MAR - SPA", "A PAR - BUR"],
    "GERMANY": ["F KIE - DEN", "A BER - KIE", "A MUN - RUH"],
    "ITALY": ["F NAP - ION", "A ROM - APU", "A VEN H"],
    "RUSSIA": ["F STP/SC - BOT", "A MOS - UKR", "A WAR - GAL", "F SEV - BLA"],
    "TURKEY": ["F ANK - BLA", "A CON - BUL", "A SMY - CON"],
}
SEED = 1901


@dataclass(frozen=True)
class Phase:
    name: str
    kind: str  # M (movement), R (retreats), A (adjustments)
    units: int
    orders: dict[str, list[str]]


@dataclass(frozen=True)
class Fixture:
    name: str
    state: GameState
    orders: dict[Side, Orders]
    groups: int
    minions: int
    strikes: int


def play(game_class: Any, phases: int) -> list[Phase]:
    """The phases of the reference game with the orders diplomacy kept of those given (it drops
    builds beyond a power's allowance, for one)."""
    game = game_class()
    rng = random.Random(SEED)
    played: list[Phase] = []
    while len(played) < phases and not game.is_game_done:
        if not played:
            given = OPENING
        else:
            possible = game.get_all_possible_orders()
            given = {
                power: [rng.choice(sorted(possible[loc])) for loc in locations if possible.get(loc)]
                for power, locations in sorted(game.get_orderable_locations().items())
            }
        units = sum(len(game.get_units(power)) for power in game.powers)
        kept = {}
        for power, orders in given.items():
            game.set_orders(power, orders)
            kept[power] = list(game.get_orders(power))
        if not played and kept != OPENING:
            raise RuntimeError(f"diplomacy refused some of the opening orders: {kept}")
        played.append(Phase(game.get_current_phase(), game.phase_type, units, kept))
        game.process()
    return played


def _set_orders(game: Any, phase: Phase) -> None:
    for power, orders in phase.orders.items():
        game.set_orders(power, orders)
        if list(game.get_orders(power)) != orders:
            raise RuntimeError(f"{phase.name}: the replay differs from the game for {power}")


def fixture(name: str, build: Callable[[Content], Any], content: Content) -> Fixture:
    state, orders = build(content)
    _, report = resolve_turn(state, orders, content=content)  # also warms the caches
    return Fixture(
        name,
        state,
        orders,
        len(state.groups),
        sum(len(g.minions) for g in state.groups),
        strike_count(report),
    )


def strike_count(report: TurnReport) -> int:
    """The turn's strikes, from its rounds' records (each strike hits or misses)."""
    total = 0
    for event in report.events:
        if event.kind == "round":
            for key in ("hits", "misses"):
                pair = event.get(key)
                assert isinstance(pair, tuple)
                total += sum(n for n in pair if isinstance(n, int))
    return total


def cpu_ms(work: Callable[[], object]) -> float:
    start = time.process_time()
    work()
    return (time.process_time() - start) * 1000


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--phases", type=int, default=12, help="diplomacy phases per game")
    parser.add_argument("--rounds", type=int, default=20, help="replays of the whole game")
    args = parser.parse_args(argv)
    try:
        from diplomacy import Game
    except ImportError:
        print("diplomacy is not installed: .venv/bin/pip install -e '.[bench]' (then run again)")
        return 0

    content = load_content()
    ours = [fixture("late game", late_game, content), fixture("mid game", mid_game, content)]
    phases = play(Game, args.phases)
    theirs: dict[str, list[float]] = {p.name: [] for p in phases}
    turns: dict[str, list[float]] = {f.name: [] for f in ours}
    # Our late turn over the diplomacy phase processed just before it, pair by pair.
    paired: list[float] = []
    for _ in range(args.rounds):
        game = Game()
        for phase in phases:
            _set_orders(game, phase)
            spent = cpu_ms(game.process)
            theirs[phase.name].append(spent)
            for f in ours:
                turn = functools.partial(resolve_turn, f.state, f.orders, content=content)
                turns[f.name].append(cpu_ms(turn))
            paired.append(turns["late game"][-1] / spent)

    print(
        f"diplomacy {metadata.version('diplomacy')}, Game.process(), "
        f"CPU ms per phase (median of {args.rounds}):"
    )
    per_phase = {p.name: statistics.median(theirs[p.name]) for p in phases}
    for p in phases:
        orders = sum(len(o) for o in p.orders.values())
        print(f"  {p.name:7} {p.units:3} units {orders:3} orders  {per_phase[p.name]:6.3f} ms")
    movement = [p for p in phases if p.kind == "M"]
    all_ms = statistics.median(t for ts in theirs.values() for t in ts)
    move_ms = statistics.median(t for p in movement for t in theirs[p.name])
    move_units = statistics.mean(p.units for p in movement)
    per_unit = move_ms / move_units
    print(
        f"  all {len(phases)} phases: {all_ms:.3f} ms; {len(movement)} movement phases: "
        f"{move_ms:.3f} ms ({move_units:.0f} units and orders on average, "
        f"{per_unit * 1000:.1f} us each)"
    )
    print(f"ours, resolve_turn, CPU ms per turn (median of {len(paired)}, interleaved):")
    ours_ms = {f.name: statistics.median(turns[f.name]) for f in ours}
    for f in ours:
        us = ours_ms[f.name] * 1000
        strikes = f"{f.strikes} strikes ({us / f.strikes:.1f} us)" if f.strikes else "no strike"
        print(
            f"  {f.name:9}: {ours_ms[f.name]:6.3f} ms; {f.groups} groups ({us / f.groups:.1f} us "
            f"each), {f.minions} minions ({us / f.minions:.1f} us), {strikes}"
        )

    def ratio(ours_each: float, theirs_each: float) -> str:
        return f"{ours_each / theirs_each:9.2f}"

    print("ratios, ours / diplomacy (diplomacy's movement phases for the per-piece rows):")
    print(f"  {'':36}{'late game':>10}{'mid game':>10}")
    rows: list[tuple[str, Callable[[Fixture, float], str]]] = [
        ("per turn / per phase (all phases)", lambda f, ms: ratio(ms, all_ms)),
        ("per turn / per movement phase", lambda f, ms: ratio(ms, move_ms)),
        ("per ordered piece (group / unit)", lambda f, ms: ratio(ms / f.groups, per_unit)),
        ("per minion / per unit", lambda f, ms: ratio(ms / f.minions, per_unit)),
        (
            "per strike / per order",
            lambda f, ms: ratio(ms / f.strikes, per_unit) if f.strikes else f"{'-':>9}",
        ),
    ]
    for label, cell in rows:
        print(f"  {label:36}" + "".join(f"{cell(f, ours_ms[f.name]):>10}" for f in ours))
    print(
        f"  late turn / the phase before it, median of {len(paired)} pairs: "
        f"{statistics.median(paired):.2f}"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())

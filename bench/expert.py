"""Benchmark of the strongest computer player's decisions at fixed positions.

Run: ``.venv/bin/python -m bench.expert [--repeat N] [--instructions]``. Prints figures; it is
not a test. The positions are turns 9, 21 and 33 of three seeded greedy-against-greedy matches
(seeds 8, 21 and 2, houses drawn from the seed); each decision is one call of
``ai.choose_orders(view, "expert", ...)`` for red with a fresh generator and the default
budget, so it repeats exactly. ``--instructions`` then counts each decision once under
callgrind (``bench/_callgrind.py``), the figure that does not move with the machine's load.

The balance tournament (``bench.balance``) spends nearly all its time in these decisions, so
they are what a change to the expert's or the engine's speed is measured on before a run.
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time

from ai import choose_orders
from ai.arena import play_match
from bench import _callgrind
from engine.content import Content, load_content
from engine.orders import Orders
from engine.state import GameState, Side
from engine.view import view_for

# (match seed, turn): positions from the opening, the middle and the late game.
POSITIONS = ((8, 9), (21, 21), (2, 33))


def position(seed: int, turn: int, content: Content) -> GameState:
    """The state at the start of ``turn`` of the seeded greedy match."""
    found: list[GameState] = []

    def observe(state: GameState, orders: dict[Side, Orders]) -> None:
        if state.turn == turn:
            found.append(state)

    play_match(
        seed, {Side.RED: "greedy", Side.BLUE: "greedy"}, content, max_turns=turn, observe=observe
    )
    if not found:
        raise SystemExit(f"the greedy match of seed {seed} ended before turn {turn}")
    return found[0]


def decide(state: GameState, seed: int, content: Content) -> Orders:
    view = view_for(state, Side.RED, content)
    return choose_orders(view, "expert", random.Random(f"bench-expert:{seed}"), content=content)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="timed decisions per position")
    parser.add_argument(
        "--instructions", action="store_true", help="then count each decision under callgrind"
    )
    parser.add_argument(_callgrind.FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat must be at least 1, not {args.repeat}")
    content = load_content()
    calls = [
        functools.partial(decide, position(seed, turn, content), seed, content)
        for seed, turn in POSITIONS
    ]
    labels = [f"seed {seed}, turn {turn}" for seed, turn in POSITIONS]
    if args.measure_instructions:
        for call in calls:
            call()  # warm the caches, as every measured call is warmed
            _callgrind.measured(call)
        return 0
    total = 0.0
    for label, call in zip(labels, calls, strict=True):
        call()
        times = []
        for _ in range(args.repeat):
            started = time.process_time()
            call()
            times.append(time.process_time() - started)
        median = statistics.median(times)
        total += median
        print(f"{label}: {median * 1000:.0f} ms CPU per decision (median of {args.repeat})")
    print(f"all three: {total * 1000:.0f} ms CPU")
    if args.instructions:
        found = _callgrind.counts("bench.expert", len(calls))
        if found is None:
            print("valgrind is not installed: no instruction counts (apt-get install valgrind)")
            return 0
        for label, count in zip(labels, found, strict=True):
            print(f"{label}: {count / 1e6:,.0f} M instructions")
        print(f"all three: {sum(found) / 1e6:,.0f} M instructions")
    return 0


if __name__ == "__main__":
    sys.exit(main())

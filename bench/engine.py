"""Benchmark of turn resolution: median time per turn on three reference states.

Run: ``.venv/bin/python -m bench.engine [--repeat N] [--instructions]``. Prints figures; it is
not a test. ``--instructions`` then counts one turn of each fixture under callgrind (see
``bench/_callgrind.py``), a figure that does not move with the machine's load.

- opening: the classic board right after setup, both sides moving their group;
- mid game: turn 16 of a seeded game played with legal random orders (training, casts, moves);
- late game: 28 groups (14 a side, 4-8 minions) facing each other in contact on the classic
  board, with active spells on the board, fighting their full six rounds (a stress case: about
  ten times the largest turn computer players produce);
- played: every turn of a few long games computer players played (``bench/_played.py``), each
  timed on its own: median and p99 over the turns; then the same turns resolved as the
  computer's search resolves them (``record=False``), in turns per CPU second;
- search (``--baseline COMMIT``): turns the strong player's search resolves, per CPU second, with
  this engine and with the engine at ``COMMIT``, alternately in separate processes
  (``bench/_baseline.py``).
Targets: the late game at most 12 M instructions per turn; played turns median at most 0.5 ms,
p99 at most 2 ms. ``--refresh-played`` plays new games for the played set (after a rules change).
"""

from __future__ import annotations

import argparse
import functools
import random
import statistics
import sys
import time
from dataclasses import replace

from bench import _baseline, _callgrind, _played
from engine.content import Content, load_content
from engine.coords import coord
from engine.legal import castable, legal_moves, trainable
from engine.orders import CastOrder, MoveOrder, Orders
from engine.setup import MatchConfig, default_deck, new_game
from engine.state import ActiveSpell, GameState, Group, HostRef, Side
from engine.turn import resolve_turn


def _config(content: Content, seed: int) -> MatchConfig:
    return MatchConfig(
        seed=seed,
        houses={Side.RED: "war", Side.BLUE: "nature"},
        decks={Side.RED: default_deck("war", content), Side.BLUE: default_deck("nature", content)},
    )


def random_orders(state: GameState, rnd: random.Random, content: Content) -> dict[Side, Orders]:
    out = {}
    for side in (Side.RED, Side.BLUE):
        moves = [
            MoveOrder(gid, rnd.choice(dests))
            for gid, dests in legal_moves(state, side, content).items()
            if dests
        ]
        trains = [
            rnd.choice([o for o in options if o.kind != "mana"] or options)
            for options in trainable(state, side, content).values()
        ]
        casts = [
            CastOrder(uid, rnd.choice(targets))
            for uid, targets in castable(state, side, content).items()
            if rnd.random() < 0.4
        ]
        out[side] = Orders(casts=tuple(casts[:2]), moves=tuple(moves), trains=tuple(trains))
    return out


def opening(content: Content) -> tuple[GameState, dict[Side, Orders]]:
    state = new_game(_config(content, 1), content)
    return state, random_orders(state, random.Random(1), content)


def mid_game(content: Content) -> tuple[GameState, dict[Side, Orders]]:
    state = new_game(_config(content, 2), content)
    rnd = random.Random(2)
    while state.turn < 16 and state.result is None:
        state, _ = resolve_turn(state, random_orders(state, rnd, content), content=content)
    return state, random_orders(state, rnd, content)


def late_game(content: Content) -> tuple[GameState, dict[Side, Orders]]:
    """Two lines of 14 groups facing each other across rows 6 and 7."""
    base = new_game(_config(content, 3), content)
    rnd = random.Random(3)
    next_id = base.next_id
    groups: list[Group] = []
    spells: list[ActiveSpell] = []
    terrain = base.terrain_map()
    columns = [x for x in range(12) if coord(x, 5) in terrain and coord(x, 6) in terrain]
    for side, rows in ((Side.RED, (5, 4)), (Side.BLUE, (6, 7))):
        house = "war" if side is Side.RED else "nature"
        nation = content.houses[house].nation
        placed = 0
        for y in rows:
            for x in columns:
                at = coord(x, y)
                if at not in terrain or placed == 14:
                    continue
                minions = []
                for _ in range(rnd.randint(4, 8)):
                    unit = rnd.choice(["swordsman", "archer"])
                    minion = content.make_minion(next_id, unit, nation)
                    minions.append(minion)
                    next_id += 1
                groups.append(Group(next_id, side, side, at, tuple(minions)))
                if placed % 3 == 0:
                    spells.append(
                        ActiveSpell(next_id + 1, "fortitude", side, HostRef.group(next_id), 1)
                    )
                    next_id += 1
                next_id += 1
                placed += 1
    state = replace(
        base,
        turn=30,
        squares=tuple(replace(sq, terrain="plains") for sq in base.squares),
        groups=tuple(groups),
        active_spells=tuple(spells),
        next_id=next_id,
    )
    return state, {}


def median_ms(
    state: GameState, orders: dict[Side, Orders], content: Content, repeat: int
) -> tuple[float, float, float, int]:
    """Median wall-clock and CPU milliseconds per turn, the fastest CPU time (the least disturbed
    by other work on a shared machine), and the number of report events."""
    wall = []
    cpu = []
    events = 0
    for _ in range(repeat):
        start, start_cpu = time.perf_counter(), time.process_time()
        _, report = resolve_turn(state, orders, content=content)
        wall.append(time.perf_counter() - start)
        cpu.append(time.process_time() - start_cpu)
        events = len(report.events)
    return statistics.median(wall) * 1000, statistics.median(cpu) * 1000, min(cpu) * 1000, events


FIXTURES = (("opening", opening), ("mid game", mid_game), ("late game", late_game))


def played_ms(turns: list[_played.Turn], content: Content, repeat: int) -> list[float]:
    """Each played turn's median CPU milliseconds over ``repeat`` resolutions."""
    out = []
    for state, orders in turns:
        cpu = []
        for _ in range(repeat):
            start = time.process_time()
            resolve_turn(state, orders, content=content)
            cpu.append(time.process_time() - start)
        out.append(statistics.median(cpu) * 1000)
    return out


def turns_per_second(
    turns: list[_played.Turn], content: Content, repeat: int, *, record: bool
) -> float:
    """Played turns resolved per CPU second, all of them ``repeat`` times over."""
    start = time.process_time()
    for _ in range(repeat):
        for state, orders in turns:
            resolve_turn(state, orders, content=content, record=record)
    return repeat * len(turns) / (time.process_time() - start)


def percentile(values: list[float], q: float) -> float:
    """The ``q`` quantile (0-1) of ``values``, nearest rank."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, max(0, round(q * len(ordered)) - 1))]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="then count each fixture's instructions per turn with callgrind (needs valgrind)",
    )
    parser.add_argument(
        "--refresh-played",
        action="store_true",
        help="play new games at level greedy for the played set, then measure",
    )
    parser.add_argument("--played-games", type=int, default=12, help="games the refresh plays")
    parser.add_argument("--workers", type=int, default=1, help="processes the refresh plays in")
    parser.add_argument(
        "--baseline",
        metavar="COMMIT",
        help="then compare simulated turns per second in the strong player's search with the "
        "engine at COMMIT (e.g. a3c2ac9, before the engine's performance work)",
    )
    parser.add_argument(_callgrind.FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    content = load_content()
    if args.refresh_played:
        print(_played.refresh(content, args.played_games, args.workers))
    for name, build in FIXTURES:
        state, orders = build(content)
        resolve_turn(state, orders, content=content)  # warm caches
        if args.measure_instructions:
            _callgrind.measured(functools.partial(resolve_turn, state, orders, content=content))
            continue
        ms, cpu_ms, best_ms, events = median_ms(state, orders, content, args.repeat)
        in_contact = sum(
            1
            for g in state.groups
            if any(o.owner != g.owner and o.coord in g.coord.neighbours() for o in state.groups)
        )
        print(
            f"{name:9}: {ms:7.3f} ms per turn ({cpu_ms:.3f} ms CPU, fastest {best_ms:.3f}; "
            f"median of {args.repeat}), "
            f"{len(state.groups)} groups, {in_contact} in contact, "
            f"{len(state.active_spells)} active spells, {events} events"
        )
    run, turns = _played.load(content)
    for state, orders in turns:  # warm caches
        resolve_turn(state, orders, content=content)
    if args.measure_instructions:
        for state, orders in turns:
            _callgrind.measured(functools.partial(resolve_turn, state, orders, content=content))
    else:
        times = max(3, args.repeat // 40)
        each = played_ms(turns, content, times)
        print(
            f"played   : median {statistics.median(each):.3f} ms, "
            f"p99 {percentile(each, 0.99):.3f} ms, max {max(each):.3f} ms per turn (CPU; "
            f"{len(turns)} turns of {run['kept']} games at level {run['level']}, each the "
            f"median of {times}); targets median <= 0.5 ms, p99 <= 2 ms"
        )
        # The computer players' searches resolve turns this way, reading only the states.
        silent = turns_per_second(turns, content, times, record=False)
        recorded = turns_per_second(turns, content, times, record=True)
        print(
            f"simulated: {silent:,.0f} played turns per CPU second with record=False (the "
            f"computer's search), {recorded:,.0f} with the report ({silent / recorded:.2f}x)"
        )
    if args.baseline and not args.measure_instructions:
        print(_baseline.compare(content, args.baseline))
    if args.instructions:
        found = _callgrind.counts("bench.engine", len(FIXTURES) + len(turns))
        if found is None:
            print("valgrind is not installed: no instruction counts (apt-get install valgrind)")
            return 0
        for (name, _), total in zip(FIXTURES, found, strict=False):
            print(f"{name}: {total / 1e6:.1f} M instructions per turn")
        each = [n / 1e6 for n in found[len(FIXTURES) :]]
        print(
            f"played: median {statistics.median(each):.2f} M, p99 {percentile(each, 0.99):.2f} M, "
            f"max {max(each):.2f} M instructions per turn ({len(each)} turns)"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())

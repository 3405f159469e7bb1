"""Computer player benchmark: seeded matches between levels, win rates and seconds per turn.

    .venv/bin/python -m bench.ai [--games N] [--strong-games N] [--max-turns T] [--workers W]

Plays `greedy` against `random` and `strong` against `greedy`, each level on red in half of the
games (red starts with initiative). A game is won by taking the enemy Sanctum; games still
running at the turn limit count as not won (and are listed, with who was ahead on the score).
Win rates come with 95% Wilson intervals. Every order set is checked with validate_orders on the
real state; the count of illegal orders is printed (it must be 0). Seconds per turn are measured
around each `strong` decision: wall clock and the process's CPU time (the machine may be shared).
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from typing import Any

from ai import Level, choose_orders
from ai.arena import play_match
from ai.evaluate import evaluate
from engine.content import load_content
from engine.orders import Orders
from engine.state import Side
from engine.view import PlayerView


@dataclass(frozen=True)
class Game:
    seed: int
    hero: Level
    villain: Level
    hero_side: Side
    winner: Side | None
    reason: str
    turns: int
    illegal: int
    ahead: bool  # at the turn limit, the hero's score was positive
    wall: tuple[float, ...]
    cpu: tuple[float, ...]


def play(job: tuple[int, Level, Level, int]) -> Game:
    seed, hero, villain, max_turns = job
    content = load_content()
    hero_side = Side.RED if seed % 2 == 0 else Side.BLUE
    wall: list[float] = []
    cpu: list[float] = []

    def timed(view: PlayerView, level: Level, rng: Any, **kwargs: Any) -> Orders:
        if view.viewer is not hero_side:
            return choose_orders(view, level, rng, **kwargs)
        w0, c0 = time.perf_counter(), time.process_time()
        orders = choose_orders(view, level, rng, **kwargs)
        wall.append(time.perf_counter() - w0)
        cpu.append(time.process_time() - c0)
        return orders

    levels = {hero_side: hero, hero_side.other: villain}
    record = play_match(seed, levels, content, max_turns=max_turns, choose=timed)
    ahead = False
    if record.winner is None and record.final is not None and record.final.result is None:
        ahead = evaluate(record.final, hero_side, content) > 0
    return Game(
        seed,
        hero,
        villain,
        hero_side,
        record.winner,
        record.reason,
        record.turns,
        len(record.illegal),
        ahead,
        tuple(wall),
        tuple(cpu),
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def report(games: list[Game], timing: bool) -> None:
    hero, villain = games[0].hero, games[0].villain
    n = len(games)
    wins = sum(g.winner is g.hero_side for g in games)
    losses = sum(g.winner is g.hero_side.other for g in games)
    open_games = [g for g in games if g.winner is None]
    low, high = wilson(wins, n)
    print(f"\n{hero} vs {villain}: {n} games (seeds {games[0].seed}..{games[-1].seed})")
    print(f"  {hero} won {wins}, lost {losses}, unfinished or drawn {len(open_games)}")
    print(f"  win rate {wins / n:.1%}  (95% CI {low:.1%} .. {high:.1%})")
    for side in Side:
        as_side = [g for g in games if g.hero_side is side]
        won = sum(g.winner is side for g in as_side)
        print(f"  as {side}: {won}/{len(as_side)}")
    if open_games:
        ahead = sum(g.ahead for g in open_games)
        print(f"  at the turn limit {hero} was ahead on the score in {ahead}/{len(open_games)}")
    for g in games:
        if g.winner is not g.hero_side:
            outcome = "draw or turn limit" if g.winner is None else f"{g.winner} won"
            print(f"  not won: seed {g.seed}, {hero} as {g.hero_side}, {outcome} ({g.reason})")
    turns = [g.turns for g in games]
    print(f"  turns per game: mean {statistics.mean(turns):.1f}, max {max(turns)}")
    print(f"  illegal orders: {sum(g.illegal for g in games)}")
    if timing:
        wall = [t for g in games for t in g.wall]
        cpu = [t for g in games for t in g.cpu]
        for name, measured in (("wall", wall), ("cpu", cpu)):
            ordered = sorted(measured)
            p95 = ordered[int(0.95 * (len(ordered) - 1))]
            print(
                f"  {hero} seconds per turn ({name}): mean {statistics.mean(ordered):.3f}, "
                f"p95 {p95:.3f}, max {ordered[-1]:.3f} over {len(ordered)} turns"
            )


def run(
    hero: Level, villain: Level, games: int, first: int, *, max_turns: int, workers: int
) -> list[Game]:
    jobs = [(first + i, hero, villain, max_turns) for i in range(games)]
    if workers <= 1:
        return [play(j) for j in jobs]
    with ProcessPoolExecutor(workers) as pool:
        return list(pool.map(play, jobs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="greedy vs random games")
    parser.add_argument("--strong-games", type=int, default=60, help="strong vs greedy games")
    parser.add_argument("--max-turns", type=int, default=60)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    started = time.perf_counter()
    limits: dict[str, int] = {"max_turns": args.max_turns, "workers": args.workers}
    if args.games:
        report(run("greedy", "random", args.games, 0, **limits), timing=False)
    if args.strong_games:
        report(run("strong", "greedy", args.strong_games, 10_000, **limits), timing=True)
    print(f"\n{time.perf_counter() - started:.0f} s in all, {args.workers} worker(s)")


if __name__ == "__main__":
    main()

"""Computer player benchmark: seeded matches between levels, win rates and seconds per turn.

    .venv/bin/python -m bench.ai [--games N] [--strong-games N] [--max-turns T] [--workers W]
    .venv/bin/python -m bench.ai --pair expert:strong --games N [--budget S] [--json]
        [--record FILE]
    .venv/bin/python -m bench.ai --summarize FILE... [--json]

With ``--pair`` one pairing is played (seeds from ``--first-seed``, the hero on red in the even
ones) and reported as a table or, with ``--json``, as one JSON object (keys in docs/ai.md).
``--record`` appends each game's figures to a file as it ends, so a long run can be played in
parts (each from its own ``--first-seed``) and ``--summarize`` reports all the games the files
hold.

Plays `greedy` against `random` and `strong` against `greedy`, each level on red in half of the
games (red starts with initiative). A game is won by taking the enemy Sanctum; games still
running at the turn limit count as not won (and are listed, with who was ahead on the score).
Win rates come with 95% Wilson intervals. Every order set is checked with validate_orders on the
real state; the count of illegal orders is printed (it must be 0). Seconds per turn are measured
around each `strong` decision: wall clock and the process's CPU time (the machine may be shared).
"""

from __future__ import annotations

import argparse
import json
import math
import os
import statistics
import time
from collections.abc import Iterable, Sequence
from concurrent.futures import ProcessPoolExecutor
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from ai import LEVELS, Level, choose_orders
from ai.arena import match_config, play_match
from ai.evaluate import evaluate
from ai.options import cast_options
from engine.content import load_content
from engine.orders import Orders
from engine.state import GameState, Mana, Side
from engine.view import PlayerView

UNSPENT_FROM_TURN = 10


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
    villain_cpu: tuple[float, ...]
    unspent: tuple[int, ...]  # the hero's mana left after its casts, from turn 10 on
    villain_unspent: tuple[int, ...]
    deck_spells: frozenset[str]  # the spells in the hero's deck
    cast_spells: frozenset[str]  # the deck spells the hero cast from its hand


def play(job: tuple[int, Level, Level, int, float | None]) -> Game:
    seed, hero, villain, max_turns, seconds = job
    content = load_content()
    hero_side = Side.RED if seed % 2 == 0 else Side.BLUE
    wall: list[float] = []
    cpu: dict[Side, list[float]] = {Side.RED: [], Side.BLUE: []}
    unspent: dict[Side, list[int]] = {Side.RED: [], Side.BLUE: []}
    cast: set[str] = set()

    def timed(view: PlayerView, level: Level, rng: Any, **kwargs: Any) -> Orders:
        side = view.viewer
        assert side is not None
        if level == "expert" and seconds:
            kwargs["seconds"] = seconds
        w0, c0 = time.perf_counter(), time.process_time()
        orders = choose_orders(view, level, rng, **kwargs)
        cpu[side].append(time.process_time() - c0)
        if side is hero_side:
            wall.append(time.perf_counter() - w0)
        return orders

    def observe(state: GameState, orders: dict[Side, Orders]) -> None:
        for side, given in orders.items():
            costs = {o.order: o.cost for o in cast_options(state, side, content)}
            spent = sum((costs.get(c, Mana()) for c in given.casts), Mana())
            if state.turn >= UNSPENT_FROM_TURN:
                unspent[side].append(state.player(side).pool.total - spent.total)
            if side is hero_side:
                hand = {c.uid: c.spell_id for c in state.player(side).hand}
                cast.update(hand[c.card_uid] for c in given.casts if c.card_uid in hand)

    levels = {hero_side: hero, hero_side.other: villain}
    record = play_match(seed, levels, content, max_turns=max_turns, choose=timed, observe=observe)
    ahead = False
    if record.winner is None and record.final is not None and record.final.result is None:
        ahead = evaluate(record.final, hero_side, content) > 0
    deck = frozenset(match_config(seed, content).decks[hero_side])
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
        tuple(cpu[hero_side]),
        tuple(cpu[hero_side.other]),
        tuple(unspent[hero_side]),
        tuple(unspent[hero_side.other]),
        deck,
        frozenset(cast) & deck,
    )


def game_record(game: Game) -> dict[str, Any]:
    """One game's figures as a JSON object (a line of a ``--record`` file)."""
    out = asdict(game)
    out["hero_side"] = str(game.hero_side)
    out["winner"] = None if game.winner is None else str(game.winner)
    out["deck_spells"] = sorted(game.deck_spells)
    out["cast_spells"] = sorted(game.cast_spells)
    return out


def game_from_record(data: dict[str, Any]) -> Game:
    return Game(
        **{
            **data,
            "hero_side": Side(data["hero_side"]),
            "winner": None if data["winner"] is None else Side(data["winner"]),
            "wall": tuple(data["wall"]),
            "cpu": tuple(data["cpu"]),
            "villain_cpu": tuple(data["villain_cpu"]),
            "unspent": tuple(data["unspent"]),
            "villain_unspent": tuple(data["villain_unspent"]),
            "deck_spells": frozenset(data["deck_spells"]),
            "cast_spells": frozenset(data["cast_spells"]),
        }
    )


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    if n == 0:
        return (0.0, 1.0)
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def _p95(values: Sequence[float]) -> float:
    ordered = sorted(values)
    return ordered[int(0.95 * (len(ordered) - 1))] if ordered else 0.0


def _median(values: Sequence[int]) -> float | None:
    return float(statistics.median(values)) if values else None


def summary(games: list[Game]) -> dict[str, Any]:
    """One pairing's figures (the keys docs/ai.md lists)."""
    hero, villain = games[0].hero, games[0].villain
    wins = sum(g.winner is g.hero_side for g in games)
    losses = sum(g.winner is g.hero_side.other for g in games)
    decided = wins + losses
    low, high = wilson(wins, decided)
    held = frozenset().union(*(g.deck_spells for g in games))
    cast_any = frozenset().union(*(g.cast_spells for g in games))
    cpu = {hero: _p95([t for g in games for t in g.cpu])}
    cpu.setdefault(villain, _p95([t for g in games for t in g.villain_cpu]))
    unspent = {hero: _median([m for g in games for m in g.unspent])}
    unspent.setdefault(villain, _median([m for g in games for m in g.villain_unspent]))
    return {
        "hero": hero,
        "villain": villain,
        "games": len(games),
        "first_seed": games[0].seed,
        "wins": wins,
        "losses": losses,
        "draws": len(games) - decided,
        "win_rate": wins / decided if decided else None,
        "ci_low": low,
        "ci_high": high,
        "illegal_orders": sum(g.illegal for g in games),
        "cpu_per_move_p95": cpu,
        "unspent_mana_median_from_turn_10": unspent,
        "deck_spells_held": len(held),
        "deck_spells_never_cast": sorted(held - cast_any),
        "turns_mean": statistics.mean(g.turns for g in games),
    }


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
            print(
                f"  {hero} seconds per turn ({name}): mean {statistics.mean(ordered):.3f}, "
                f"p95 {_p95(ordered):.3f}, max {ordered[-1]:.3f} over {len(ordered)} turns"
            )


def pair_table(figures: dict[str, Any]) -> None:
    """The ``--pair`` figures as a table."""
    rate = figures["win_rate"]
    print(f"{figures['hero']} vs {figures['villain']}, {figures['games']} games")
    rows = [
        ("won / lost / drawn", f"{figures['wins']} / {figures['losses']} / {figures['draws']}"),
        (
            "win rate of decided games (95% Wilson)",
            "-"
            if rate is None
            else f"{rate:.1%} ({figures['ci_low']:.1%} .. {figures['ci_high']:.1%})",
        ),
        ("illegal orders", str(figures["illegal_orders"])),
        ("turns per game (mean)", f"{figures['turns_mean']:.1f}"),
    ]
    for level, p95 in figures["cpu_per_move_p95"].items():
        rows.append((f"{level} CPU seconds per move, p95", f"{p95:.3f}"))
    for level, median in figures["unspent_mana_median_from_turn_10"].items():
        rows.append((f"{level} unspent mana from turn 10, median", str(median)))
    never = figures["deck_spells_never_cast"]
    rows.append(
        (
            f"{figures['hero']} deck spells never cast",
            f"{len(never)} of {figures['deck_spells_held']}: {', '.join(never) or '-'}",
        )
    )
    width = max(len(name) for name, _ in rows)
    for name, shown in rows:
        print(f"  {name:<{width}}  {shown}")


def run(
    hero: Level,
    villain: Level,
    games: int,
    first: int,
    *,
    max_turns: int,
    workers: int,
    seconds: float | None = None,
    record: Path | None = None,
) -> list[Game]:
    """Play the games; with ``record``, each game's line is appended as soon as it (and every
    game before it) is done, so a run stopped part-way keeps what it played."""
    jobs = [(first + i, hero, villain, max_turns, seconds) for i in range(games)]
    if workers <= 1:
        played: Iterable[Game] = map(play, jobs)
        return [_kept(g, record) for g in played]
    with ProcessPoolExecutor(workers) as pool:
        return [_kept(g, record) for g in pool.map(play, jobs)]


def _kept(game: Game, record: Path | None) -> Game:
    if record is not None:
        with record.open("a") as out:
            out.write(json.dumps(game_record(game)) + "\n")
    return game


def _level(name: str) -> Level:
    if name not in LEVELS:
        raise SystemExit(f"unknown level {name!r} (known: {', '.join(LEVELS)})")
    return name


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="greedy vs random games")
    parser.add_argument("--strong-games", type=int, default=60, help="strong vs greedy games")
    parser.add_argument("--pair", help="one pairing, hero:villain (e.g. expert:strong)")
    parser.add_argument("--first-seed", type=int, default=70_000)
    parser.add_argument("--budget", type=float, help="expert's time cap per move, seconds")
    parser.add_argument("--json", action="store_true", help="with --pair: one JSON object")
    parser.add_argument("--max-turns", type=int, default=60)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 1)
    parser.add_argument(
        "--record", type=Path, help="with --pair: append each game's figures to this file"
    )
    parser.add_argument(
        "--summarize",
        type=Path,
        nargs="+",
        help="instead of playing: the --pair figures of the games recorded in these files",
    )
    args = parser.parse_args()
    started = time.perf_counter()
    if args.pair or args.summarize:
        if args.summarize:
            lines = [line for path in args.summarize for line in path.read_text().splitlines()]
            games = [game_from_record(json.loads(line)) for line in lines if line.strip()]
            if len({(g.hero, g.villain) for g in games}) != 1:
                raise SystemExit("the files must hold the games of one pairing")
        else:
            hero, _, villain = args.pair.partition(":")
            games = run(
                _level(hero),
                _level(villain),
                args.games,
                args.first_seed,
                seconds=args.budget,
                record=args.record,
                max_turns=args.max_turns,
                workers=args.workers,
            )
        figures = summary(games)
        if args.json:
            print(json.dumps(figures, sort_keys=True))
        else:
            pair_table(figures)
            if not args.summarize:
                print(f"\n{time.perf_counter() - started:.0f} s in all, {args.workers} worker(s)")
        return
    if args.games:
        played = run(
            "greedy", "random", args.games, 0, max_turns=args.max_turns, workers=args.workers
        )
        report(played, timing=False)
    if args.strong_games:
        played = run(
            "strong",
            "greedy",
            args.strong_games,
            10_000,
            max_turns=args.max_turns,
            workers=args.workers,
        )
        report(played, timing=True)
    print(f"\n{time.perf_counter() - started:.0f} s in all, {args.workers} worker(s)")


if __name__ == "__main__":
    main()

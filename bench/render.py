"""Render benchmark: board image with overlay, order sheet, card, and a 60-turn replay.

Run: .venv/bin/python -m bench.render
Targets: a board with overlay in at most 10 ms (the mid-game fixture's, and the late game's of
``bench.engine`` with its 24 groups in contact) and 250 KB; a 60-turn replay in 3 s.
"""

from __future__ import annotations

import os
import random
import statistics
import time
from collections.abc import Callable
from typing import Literal

from bench.engine import late_game
from engine.content import load_content
from engine.legal import castable, legal_moves, trainable
from engine.orders import CastOrder, MoveOrder, Orders
from engine.report import TurnReport
from engine.setup import MatchConfig, new_game
from engine.state import GameState, Side
from engine.turn import resolve_turn
from engine.view import PlayerView, view_for
from render import render_board, render_card, render_order_sheet, render_replay
from tests.render.fixtures import midgame_report, midgame_state

BOARD_MS_TARGET = 10.0
BOARD_KB_TARGET = 250.0
REPLAY_S_TARGET = 3.0


def median_ms(work: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median wall-clock and CPU milliseconds (CPU time shows the cost on a busy machine)."""
    wall, cpu = [], []
    for _ in range(runs):
        start, start_cpu = time.perf_counter(), time.process_time()
        work()
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    return statistics.median(wall), statistics.median(cpu)


def _orders(state: GameState, side: Side, rng: random.Random) -> Orders:
    """A plain plan that keeps a match going: train swordsmen, go for the nearest town not yet
    owned (never the enemy Sanctum), and cast one spell when one can be cast."""
    enemy = state.sanctum(side.other)
    towns = [s.coord for s in state.structures if s.kind != "sanctum" and s.owner != side]
    moves = []
    for group_id, dests in legal_moves(state, side, load_content()).items():
        allowed = [at for at in dests if enemy is None or at != enemy.coord]
        if not allowed:
            continue
        if towns and rng.random() < 0.7:
            dest = min(allowed, key=lambda at: (min(at.dist(t) for t in towns), at.y, at.x))
        else:
            dest = rng.choice(allowed)
        moves.append(MoveOrder(group_id, dest))
    trains = tuple(options[0] for options in trainable(state, side, load_content()).values())
    casts: tuple[CastOrder, ...] = ()
    castable_now = sorted(castable(state, side, load_content()).items())
    if castable_now:
        card, targets = rng.choice(castable_now)
        casts = (CastOrder(card, rng.choice(targets)),)
    return Orders(casts=casts, moves=tuple(moves), trains=trains)


def played_match(turns: int, seed: int = 3) -> list[tuple[PlayerView, TurnReport | None]]:
    """A match of two plain computer plans, as public frames (one per turn)."""
    spells = load_content().spells.values()
    usable = [s.id for s in spells if s.spell_class in ("standard", "learned") and not s.helper]
    deck = (usable[:8] * 4)[:30]
    state: GameState = new_game(
        MatchConfig(
            seed=seed,
            houses={Side.RED: "war", Side.BLUE: "life"},
            decks={Side.RED: deck, Side.BLUE: deck},
        ),
        load_content(),
    )
    rng = random.Random(seed)
    frames: list[tuple[PlayerView, TurnReport | None]] = [
        (view_for(state, None, load_content()), None)
    ]
    while len(frames) < turns and state.result is None:
        orders = {side: _orders(state, side, rng) for side in (Side.RED, Side.BLUE)}
        state, report = resolve_turn(state, orders, content=load_content())
        frames.append((view_for(state, None, load_content()), report))
    return frames


def main() -> None:
    load = os.getloadavg()[0]
    print(
        f"load average {load:.1f} on {os.cpu_count()} CPUs: wall times above CPU times are "
        "time spent waiting for a CPU"
    )
    state = midgame_state()
    report = midgame_report(state)
    public = view_for(state, None, load_content())

    start = time.perf_counter()
    png = render_board(public, report)
    first_ms = (time.perf_counter() - start) * 1000
    board_ms, board_cpu = median_ms(lambda: render_board(public, report), 50)
    print(
        f"board (mid-game fixture, public, overlay): median {board_ms:.1f} ms "
        f"(CPU {board_cpu:.1f} ms), "
        f"{len(png) / 1024:.0f} KB, first call {first_ms:.0f} ms "
        f"(targets {BOARD_MS_TARGET:.0f} ms, {BOARD_KB_TARGET:.0f} KB)"
    )

    content = load_content()
    late_state, late_orders = late_game(content)
    after, late_report = resolve_turn(late_state, late_orders, content=content)
    late_view = view_for(after, None, content)
    late_png = render_board(late_view, late_report)
    late_ms, late_cpu = median_ms(lambda: render_board(late_view, late_report), 30)
    print(
        f"board (late game, public, overlay of {len(late_report.events)} events): median "
        f"{late_ms:.1f} ms (CPU {late_cpu:.1f} ms), {len(late_png) / 1024:.0f} KB "
        f"(target {BOARD_MS_TARGET:.0f} ms)"
    )

    red = view_for(state, Side.RED, load_content())
    sheet = render_order_sheet(red)
    sheet_ms, sheet_cpu = median_ms(lambda: render_order_sheet(red), 20)
    print(
        f"order sheet (red): median {sheet_ms:.1f} ms (CPU {sheet_cpu:.1f} ms), "
        f"{len(sheet) / 1024:.0f} KB"
    )

    frames = played_match(60)
    mid_view, mid_report = frames[30]
    played_png = render_board(mid_view, mid_report)
    played_ms, played_cpu = median_ms(lambda: render_board(mid_view, mid_report), 30)
    events = len(mid_report.events) if mid_report else 0
    print(
        f"board (played match, turn {mid_view.turn}, {events} events): median "
        f"{played_ms:.1f} ms (CPU {played_cpu:.1f} ms), {len(played_png) / 1024:.0f} KB"
    )

    card = load_content().spells["fireball"]
    start = time.perf_counter()
    card_png = render_card(card)
    card_ms = (time.perf_counter() - start) * 1000
    print(f"spell card: {card_ms:.1f} ms, {len(card_png) / 1024:.0f} KB")

    formats: tuple[Literal["gif", "webp"], ...] = ("gif", "webp")
    for image_format in formats:
        start, start_cpu = time.perf_counter(), time.process_time()
        replay = render_replay(frames, image_format=image_format)
        seconds = time.perf_counter() - start
        cpu = time.process_time() - start_cpu
        print(
            f"replay ({len(frames)} turns, {image_format}): {seconds:.2f} s (CPU {cpu:.2f} s), "
            f"{len(replay) / 1024 / 1024:.1f} MB (target {REPLAY_S_TARGET:.0f} s)"
        )


if __name__ == "__main__":
    main()

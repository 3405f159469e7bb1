"""Benchmark: many matches whose deadline falls at the same instant.

Sets up N started matches (half with orders given but not confirmed), moves the clock to their
common deadline and times one sweep until every turn is resolved, persisted and its outbox rows
written, on SQLite and on PostgreSQL. Prints the time, the rate and the peak resident memory.

    .venv/bin/python -m bench.service [--matches 1000] [--workers 2] [--backend both]
        [--position opening|late]

``--position opening`` (the default) starts every match at turn 1 (25 distinct openings), where
the engine costs next to nothing and the sweep measures persistence; ``late`` puts every match in
``bench.engine``'s late game (24 groups in contact, a 32 KB state and the biggest report), the
target's case: at most 6 s for 1,000 matches, the whole process tree at most 300 MB.

PostgreSQL comes from SANCTUM_TEST_POSTGRES_URL, or from scripts/postgres.sh when unset; each
run uses a fresh schema and drops it afterwards.

``--instructions`` then counts one worker job of the late game under callgrind (see
``bench/_callgrind.py``): decoding the stored state, resolving the turn, encoding the new state
and the report (``engine_bridge.resolve_many_encoded``), and each of those parts alone.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import resource
import subprocess
import tempfile
import time
import uuid
from collections.abc import AsyncIterator, Callable
from concurrent.futures import ProcessPoolExecutor
from datetime import timedelta
from pathlib import Path
from typing import Any

import asyncpg

from bench import _callgrind
from bench.engine import late_game
from engine.content import load_content
from engine.setup import default_deck
from engine.state import GameState, Side
from service import engine_bridge as eb
from service.clock import ManualClock, to_ms
from service.matches import MatchService
from storage import Store

ROOT = Path(__file__).resolve().parent.parent
TURN_SECONDS = 3600
DISTINCT_SEEDS = 25


def postgres_url() -> str:
    url = os.environ.get("SANCTUM_TEST_POSTGRES_URL")
    if url:
        return url
    out = subprocess.run(
        ["bash", str(ROOT / "scripts" / "postgres.sh")], check=True, capture_output=True, text=True
    )
    return out.stdout.strip().splitlines()[-1]


async def populate(store: Store, count: int, deadline: int, now: int, position: str) -> None:
    """Started matches written straight through storage: the set-up is not what is measured."""
    content = load_content()
    decks = {Side.RED: default_deck("war", content), Side.BLUE: default_deck("life", content)}
    openings: list[tuple[dict[str, Any], dict[str, Any]]] = [
        eb.start_game(
            seed=seed,
            ruleset="classic",
            realm="veldt",
            board="classic",
            symmetric=False,
            houses={Side.RED: "war", Side.BLUE: "life"},
            decks=decks,
        )
        for seed in range(DISTINCT_SEEDS)
    ]
    if position == "late":
        late = late_game(content)[0].to_dict()
        openings = [(config, late) for config, _ in openings]
    for start in range(0, count, 100):
        async with store.write() as s:
            for i in range(start, min(count, start + 100)):
                config, state = openings[i % DISTINCT_SEEDS]
                match_id = await s.insert_match(
                    created_by=f"r{i}",
                    guild_id="bench",
                    channel_id=None,
                    ruleset="classic",
                    realm="veldt",
                    board="classic",
                    symmetric=False,
                    seed=i % DISTINCT_SEEDS,
                    turn_seconds=TURN_SECONDS,
                    no_show_limit=3,
                    grace_seconds=0,
                    reminders=[600],
                    now=now,
                )
                for seat, side in enumerate((Side.RED, Side.BLUE)):
                    player = f"{side[0]}{i}"
                    await s.insert_seat(match_id, seat, player, None, "war", decks[side])
                    await s.update_seat(match_id, seat, side=side)
                await s.update_match(
                    match_id,
                    status="active",
                    turn=int(state["turn"]),
                    config=config,
                    initial_state=state,
                    state=state,
                    deadline_at=deadline,
                    started_at=now,
                )
                if i % 2 == 0:
                    hand = state["players"][0]["hand"]
                    orders: dict[str, Any] = {
                        "casts": [],
                        "moves": [],
                        "trains": [],
                        "discard": {"card_uid": hand[0]["uid"]},
                        "confirmed": False,
                    }
                    turn = int(state["turn"])
                    await s.put_orders(match_id, turn, "red", orders, confirmed=False, now=now)


# The parts of one worker job that `--instructions` counts, in order.
JOB_PARTS = ("whole job", "decode", "turn", "encode state", "encode report")


def measure_job() -> None:
    """Under callgrind: one late-game worker job, then each of its parts."""
    content = load_content()
    late = late_game(content)[0]
    text = late.to_json()
    hand = late.players[0].hand
    # The orders half the bench's matches have (see `populate`).
    orders: dict[str, Any] = {
        "casts": [],
        "moves": [],
        "trains": [],
        "discard": {"card_uid": hand[0].uid},
        "confirmed": False,
    }
    jobs: list[tuple[str, dict[str, Any]]] = [(text, {"red": orders, "blue": None})]
    state = GameState.from_dict(json.loads(text))
    new_state, report = eb.resolve_game(state, jobs[0][1])
    parts: list[Callable[[], object]] = [
        lambda: eb.resolve_many_encoded(jobs),
        lambda: GameState.from_dict(json.loads(text)),
        lambda: eb.resolve_game(state, jobs[0][1]),
        new_state.to_json,
        report.to_json,
    ]
    for part in parts:
        part()  # warmed up: the measured call finds every cache as a long-lived worker does
        _callgrind.measured(part)


def _children_cpu() -> float:
    """CPU seconds of the ended child processes (the workers, once shut down)."""
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def peak_rss_mb() -> tuple[float, float]:
    own = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    workers = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    return own, workers


async def run(url: str, count: int, workers: int, position: str) -> dict[str, float]:
    clock = ManualClock()
    store = await Store.open(url)
    executor = (
        ProcessPoolExecutor(max_workers=workers, initializer=load_content) if workers else None
    )
    try:
        now = to_ms(clock.now())
        deadline = now + TURN_SECONDS * 1000
        await populate(store, count, deadline, now, position)
        if executor is not None:
            # Start the workers before the clock runs, as a long-lived bot would have them.
            list(executor.map(abs, range(workers)))
        service = MatchService(
            store, clock, node_id="bench", executor=executor, workers=max(1, workers)
        )
        clock.advance(TURN_SECONDS)
        started, started_cpu = time.perf_counter(), time.process_time()
        resolved = await service.run_due()
        elapsed = time.perf_counter() - started
        loop_cpu = time.process_time() - started_cpu
        async with store.read() as s:
            turns = len(await s.turn_counts())
            outbox = await s.count_outbox()
            due_left = len(await s.claim_due(to_ms(clock.now()), "check", 1, count))
        assert len(resolved) == count == turns, (len(resolved), turns)
        assert outbox == 3 * count and due_left == 0, (outbox, due_left)
        clock.set(clock.now() + timedelta(seconds=1))
        return {"seconds": elapsed, "loop_cpu": loop_cpu, "turns": turns, "outbox": outbox}
    finally:
        if executor is not None:
            executor.shutdown()
        await store.close()


@contextlib.asynccontextmanager
async def fresh_database(backend: str) -> AsyncIterator[str]:
    """The URL of an empty database: a SQLite file, or a PostgreSQL schema of its own (removed
    afterwards)."""
    if backend == "sqlite":
        with tempfile.TemporaryDirectory() as tmp:
            yield f"sqlite:///{tmp}/bench.db"
        return
    server = postgres_url()
    schema = f"bench_{uuid.uuid4().hex[:12]}"
    conn = await asyncpg.connect(server)
    await conn.execute(f"CREATE SCHEMA {schema}")
    await conn.close()
    sep = "&" if "?" in server else "?"
    try:
        yield f"{server}{sep}search_path={schema}"
    finally:
        conn = await asyncpg.connect(server)
        await conn.execute(f"DROP SCHEMA {schema} CASCADE")
        await conn.close()


async def with_backend(backend: str, count: int, workers: int, position: str) -> dict[str, float]:
    async with fresh_database(backend) as url:
        return await run(url, count, workers, position)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--matches", type=int, default=1000)
    parser.add_argument("--workers", type=int, default=os.cpu_count() or 2)
    parser.add_argument("--backend", choices=["sqlite", "postgres", "both"], default="both")
    parser.add_argument("--position", choices=["opening", "late"], default="opening")
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="then count one late-game worker job's instructions with callgrind (needs valgrind)",
    )
    parser.add_argument(_callgrind.FLAG, action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure_instructions:
        measure_job()
        return
    backends = ["sqlite", "postgres"] if args.backend == "both" else [args.backend]
    print(
        f"{args.matches} matches due at one instant ({args.position} positions), "
        f"{args.workers} engine worker process(es)"
    )
    for backend in backends:
        before = _children_cpu()
        result = asyncio.run(with_backend(backend, args.matches, args.workers, args.position))
        workers_cpu = _children_cpu() - before
        rate = result["turns"] / result["seconds"]
        print(
            f"{backend:>8}: all {int(result['turns'])} turns resolved and persisted with "
            f"{int(result['outbox'])} outbox rows in {result['seconds']:.2f} s "
            f"({rate:.0f} turns/s; target <= {6 if args.position == 'late' else 30} s); "
            f"CPU: {result['loop_cpu']:.2f} s in the service process (its event loop), "
            f"{workers_cpu:.2f} s in the workers (set-up included)"
        )
    own, largest = peak_rss_mb()
    print(
        f"peak resident memory: {own:.0f} MB (service process), {largest:.0f} MB (largest "
        f"worker), at most {own + largest * args.workers:.0f} MB for the process tree; "
        "target <= 300 MB"
    )
    if args.instructions:
        _callgrind.report("bench.service", JOB_PARTS, unit="late-game worker job")


if __name__ == "__main__":
    main()

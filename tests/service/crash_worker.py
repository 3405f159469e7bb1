"""Child processes for the crash and two-process proofs (started through a fork server)."""

from __future__ import annotations

import asyncio
import json
import os
import random
from multiprocessing.synchronize import Event
from typing import Any, TextIO

from engine.content import load_content
from service.clock import ManualClock, from_ms, to_ms
from service.errors import ServiceError
from service.matches import MatchService
from storage import Store

# Loaded once in the fork server, so each forked child starts working at once.
load_content()


def _log(handle: Any, record: dict[str, Any]) -> None:
    handle.write(json.dumps(record) + "\n")
    handle.flush()
    os.fsync(handle.fileno())


async def _churn(
    handle: TextIO, *, url: str, seed: int, node: str, start_ms: int, ready: Event
) -> None:
    """Give, confirm and resolve orders forever, logging what was acknowledged."""
    rng = random.Random(seed)
    clock = ManualClock(from_ms(start_ms))
    store = await Store.open(url)
    service = MatchService(store, clock, node_id=node)
    await service.release_my_claims()
    matches = [m.id for m in await service.list_matches(statuses=["active"])]
    ready.set()
    while True:
        if rng.random() < 0.5:
            match = await service.get_match(rng.choice(matches), with_state=True)
            seat = rng.choice(match.seats)
            assert match.state is not None and seat.player_id is not None
            player = next(p for p in match.state["players"] if p["side"] == seat.side)
            if not player["hand"]:
                continue
            card = rng.choice(player["hand"])
            orders = {"casts": [], "moves": [], "trains": [], "discard": {"card_uid": card["uid"]}}
            try:
                await service.submit_orders(match.id, seat.player_id, orders, turn=match.turn)
                await service.confirm(match.id, seat.player_id, turn=match.turn)
            except ServiceError:
                continue
            _log(
                handle,
                {"match": match.id, "turn": match.turn, "side": seat.side, "uid": card["uid"]},
            )
        else:
            clock.advance(rng.randint(0, 400))
            _log(handle, {"now": to_ms(clock.now())})
            await service.run_due()
            await service.send_reminders()


def churn(*, url: str, log_path: str, seed: int, node: str, start_ms: int, ready: Event) -> None:
    with open(log_path, "a", encoding="utf-8") as handle:
        asyncio.run(_churn(handle, url=url, seed=seed, node=node, start_ms=start_ms, ready=ready))


async def _sweep_steps(
    *, url: str, node: str, start_ms: int, steps: int, step_seconds: int, go: Event
) -> list[tuple[int, int]]:
    """Advance a private clock step by step, resolving whatever is due at each step."""
    clock = ManualClock(from_ms(start_ms))
    store = await Store.open(url)
    service = MatchService(store, clock, node_id=node)
    resolved: list[tuple[int, int]] = []
    go.wait()
    for _ in range(steps):
        clock.advance(step_seconds)
        resolved += [(r.match_id, r.turn) for r in await service.run_due(batch=8)]
    await store.close()
    return resolved


def sweep_steps(
    *, url: str, node: str, start_ms: int, steps: int, step_seconds: int, out_path: str, go: Event
) -> None:
    resolved = asyncio.run(
        _sweep_steps(
            url=url, node=node, start_ms=start_ms, steps=steps, step_seconds=step_seconds, go=go
        )
    )
    with open(out_path, "w", encoding="utf-8") as handle:
        json.dump(resolved, handle)

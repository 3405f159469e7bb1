"""The two processes of the cross-process race: one gives the last confirmation of a turn just
before its deadline, the other fires that deadline, each on its own connection."""

from __future__ import annotations

import asyncio
import json
import random
from multiprocessing.synchronize import Barrier
from typing import Any

from service.clock import ManualClock, from_ms
from service.errors import DeadlinePassedError, NotYourTurnError
from service.matches import MatchService
from storage import Store


def run(
    *, role: str, url: str, seed: int, trials: int, matches: list[int], gate: Barrier, out: str
) -> None:
    """Play `role` ("confirmer" or "deadline") for every trial; one JSON line per trial."""
    lines = asyncio.run(
        _run(role=role, url=url, seed=seed, trials=trials, matches=matches, gate=gate)
    )
    with open(out, "w", encoding="utf-8") as handle:
        handle.writelines(json.dumps(line) + "\n" for line in lines)


async def _run(
    *, role: str, url: str, seed: int, trials: int, matches: list[int], gate: Barrier
) -> list[dict[str, Any]]:
    rng = random.Random(f"{seed}:{role}")
    clock = ManualClock()
    store = await Store.open(url)
    service = MatchService(store, clock, node_id=role)
    wait = asyncio.to_thread
    lines: list[dict[str, Any]] = []
    try:
        for trial in range(trials):
            match_id = matches[trial % len(matches)]
            line: dict[str, Any] = {"trial": trial, "match": match_id}
            if role == "confirmer":
                match = await service.get_match(match_id)
                assert match.deadline_at is not None
                clock.set(from_ms(match.deadline_at - rng.choice([1, 2, 30])))
                first, last = rng.sample(["red", "blue"], 2)
                if rng.random() < 0.8:
                    await service.confirm(match_id, _player(match, first))
                line.update(turn=match.turn, last=last)
                await wait(gate.wait)  # prepared
                await wait(gate.wait)  # go
                await _jitter(rng)
                try:
                    result = await service.confirm(match_id, _player(match, last), turn=match.turn)
                    line["confirm"] = "resolved" if result.resolved else "kept"
                except (NotYourTurnError, DeadlinePassedError) as refused:
                    line["confirm"] = refused.code
            else:
                await wait(gate.wait)  # prepared
                match = await service.get_match(match_id)
                assert match.deadline_at is not None
                clock.set(from_ms(match.deadline_at + rng.choice([0, 0, 1])))
                line["turn"] = match.turn
                await wait(gate.wait)  # go
                await _jitter(rng)
                if rng.random() < 0.5:
                    done = await service.run_due()
                else:
                    one = await service.resolve_match(match_id)
                    done = [] if one is None else [one]
                line["resolved"] = [[r.match_id, r.turn, r.cause] for r in done]
            lines.append(line)
            await wait(gate.wait)  # both finished: the next trial reads a settled match
    finally:
        await store.close()
    return lines


def _player(match: Any, side: str) -> str:
    seat = match.seat_for_side(side)
    assert seat is not None and seat.player_id is not None
    return str(seat.player_id)


async def _jitter(rng: random.Random) -> None:
    for _ in range(rng.randint(0, 3)):
        await asyncio.sleep(0)
    if rng.random() < 0.3:
        await asyncio.sleep(rng.random() / 1000)

"""End listeners on both databases: told once per ended match, after the end is committed."""

from __future__ import annotations

from typing import Any

import pytest

from engine.state import Side
from service.clock import ManualClock, to_ms
from service.errors import WrongStateError
from service.matches import MatchEnded, MatchService
from storage import MatchRecord
from tests.service.matchkit import player_on, started_match


class Ears:
    """An end listener that also reads the match back, which only works once the ending
    transaction has committed (on SQLite a read inside it would wait on itself)."""

    def __init__(self, service: MatchService) -> None:
        self.service = service
        self.heard: list[MatchEnded] = []
        self.status_seen: list[str] = []
        service.add_end_listener(self)

    async def __call__(self, ended: MatchEnded) -> None:
        self.heard.append(ended)
        self.status_seen.append((await self.service.get_match(ended.match_id)).status)


async def capture_ready(service: MatchService, match: MatchRecord) -> int:
    """Leave red's first group beside blue's Sanctum (I9) with no blue group left; return the
    group's id."""
    full = await service.get_match(match.id, with_state=True)
    assert full.state is not None
    state: dict[str, Any] = dict(full.state)
    red = next(g for g in state["groups"] if g["owner"] == "red")
    state["groups"] = [{**red, "coord": "I8"}]
    async with service.store.write() as s:
        assert await s.update_match(match.id, state=state)
    return int(red["id"])


async def test_a_concession_is_heard_once(service: MatchService, clock: ManualClock) -> None:
    ears = Ears(service)
    match = await started_match(service)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    ended = await service.concede(match.id, red)
    assert ears.heard == [
        MatchEnded(
            match_id=match.id,
            guild_id=None,
            turn=1,
            result="win",
            winner=Side.BLUE,
            winner_id=blue,
            reason="concession",
            ended_at=to_ms(clock.now()),
        )
    ]
    assert ears.status_seen == ["ended"] and ended.ended_at == ears.heard[0].ended_at
    with pytest.raises(WrongStateError):
        await service.concede(match.id, blue)
    assert await service.run_due() == []
    assert len(ears.heard) == 1


async def test_a_sanctum_capture_is_heard_once(service: MatchService, clock: ManualClock) -> None:
    ears = Ears(service)
    match = await started_match(service)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    group_id = await capture_ready(service, match)
    await service.submit_orders(match.id, red, {"moves": [{"group_id": group_id, "dest": "I9"}]})
    await service.confirm(match.id, red)
    assert ears.heard == []
    done = await service.confirm(match.id, blue)
    assert done.resolved is not None and done.resolved.ended
    [heard] = ears.heard
    assert (heard.match_id, heard.turn, heard.result) == (match.id, 1, "win")
    assert (heard.winner, heard.winner_id, heard.reason) == ("red", red, "sanctum")
    assert ears.status_seen == ["ended"]
    clock.advance(10 * 3600)
    assert await service.run_due() == []
    assert await service.resolve_match(match.id) is None
    assert len(ears.heard) == 1


async def test_a_no_show_forfeit_in_a_batch_is_heard_once(
    service: MatchService, clock: ManualClock
) -> None:
    ears = Ears(service)
    forfeited = await started_match(service, turn_seconds=60, reminders=[])
    # Resolved in the same batches, never ended: it has no no-show limit.
    other = await started_match(
        service, ("carol", "dave"), turn_seconds=60, reminders=[], no_show_limit=0
    )
    red = player_on(forfeited, "red")
    for turn in (1, 2, 3):
        await service.confirm(forfeited.id, red, turn=turn)
        clock.advance(60)
        resolved = await service.run_due()
        assert sorted(r.match_id for r in resolved) == [forfeited.id, other.id]
    [heard] = ears.heard
    assert (heard.match_id, heard.turn, heard.reason) == (forfeited.id, 3, "forfeit")
    assert (heard.winner, heard.winner_id) == ("red", red)
    assert ears.status_seen == ["ended"]
    clock.advance(3600)
    await service.run_due()
    assert [e.match_id for e in ears.heard] == [forfeited.id]


async def test_agreed_draws_are_heard_once_and_offers_pauses_are_not(
    service: MatchService,
) -> None:
    ears = Ears(service)
    first = await started_match(service)
    second = await started_match(service, ("carol", "dave"))
    await service.offer_draw(first.id, player_on(first, "red"))
    await service.pause(second.id, "mod", moderator=True)
    await service.resume(second.id, "mod", moderator=True)
    assert ears.heard == []
    await service.offer_draw(first.id, player_on(first, "blue"))
    await service.offer_draw(second.id, player_on(second, "blue"))
    await service.accept_draw(second.id, player_on(second, "red"))
    assert [(e.match_id, e.result, e.winner, e.reason) for e in ears.heard] == [
        (first.id, "draw", None, "agreed"),
        (second.id, "draw", None, "agreed"),
    ]


async def test_a_failing_listener_neither_undoes_the_end_nor_silences_the_others(
    service: MatchService,
) -> None:
    async def broken(_ended: MatchEnded) -> None:
        raise RuntimeError("listener bug")

    service.add_end_listener(broken)
    ears = Ears(service)
    match = await started_match(service)
    ended = await service.concede(match.id, player_on(match, "blue"))
    assert ended.status == "ended" and [e.winner for e in ears.heard] == ["red"]
    service.remove_end_listener(ears)
    other = await started_match(service, ("carol", "dave"))
    await service.concede(other.id, player_on(other, "red"))
    assert len(ears.heard) == 1

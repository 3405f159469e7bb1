"""A human against a computer seat: the computer gives and confirms its orders as each turn
opens, so a turn resolves on the human's confirmation alone."""

from __future__ import annotations

import random

import pytest

from ai import choose_orders
from engine.content import load_content
from engine.state import GameState, Side
from engine.view import view_for
from service.clock import ManualClock
from service.engine_bridge import parse_orders
from service.errors import NotAllowedError, WrongStateError
from service.matches import MatchService, computer_level
from tests.service.matchkit import discard_orders, make_decks

COMPUTER = "computer:greedy"


async def test_a_human_plays_several_turns_against_greedy(service: MatchService) -> None:
    assert isinstance(service.clock, ManualClock)
    alice_deck, _ = await make_decks(service.store, service.clock, ("alice", "bob"))
    created = await service.create_match(
        "alice", deck_id=alice_deck, opponent_id=COMPUTER, turn_seconds=3600, seed=77
    )
    computer_seat = created.seats[1]
    assert computer_seat.player_id == COMPUTER and computer_seat.spells
    match = await service.start_match(created.id, "alice")
    human_side = next(s.side for s in match.seats if s.player_id == "alice")
    ai_side = next(s.side for s in match.seats if s.player_id == COMPUTER)
    assert human_side is not None and ai_side is not None
    for turn in range(1, 5):
        full = await service.get_match(match.id, with_state=True)
        assert full.turn == turn and full.status == "active" and full.state is not None
        mine = await service.current_orders(match.id, COMPUTER)
        assert mine is not None and mine.confirmed
        expected = choose_orders(
            view_for(GameState.from_dict(full.state), Side(ai_side), load_content()),
            "greedy",
            random.Random(f"{full.seed}:{turn}:{ai_side}"),
        )
        assert parse_orders({**mine.orders, "confirmed": False}) == expected
        await service.submit_orders(match.id, "alice", discard_orders(full, human_side), turn=turn)
        result = await service.confirm(match.id, "alice", turn=turn)
        assert result.resolved is not None and result.resolved.cause == "confirmed"
        assert result.resolved.turn == turn and result.resolved.no_shows == ()
    after = await service.get_match(match.id)
    assert after.turn == 5
    assert all(seat.no_shows == 0 for seat in after.seats)
    async with service.store.read() as s:
        sheets = [o.recipient for o in await s.list_outbox(kind="order_sheet")]
    assert sheets == ["alice"] * 5


async def test_the_computer_never_counts_as_a_no_show_nor_gets_reminders(
    service: MatchService,
) -> None:
    assert isinstance(service.clock, ManualClock)
    alice_deck, _ = await make_decks(service.store, service.clock, ("alice", "bob"))
    created = await service.create_match(
        "alice",
        deck_id=alice_deck,
        opponent_id="computer:random",
        turn_seconds=3600,
        reminders=[600],
        no_show_limit=2,
    )
    match = await service.start_match(created.id, "alice")
    service.clock.advance(3000)
    assert await service.send_reminders() == 1
    service.clock.advance(700)
    resolved = await service.run_due()
    assert [r.cause for r in resolved] == ["deadline"]
    assert [n.player_id for n in resolved[0].no_shows] == ["alice"]
    after = await service.get_match(match.id)
    counts = {seat.player_id: seat.no_shows for seat in after.seats}
    assert counts == {"alice": 1, "computer:random": 0}
    mine = await service.current_orders(match.id, "computer:random")
    assert mine is not None and mine.confirmed and after.turn == 2


async def test_computer_ids_are_checked(service: MatchService) -> None:
    assert computer_level("computer:strong") == "strong"
    assert computer_level("computer:genius") is None and computer_level("alice") is None
    with pytest.raises(WrongStateError):
        await service.create_match("alice", opponent_id="computer:genius")
    with pytest.raises(NotAllowedError):
        await service.create_match("computer:greedy", opponent_id="alice")
    open_match = await service.create_match("alice")
    with pytest.raises(NotAllowedError):
        await service.join_match(open_match.id, "computer:greedy")


async def _computer_match_missing_its_orders(service: MatchService) -> int:
    """A match against the computer whose orders for turn 1 were lost (dropped while the match
    paused, or with a process that stopped while the computer thought)."""
    alice_deck, _ = await make_decks(service.store, service.clock, ("alice", "bob"))
    created = await service.create_match(
        "alice", deck_id=alice_deck, opponent_id=COMPUTER, turn_seconds=3600, seed=5
    )
    match = await service.start_match(created.id, "alice")
    ai_side = next(s.side for s in match.seats if s.player_id == COMPUTER)
    assert ai_side is not None
    async with service.store.write() as s:
        await s.delete_orders(match.id, 1, ai_side)
    assert await service.current_orders(match.id, COMPUTER) is None
    return match.id


async def test_the_computer_gives_its_orders_again_when_the_match_resumes(
    service: MatchService,
) -> None:
    match_id = await _computer_match_missing_its_orders(service)
    await service.pause(match_id, "alice", moderator=True)
    resumed = await service.resume(match_id, "alice", moderator=True)
    assert resumed.status == "active" and resumed.turn == 1
    mine = await service.current_orders(match_id, COMPUTER)
    assert mine is not None and mine.confirmed


async def test_a_restart_gives_the_orders_a_computer_seat_still_owes(
    service: MatchService,
) -> None:
    match_id = await _computer_match_missing_its_orders(service)
    assert await service.play_computer_turns() == 1
    mine = await service.current_orders(match_id, COMPUTER)
    assert mine is not None and mine.confirmed
    # A second call finds nothing left to do and changes nothing.
    assert await service.play_computer_turns() == 1
    again = await service.current_orders(match_id, COMPUTER)
    assert again == mine


async def test_the_computer_concedes_a_lost_game(service: MatchService) -> None:
    """A computer seat left with nothing but its Sanctum, against three enemy structures and an
    army of more than ten turns of the Sanctum guard in hit points, concedes instead of giving
    orders (ai.concession): the human wins at once."""
    match_id = await _computer_match_missing_its_orders(service)
    match = await service.get_match(match_id, with_state=True)
    assert match.state is not None
    ai_side = next(s.side for s in match.seats if s.player_id == COMPUTER)
    human_side = next(s.side for s in match.seats if s.player_id == "alice")
    state = dict(match.state)
    state["groups"] = [
        # The human's four recruits, hardened to 60 hit points each: 240 on the board.
        {**g, "minions": [{**m, "hp": 60, "max_hp": 60} for m in g["minions"]]}
        for g in state["groups"]
        if g["owner"] != ai_side
    ]
    towns = [s["id"] for s in state["structures"] if s["kind"] == "town"][:2]
    state["structures"] = [
        {**s, "owner": human_side, "mana_type": "order"} if s["id"] in towns else s
        for s in state["structures"]
    ]
    async with service.store.write() as s:
        await s.update_match(match_id, state=state)
    assert await service.play_computer_turns() == 1
    ended = await service.get_match(match_id)
    assert (ended.status, ended.end_reason, ended.winner) == ("ended", "concession", human_side)
    assert await service.current_orders(match_id, COMPUTER) is None

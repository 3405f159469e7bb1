"""The match service on both databases: the life of a match and every expected refusal."""

from __future__ import annotations

import pytest

from engine.state import GameState
from service import export
from service.clock import ManualClock, to_ms
from service.errors import (
    AlreadyConfirmedError,
    DeadlinePassedError,
    InvalidOrdersError,
    NotAllowedError,
    NotConfirmedError,
    NotFoundError,
    NotYourMatchError,
    NotYourTurnError,
    WrongStateError,
)
from service.matches import MatchService
from tests.service.matchkit import discard_orders, make_decks, player_on, started_match


async def outbox_keys(service: MatchService, kind: str | None = None) -> list[str]:
    async with service.store.read() as s:
        return [o.key for o in await s.list_outbox(kind=kind)]


async def test_a_match_starts_with_colours_drawn_from_its_seed(service: MatchService) -> None:
    match = await started_match(service, seed=12345)
    again = await started_match(service, ("carol", "dave"), seed=12345)
    assert match.status == "active" and match.turn == 1
    assert sorted(s.side or "" for s in match.seats) == ["blue", "red"]
    assert [s.side for s in match.seats] == [s.side for s in again.seats]
    assert match.deadline_at == to_ms(service.clock.now()) + 3600 * 1000
    full = await service.get_match(match.id, with_state=True)
    assert full.state is not None and GameState.from_dict(full.state).turn == 1
    keys = await outbox_keys(service)
    assert f"match:{match.id}:started" in keys
    assert f"match:{match.id}:turn:1:sheet:red" in keys
    assert f"match:{match.id}:turn:1:sheet:blue" in keys


async def test_colours_given_at_creation_are_kept_whatever_the_seed(
    service: MatchService,
) -> None:
    for seed in range(3):
        for red_seat in (0, 1):
            players = (f"a{seed}{red_seat}", f"b{seed}{red_seat}")
            match = await started_match(service, players, seed=seed, red_seat=red_seat)
            red = match.seat_for_side("red")
            assert red is not None and red.seat == red_seat
            assert match.seats[1 - red_seat].side == "blue"
    with pytest.raises(WrongStateError):
        await service.create_match("alice", opponent_id="bob", red_seat=2)


async def test_joining_and_starting_refuse_what_they_should(service: MatchService) -> None:
    assert isinstance(service.clock, ManualClock)
    alice_deck, bob_deck = await make_decks(service.store, service.clock, ("alice", "bob"))
    match = await service.create_match("alice", deck_id=alice_deck, opponent_id="bob")
    with pytest.raises(NotAllowedError):
        await service.join_match(match.id, "mallory")
    with pytest.raises(WrongStateError):
        await service.start_match(match.id, "alice")
    with pytest.raises(NotYourMatchError):
        await service.start_match(match.id, "mallory")
    with pytest.raises(NotFoundError):
        await service.join_match(match.id, "bob", alice_deck)
    with pytest.raises(NotAllowedError):
        await service.create_match("alice", opponent_id="alice")
    await service.join_match(match.id, "bob", bob_deck)
    await service.start_match(match.id, "bob")
    with pytest.raises(WrongStateError):
        await service.join_match(match.id, "bob")
    with pytest.raises(NotFoundError):
        await service.get_match(9999)


async def test_an_open_seat_takes_the_first_player(service: MatchService) -> None:
    assert isinstance(service.clock, ManualClock)
    alice_deck, bob_deck = await make_decks(service.store, service.clock, ("alice", "bob"))
    match = await service.create_match("alice", deck_id=alice_deck)
    joined = await service.join_match(match.id, "bob", bob_deck)
    assert [s.player_id for s in joined.seats] == ["alice", "bob"]
    cancelled_source = await service.create_match("alice", deck_id=alice_deck)
    cancelled = await service.cancel_match(cancelled_source.id, "alice")
    assert cancelled.status == "cancelled"


async def test_both_confirmations_resolve_the_turn_once(service: MatchService) -> None:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    await service.submit_orders(match.id, red, discard_orders(full, "red"), turn=1)
    first = await service.confirm(match.id, red, turn=1)
    assert first.resolved is None and first.orders.confirmed
    second = await service.confirm(match.id, blue)
    assert second.resolved is not None
    assert second.resolved.turn == 1 and second.resolved.cause == "confirmed"
    assert second.resolved.no_shows == ()
    assert await service.resolve_match(match.id) is None
    record = await service.history(match.id, 1)
    assert record.orders["red"] is not None and record.orders["red"]["discard"] is not None
    assert record.orders["blue"] is not None and record.orders["blue"]["confirmed"]
    assert record.report["turn"] == 1
    now = await service.get_match(match.id, with_state=True)
    assert now.turn == 2 and now.state == record.state
    assert (await outbox_keys(service, "turn_resolved")) == [f"match:{match.id}:turn:1:resolved"]
    with pytest.raises(NotFoundError):
        await service.history(match.id, 2)
    # Nobody fought: the detail recomputed from the opening and the orders is the report itself.
    assert await service.turn_detail(match.id, 1) == record


async def test_refusals_while_giving_orders(service: MatchService, clock: ManualClock) -> None:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    red = player_on(match, "red")
    with pytest.raises(NotYourMatchError):
        await service.submit_orders(match.id, "mallory", discard_orders(full, "red"))
    with pytest.raises(NotYourTurnError):
        await service.submit_orders(match.id, red, discard_orders(full, "red"), turn=7)
    with pytest.raises(InvalidOrdersError) as bad:
        await service.submit_orders(
            match.id, red, {"casts": [], "moves": [], "trains": [], "discard": {"card_uid": -5}}
        )
    assert bad.value.problems
    with pytest.raises(InvalidOrdersError):
        await service.submit_orders(match.id, red, {"nonsense": 1})
    with pytest.raises(NotConfirmedError):
        await service.unconfirm(match.id, red)
    await service.submit_orders(match.id, red, discard_orders(full, "red"))
    await service.confirm(match.id, red)
    with pytest.raises(AlreadyConfirmedError):
        await service.confirm(match.id, red)
    with pytest.raises(AlreadyConfirmedError):
        await service.submit_orders(match.id, red, discard_orders(full, "red", 1))
    with pytest.raises(AlreadyConfirmedError):
        await service.clear_orders(match.id, red)
    await service.unconfirm(match.id, red)
    await service.clear_orders(match.id, red)
    assert await service.current_orders(match.id, red) is None
    clock.advance(3600)
    with pytest.raises(DeadlinePassedError):
        await service.submit_orders(match.id, red, discard_orders(full, "red"))
    with pytest.raises(DeadlinePassedError):
        await service.confirm(match.id, red)


async def test_orders_given_but_not_confirmed_count_at_the_deadline(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service)
    full = await service.get_match(match.id, with_state=True)
    red = player_on(match, "red")
    orders = discard_orders(full, "red")
    await service.submit_orders(match.id, red, orders)
    await service.confirm(match.id, red)
    await service.unconfirm(match.id, red)
    clock.advance(3599)
    assert await service.run_due() == []
    clock.advance(1)
    [resolved] = await service.run_due()
    assert resolved.cause == "deadline"
    assert [n.side for n in resolved.no_shows] == ["blue"]
    record = await service.history(match.id, 1)
    assert record.orders["red"] is not None
    assert record.orders["red"]["discard"] == orders["discard"]
    assert record.orders["blue"] is None
    assert record.no_shows == ("blue",)
    discarded = [e for e in record.report["events"] if "discard" in e["kind"]]
    assert discarded, "the unconfirmed discard was carried out"
    after = await service.get_match(match.id)
    assert after.deadline_at == to_ms(clock.now()) + 3600 * 1000
    assert after.seat_for_side("blue").no_shows == 1  # type: ignore[union-attr]
    assert after.seat_for_side("red").no_shows == 0  # type: ignore[union-attr]


async def test_three_no_shows_in_a_row_forfeit(service: MatchService, clock: ManualClock) -> None:
    match = await started_match(service, turn_seconds=60, reminders=[])
    red = player_on(match, "red")
    for turn in (1, 2, 3):
        await service.confirm(match.id, red, turn=turn)
        clock.advance(60)
        [resolved] = await service.run_due()
        assert resolved.turn == turn
    assert resolved.ended and resolved.end_reason == "forfeit" and resolved.winner == "red"
    ended = await service.get_match(match.id)
    assert ended.status == "ended" and ended.winner == "red" and ended.deadline_at is None
    [end] = await outbox_keys(service, "match_ended")
    assert end == f"match:{match.id}:ended"


async def test_a_match_with_everyone_absent_ends_without_looping(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=60, reminders=[])
    clock.advance(10 * 3600)
    [first] = await service.run_due()
    assert first.turn == 1 and first.deadline_at == to_ms(clock.now()) + 60_000
    assert await service.run_due() == []
    for _ in range(2):
        clock.advance(60)
        assert len(await service.run_due()) == 1
    ended = await service.get_match(match.id)
    assert ended.status == "ended" and ended.end_reason == "abandoned" and ended.winner is None
    assert [t.turn for t in await service.turns(match.id)] == [1, 2, 3]


async def test_grace_extends_a_deadline_once_per_player(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=60, grace_seconds=30, reminders=[])
    red = player_on(match, "red")
    await service.confirm(match.id, red)
    clock.advance(60)
    assert await service.run_due() == []
    graced = await service.get_match(match.id)
    assert graced.deadline_at == to_ms(clock.now()) + 30_000
    assert graced.seat_for_side("blue").grace_used  # type: ignore[union-attr]
    assert await outbox_keys(service, "grace") == [f"match:{match.id}:turn:1:grace:blue"]
    clock.advance(30)
    [resolved] = await service.run_due()
    assert [n.side for n in resolved.no_shows] == ["blue"]
    await service.confirm(match.id, red)
    clock.advance(60)
    [again] = await service.run_due()
    assert again.turn == 2 and [n.side for n in again.no_shows] == ["blue"]


async def test_pause_needs_both_players_or_a_moderator(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=7200)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    clock.advance(1000)
    asked = await service.pause(match.id, red)
    assert asked.status == "active"
    with pytest.raises(WrongStateError):
        await service.pause(match.id, red)
    paused = await service.pause(match.id, blue)
    assert paused.status == "paused" and paused.deadline_at is None
    assert paused.paused_remaining_ms == 6200 * 1000
    with pytest.raises(WrongStateError):
        await service.confirm(match.id, red)
    clock.advance(100_000)
    assert await service.run_due() == []
    resumed = await service.resume(match.id, "mod", moderator=True)
    assert resumed.status == "active"
    assert resumed.deadline_at == to_ms(clock.now()) + 6200 * 1000
    kinds = [k.split(":")[-1] for k in await outbox_keys(service)]
    assert {"pause_requested", "paused", "resumed"} <= set(kinds)


async def test_resume_gives_at_least_an_hour(service: MatchService, clock: ManualClock) -> None:
    match = await started_match(service, turn_seconds=7200)
    clock.advance(7190)
    await service.pause(match.id, "mod", moderator=True)
    resumed = await service.resume(match.id, "mod", moderator=True)
    assert resumed.deadline_at == to_ms(clock.now()) + 3600 * 1000


async def test_only_moderators_extend_deadlines(service: MatchService, clock: ManualClock) -> None:
    match = await started_match(service)
    red = player_on(match, "red")
    with pytest.raises(NotAllowedError):
        await service.extend(match.id, red, 600, moderator=False)
    extended = await service.extend(match.id, "mod", 600, moderator=True)
    assert extended.deadline_at == (match.deadline_at or 0) + 600_000
    clock.advance(3600)
    assert await service.run_due() == []
    clock.advance(600)
    assert len(await service.run_due()) == 1


async def test_concession_ends_the_match(service: MatchService) -> None:
    match = await started_match(service)
    red = player_on(match, "red")
    ended = await service.concede(match.id, red)
    assert ended.status == "ended" and ended.winner == "blue" and ended.end_reason == "concession"
    with pytest.raises(WrongStateError):
        await service.concede(match.id, red)
    assert await service.run_due() == []


async def test_draws_are_offered_and_accepted(service: MatchService) -> None:
    match = await started_match(service)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    with pytest.raises(WrongStateError):
        await service.accept_draw(match.id, blue)
    offered = await service.offer_draw(match.id, red)
    assert offered.draw_offer_side == "red"
    with pytest.raises(WrongStateError):
        await service.offer_draw(match.id, red)
    with pytest.raises(WrongStateError):
        await service.accept_draw(match.id, red)
    declined = await service.decline_draw(match.id, blue)
    assert declined.draw_offer_side is None
    await service.offer_draw(match.id, blue)
    drawn = await service.accept_draw(match.id, red)
    assert drawn.status == "ended" and drawn.result == "draw" and drawn.winner is None


async def test_mutual_offers_agree_a_draw(service: MatchService) -> None:
    match = await started_match(service)
    await service.offer_draw(match.id, player_on(match, "red"))
    drawn = await service.offer_draw(match.id, player_on(match, "blue"))
    assert drawn.result == "draw" and drawn.end_reason == "agreed"


async def test_an_export_replays_to_the_recorded_states(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=60, reminders=[])
    with pytest.raises(WrongStateError):
        await service.export_match(match.id)
    red, blue = player_on(match, "red"), player_on(match, "blue")
    for turn in (1, 2, 3):
        full = await service.get_match(match.id, with_state=True)
        await service.submit_orders(match.id, red, discard_orders(full, "red", turn))
        if turn != 2:
            await service.confirm(match.id, blue)
        clock.advance(60)
        await service.run_due()
    await service.concede(match.id, blue)
    doc = export.loads(await service.export_match(match.id))
    assert [t["turn"] for t in doc["turns"]] == [1, 2, 3]
    final = export.replay(doc)
    assert final["result"]["winner"] == "red"
    doc["turns"][1]["orders"]["red"] = None
    with pytest.raises(export.ReplayMismatchError):
        export.replay(doc)


async def test_reminders_go_to_unconfirmed_players_once_and_never_late(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=7200, reminders=[3600, 600])
    red = player_on(match, "red")
    await service.confirm(match.id, red)
    clock.advance(3599)
    assert await service.send_reminders() == 0
    clock.advance(1)
    assert await service.send_reminders() == 1
    assert await service.send_reminders() == 0
    [first] = await outbox_keys(service, "reminder")
    assert first.endswith(":reminder:3600:blue")
    clock.advance(3000)
    assert await service.send_reminders() == 1
    clock.advance(600)
    assert await service.send_reminders() == 0
    assert len(await outbox_keys(service, "reminder")) == 2


async def test_after_a_long_gap_only_the_nearest_reminder_is_sent(
    service: MatchService, clock: ManualClock
) -> None:
    match = await started_match(service, turn_seconds=7200, reminders=[3600, 600])
    clock.advance(6700)
    assert await service.send_reminders() == 2
    points = {k.split(":")[-2] for k in await outbox_keys(service, "reminder")}
    assert points == {"600"}
    assert match.id


async def test_deadline_listeners_hear_every_change(
    service: MatchService, clock: ManualClock
) -> None:
    heard: list[tuple[int, int | None]] = []
    service.add_deadline_listener(lambda m, d, _r: heard.append((m, d)))
    match = await started_match(service, turn_seconds=60, reminders=[])
    clock.advance(60)
    await service.run_due()
    await service.pause(match.id, "mod", moderator=True)
    assert heard == [
        (match.id, match.deadline_at),
        (match.id, to_ms(clock.now()) + 60_000),
        (match.id, None),
    ]

"""Resolving turns exactly once: the version check, the lease claims, the batch pipeline.

Every change is one transaction against the database, which is the source of truth. A turn is
resolved optimistically: read the match at some version, run the engine outside any lock, then
commit the new state only if the match is still at that version (`update_match(expect_version=)`).
Order changes and confirmations bump the version, so a resolution computed from stale orders is
thrown away and redone; the (match, turn) primary key of `turns` is the last guard. Overdue
matches are claimed with a lease before they are worked on, so two processes sharing a database
do not both compute the same turn.

Every resolution, one at a time or in a batch, is written by `_write`: the new state, the turn
record, the seats' no-show counts, and its announcements, in the caller's transaction.

The event loop never decodes or encodes a state or a report: the stored state's text goes to the
engine's worker, which sends back the new state and the report as JSON text (`JsonText`, stored
as it is) with the few fields the service reads (its turn and result).
"""

from __future__ import annotations

import asyncio
import json
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from engine.state import Side
from service import engine_bridge as eb
from service.announcements import Grace, NoShow, TurnResolved
from service.deadline_anchor import turn_deadline
from service.matches.core import MatchCore, match_over, order_sheets
from service.matches.records import ResolvedTurn, computer_level, gave_nothing, is_computer
from storage import (
    ConflictError,
    JsonText,
    MatchRecord,
    NewTurn,
    OrdersRecord,
    ResolutionFailure,
    Session,
)
from storage.records import JsonDict, MatchStatus, OutboxEntry, SeatRecord

log = logging.getLogger(__name__)

SIDES = eb.SIDES
# A turn whose resolution raised is left to the sweep for this long, doubling with each failure
# in a row up to the cap: a fault that a restart or a new release cures is retried soon, and a
# lasting one costs a log line an hour instead of a failed resolution every minute.
RETRY_BASE_MS = 30_000
RETRY_MAX_MS = 3_600_000
# The engine's answer for one job of a batch: the new state and report, or the error's text.
Computed = eb.Encoded | str


def retry_delay_ms(attempts: int) -> int:
    """How long the sweep leaves a turn alone after its `attempts`-th failure in a row."""
    return int(min(RETRY_MAX_MS, RETRY_BASE_MS * 2 ** max(0, attempts - 1)))


@dataclass(frozen=True, slots=True)
class _Plan:
    """A resolution computed from a match read at `version`, ready to commit."""

    match: MatchRecord
    version: int
    cause: str
    orders: dict[str, JsonDict | None]
    no_show_sides: tuple[str, ...]
    head: JsonDict  # the new state's turn and result
    new_state: JsonText
    report: JsonText


@dataclass(frozen=True, slots=True)
class _Final:
    """A planned resolution with its consequences: no-show counts, forfeit, next deadline."""

    plan: _Plan
    state: JsonText | JsonDict
    counts: dict[str, int]
    winner: str | None
    end_reason: str | None
    next_turn: int | None
    deadline: int | None


@dataclass(frozen=True, slots=True)
class _Writes:
    """The rows one resolution writes, and what it tells the caller once they are committed."""

    match_id: int
    version: int  # the match's version the resolution was computed from
    fields: dict[str, Any]  # of the match
    turn: NewTurn
    seats: list[tuple[int, dict[str, Any]]]  # (seat, fields)
    outbox: list[OutboxEntry]
    resolved: ResolvedTurn


@dataclass(slots=True)
class _Batch:
    """Claimed matches whose resolutions are being computed."""

    jobs: list[tuple[MatchRecord, dict[str, OrdersRecord], str]]
    results: asyncio.Future[list[Computed]]


def _order_docs(orders: Mapping[str, OrdersRecord]) -> dict[str, JsonDict | None]:
    return {side: (orders[side].orders if side in orders else None) for side in SIDES}


def _cause(
    match: MatchRecord, state: str | None, orders: Mapping[str, OrdersRecord], now: int
) -> str | None:
    if match.status != MatchStatus.ACTIVE or state is None:
        return None
    if all(side in orders and orders[side].confirmed for side in SIDES):
        return "confirmed"
    if match.deadline_at is not None and match.deadline_at <= now:
        return "deadline"
    return None


def _graced(match: MatchRecord, orders: Mapping[str, OrdersRecord]) -> list[SeatRecord]:
    """Seats whose once-per-match grace extends this deadline."""
    if match.grace_seconds <= 0:
        return []
    return [
        seat
        for seat in match.seats
        if seat.side is not None and not seat.grace_used and gave_nothing(orders.get(seat.side))
    ]


def _plan(
    match: MatchRecord,
    orders: Mapping[str, OrdersRecord],
    cause: str,
    computed: eb.Encoded,
) -> _Plan:
    computers = {s.side for s in match.seats if is_computer(s.player_id)}
    no_shows = tuple(
        side for side in SIDES if side not in computers and gave_nothing(orders.get(side))
    )
    state, report, head = computed
    return _Plan(
        match,
        match.version,
        cause,
        _order_docs(orders),
        no_shows,
        head,
        JsonText(state),
        JsonText(report),
    )


def _finalise(plan: _Plan, now: int) -> _Final:
    """Everything a resolution writes, decided before the write transaction opens."""
    match = plan.match
    head = plan.head
    state: JsonText | JsonDict = plan.new_state
    counts = {
        str(seat.side): (seat.no_shows + 1 if seat.side in plan.no_show_sides else 0)
        for seat in match.seats
        if seat.side is not None
    }
    end_reason: str | None = None
    winner, reason = eb.outcome(head)
    if reason is None and match.no_show_limit > 0:
        forfeits = [side for side, n in counts.items() if n >= match.no_show_limit]
        if forfeits:
            # Rare enough to decode the state here.
            doc = json.loads(plan.new_state)
            if len(forfeits) == 2:
                doc = eb.end_by_agreement(doc)
                end_reason = "abandoned"
            else:
                doc = eb.end_by_concession(doc, forfeits[0])
                end_reason = "forfeit"
            state = doc
            winner, reason = eb.outcome(doc)
    over = reason is not None
    next_turn = None if over else int(head["turn"])
    deadline = None if over else turn_deadline(match, now)
    return _Final(plan, state, counts, winner, end_reason or reason, next_turn, deadline)


def _writes(final: _Final, now: int) -> _Writes:
    """Every row a resolution writes, decided before they are written."""
    plan = final.plan
    match = plan.match
    over = final.next_turn is None
    fields: dict[str, Any] = {
        "state": final.state,
        "turn": match.turn if final.next_turn is None else final.next_turn,
        "deadline_at": final.deadline,
        "claimed_by": None,
        "claimed_until": None,
        "draw_offer_side": None,
    }
    if over:
        fields.update(
            status=MatchStatus.ENDED,
            result="draw" if final.winner is None else "win",
            winner=final.winner,
            end_reason=final.end_reason,
            ended_at=now,
        )
    turn = NewTurn(
        match.id,
        match.turn,
        orders=plan.orders,
        report=plan.report,
        state=final.state,
        no_shows=plan.no_show_sides,
        cause=plan.cause,
    )
    seats = [
        (
            seat.seat,
            {
                "no_shows": final.counts[seat.side],
                "turns_with_orders": seat.turns_with_orders
                + (0 if seat.side in plan.no_show_sides else 1),
            },
        )
        for seat in match.seats
        if seat.side is not None
    ]
    seat_by_side = {str(seat.side): seat for seat in match.seats}
    no_shows = tuple(
        NoShow(Side(side), seat_by_side[side].player_id) for side in plan.no_show_sides
    )
    outbox: list[OutboxEntry] = [
        TurnResolved(match.id, match.turn, plan.cause, final.next_turn, final.deadline, no_shows)
    ]
    if final.next_turn is None:
        outbox.append(match_over(match, final.winner, final.end_reason))
    else:
        assert final.deadline is not None
        outbox.extend(order_sheets(match, final.next_turn, final.deadline))
    resolved = ResolvedTurn(
        match.id,
        match.turn,
        plan.cause,
        no_shows,
        final.next_turn,
        final.deadline,
        None if final.winner is None else Side(final.winner),
        final.end_reason,
    )
    return _Writes(match.id, plan.version, fields, turn, seats, outbox, resolved)


class Resolver:
    def __init__(self, core: MatchCore, turn_opened: Callable[[int], Awaitable[None]]) -> None:
        self.core = core
        # Called with the match id once a turn opens (the computer seats give their orders).
        self.turn_opened = turn_opened

    async def resolve_match(self, match_id: int) -> ResolvedTurn | None:
        """Resolve the current turn if it is due (both confirmed, or deadline passed).

        Safe to call from anywhere at any time: at most one caller commits each turn."""
        for _attempt in range(20):
            now = self.core.now_ms()
            async with self.core.store.read() as s:
                match = await s.get_match(match_id)
                if match is None:
                    return None
                state = await s.get_state_text(match_id)
                orders = await s.get_orders(match_id, match.turn)
            cause = _cause(match, state, orders, now)
            if cause is None:
                return None
            if cause == "deadline" and _graced(match, orders):
                if await self._grant_grace(match, orders, now):
                    return None
                continue
            assert state is not None
            docs = _order_docs(orders)
            try:
                computed = await self.core.compute(eb.resolve_encoded, state, docs)
                result = await self._commit(_plan(match, orders, cause, computed), now)
            except Exception as exc:
                await self._failed(match, eb.error_text(exc), now)
                raise
            if result is not None:
                await self._after_resolution(match, result, now)
                return result
        raise RuntimeError(f"match {match_id}: the turn kept changing while being resolved")

    async def _grant_grace(
        self, match: MatchRecord, orders: Mapping[str, OrdersRecord], now: int
    ) -> bool:
        seats = _graced(match, orders)
        assert match.deadline_at is not None
        deadline = max(match.deadline_at, now) + match.grace_seconds * 1000
        async with self.core.store.write() as s:
            if not await s.update_match(
                match.id,
                expect_version=match.version,
                deadline_at=deadline,
                claimed_by=None,
                claimed_until=None,
            ):
                return False
            for seat in seats:
                assert seat.side is not None
                await s.update_seat(match.id, seat.seat, grace_used=True)
                grace = Grace(match.id, match.turn, Side(seat.side), seat.player_id, deadline)
                await s.add_outbox(grace, now=now)
        self.core.notify(match, deadline)
        return True

    async def _after_resolution(
        self, match: MatchRecord, result: ResolvedTurn, now: int, *, computers: bool = True
    ) -> None:
        """What follows a committed resolution; `computers=False` when the match is known (from
        its seats as the resolution's transaction saw them) to have no computer seat, whose
        orders an opened turn would ask for."""
        self.core.notify(match, result.deadline_at)
        if not result.ended:
            if computers:
                await self.turn_opened(match.id)
        else:
            assert result.end_reason is not None
            await self.core.tell_ended(
                self.core.ending(match, result.turn, result.winner, result.end_reason, now)
            )

    async def _commit(self, plan: _Plan, now: int) -> ResolvedTurn | None:
        """Write one resolution; None when the match moved on since it was read."""
        final = _finalise(plan, now)
        async with self.core.store.write() as s:
            return await self._write(s, final, now)

    async def _commit_many(
        self, plans: Sequence[_Plan], now: int
    ) -> tuple[list[ResolvedTurn | None], set[int]]:
        """Write a batch of resolutions in one transaction (one commit for the batch); each
        still goes through its own version check, so a stale one is skipped, not written.
        Also gives the matches written that have a computer seat."""
        finals = [_finalise(plan, now) for plan in plans]
        async with self.core.store.write() as s:
            return await self._write_many(s, finals, now)

    async def _failed(self, match: MatchRecord, error: str, now: int) -> None:
        """Record that resolving the match's current turn raised, and when the sweep may try
        again; moderators see the record (`failing`) until the turn resolves."""
        try:
            async with self.core.store.write() as s:
                old = await s.get_resolution_failure(match.id)
                if old is not None and old.turn == match.turn:
                    attempts, first = old.attempts + 1, old.first_failed_at
                else:
                    attempts, first = 1, now
                delay = retry_delay_ms(attempts)
                await s.put_resolution_failure(
                    ResolutionFailure(
                        match.id, match.turn, attempts, error[:500], first, now, now + delay
                    )
                )
        except Exception:
            log.exception("match %s: the failed resolution could not be recorded", match.id)
            return
        log.error(
            "match %s turn %s: resolution failed (%d time(s) in a row), next try in %d s: %s",
            match.id,
            match.turn,
            attempts,
            delay // 1000,
            error,
        )

    async def _write(self, s: Session, final: _Final, now: int) -> ResolvedTurn | None:
        """Write one resolution in `s`; None when the version check finds the match changed."""
        w = _writes(final, now)
        if not await s.update_match(w.match_id, expect_version=w.version, **w.fields):
            return None
        try:
            await s.insert_turns([w.turn], now=now, node=self.core.node_id)
        except ConflictError:
            # Unreachable while every writer goes through the version check; refusing is
            # still better than a second report for one turn.
            log.error("match %s turn %s was already resolved", w.match_id, w.turn.turn)
            raise
        for seat, fields in w.seats:
            await s.update_seat(w.match_id, seat, **fields)
        for entry in w.outbox:
            await s.add_outbox(entry, now=now)
        return w.resolved

    async def _write_many(
        self, s: Session, finals: Sequence[_Final], now: int
    ) -> tuple[list[ResolvedTurn | None], set[int]]:
        """`_write` of each in `s`, with one statement per kind of row for them all, and the
        matches written that have a computer seat (whose orders the opened turn waits for).

        The versions are checked (and on PostgreSQL the rows locked) first, all at once: a
        match that changed since it was read is left out and gets None, as `_write` gives."""
        versions = await s.lock_versions([final.plan.match.id for final in finals])
        writes = [
            _writes(final, now) if versions.get(final.plan.match.id) == final.plan.version else None
            for final in finals
        ]
        done = [w for w in writes if w is not None]
        if not done:
            return [None] * len(writes), set()
        await s.update_matches([(w.match_id, w.version, w.fields) for w in done])
        try:
            await s.insert_turns([w.turn for w in done], now=now, node=self.core.node_id)
        except ConflictError:
            # As in `_write`: unreachable while every writer checks the version.
            log.error("one of %d turns was already resolved", len(done))
            raise
        await s.update_seats([(w.match_id, seat, f) for w in done for seat, f in w.seats])
        await s.add_outbox_many([entry for w in done for entry in w.outbox], now=now)
        seats = await s.get_seats([w.match_id for w in done])
        computers = {
            match_id
            for match_id, found in seats.items()
            if any(computer_level(seat.player_id) is not None for seat in found)
        }
        return [None if w is None else w.resolved for w in writes], computers

    # --- overdue turns, in claimed batches ---------------------------------------------------

    async def run_due(self, *, batch: int = 64) -> list[ResolvedTurn]:
        """Resolve every overdue turn this node can claim; returns what it resolved.

        Works in batches, two at a time: while one batch's resolutions are written, the next is
        claimed, read and handed to the engine (in the executor's processes, when there is one).
        """
        resolved: list[ResolvedTurn] = []
        writing: asyncio.Task[list[ResolvedTurn]] | None = None
        while True:
            now = self.core.now_ms()
            async with self.core.store.write() as s:
                claimed = [
                    c.id
                    for c in await s.claim_due(
                        now, self.core.node_id, self.core.claim_lease_ms, batch
                    )
                ]
            computing = await self._start_batch(claimed, now) if claimed else None
            if writing is not None:
                resolved.extend(await writing)
            if computing is None:
                return resolved
            writing = asyncio.ensure_future(self._finish_batch(claimed, computing, now))

    async def _start_batch(self, match_ids: Sequence[int], now: int) -> _Batch:
        plans: list[tuple[MatchRecord, str, dict[str, OrdersRecord], str]] = []
        async with self.core.store.read() as s:
            found = await s.get_matches_with_state_text(match_ids)
            orders_of = await s.get_orders_of_turns([(match.id, match.turn) for match, _ in found])
        for match, state in found:
            orders = orders_of[(match.id, match.turn)]
            cause = _cause(match, state, orders, now)
            if cause is not None and state is not None:
                plans.append((match, state, orders, cause))
        jobs: list[tuple[MatchRecord, dict[str, OrdersRecord], str]] = []
        jobs_in: list[tuple[str, dict[str, JsonDict | None]]] = []
        for match, text, orders, cause in plans:
            if cause == "deadline" and _graced(match, orders):
                await self._grant_grace(match, orders, now)
            else:
                jobs.append((match, orders, cause))
                jobs_in.append((text, _order_docs(orders)))
        # The batch holds the task until `_finish_batch` awaits it.
        return _Batch(jobs, asyncio.ensure_future(self._compute_many(jobs_in)))

    async def _finish_batch(
        self, match_ids: Sequence[int], batch: _Batch, now: int
    ) -> list[ResolvedTurn]:
        try:
            return await self._write_batch(batch, now)
        finally:
            # Failed matches too: their retry time, not a claim, keeps the sweep off them.
            async with self.core.store.write() as s:
                await s.release_claim(match_ids, self.core.node_id)

    async def _write_batch(self, batch: _Batch, now: int) -> list[ResolvedTurn]:
        """Commit the batch's resolutions; a match whose engine call or write fails is recorded
        for a later retry and holds up none of the others."""
        plans: list[_Plan] = []
        for (match, orders, cause), computed in zip(batch.jobs, await batch.results, strict=True):
            if isinstance(computed, str):
                await self._failed(match, computed, now)
            else:
                plans.append(_plan(match, orders, cause, computed))
        try:
            results, computers = await self._commit_many(plans, now)
            written = list(zip(plans, results, strict=True))
        except Exception:
            log.exception("writing %d resolutions together failed; writing each alone", len(plans))
            written = []
            computers = {plan.match.id for plan in plans}
            for plan in plans:
                try:
                    written.append((plan, await self._commit(plan, now)))
                except Exception as exc:
                    await self._failed(plan.match, eb.error_text(exc), now)
        out: list[ResolvedTurn] = []
        for plan, result in written:
            try:
                if result is None:
                    # Orders changed under us (or another path resolved it): start over for it.
                    again = await self.resolve_match(plan.match.id)
                else:
                    await self._after_resolution(
                        plan.match, result, now, computers=plan.match.id in computers
                    )
                    again = result
            except Exception:
                log.exception("match %s: finishing its resolution failed", plan.match.id)
                continue
            if again is not None:
                out.append(again)
        return out

    async def _compute_many(
        self, jobs: list[tuple[str, dict[str, JsonDict | None]]]
    ) -> list[Computed]:
        executor = self.core.executor
        if executor is None or len(jobs) < 2:
            return eb.resolve_many_encoded(jobs)
        loop = asyncio.get_running_loop()
        size = max(1, -(-len(jobs) // self.core.workers))
        chunks = [jobs[i : i + size] for i in range(0, len(jobs), size)]
        parts: list[Awaitable[list[Computed]]] = [
            loop.run_in_executor(executor, eb.resolve_many_encoded, chunk) for chunk in chunks
        ]
        out: list[Computed] = []
        done = await asyncio.gather(*parts, return_exceptions=True)
        for chunk, part in zip(chunks, done, strict=True):
            if isinstance(part, BaseException):
                # The worker died or the piece could not be sent: each of its jobs failed.
                out.extend(eb.error_text(part) for _job in chunk)
            else:
                out.extend(part)
        return out

    async def release_my_claims(self) -> int:
        """At start-up: the claims an earlier run of this node left are void."""
        async with self.core.store.write() as s:
            return await s.release_claims(self.core.node_id)

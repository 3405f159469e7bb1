"""Reading matches: one match, lists of them, a turn's record, and the export of a finished one;
and moving a match to the channel (its thread) it posts in."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from service import engine_bridge as eb
from service import export
from service.errors import NotFoundError, WrongStateError
from service.matches.core import MatchCore
from storage import MatchRecord, ResolutionFailure, TurnRecord
from storage.records import MatchStatus


class Queries:
    def __init__(self, core: MatchCore) -> None:
        self.core = core

    async def get_match(self, match_id: int, *, with_state: bool = False) -> MatchRecord:
        return await self.core.read(match_id, with_state=with_state)

    async def list_matches(
        self,
        *,
        player_id: str | None = None,
        guild_id: str | None = None,
        statuses: Sequence[str] | None = None,
        limit: int = 100,
    ) -> list[MatchRecord]:
        async with self.core.store.read() as s:
            return await s.list_matches(
                player_id=player_id, guild_id=guild_id, statuses=statuses, limit=limit
            )

    async def failing(self, guild_id: str | None = None) -> list[ResolutionFailure]:
        """The active matches (of one server, or all) whose current turn keeps failing to
        resolve, with the last error and the time of the next try."""
        async with self.core.store.read() as s:
            return await s.list_resolution_failures(guild_id)

    async def matches_in_channel(self, channel_id: str) -> list[MatchRecord]:
        """Every match that posts in the channel, newest first, however old."""
        async with self.core.store.read() as s:
            return await s.matches_in_channel(channel_id)

    async def move_to_channel(
        self, match_id: int, channel_id: str, *, from_channel_id: str
    ) -> MatchRecord:
        """Make the match post in `channel_id` from now on, if it still posts in
        `from_channel_id`; the match as it is afterwards, so a caller that lost a race to move
        it learns where it went."""
        async with self.core.store.write() as s:
            await s.move_match_channel(match_id, from_channel_id, channel_id)
            return await self.core.load(s, match_id)

    async def history(self, match_id: int, turn: int) -> TurnRecord:
        """The record of a resolved turn: both sides' orders, the report, the state after."""
        async with self.core.store.read() as s:
            record = await s.get_turn(match_id, turn)
            if record is None:
                match = await s.get_match(match_id)
        if record is None:
            if match is None:
                raise NotFoundError(f"There is no match #{match_id}.")
            raise NotFoundError(f"Turn {turn} of match #{match_id} has not been resolved.")
        return record

    async def turn_detail(self, match_id: int, turn: int) -> TurnRecord:
        """:meth:`history` with every strike of the turn's fights in its report (the full log):
        recomputed in a worker from the state before the turn and its orders."""
        record = await self.history(match_id, turn)
        if turn > 1:
            before = (await self.history(match_id, turn - 1)).state
        else:
            match = await self.core.read(match_id, with_state=True)
            if match.initial_state is None:
                return record
            before = match.initial_state
        report = await self.core.compute(eb.strike_detail, before, record.orders, record.report)
        return replace(record, report=report)

    async def turns(self, match_id: int) -> list[TurnRecord]:
        async with self.core.store.read() as s:
            return await s.list_turns(match_id)

    async def export_match(self, match_id: int) -> bytes:
        """The whole match as a JSON file; only once it is over, since it shows both hands."""
        async with self.core.store.read() as s:
            match = await s.get_match(match_id, with_state=True)
            turns = await s.list_turns(match_id) if match is not None else []
        if match is None:
            raise NotFoundError(f"There is no match #{match_id}.")
        if match.status != MatchStatus.ENDED:
            raise WrongStateError("A match can be exported once it is over.")
        return export.dumps(export.build_export(match, turns))

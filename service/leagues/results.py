"""A game's result, recorded once and rated in the same transaction; and the rating of the
matches played outside leagues."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from service.leagues import announce
from service.leagues.context import LeagueContext
from service.leagues.ratings import NEW_PLAYER, Rating, rate_game
from service.leagues.records import Outcome
from service.leagues.views import Season
from storage.leagues import LeagueGameRecord, LeagueQueries, LinkedMatch, RatingRecord


def outcome_for(game: LeagueGameRecord, linked: LinkedMatch) -> tuple[Outcome, str]:
    """The league outcome of a finished match, from the players' point of view."""
    seats = {s.side: s.player_id for s in linked.seats}
    reason = linked.end_reason or "ended"
    if reason == "abandoned":
        return Outcome.DOUBLE_FORFEIT, "neither player gave orders (no-show limit)"
    if linked.winner is None:
        return Outcome.DRAW, reason
    winner = seats.get(linked.winner)
    red_won = winner == game.red_id
    if reason == "forfeit":
        return (
            (Outcome.BLUE_FORFEIT, "blue reached the no-show limit")
            if red_won
            else (Outcome.RED_FORFEIT, "red reached the no-show limit")
        )
    return (Outcome.RED_WIN if red_won else Outcome.BLUE_WIN), reason


def unstarted_outcome(game: LeagueGameRecord, missing: Sequence[str | None]) -> Outcome:
    """The forfeit of a game whose match was not started in time: whoever had no deck loses."""
    red_missing = game.red_id in missing
    blue_missing = game.blue_id in missing
    if red_missing == blue_missing:
        return Outcome.DOUBLE_FORFEIT
    return Outcome.RED_FORFEIT if red_missing else Outcome.BLUE_FORFEIT


class Results:
    def __init__(self, ctx: LeagueContext) -> None:
        self.ctx = ctx

    async def record(
        self,
        season: Season,
        game: LeagueGameRecord,
        outcome: Outcome,
        *,
        detail: str,
        item: LinkedMatch | None,
    ) -> bool:
        """Record a result once, and rate it in the same transaction when it was played; False
        when the game had a result already."""
        now = self.ctx.now_ms()
        turns = {"red": (0, 0), "blue": (0, 0)}
        if item is not None:
            for seat in item.seats:
                if seat.player_id == game.red_id:
                    turns["red"] = (item.turns, seat.turns_with_orders)
                elif seat.player_id == game.blue_id:
                    turns["blue"] = (item.turns, seat.turns_with_orders)
        league = season.league
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            if not await q.record_result(
                game.league_id,
                game.round_no,
                game.board,
                outcome=outcome.value,
                detail=detail,
                red_turns=turns["red"][0],
                red_turns_with_orders=turns["red"][1],
                blue_turns=turns["blue"][0],
                blue_turns_with_orders=turns["blue"][1],
                now=now,
            ):
                return False
            counted = game.match_id is None or await q.mark_rated(
                game.match_id, league.guild_id, rated=not outcome.is_forfeit, now=now
            )
            if counted and not outcome.is_forfeit:
                await self.rate(
                    q,
                    league.guild_id,
                    game.red_id,
                    game.blue_id,
                    outcome=outcome,
                    names={p.player_id: p.name for p in season.players},
                    now=now,
                )
            red, blue = season.name(game.red_id), season.name(game.blue_id)
            told = announce.result(league, game, (red, blue), outcome, detail)
            await s.add_outbox(told, now=now)
        return True

    @staticmethod
    async def rate(
        q: LeagueQueries,
        guild_id: str,
        red_id: str,
        blue_id: str,
        *,
        outcome: Outcome,
        names: Mapping[str, str],
        now: int,
    ) -> None:
        records = {pid: await q.get_rating(guild_id, pid, lock=True) for pid in (red_id, blue_id)}
        before = {
            pid: NEW_PLAYER if r is None else Rating(r.mu, r.sigma, r.games)
            for pid, r in records.items()
        }
        red, blue = rate_game(before[red_id], before[blue_id], outcome)
        points = {red_id: outcome.red_points, blue_id: outcome.blue_points}
        for pid, new in ((red_id, red), (blue_id, blue)):
            old = records[pid]
            opponent = blue_id if pid == red_id else red_id
            mine, theirs = points[pid], points[opponent]
            name = names.get(pid) or (old.name if old is not None else pid)
            await q.put_rating(
                RatingRecord(
                    guild_id=guild_id,
                    player_id=pid,
                    name=name,
                    mu=new.mu,
                    sigma=new.sigma,
                    games=new.games,
                    wins=(0 if old is None else old.wins) + int(mine > theirs),
                    draws=(0 if old is None else old.draws) + int(mine == theirs),
                    losses=(0 if old is None else old.losses) + int(mine < theirs),
                    updated_at=now,
                )
            )

    async def rate_finished_matches(self, *, batch: int = 200) -> int:
        """Rate every ended match outside the leagues once (league games are rated when the
        league records them). Forfeits and abandoned matches are counted but not rated."""
        rated = 0
        while True:
            async with self.ctx.store.read() as s:
                pending = await LeagueQueries(s).unrated_matches(batch)
            if not pending:
                return rated
            now = self.ctx.now_ms()
            async with self.ctx.store.write() as s:
                q = LeagueQueries(s)
                for match in pending:
                    sides = {x.side: x.player_id for x in match.seats}
                    red, blue = sides.get("red"), sides.get("blue")
                    played = (
                        red is not None
                        and blue is not None
                        and match.end_reason not in ("forfeit", "abandoned")
                    )
                    if not await q.mark_rated(
                        match.match_id, match.guild_id, rated=played, now=now
                    ):
                        continue
                    if not played:
                        continue
                    assert red is not None and blue is not None
                    if match.winner is None:
                        outcome = Outcome.DRAW
                    else:
                        outcome = Outcome.RED_WIN if match.winner == "red" else Outcome.BLUE_WIN
                    await self.rate(
                        q, match.guild_id, red, blue, outcome=outcome, names={}, now=now
                    )
                    rated += 1

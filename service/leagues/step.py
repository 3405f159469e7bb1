"""The league's state machine: what `step()` does, and the recording and rating of results.

The database is the source of truth and every step is safe to repeat:

- `step()` does whatever is due, for every league: starts leagues whose start time came, creates
  the matches of an open round (or adopts one an interrupted step created), starts a match as soon
  as both players have a deck, reminds players who have not chosen one, forfeits a game nobody
  started by the round's start deadline, records results of finished matches (rating them in the
  same transaction), closes a complete round with its standings, opens the next round once its
  time has come, and ends the season after its last round. Each change is guarded (a round's
  primary key, `outcome IS NULL`, the league's version), and every announcement is an outbox row
  with a unique key, so a repeated or concurrent step changes nothing twice.
- `record_match_end` records a game's result as soon as its match ends (the league alarm hands
  it the match service's end notices); the step's pass over finished matches stays as the net
  for a notice that never came, and `outcome IS NULL` keeps whichever result came first.
- A round opens at `started_at + (n - 1) * round_seconds`, but never before every game of the
  round before has a result: Swiss pairings need them, and an unfinished match is never cut short.
- A match that ends by the match's no-show policy ("forfeit", or "abandoned" when both sides were
  absent) is a forfeit in the league, not a rated game.
- League matches are created with the pairing's colours (`create_match(red_seat=0)`: the
  creator is the red player) and with the league's deadline anchor, if it has one.
"""

from __future__ import annotations

import asyncio
import enum
import logging
import math
from dataclasses import dataclass, field
from typing import Any

from service.deadline_anchor import anchor_of
from service.errors import ServiceError, WrongStateError
from service.leagues import announce
from service.leagues.context import LeagueContext
from service.leagues.pairing import (
    RoundPairing,
    pair_swiss_round,
    round_robin_round,
    round_robin_rounds,
)
from service.leagues.ratings import NEW_PLAYER, Rating
from service.leagues.records import LeagueError, Outcome
from service.leagues.results import Results, outcome_for, unstarted_outcome
from service.leagues.settings import MAX_ROUNDS, LeagueActionError
from service.leagues.standings import compute_standings
from service.leagues.summary import SeasonSummary
from service.leagues.views import LeagueViews, Season, load_league, load_season, season_summary
from service.matches import MatchEnded
from storage import ConflictError
from storage.leagues import (
    LeagueGameRecord,
    LeaguePlayerRecord,
    LeagueQueries,
    LeagueRecord,
    LeagueRoundRecord,
    LinkedMatch,
)
from storage.records import LeagueStatus, MatchStatus

log = logging.getLogger(__name__)


@dataclass(slots=True)
class StepReport:
    """What one step did (for logs and tests)."""

    started: list[int] = field(default_factory=list)
    opened: list[tuple[int, int]] = field(default_factory=list)
    matches_created: list[int] = field(default_factory=list)
    matches_started: list[int] = field(default_factory=list)
    recorded: list[tuple[int, int, int, str]] = field(default_factory=list)
    reminders: int = 0
    rated_matches: int = 0
    completed: list[tuple[int, int]] = field(default_factory=list)
    ended: list[int] = field(default_factory=list)
    blocked: list[tuple[int, int]] = field(default_factory=list)


class _Opening(enum.Enum):
    OPENED = "opened"
    # Players joined or left after the pairing's read; nothing was written, pair again.
    STALE = "stale"
    # Not opened here: it cannot be paired, or another step opened it or ended the league.
    NOT_OPENED = "not_opened"


def default_rounds(fmt: str, count: int) -> int:
    if fmt == "round_robin":
        return round_robin_rounds(count)
    return max(1, min(count - 1, math.ceil(math.log2(max(count, 2))) + 1))


class Stepper:
    def __init__(self, ctx: LeagueContext, views: LeagueViews) -> None:
        self.ctx = ctx
        self.views = views
        self.results = Results(ctx)
        # One step at a time in this process (the database guards steps of other processes).
        self.lock = asyncio.Lock()

    async def begin(self, league_id: int, by: str) -> tuple[LeagueRecord, list[str]]:
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status != LeagueStatus.SIGNUP:
                raise WrongStateError(f"{league.name} has already started.")
            players = await q.list_players(league_id)
            dropped: list[str] = []
            if league.checkin_opens_at is not None:
                for p in players:
                    if p.checked_in_at is None:
                        await q.delete_player(league_id, p.player_id)
                        dropped.append(p.name)
                players = [p for p in players if p.checked_in_at is not None]
            if len(players) < 2:
                raise LeagueActionError(
                    f"{league.name} needs at least two players to start; it has {len(players)}."
                )
            ratings = {r.player_id: r for r in await q.list_ratings(league.guild_id)}

            def strength(p: LeaguePlayerRecord) -> tuple[int, int, str]:
                r = ratings.get(p.player_id)
                rating = NEW_PLAYER if r is None else Rating(r.mu, r.sigma, r.games)
                return (-rating.display, p.signed_up_at, p.player_id)

            for seed, p in enumerate(sorted(players, key=strength), start=1):
                r = ratings.get(p.player_id)
                await q.update_player(
                    league_id,
                    p.player_id,
                    seed=seed,
                    start_mu=NEW_PLAYER.mu if r is None else r.mu,
                    start_sigma=NEW_PLAYER.sigma if r is None else r.sigma,
                )
            rounds = league.rounds or default_rounds(league.format, len(players))
            # More Swiss rounds than opponents would force a repeat pairing.
            most = (
                round_robin_rounds(len(players))
                if league.format == "round_robin"
                else (len(players) - 1)
            )
            rounds = max(1, min(rounds, most))
            await q.update_league(
                league_id,
                status=LeagueStatus.RUNNING,
                rounds=rounds,
                started_at=now,
                current_round=0,
            )
            league = await load_league(q, league_id)
            season = await load_season(q, league)
            seeds = [e.name for e in season.entrants()]
            await s.add_outbox(announce.started(league, by, seeds, dropped), now=now)
        return league, dropped

    async def stop_match(self, match_id: int, player_id: str) -> None:
        """End a league match whose result the league has already recorded."""
        try:
            match = await self.ctx.matches.get_match(match_id)
            if match.status == MatchStatus.OPEN:
                await self.ctx.matches.cancel_match(match_id, player_id)
            elif match.status in (MatchStatus.ACTIVE, MatchStatus.PAUSED):
                await self.ctx.matches.concede(match_id, player_id)
        except ServiceError as exc:
            log.info("league match %s could not be stopped: %s", match_id, exc)

    async def step(self) -> StepReport:
        """Do whatever is due in every league; safe to run at any time, as often as wanted."""
        report = StepReport()
        async with self.lock:
            now = self.ctx.now_ms()
            async with self.ctx.store.read() as s:
                q = LeagueQueries(s)
                waiting = await q.list_leagues(statuses=[LeagueStatus.SIGNUP])
                running = await q.list_leagues(statuses=[LeagueStatus.RUNNING])
            for league in waiting:
                if league.starts_at is not None and league.starts_at <= now:
                    try:
                        await self.begin(league.id, "schedule")
                    except ServiceError as exc:
                        await self._refuse_scheduled_start(league, str(exc))
                        continue
                    report.started.append(league.id)
                    running.append(league)
            for league in running:
                try:
                    await self.advance(league.id, report)
                except Exception:
                    log.exception("league %s: step failed; the next step retries", league.id)
            try:
                report.rated_matches = await self.results.rate_finished_matches()
            except Exception:
                log.exception("rating finished matches failed; the next step retries")
        return report

    async def record_match_end(self, ended: MatchEnded) -> bool:
        """Record the league result of a match that has just ended (a `MatchService` end
        listener); True when recorded now. The step records any result this misses, and
        `record_result` keeps a game's first result, so each is recorded once either way."""
        async with self.ctx.store.read() as s:
            q = LeagueQueries(s)
            game = await q.game_for_match(ended.match_id)
            if game is None or game.outcome is not None:
                return False
            league = await load_league(q, game.league_id)
            if league.status != LeagueStatus.RUNNING:
                return False
            season = await load_season(q, league)
            linked = [x for x in await q.pending_linked(league.id) if x.game == game]
        if not linked or linked[0].status != MatchStatus.ENDED:
            return False
        outcome, detail = outcome_for(game, linked[0])
        return await self.results.record(season, game, outcome, detail=detail, item=linked[0])

    async def _refuse_scheduled_start(self, league: LeagueRecord, reason: str) -> None:
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            await q.update_league(league.id, starts_at=None)
            notice = announce.notice(league, reason, starts_at=league.starts_at)
            await s.add_outbox(notice, now=now)

    async def advance(self, league_id: int, report: StepReport) -> None:
        for _ in range(MAX_ROUNDS + 2):
            season = await self.views.season(league_id)
            league = season.league
            if league.status != LeagueStatus.RUNNING:
                return
            current = league.current_round
            if current >= 1 and not season.round_complete(current):
                await self._tend_round(season, report)
                season = await self.views.season(league_id)
                if not season.round_complete(current):
                    return
            if current >= 1:
                await self._complete_round(season, current, report)
            if current >= league.rounds:
                await self.finish(league_id, early=False)
                report.ended.append(league_id)
                return
            due = season.scheduled_open(current + 1)
            if due is None or self.ctx.now_ms() < due:
                return
            if await self._open_round(season, current + 1, report) is _Opening.NOT_OPENED:
                return

    async def _open_round(self, season: Season, round_no: int, report: StepReport) -> _Opening:
        """Pair round `round_no` from `season` and open it, unless the league changed since
        `season` was read (a join or withdrawal committed meanwhile): then nothing is written
        and `_advance` pairs again from a fresh read."""
        league = season.league
        entrants = season.entrants()
        # Pairing a large Swiss field late in a season is CPU-heavy; off the event loop the
        # bot keeps answering while it runs. The functions are pure, so the result is the same.
        try:
            if league.format == "round_robin":
                pairing: RoundPairing = await asyncio.to_thread(
                    round_robin_round, entrants, round_no
                )
            else:
                pairing = await asyncio.to_thread(
                    pair_swiss_round,
                    round_no,
                    entrants,
                    season.results(),
                    season.bye_records(),
                    season.config,
                )
        except LeagueError as exc:
            # PairingError (no pairing without a repeat) among others: the organisers decide.
            await self._blocked(league, round_no, str(exc))
            report.blocked.append((league.id, round_no))
            return _Opening.NOT_OPENED
        now = self.ctx.now_ms()
        start_deadline = now + league.start_seconds * 1000
        text = pairing.to_text()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            locked = await load_league(q, league.id, lock=True)
            if locked.status != LeagueStatus.RUNNING or locked.current_round != round_no - 1:
                return _Opening.NOT_OPENED
            if locked.version != league.version:
                return _Opening.STALE
            try:
                await q.insert_round(
                    league.id, round_no, opened_at=now, start_deadline=start_deadline, text=text
                )
            except ConflictError:
                return _Opening.NOT_OPENED
            for p in pairing.pairings:
                await q.insert_game(league.id, round_no, p.board, p.red, p.blue)
            reasons = {b.player_id: b.reason for b in pairing.explanation.byes}
            for player_id in pairing.byes:
                await q.insert_bye(
                    league.id, round_no, player_id, reasons.get(player_id, "no opponent")
                )
            if not await q.update_league(
                league.id, expect_version=locked.version, current_round=round_no
            ):
                raise WrongStateError(f"{league.name} changed while opening round {round_no}.")
            opened = announce.round_opened(league, round_no, start_deadline, text)
            await s.add_outbox(opened, now=now)
        report.opened.append((league.id, round_no))
        log.info("league %s: round %s opened", league.id, round_no)
        return _Opening.OPENED

    async def _blocked(self, league: LeagueRecord, round_no: int, reason: str) -> None:
        async with self.ctx.store.write() as s:
            blocked = announce.notice(league, reason, round_no=round_no)
            await s.add_outbox(blocked, now=self.ctx.now_ms())

    async def _tend_round(self, season: Season, report: StepReport) -> None:
        """Create missing matches, start ready ones, remind, forfeit, record results."""
        league = season.league
        rnd = season.round(league.current_round)
        assert rnd is not None
        # A second pass re-creates a match that the first pass found cancelled too early.
        for _ in range(2):
            async with self.ctx.store.read() as s:
                games = await LeagueQueries(s).list_games(league.id, round_no=rnd.round_no)
            for game in games:
                if game.outcome is None and game.match_id is None:
                    created = await self._ensure_match(season, rnd, game)
                    if created is not None:
                        report.matches_created.append(created)
            async with self.ctx.store.read() as s:
                linked = await LeagueQueries(s).pending_linked(league.id)
            now = self.ctx.now_ms()
            unlinked = False
            for item in linked:
                if item.game.round_no == rnd.round_no:
                    unlinked |= await self._tend_game(season, rnd, item, now, report)
            if not unlinked:
                return

    async def _ensure_match(
        self, season: Season, rnd: LeagueRoundRecord, game: LeagueGameRecord
    ) -> int | None:
        """Create the game's match, or adopt the one an interrupted step created: open, made
        since the round opened, between these players in this order, with the league's rules."""
        league = season.league
        anchor = anchor_of(league)
        decks = {p.player_id: p.deck_id for p in season.players}
        adopted: int | None = None
        for match in await self.ctx.matches.list_matches(
            player_id=game.red_id, guild_id=league.guild_id, statuses=[MatchStatus.OPEN]
        ):
            players = tuple(seat.player_id for seat in match.seats)
            if (
                players == (game.red_id, game.blue_id)
                and match.created_at >= rnd.opened_at
                and match.channel_id == league.channel_id
                and (match.ruleset, match.realm, match.turn_seconds, match.no_show_limit)
                == (league.ruleset, league.realm, league.turn_seconds, league.no_show_limit)
                and anchor_of(match) == anchor
            ):
                async with self.ctx.store.read() as s:
                    if await LeagueQueries(s).game_for_match(match.id) is None:
                        adopted = match.id
                        break
        if adopted is None:
            red_deck = decks.get(game.red_id)
            kwargs: dict[str, Any] = {
                "opponent_id": game.blue_id,
                "ruleset": league.ruleset,
                "realm": league.realm,
                "turn_seconds": league.turn_seconds,
                "no_show_limit": league.no_show_limit,
                "guild_id": league.guild_id,
                "channel_id": league.channel_id,
                # The pairing chose the colours: the match creator (red's player) plays red.
                "red_seat": 0,
                "anchor": anchor if anchor.anchored else None,
            }
            try:
                match = await self.ctx.matches.create_match(game.red_id, deck_id=red_deck, **kwargs)
            except ServiceError:
                match = await self.ctx.matches.create_match(game.red_id, **kwargs)
            adopted = match.id
        async with self.ctx.store.write() as s:
            linked = await LeagueQueries(s).link_match(
                league.id, game.round_no, game.board, adopted
            )
        if not linked:
            async with self.ctx.store.read() as s:
                owner = await LeagueQueries(s).game_for_match(adopted)
            if owner is None:
                await self.stop_match(adopted, game.red_id)
            return None
        blue_deck = decks.get(game.blue_id)
        if blue_deck is not None:
            try:
                await self.ctx.matches.choose_deck(adopted, game.blue_id, blue_deck)
            except ServiceError as exc:
                log.info("league match %s: blue's league deck not used: %s", adopted, exc)
        return adopted

    async def _tend_game(
        self,
        season: Season,
        rnd: LeagueRoundRecord,
        item: LinkedMatch,
        now: int,
        report: StepReport,
    ) -> bool:
        """Move one game on; True when its match was detached to be made again."""
        game = item.game
        assert game.match_id is not None
        if item.status == MatchStatus.ENDED:
            outcome, detail = outcome_for(game, item)
            await self._record(season, game, outcome, detail=detail, item=item, report=report)
            return False
        missing = [seat.player_id for seat in item.seats if not seat.has_deck]
        if item.status == MatchStatus.CANCELLED:
            if now < rnd.start_deadline:
                async with self.ctx.store.write() as s:
                    await LeagueQueries(s).unlink_match(
                        game.league_id, game.round_no, game.board, game.match_id
                    )
                return True
            await self._record(
                season,
                game,
                unstarted_outcome(game, missing),
                detail="not started by the deadline",
                item=item,
                report=report,
            )
            return False
        if item.status != MatchStatus.OPEN:
            return False
        if not missing:
            try:
                await self.ctx.matches.start_match(game.match_id, game.red_id)
                report.matches_started.append(game.match_id)
            except ServiceError as exc:
                log.info("league match %s did not start: %s", game.match_id, exc)
            return False
        if now >= rnd.start_deadline:
            await self.stop_match(game.match_id, game.red_id)
            await self._record(
                season,
                game,
                unstarted_outcome(game, missing),
                detail="not started by the deadline",
                item=item,
                report=report,
            )
            return False
        due = [p for p in self.ctx.reminders if rnd.start_deadline - p * 1000 <= now]
        if not due:
            return False
        point = min(due)
        async with self.ctx.store.write() as s:
            for player_id in missing:
                if player_id is None:
                    continue
                told = announce.reminder(season.league, game, player_id, rnd.start_deadline, point)
                added = await s.add_outbox(told, now=now)
                report.reminders += int(added)
        return False

    async def _record(
        self,
        season: Season,
        game: LeagueGameRecord,
        outcome: Outcome,
        *,
        detail: str,
        item: LinkedMatch | None,
        report: StepReport,
    ) -> None:
        if await self.results.record(season, game, outcome, detail=detail, item=item):
            report.recorded.append((game.league_id, game.round_no, game.board, outcome.value))

    async def _complete_round(self, season: Season, round_no: int, report: StepReport) -> None:
        league = season.league
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            if not await q.complete_round(league.id, round_no, now):
                return
            fresh = await load_season(q, await load_league(q, league.id))
            standings = compute_standings(
                fresh.entrants(),
                fresh.results(),
                fresh.bye_records(),
                fresh.config,
                through_round=round_no,
            )
            await s.add_outbox(announce.standings(league, round_no, standings), now=now)
        report.completed.append((league.id, round_no))

    async def finish(self, league_id: int, *, early: bool) -> SeasonSummary:
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status == LeagueStatus.RUNNING:
                await q.update_league(league_id, status=LeagueStatus.ENDED, ended_at=now)
            season = await load_season(q, await load_league(q, league_id))
            summary = season_summary(season)
            told = announce.ended(league, summary.standings, early=early)
            await s.add_outbox(told, now=now)
        return summary

    async def next_wake(self) -> int | None:
        """The next moment (ms) at which `step()` has something to do that no event triggers."""
        now = self.ctx.now_ms()
        moments: list[int] = []
        async with self.ctx.store.read() as s:
            q = LeagueQueries(s)
            for league in await q.list_leagues(statuses=[LeagueStatus.SIGNUP]):
                if league.starts_at is not None:
                    moments.append(league.starts_at)
            for league in await q.list_leagues(statuses=[LeagueStatus.RUNNING]):
                season = await load_season(q, league)
                nxt = season.scheduled_open(league.current_round + 1)
                if nxt is not None and league.current_round < league.rounds:
                    moments.append(nxt)
                rnd = season.round(league.current_round)
                if rnd is not None and not season.round_complete(rnd.round_no):
                    moments.append(rnd.start_deadline)
                    moments.extend(rnd.start_deadline - p * 1000 for p in self.ctx.reminders)
        future = [m for m in moments if m > now]
        return min(future) if future else None

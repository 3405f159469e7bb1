"""What players and moderators ask of a league: create and configure it, sign up, check in,
start, join late, withdraw, end."""

from __future__ import annotations

import logging
from dataclasses import replace
from typing import Any

from service.deadline_anchor import anchor_columns
from service.errors import NotAllowedError, NotFoundError, WrongStateError
from service.leagues import announce
from service.leagues.context import LeagueContext
from service.leagues.ratings import NEW_PLAYER
from service.leagues.records import Outcome
from service.leagues.settings import MAX_NAME_LENGTH, LeagueActionError, LeagueSettings
from service.leagues.step import Stepper, StepReport
from service.leagues.summary import SeasonSummary
from service.leagues.views import LeagueViews, load_league, load_season, season_summary
from storage import ConflictError, Session
from storage.leagues import LeagueGameRecord, LeaguePlayerRecord, LeagueQueries, LeagueRecord
from storage.records import LeagueStatus, MatchStatus

log = logging.getLogger(__name__)


class LeagueCommands:
    def __init__(self, ctx: LeagueContext, views: LeagueViews, stepper: Stepper) -> None:
        self.ctx = ctx
        self.views = views
        self.stepper = stepper

    async def create_league(
        self,
        *,
        guild_id: str,
        channel_id: str | None,
        name: str,
        by: str,
        moderator: bool,
        settings: LeagueSettings | None = None,
    ) -> LeagueRecord:
        if not moderator:
            raise NotAllowedError("Only a moderator can create a league.")
        name = " ".join(name.split())
        if not 1 <= len(name) <= MAX_NAME_LENGTH:
            raise LeagueActionError(f"A league name has 1 to {MAX_NAME_LENGTH} characters.")
        chosen = settings or LeagueSettings()
        chosen.check()
        now = self.ctx.now_ms()
        taken = LeagueActionError(f"This server already has a league named {name!r}.")
        try:
            async with self.ctx.store.write() as s:
                q = LeagueQueries(s)
                if await q.get_league_by_name(guild_id, name) is not None:
                    raise taken
                league_id = await q.insert_league(
                    guild_id=guild_id,
                    channel_id=channel_id,
                    name=name,
                    created_by=by,
                    format=chosen.format,
                    rounds=chosen.rounds,
                    round_seconds=chosen.round_seconds,
                    turn_seconds=chosen.turn_seconds,
                    start_seconds=chosen.start_window,
                    start_chosen=chosen.start_seconds != 0,
                    no_show_limit=chosen.no_show_limit,
                    ruleset=chosen.ruleset,
                    realm=chosen.realm,
                    bye_halves=int(chosen.bye_points * 2),
                    missed_halves=int(chosen.missed_round_points * 2),
                    now=now,
                )
                await q.update_league(league_id, **self._windows(chosen))
                return await load_league(q, league_id)
        except ConflictError:
            raise taken from None

    @staticmethod
    def _windows(settings: LeagueSettings) -> dict[str, Any]:
        """The settings stored after the league's row is made: its windows and anchor."""
        return anchor_columns(settings.anchor) | {
            "signup_opens_at": settings.signup_opens_at,
            "signup_closes_at": settings.signup_closes_at,
            "checkin_opens_at": settings.checkin_opens_at,
            "checkin_closes_at": settings.checkin_closes_at,
            "starts_at": settings.starts_at,
        }

    async def configure(
        self, league_id: int, *, by: str, moderator: bool, **changes: Any
    ) -> LeagueRecord:
        """Change settings (the names of `LeagueSettings`) before the season starts."""
        if not moderator:
            raise NotAllowedError("Only a moderator can change a league's settings.")
        unknown = sorted(set(changes) - set(LeagueSettings.__dataclass_fields__))
        if unknown:
            raise LeagueActionError(f"Unknown league settings: {', '.join(unknown)}.")
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status != LeagueStatus.SIGNUP:
                raise WrongStateError(
                    f"{league.name} has started; its settings can no longer change."
                )
            chosen = replace(LeagueSettings.of(league), **changes)
            chosen.check()
            await q.update_league(
                league_id,
                format=chosen.format,
                rounds=chosen.rounds,
                round_seconds=chosen.round_seconds,
                turn_seconds=chosen.turn_seconds,
                start_seconds=chosen.start_window,
                start_chosen=int(chosen.start_seconds != 0),
                no_show_limit=chosen.no_show_limit,
                ruleset=chosen.ruleset,
                realm=chosen.realm,
                bye_halves=int(chosen.bye_points * 2),
                missed_halves=int(chosen.missed_round_points * 2),
                **self._windows(chosen),
            )
            log.info("league %s settings changed by %s: %s", league_id, by, sorted(changes))
            return await load_league(q, league_id)

    @staticmethod
    async def _check_deck(s: Session, player_id: str, deck_id: int | None) -> None:
        if deck_id is None:
            return
        deck = await s.get_deck(deck_id)
        if deck is None or deck.owner_id != player_id:
            raise NotFoundError(f"You have no deck #{deck_id}.")

    async def signup(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        """Sign up for a season that has not started (or change the deck you signed up with)."""
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status == LeagueStatus.RUNNING:
                raise WrongStateError(
                    f"{league.name} has started; use `/league join` to enter from the next round."
                )
            if league.status != LeagueStatus.SIGNUP:
                raise WrongStateError(f"{league.name} is over.")
            if league.signup_opens_at is not None and now < league.signup_opens_at:
                raise LeagueActionError(
                    f"Sign-up for {league.name} opens <t:{league.signup_opens_at // 1000}:R>."
                )
            if league.signup_closes_at is not None and now >= league.signup_closes_at:
                raise LeagueActionError(f"Sign-up for {league.name} has closed.")
            await self._check_deck(s, player_id, deck_id)
            existing = await q.get_player(league_id, player_id)
            if (
                existing is None
                and league.checkin_closes_at is not None
                and now >= league.checkin_closes_at
            ):
                # A new sign-up could never check in, and so would be dropped at the start.
                raise LeagueActionError(
                    f"Check-in for {league.name} has closed, so sign-up has closed too."
                )
            if existing is not None:
                if deck_id is None:
                    raise LeagueActionError(f"You are already signed up for {league.name}.")
                await q.update_player(league_id, player_id, deck_id=deck_id, name=name)
            else:
                await q.insert_player(league_id, player_id, name, deck_id=deck_id, now=now)
            await q.update_league(league_id)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    def checkin_hint(self, league: LeagueRecord, player: LeaguePlayerRecord) -> str:
        """What a signed-up player still has to do to be entered; "" when nothing is left
        (no check-in, already checked in, or check-in over)."""
        if league.checkin_opens_at is None or player.checked_in_at is not None:
            return ""
        now = self.ctx.now_ms()
        if league.checkin_closes_at is not None and now >= league.checkin_closes_at:
            return ""
        if now < league.checkin_opens_at:
            return (
                f"Remember to `/league checkin` when check-in opens "
                f"<t:{league.checkin_opens_at // 1000}:R>."
            )
        return "Check-in is open: `/league checkin` now to be entered."

    async def checkin(self, league_id: int, player_id: str) -> LeaguePlayerRecord:
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status != LeagueStatus.SIGNUP:
                raise WrongStateError(f"{league.name} is not waiting for check-in.")
            player = await q.get_player(league_id, player_id)
            if player is None:
                raise LeagueActionError(f"You are not signed up for {league.name}.")
            if league.checkin_opens_at is None:
                raise LeagueActionError(f"{league.name} needs no check-in: you are in.")
            if now < league.checkin_opens_at:
                raise LeagueActionError(
                    f"Check-in for {league.name} opens <t:{league.checkin_opens_at // 1000}:R>."
                )
            if league.checkin_closes_at is not None and now >= league.checkin_closes_at:
                raise LeagueActionError(f"Check-in for {league.name} has closed.")
            if player.checked_in_at is not None:
                raise LeagueActionError(f"You have already checked in for {league.name}.")
            await q.update_player(league_id, player_id, checked_in_at=now)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    async def start(
        self, league_id: int, *, by: str, moderator: bool
    ) -> tuple[LeagueRecord, list[str]]:
        """Close sign-up, seed the field by rating, open round one. Returns the league and the
        names of players dropped for not checking in."""
        if not moderator:
            raise NotAllowedError("Only a moderator can start a league.")
        _, dropped = await self.stepper.begin(league_id, by)
        async with self.stepper.lock:
            await self.stepper.advance(league_id, StepReport())
        return await self.views.get_league(league_id), dropped

    async def join(
        self, league_id: int, player_id: str, name: str, *, deck_id: int | None = None
    ) -> LeaguePlayerRecord:
        """Enter a running Swiss season from the next round on."""
        now = self.ctx.now_ms()
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status == LeagueStatus.SIGNUP:
                raise WrongStateError(f"{league.name} has not started; use `/league signup`.")
            if league.status != LeagueStatus.RUNNING:
                raise WrongStateError(f"{league.name} is over.")
            if league.format != "swiss":
                raise LeagueActionError(
                    "A round-robin's schedule is fixed at the start; join the next season, or "
                    "a Swiss league."
                )
            joined = league.current_round + 1
            if joined > league.rounds:
                raise LeagueActionError(
                    f"{league.name} is in its last round; there is no round left."
                )
            if await q.get_player(league_id, player_id) is not None:
                raise LeagueActionError(f"You are already in {league.name}.")
            await self._check_deck(s, player_id, deck_id)
            players = await q.list_players(league_id)
            seed = max((p.seed or 0 for p in players), default=0) + 1
            rating = await q.get_rating(league.guild_id, player_id)
            await q.insert_player(
                league_id, player_id, name, deck_id=deck_id, now=now, joined_round=joined
            )
            await q.update_player(
                league_id,
                player_id,
                seed=seed,
                start_mu=NEW_PLAYER.mu if rating is None else rating.mu,
                start_sigma=NEW_PLAYER.sigma if rating is None else rating.sigma,
            )
            await q.update_league(league_id)
            player = await q.get_player(league_id, player_id)
        assert player is not None
        return player

    async def withdraw(
        self, league_id: int, player_id: str, *, by: str, moderator: bool = False
    ) -> str:
        """Leave a season. Before the start the sign-up is removed; during the season the
        player is not paired again and an unfinished game of the current round is forfeited.
        Returns a sentence saying what happened."""
        if by != player_id and not moderator:
            raise NotAllowedError("Only a moderator can withdraw another player.")
        now = self.ctx.now_ms()
        forfeited: LeagueGameRecord | None = None
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            player = await q.get_player(league_id, player_id)
            if player is None:
                raise LeagueActionError(f"That player is not in {league.name}.")
            if league.status == LeagueStatus.SIGNUP:
                await q.delete_player(league_id, player_id)
                await q.update_league(league_id)
                return f"{player.name} is no longer signed up for {league.name}."
            if league.status != LeagueStatus.RUNNING:
                raise WrongStateError(f"{league.name} is over.")
            if player.withdrawn_from_round is not None:
                raise LeagueActionError(f"{player.name} has already withdrawn from {league.name}.")
            current = league.current_round
            await q.update_player(
                league_id, player_id, withdrawn_from_round=max(current + 1, player.joined_round)
            )
            for game in await q.list_games(league_id, round_no=current):
                if game.outcome is None and player_id in (game.red_id, game.blue_id):
                    outcome = (
                        Outcome.RED_FORFEIT if game.red_id == player_id else Outcome.BLUE_FORFEIT
                    )
                    await q.record_result(
                        league_id,
                        game.round_no,
                        game.board,
                        outcome=outcome.value,
                        detail="withdrew",
                        now=now,
                    )
                    if game.match_id is not None:
                        # The match is conceded below; a forfeit is never rated.
                        await q.mark_rated(game.match_id, league.guild_id, rated=False, now=now)
                    forfeited = game
            await q.update_league(league_id)
            told = announce.withdrawal(league, player_id, player.name)
            await s.add_outbox(told, now=now)
        message = f"{player.name} has withdrawn from {league.name}."
        if forfeited is not None:
            message += f" Their round {forfeited.round_no} game is forfeited."
            if forfeited.match_id is not None:
                await self.stepper.stop_match(forfeited.match_id, player_id)
        async with self.stepper.lock:
            await self.stepper.advance(league_id, StepReport())
        return message

    async def end(self, league_id: int, *, by: str, moderator: bool) -> SeasonSummary:
        """End the season now (moderators); the summary uses every result recorded so far.
        The league's matches that have not started are cancelled."""
        if not moderator:
            raise NotAllowedError("Only a moderator can end a league.")
        async with self.ctx.store.write() as s:
            q = LeagueQueries(s)
            league = await load_league(q, league_id, lock=True)
            if league.status in (LeagueStatus.ENDED, LeagueStatus.CANCELLED):
                raise WrongStateError(f"{league.name} is already over.")
            if league.status == LeagueStatus.SIGNUP:
                await q.update_league(
                    league_id, status=LeagueStatus.CANCELLED, ended_at=self.ctx.now_ms()
                )
                season = await load_season(q, await load_league(q, league_id))
                return season_summary(season)
        log.info("league %s ended early by %s", league_id, by)
        summary = await self.stepper.finish(league_id, early=True)
        # Matches that never started would wait for players forever; ones in progress play on.
        for game in (await self.views.season(league_id)).games:
            if game.outcome is None and game.match_id is not None:
                match = await self.ctx.matches.get_match(game.match_id)
                if match.status == MatchStatus.OPEN:
                    await self.stepper.stop_match(game.match_id, game.red_id)
        return summary

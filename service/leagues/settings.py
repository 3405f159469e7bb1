"""What a moderator chooses for a league season, and the checks on it."""

from __future__ import annotations

from dataclasses import dataclass, field

from engine.content import load_content
from engine.state import RULESETS
from service.deadline_anchor import DeadlineAnchor, anchor_of
from service.errors import ServiceError
from storage.leagues import LeagueRecord

FORMATS = ("swiss", "round_robin")
MAX_NAME_LENGTH = 60
MAX_ROUNDS = 50
MIN_ROUND_SECONDS = 60
MAX_ROUND_SECONDS = 60 * 86400
# Reminder points (seconds before a round's start deadline) for players without a deck.
DEFAULT_REMINDERS: tuple[int, ...] = (24 * 3600, 3600)


class LeagueActionError(ServiceError):
    """A league action that cannot be done as asked (a full round, a closed window, ...)."""

    code = "league_refused"


@dataclass(frozen=True, slots=True)
class LeagueSettings:
    """What a moderator chooses for a season. Times are milliseconds since the epoch.

    `rounds` 0 means "decide at the start": every round of a round-robin, or for Swiss one more
    than the number of doublings of the field. `start_seconds` is how long players have, from a
    round's opening, to get their match started (choose a deck) before it is forfeited; 0 means
    half the round, at most two days, worked out again whenever the round length changes.
    `anchor` moves the deadlines of the league's matches to a time of day and allowed weekdays
    (`service.deadline_anchor`), as `/match create clock: days:` does for one match.
    """

    format: str = "swiss"
    rounds: int = 0
    round_seconds: int = 7 * 86400
    turn_seconds: int = 86400
    start_seconds: int = 0
    no_show_limit: int = 3
    ruleset: str = "classic"
    realm: str = "veldt"
    bye_points: float = 1.0
    missed_round_points: float = 0.0
    signup_opens_at: int | None = None
    signup_closes_at: int | None = None
    checkin_opens_at: int | None = None
    checkin_closes_at: int | None = None
    starts_at: int | None = None
    anchor: DeadlineAnchor = field(default_factory=DeadlineAnchor)

    @classmethod
    def of(cls, league: LeagueRecord) -> LeagueSettings:
        return cls(
            format=league.format,
            rounds=league.rounds,
            round_seconds=league.round_seconds,
            turn_seconds=league.turn_seconds,
            start_seconds=league.start_seconds if league.start_chosen else 0,
            no_show_limit=league.no_show_limit,
            ruleset=league.ruleset,
            realm=league.realm,
            bye_points=league.bye_halves / 2,
            missed_round_points=league.missed_halves / 2,
            signup_opens_at=league.signup_opens_at,
            signup_closes_at=league.signup_closes_at,
            checkin_opens_at=league.checkin_opens_at,
            checkin_closes_at=league.checkin_closes_at,
            starts_at=league.starts_at,
            anchor=anchor_of(league),
        )

    @property
    def start_window(self) -> int:
        return self.start_seconds or min(2 * 86400, self.round_seconds // 2)

    def check(self) -> None:
        """Raise LeagueActionError with every reason these settings cannot be used."""
        problems: list[str] = []
        if self.format not in FORMATS:
            problems.append("the format is `swiss` or `round_robin`")
        if not 0 <= self.rounds <= MAX_ROUNDS:
            problems.append(f"rounds go from 1 to {MAX_ROUNDS} (0: decided at the start)")
        if not MIN_ROUND_SECONDS <= self.round_seconds <= MAX_ROUND_SECONDS:
            problems.append("a round lasts between a minute and 60 days")
        if not 1 <= self.turn_seconds <= 14 * 86400:
            problems.append("a turn lasts between one second and two weeks")
        if not 1 <= self.start_window <= self.round_seconds:
            problems.append("the time to start a match must fit within the round")
        if not 0 <= self.no_show_limit <= 20:
            problems.append("the no-show limit goes from 0 (off) to 20")
        if self.ruleset not in RULESETS:
            problems.append(f"the ruleset is one of {', '.join(RULESETS)}")
        realms = load_content().realms
        if self.realm not in realms:
            problems.append(f"the realm is one of {', '.join(sorted(realms))}")
        for key in ("bye_points", "missed_round_points"):
            if getattr(self, key) not in (0.0, 0.5, 1.0):
                problems.append(f"{key.replace('_', ' ')} are 0, 0.5 or 1")
        for opens, closes, what in (
            (self.signup_opens_at, self.signup_closes_at, "sign-up"),
            (self.checkin_opens_at, self.checkin_closes_at, "check-in"),
        ):
            if opens is not None and closes is not None and closes <= opens:
                problems.append(f"the {what} window must close after it opens")
        if problems:
            raise LeagueActionError("These settings cannot be used: " + "; ".join(problems) + ".")

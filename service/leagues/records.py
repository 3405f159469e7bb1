"""The values every league calculation shares: entrants, results, byes and scoring.

Player ids are plain strings (a Discord user id rendered as text, or any stable key). Points are
kept as multiples of one half, so every score and every Sonneborn-Berger sum (multiples of one
quarter) is exact in binary floating point and ties compare exactly.
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass


class LeagueError(ValueError):
    """Inconsistent league input (unknown player, result for a future round, ...)."""


@dataclass(frozen=True, slots=True)
class Entrant:
    """A player registered for a season.

    `seed` orders players before any result exists (1 is the top seed) and is the final,
    deterministic tie-break. `joined_round` is the first round the player can be paired in (late
    joiners get the round after the one running when they joined). `withdrawn_from_round` is the
    first round the player is no longer paired in; None while the player is still in.
    """

    player_id: str
    name: str
    seed: int
    joined_round: int = 1
    withdrawn_from_round: int | None = None

    def __post_init__(self) -> None:
        if not self.player_id:
            raise LeagueError("an entrant needs a non-empty player id")
        if self.joined_round < 1:
            raise LeagueError(f"entrant {self.player_id}: joined_round must be at least 1")
        if self.withdrawn_from_round is not None and self.withdrawn_from_round < self.joined_round:
            raise LeagueError(
                f"entrant {self.player_id}: withdrawn_from_round comes before joined_round"
            )

    def active_in(self, round_no: int) -> bool:
        """Whether the player is paired in `round_no`."""
        if round_no < self.joined_round:
            return False
        return self.withdrawn_from_round is None or round_no < self.withdrawn_from_round


class Outcome(enum.Enum):
    """How a league game ended, seen from the board: red is listed first."""

    RED_WIN = "red_win"
    BLUE_WIN = "blue_win"
    DRAW = "draw"
    RED_FORFEIT = "red_forfeit"
    """Red did not play: blue wins by forfeit."""
    BLUE_FORFEIT = "blue_forfeit"
    """Blue did not play: red wins by forfeit."""
    DOUBLE_FORFEIT = "double_forfeit"
    """Neither played: both take a forfeit loss."""

    @property
    def is_forfeit(self) -> bool:
        return self in (Outcome.RED_FORFEIT, Outcome.BLUE_FORFEIT, Outcome.DOUBLE_FORFEIT)

    @property
    def red_points(self) -> float:
        return _RED_POINTS[self]

    @property
    def blue_points(self) -> float:
        return _BLUE_POINTS[self]


_RED_POINTS: Mapping[Outcome, float] = {
    Outcome.RED_WIN: 1.0,
    Outcome.BLUE_WIN: 0.0,
    Outcome.DRAW: 0.5,
    Outcome.RED_FORFEIT: 0.0,
    Outcome.BLUE_FORFEIT: 1.0,
    Outcome.DOUBLE_FORFEIT: 0.0,
}
_BLUE_POINTS: Mapping[Outcome, float] = {
    Outcome.RED_WIN: 0.0,
    Outcome.BLUE_WIN: 1.0,
    Outcome.DRAW: 0.5,
    Outcome.RED_FORFEIT: 1.0,
    Outcome.BLUE_FORFEIT: 0.0,
    Outcome.DOUBLE_FORFEIT: 0.0,
}


@dataclass(frozen=True, slots=True)
class Game:
    """One finished league game."""

    round_no: int
    red: str
    blue: str
    outcome: Outcome

    def __post_init__(self) -> None:
        if self.red == self.blue:
            raise LeagueError(f"round {self.round_no}: {self.red} cannot play themself")
        if self.round_no < 1:
            raise LeagueError(f"game {self.red}-{self.blue}: round must be at least 1")

    @property
    def played(self) -> bool:
        """Whether the game was actually played (not decided by a forfeit)."""
        return not self.outcome.is_forfeit

    def points_of(self, player_id: str) -> float:
        if player_id == self.red:
            return self.outcome.red_points
        if player_id == self.blue:
            return self.outcome.blue_points
        raise LeagueError(f"{player_id} did not play {self.red}-{self.blue}")

    def opponent_of(self, player_id: str) -> str:
        if player_id == self.red:
            return self.blue
        if player_id == self.blue:
            return self.red
        raise LeagueError(f"{player_id} did not play {self.red}-{self.blue}")

    def winner(self) -> str | None:
        red, blue = self.outcome.red_points, self.outcome.blue_points
        if red > blue:
            return self.red
        if blue > red:
            return self.blue
        return None


@dataclass(frozen=True, slots=True)
class Bye:
    """A round a player sat out without an opponent (odd field, or opponent withdrew)."""

    round_no: int
    player_id: str


def _is_half_multiple(value: float) -> bool:
    return 0.0 <= value <= 1.0 and (value * 2).is_integer()


@dataclass(frozen=True, slots=True)
class ScoringConfig:
    """Points for results that are not a game: a bye, and each round a late joiner missed.

    Values are 0, 0.5 or 1 so that every score stays a multiple of one half.
    """

    bye_points: float = 1.0
    missed_round_points: float = 0.0

    def __post_init__(self) -> None:
        for key in ("bye_points", "missed_round_points"):
            value = getattr(self, key)
            if not _is_half_multiple(value):
                raise LeagueError(f"scoring config: {key} must be 0, 0.5 or 1, not {value!r}")


def check_known(entrants: Sequence[Entrant], games: Iterable[Game], byes: Iterable[Bye]) -> None:
    """Raise LeagueError when a result names a player who is not an entrant, or repeats a round."""
    known = {e.player_id for e in entrants}
    if len(known) != len(entrants):
        raise LeagueError("two entrants share a player id")
    seen: set[tuple[int, str]] = set()

    def mark(round_no: int, player_id: str) -> None:
        if player_id not in known:
            raise LeagueError(f"round {round_no}: {player_id} is not an entrant")
        if (round_no, player_id) in seen:
            raise LeagueError(f"round {round_no}: {player_id} has two results")
        seen.add((round_no, player_id))

    for game in games:
        mark(game.round_no, game.red)
        mark(game.round_no, game.blue)
    for bye in byes:
        mark(bye.round_no, bye.player_id)


def scores_before(
    round_no: int,
    entrants: Sequence[Entrant],
    games: Iterable[Game],
    byes: Iterable[Bye],
    config: ScoringConfig,
) -> dict[str, float]:
    """Each entrant's score from every round before `round_no`.

    A late joiner is credited `missed_round_points` for each round before they joined.
    """
    scores = {
        e.player_id: config.missed_round_points * max(0, min(e.joined_round, round_no) - 1)
        for e in entrants
    }
    for game in games:
        if game.round_no < round_no:
            scores[game.red] += game.outcome.red_points
            scores[game.blue] += game.outcome.blue_points
    for bye in byes:
        if bye.round_no < round_no:
            scores[bye.player_id] += config.bye_points
    return scores

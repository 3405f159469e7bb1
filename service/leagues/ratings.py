"""Ratings with OpenSkill's Bradley-Terry model, and the reliability figure.

Why Bradley-Terry (full pairing) rather than Plackett-Luce: every league game has exactly two
players and one of three results. Bradley-Terry is the model of pairwise comparisons, so a game
is rated as the single comparison it is; Plackett-Luce is built for rankings of many teams and
reduces to nearly the same update here while promising a generality the league never uses.

- A new player starts at mu 25, sigma 25/3 (OpenSkill's defaults).
- Only games actually played are rated: forfeits and byes leave ratings unchanged.
- Games are rated in round order (games of one round in the order given), so equal inputs always
  give equal ratings: OpenSkill's update is deterministic.
- The display rating is the conservative ordinal mu - 3 sigma, scaled to 1000 + 40 x ordinal, so
  a newcomer shows 1000 and climbs as results make the rating more certain.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from openskill.models import BradleyTerryFull, BradleyTerryFullRating

from service.leagues.records import Game, LeagueError, Outcome

MODEL_NAME = "OpenSkill Bradley-Terry (full)"
_MODEL = BradleyTerryFull()
DISPLAY_BASE = 1000.0
DISPLAY_SCALE = 40.0


@dataclass(frozen=True, slots=True)
class Rating:
    mu: float = _MODEL.mu
    sigma: float = _MODEL.sigma
    games: int = 0

    @property
    def ordinal(self) -> float:
        """The skill the player is 99.7% likely to exceed: mu - 3 sigma."""
        return self.mu - 3.0 * self.sigma

    @property
    def display(self) -> int:
        return round(DISPLAY_BASE + DISPLAY_SCALE * self.ordinal)

    def _openskill(self) -> BradleyTerryFullRating:
        return _MODEL.rating(mu=self.mu, sigma=self.sigma)


NEW_PLAYER = Rating()


def win_chance(player: Rating, opponent: Rating) -> float:
    """The model's probability that `player` beats `opponent`."""
    chances = _MODEL.predict_win([[player._openskill()], [opponent._openskill()]])
    return float(chances[0])


def rate_game(red: Rating, blue: Rating, outcome: Outcome) -> tuple[Rating, Rating]:
    """New (red, blue) ratings after a played game."""
    if outcome.is_forfeit:
        raise LeagueError("forfeited games are not rated")
    if outcome is Outcome.DRAW:
        ranks = [1.0, 1.0]
    elif outcome is Outcome.RED_WIN:
        ranks = [1.0, 2.0]
    else:
        ranks = [2.0, 1.0]
    [[new_red], [new_blue]] = _MODEL.rate([[red._openskill()], [blue._openskill()]], ranks=ranks)
    return (
        Rating(float(new_red.mu), float(new_red.sigma), red.games + 1),
        Rating(float(new_blue.mu), float(new_blue.sigma), blue.games + 1),
    )


@dataclass(frozen=True, slots=True)
class RatingChange:
    """One rated game: both ratings before and after, and the red player's chance beforehand."""

    game: Game
    red_before: Rating
    red_after: Rating
    blue_before: Rating
    blue_after: Rating
    red_win_chance: float

    def before(self, player_id: str) -> Rating:
        return self.red_before if player_id == self.game.red else self.blue_before

    def chance_of(self, player_id: str) -> float:
        return self.red_win_chance if player_id == self.game.red else 1.0 - self.red_win_chance


@dataclass(frozen=True, slots=True)
class RatingLedger:
    ratings: tuple[tuple[str, Rating], ...]
    changes: tuple[RatingChange, ...]

    def rating(self, player_id: str) -> Rating:
        return dict(self.ratings).get(player_id, NEW_PLAYER)


def rate_games(games: Sequence[Game], start: Mapping[str, Rating] | None = None) -> RatingLedger:
    """Rate every played game in round order, starting from `start` (new players by default)."""
    current: dict[str, Rating] = dict(start or {})
    changes: list[RatingChange] = []
    for game in sorted(games, key=lambda g: g.round_no):
        if not game.played:
            continue
        red = current.get(game.red, NEW_PLAYER)
        blue = current.get(game.blue, NEW_PLAYER)
        new_red, new_blue = rate_game(red, blue, game.outcome)
        changes.append(RatingChange(game, red, new_red, blue, new_blue, win_chance(red, blue)))
        current[game.red] = new_red
        current[game.blue] = new_blue
    return RatingLedger(tuple(sorted(current.items())), tuple(changes))


@dataclass(frozen=True, slots=True)
class Reliability:
    """How often a player gave orders: turns with orders out of turns played."""

    turns_played: int
    turns_with_orders: int

    def __post_init__(self) -> None:
        if self.turns_played < 0 or not 0 <= self.turns_with_orders <= self.turns_played:
            raise LeagueError(
                "reliability needs 0 <= turns with orders <= turns played, got "
                f"{self.turns_with_orders} of {self.turns_played}"
            )

    @property
    def share(self) -> float | None:
        """The share in [0, 1]; None before the player's first turn."""
        if self.turns_played == 0:
            return None
        return self.turns_with_orders / self.turns_played

    def to_text(self) -> str:
        share = self.share
        if share is None:
            return "no turns yet"
        return f"{share:.0%} ({self.turns_with_orders}/{self.turns_played} turns with orders)"

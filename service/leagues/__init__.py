"""League logic free of Discord and SQL: pairings, standings, ratings and season summaries."""

from service.leagues.pairing import (
    PairingError,
    RoundPairing,
    pair_swiss_round,
    round_robin_round,
    round_robin_schedule,
)
from service.leagues.ratings import Rating, RatingLedger, Reliability, rate_game, rate_games
from service.leagues.records import Bye, Entrant, Game, LeagueError, Outcome, ScoringConfig
from service.leagues.standings import StandingRow, Standings, compute_standings
from service.leagues.summary import SeasonSummary, summarize_season

__all__ = [
    "Bye",
    "Entrant",
    "Game",
    "LeagueError",
    "Outcome",
    "PairingError",
    "Rating",
    "RatingLedger",
    "Reliability",
    "RoundPairing",
    "ScoringConfig",
    "SeasonSummary",
    "StandingRow",
    "Standings",
    "compute_standings",
    "pair_swiss_round",
    "rate_game",
    "rate_games",
    "round_robin_round",
    "round_robin_schedule",
    "summarize_season",
]

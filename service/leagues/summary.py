"""The end-of-season summary: champion, final table, biggest upset, most reliable player."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from service.leagues.ratings import Rating, RatingChange, Reliability, rate_games
from service.leagues.records import Bye, Entrant, Game, ScoringConfig
from service.leagues.standings import StandingRow, Standings, compute_standings


@dataclass(frozen=True, slots=True)
class Upset:
    """The decided game whose winner the ratings before it gave the smallest chance."""

    game: Game
    winner: str
    loser: str
    winner_chance: float
    winner_display: int
    loser_display: int


@dataclass(frozen=True, slots=True)
class ReliablePlayer:
    player_id: str
    reliability: Reliability


@dataclass(frozen=True, slots=True)
class SeasonSummary:
    season: str
    champion: StandingRow | None
    standings: Standings
    biggest_upset: Upset | None
    most_reliable: ReliablePlayer | None

    def _name(self, player_id: str) -> str:
        for row in self.standings.rows:
            if row.player_id == player_id:
                return row.name
        return player_id

    def to_text(self) -> str:
        lines = [f"Season summary: {self.season}"]
        if self.champion is None:
            lines.append("Champion: none (no entrants)")
        else:
            points = self.champion.points
            lines.append(
                f"Champion: {self.champion.name} with {points:g} point{'' if points == 1 else 's'}"
            )
        upset = self.biggest_upset
        if upset is None:
            lines.append("Biggest upset: none (no rated game went to the underdog)")
        else:
            lines.append(
                f"Biggest upset: round {upset.game.round_no}, {self._name(upset.winner)} "
                f"({upset.winner_display}) beat {self._name(upset.loser)} ({upset.loser_display}) "
                f"with a {upset.winner_chance:.0%} chance"
            )
        reliable = self.most_reliable
        if reliable is None:
            lines.append("Most reliable: none (no turns recorded)")
        else:
            lines.append(
                f"Most reliable: {self._name(reliable.player_id)}, {reliable.reliability.to_text()}"
            )
        lines.append("")
        lines.append(self.standings.to_text())
        return "\n".join(lines)


def biggest_upset(changes: Sequence[RatingChange]) -> Upset | None:
    """The underdog win with the lowest pre-game chance; earliest game first on equal chances."""
    best: Upset | None = None
    for change in changes:
        winner = change.game.winner()
        if winner is None:
            continue
        chance = change.chance_of(winner)
        if chance >= 0.5 or (best is not None and chance >= best.winner_chance):
            continue
        loser = change.game.opponent_of(winner)
        best = Upset(
            change.game,
            winner,
            loser,
            chance,
            change.before(winner).display,
            change.before(loser).display,
        )
    return best


def most_reliable(turns: Mapping[str, Reliability], standings: Standings) -> ReliablePlayer | None:
    """Highest share of turns with orders; then more turns with orders; then the better rank."""
    rank = {row.player_id: row.rank for row in standings.rows}
    eligible = [
        (player_id, r)
        for player_id, r in turns.items()
        if r.share is not None and player_id in rank
    ]
    if not eligible:
        return None
    player_id, reliability = min(
        eligible,
        key=lambda item: (-(item[1].share or 0.0), -item[1].turns_with_orders, rank[item[0]]),
    )
    return ReliablePlayer(player_id, reliability)


def summarize_season(
    season: str,
    entrants: Sequence[Entrant],
    games: Sequence[Game],
    byes: Sequence[Bye] = (),
    *,
    config: ScoringConfig | None = None,
    turns: Mapping[str, Reliability] | None = None,
    start_ratings: Mapping[str, Rating] | None = None,
) -> SeasonSummary:
    standings = compute_standings(entrants, games, byes, config)
    ledger = rate_games(games, start_ratings)
    return SeasonSummary(
        season=season,
        champion=standings.rows[0] if standings.rows else None,
        standings=standings,
        biggest_upset=biggest_upset(ledger.changes),
        most_reliable=most_reliable(turns or {}, standings),
    )

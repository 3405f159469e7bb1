"""Standings from results: points, then Sonneborn-Berger, head-to-head, wins, and seed.

- A win scores 1, a draw 1/2, a loss 0; a bye scores `ScoringConfig.bye_points` (default 1) and a
  round missed by a late joiner `missed_round_points` (default 0).
- A forfeit counts as a win for the player who was there and a loss for the one who was not,
  flagged separately in the table (double forfeit: a loss for both).
- Sonneborn-Berger: for every game actually played, the opponent's final score times the points
  taken from that game (full for a win, half for a draw). Forfeits and byes add nothing, so a
  walkover cannot be worth more than a game.
- Head-to-head: among players still tied on points and Sonneborn-Berger, the points each scored
  in games against the others of that tie (forfeits included: they are results between them).
- Wins: games won over the board (forfeit wins excluded).
- Last, seed (the lower seed number first), then player id: every rank is unique and stable.
"""

from __future__ import annotations

import itertools
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from service.leagues.records import (
    Bye,
    Entrant,
    Game,
    ScoringConfig,
    check_known,
    scores_before,
)

CRITERIA: tuple[str, ...] = ("points", "Sonneborn-Berger", "head-to-head", "wins", "seed")


@dataclass(frozen=True, slots=True)
class StandingRow:
    rank: int
    player_id: str
    name: str
    seed: int
    points: float
    played: int
    wins: int
    draws: int
    losses: int
    forfeit_wins: int
    forfeit_losses: int
    byes: int
    sonneborn_berger: float
    head_to_head: float | None
    """Points against the others tied on points and Sonneborn-Berger; None when not tied."""
    withdrawn: bool
    ahead_by: str | None
    """The first criterion that puts this row above the next one; None for the last row."""


@dataclass(frozen=True, slots=True)
class Standings:
    through_round: int
    rows: tuple[StandingRow, ...]

    def row(self, player_id: str) -> StandingRow:
        for row in self.rows:
            if row.player_id == player_id:
                return row
        raise KeyError(player_id)

    def to_records(self) -> tuple[dict[str, str | int | float | bool | None], ...]:
        """Plain dictionaries (JSON- and database-friendly), one per row in rank order."""
        return tuple(
            {
                "rank": r.rank,
                "player_id": r.player_id,
                "name": r.name,
                "seed": r.seed,
                "points": r.points,
                "played": r.played,
                "wins": r.wins,
                "draws": r.draws,
                "losses": r.losses,
                "forfeit_wins": r.forfeit_wins,
                "forfeit_losses": r.forfeit_losses,
                "byes": r.byes,
                "sonneborn_berger": r.sonneborn_berger,
                "head_to_head": r.head_to_head,
                "withdrawn": r.withdrawn,
                "ahead_by": r.ahead_by,
            }
            for r in self.rows
        )

    @classmethod
    def from_records(cls, through_round: int, records: Sequence[Mapping[str, Any]]) -> Standings:
        """The standings `to_records()` gave (as stored in an announcement)."""
        names = StandingRow.__dataclass_fields__
        rows: list[dict[str, Any]] = [{name: r.get(name) for name in names} for r in records]
        return cls(through_round, tuple(StandingRow(**row) for row in rows))

    def to_text(self, name_width: int = 18, heading: str | None = None) -> str:
        """A fixed-width table, for a code block, under `heading` (default: the round)."""
        header = (
            f"{'#':>3}  {'Player':<{name_width}} {'Pts':>5} {'SB':>6} {'H2H':>4} "
            f"{'W':>3} {'D':>3} {'L':>3} {'FW':>3} {'FL':>3} {'Bye':>3}  Ahead by"
        )
        lines = [
            heading or f"Standings after round {self.through_round}",
            header,
            "-" * len(header),
        ]
        for r in self.rows:
            name = r.name + (" (w)" if r.withdrawn else "")
            if len(name) > name_width:
                name = name[: name_width - 1] + "~"
            h2h = "-" if r.head_to_head is None else f"{r.head_to_head:g}"
            lines.append(
                f"{r.rank:>3}  {name:<{name_width}} {r.points:>5g} {r.sonneborn_berger:>6g} "
                f"{h2h:>4} {r.wins:>3} {r.draws:>3} {r.losses:>3} {r.forfeit_wins:>3} "
                f"{r.forfeit_losses:>3} {r.byes:>3}  {r.ahead_by or ''}".rstrip()
            )
        lines.append("(w) withdrawn; FW/FL forfeit wins/losses; W/D/L games played")
        return "\n".join(lines)


@dataclass(slots=True)
class _Tally:
    points: float = 0.0
    played: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    forfeit_wins: int = 0
    forfeit_losses: int = 0
    byes: int = 0
    sonneborn_berger: float = 0.0
    head_to_head: float | None = None


def compute_standings(
    entrants: Sequence[Entrant],
    games: Sequence[Game],
    byes: Sequence[Bye] = (),
    config: ScoringConfig | None = None,
    through_round: int | None = None,
) -> Standings:
    """Standings after `through_round` (default: the last round with a result)."""
    config = config or ScoringConfig()
    check_known(entrants, games, byes)
    last = max([g.round_no for g in games] + [b.round_no for b in byes] + [0])
    through = last if through_round is None else through_round
    games = [g for g in games if g.round_no <= through]
    byes = [b for b in byes if b.round_no <= through]
    final = scores_before(through + 1, entrants, games, byes, config)

    tallies = {e.player_id: _Tally(points=final[e.player_id]) for e in entrants}
    for bye in byes:
        tallies[bye.player_id].byes += 1
    for game in games:
        for player in (game.red, game.blue):
            tally = tallies[player]
            got = game.points_of(player)
            other = game.points_of(game.opponent_of(player))
            if not game.played:
                if got > other:
                    tally.forfeit_wins += 1
                else:
                    tally.forfeit_losses += 1
                continue
            tally.played += 1
            tally.sonneborn_berger += got * final[game.opponent_of(player)]
            if got > other:
                tally.wins += 1
            elif got < other:
                tally.losses += 1
            else:
                tally.draws += 1

    by_id = {e.player_id: e for e in entrants}
    order = sorted(by_id, key=lambda p: (-tallies[p].points, -tallies[p].sonneborn_berger))
    ranked: list[str] = []
    for _, tied_iter in itertools.groupby(
        order, key=lambda p: (tallies[p].points, tallies[p].sonneborn_berger)
    ):
        tied = list(tied_iter)
        if len(tied) > 1:
            members = set(tied)
            for p in tied:
                tallies[p].head_to_head = sum(
                    g.points_of(p)
                    for g in games
                    if p in (g.red, g.blue) and g.opponent_of(p) in members
                )
        ranked.extend(
            sorted(
                tied,
                key=lambda p: (
                    -(tallies[p].head_to_head or 0.0),
                    -tallies[p].wins,
                    by_id[p].seed,
                    p,
                ),
            )
        )

    def keys(p: str) -> tuple[float, float, float, int, int]:
        t = tallies[p]
        return (t.points, t.sonneborn_berger, t.head_to_head or 0.0, t.wins, -by_id[p].seed)

    rows: list[StandingRow] = []
    for i, p in enumerate(ranked):
        ahead: str | None = None
        if i + 1 < len(ranked):
            mine, theirs = keys(p), keys(ranked[i + 1])
            ahead = next(
                (name for name, a, b in zip(CRITERIA, mine, theirs, strict=True) if a != b),
                "player id",
            )
        t = tallies[p]
        e = by_id[p]
        rows.append(
            StandingRow(
                rank=i + 1,
                player_id=p,
                name=e.name,
                seed=e.seed,
                points=t.points,
                played=t.played,
                wins=t.wins,
                draws=t.draws,
                losses=t.losses,
                forfeit_wins=t.forfeit_wins,
                forfeit_losses=t.forfeit_losses,
                byes=t.byes,
                sonneborn_berger=t.sonneborn_berger,
                head_to_head=t.head_to_head,
                withdrawn=e.withdrawn_from_round is not None,
                ahead_by=ahead,
            )
        )
    return Standings(through, tuple(rows))

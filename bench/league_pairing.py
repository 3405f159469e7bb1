"""Benchmark of Swiss pairing: whole seasons of random results, the slowest round of each.

Run: ``.venv/bin/python -m bench.league_pairing [--players 16,24] [--seeds 3]``. Prints figures;
it is not a test.

Late rounds of a large field are the hard case: few opponents are left that a player has not
met, so many partial pairings lead nowhere. The pairing runs off the event loop, but a league's
round waits for it.
"""

from __future__ import annotations

import argparse
import random
import time

from service.leagues.pairing import PairingError, pair_swiss_round
from service.leagues.records import Bye, Entrant, Game, Outcome


def season(players: int, seed: int) -> tuple[int, int, float, float]:
    """Rounds paired, the slowest round, its seconds and the season's total seconds."""
    rng = random.Random(seed)
    entrants = [Entrant(f"p{i}", f"P{i}", i) for i in range(1, players + 1)]
    games: list[Game] = []
    byes: list[Bye] = []
    slowest, slowest_round, total, paired = 0.0, 0, 0.0, 0
    for round_no in range(1, players):
        start = time.process_time()
        try:
            pairing = pair_swiss_round(round_no, entrants, games, byes)
        except PairingError:
            break
        spent = time.process_time() - start
        total += spent
        paired = round_no
        if spent > slowest:
            slowest, slowest_round = spent, round_no
        outcomes = (Outcome.RED_WIN, Outcome.BLUE_WIN, Outcome.DRAW)
        games += [Game(round_no, p.red, p.blue, rng.choice(outcomes)) for p in pairing.pairings]
        byes += pairing.bye_records()
    return paired, slowest_round, slowest, total


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--players", default="8,16,24", help="field sizes, comma-separated")
    parser.add_argument("--seeds", type=int, default=3, help="seasons per field size")
    args = parser.parse_args()
    print("players  seed  rounds  slowest round  its CPU s  season CPU s")
    for players in (int(n) for n in args.players.split(",")):
        for seed in range(1, args.seeds + 1):
            paired, slowest_round, slowest, total = season(players, seed)
            print(
                f"{players:7}  {seed:4}  {paired:6}  {slowest_round:13}  {slowest:9.2f}  "
                f"{total:12.2f}"
            )


if __name__ == "__main__":
    main()

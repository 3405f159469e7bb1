"""When a computer player concedes (G8): a position nothing it can do will turn.

A computer side concedes when all three hold:

- it holds at most :data:`MOST_STRUCTURES` structures (its Sanctum and one town) while the enemy
  holds at least :data:`STRUCTURE_LEAD` more;
- its minions on the board have at most 1/:data:`HIT_POINT_RATIO` of the enemy's hit points;
- the enemy's minions have at least :data:`GUARD_TURNS` times the Sanctum guard's damage in hit
  points (210 with a guard of 21): an army that can stand on the Sanctum and its four entrances
  through two turns of the guard. A side routed in the opening faces a few recruits that cannot
  take its Sanctum yet, and plays on.

Measured on the first 206 saved games of the 600-game balance run (docs/ai.md, "Conceding a lost
game"): no game is conceded by a side that went on to win or draw at both Sancta; 45 games reach
the 60-turn cap (50 under the rule before, which asked for a Sanctum alone and had no army size)
and 2 are decided before turn 15 (18 before). Reads only what the side sees (G12): the board's
groups and structures.
"""

from __future__ import annotations

from typing import Final

from engine.content import Content
from engine.state import SIDES, GameState, Side
from engine.turn import concede
from engine.view import PlayerView, view_for

MOST_STRUCTURES: Final = 2
STRUCTURE_LEAD: Final = 2
HIT_POINT_RATIO: Final = 8
GUARD_TURNS: Final = 10


def concedes(view: PlayerView, content: Content) -> bool:
    """Whether ``view.viewer`` gives the game up (never for a spectator or a finished game)."""
    side = view.viewer
    if side is None or view.result is not None:
        return False
    mine = theirs = 0
    for s in view.structures:
        if s.owner == side:
            mine += 1
        elif s.owner == side.other:
            theirs += 1
    if mine > MOST_STRUCTURES or theirs < mine + STRUCTURE_LEAD:
        return False
    own_hp = enemy_hp = 0
    for g in view.groups:
        hp = sum(m.hp for m in g.minions)
        if g.owner == side:
            own_hp += hp
        elif g.owner == side.other:
            enemy_hp += hp
    army = GUARD_TURNS * content.economy.sanctum_guard
    return enemy_hp >= army and own_hp * HIT_POINT_RATIO <= enemy_hp


def conceding_side(state: GameState, content: Content) -> Side | None:
    """The side that concedes at the start of this turn, when one does (red is asked first;
    both never can, as each needs the other to hold two structures more)."""
    for side in SIDES:
        if concedes(view_for(state, side, content), content):
            return side
    return None


def conceded(state: GameState, content: Content, max_turns: int) -> GameState | None:
    """The game ended by a concession at the start of this turn: while it runs, inside the turn
    cap, a side that concedes (:func:`conceding_side`) ends it here; None when none does. A
    match played by computers (``ai.arena.play_match``) and one replayed from its saved orders
    end alike."""
    if state.result is not None or state.turn > max_turns:
        return None
    loser = conceding_side(state, content)
    return None if loser is None else concede(state, loser)

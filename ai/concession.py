"""When a computer player concedes (G8): a position nothing it can do will turn.

A computer side concedes when it holds nothing but its Sanctum while the enemy holds at least
:data:`ENEMY_STRUCTURES` structures, and its minions on the board have at most
1/:data:`HIT_POINT_RATIO` of the enemy's hit points. In the 93 saved games of the seed-0 balance
schedule, 37 reached such a position; 20 of them ended later with the enemy taking the Sanctum and
17 at the 60-turn cap, where the stronger side's armies stood before a Sanctum its guard and
spells held (docs/ai.md, "Conceding a lost game"). None was won or drawn by the side that would
have conceded. Reads only what the side sees (G12): the board's groups and structures.
"""

from __future__ import annotations

from typing import Final

from engine.content import Content
from engine.state import SIDES, GameState, Side
from engine.view import PlayerView, view_for

ENEMY_STRUCTURES: Final = 3
HIT_POINT_RATIO: Final = 8


def concedes(view: PlayerView) -> bool:
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
    if mine != 1 or theirs < ENEMY_STRUCTURES:
        return False
    own_hp = enemy_hp = 0
    for g in view.groups:
        hp = sum(m.hp for m in g.minions)
        if g.owner == side:
            own_hp += hp
        elif g.owner == side.other:
            enemy_hp += hp
    return own_hp * HIT_POINT_RATIO <= enemy_hp


def conceding_side(state: GameState, content: Content) -> Side | None:
    """The side that concedes at the start of this turn, when one does (red is asked first;
    both never can, as each needs the other to hold three structures to its one)."""
    for side in SIDES:
        if concedes(view_for(state, side, content)):
            return side
    return None

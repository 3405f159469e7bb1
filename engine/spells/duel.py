"""The ``magic_duel`` option (N10): casting and dispel rolls with magic dice.

Each side gets :data:`DICE_PER_TURN` dice each spell phase. Every cast from hand (or of a
hereditary spell) commits :data:`CAST_DICE` dice (one more when boosted), in issue order, while
dice last; a cast left without dice is an unpaid fizzle. At execution it rolls its dice and must
reach the spell's casting value, or it fizzles unpaid. A bound spell commits :data:`CAST_DICE`
dice at its lower power level and :data:`BOUND_HIGH_DICE` at its higher one (seed 004: "3 magic
dice instead of 2"); it needs no casting value, and its roll of those dice is its casting roll,
on the same scale as a dispel roll. Dice a side did not commit to its own casts are its dispel
dice: when an enemy spell executes against one of its hosts (its minion, group or structure) or
the globe, it commits :data:`DISPEL_DICE` of them, if it has that many, and the spell squanders
when the dispel roll beats the casting roll. Dice are rolled from the turn's generator in
execution order: casting dice first, then dispel dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.state import SIDES, Side

if TYPE_CHECKING:
    import random

DICE_PER_TURN = 6
CAST_DICE = 2
BOUND_HIGH_DICE = 3
DISPEL_DICE = 2


def roll(rng: random.Random, dice: int) -> int:
    return sum(rng.randint(1, 6) for _ in range(dice))


@dataclass(slots=True)
class Duel:
    """Dice bookkeeping for one spell phase."""

    committed: dict[tuple[Side, int], int] = field(default_factory=dict)
    dispel: dict[Side, int] = field(default_factory=dict)

    @staticmethod
    def plan(casts: dict[Side, list[tuple[int, int]]]) -> Duel:
        """``casts[side]`` lists (order index, dice the cast needs) in issue order."""
        duel = Duel()
        for side in SIDES:
            left = DICE_PER_TURN
            for index, need in casts.get(side, []):
                if left >= need:
                    duel.committed[(side, index)] = need
                    left -= need
                else:
                    duel.committed[(side, index)] = 0
            duel.dispel[side] = left
        return duel

    def casting_dice(self, side: Side, index: int) -> int:
        return self.committed.get((side, index), 0)

    def try_dispel(self, rng: random.Random, defender: Side, casting_roll: int) -> int | None:
        """The defender's dispel roll, or None when it has too few dice left."""
        if self.dispel.get(defender, 0) < DISPEL_DICE:
            return None
        self.dispel[defender] -= DISPEL_DICE
        return roll(rng, DISPEL_DICE)

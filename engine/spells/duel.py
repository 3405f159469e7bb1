"""The ``magic_duel`` option (N10): casting and dispel rolls with magic dice.

Each side gets :data:`DICE_PER_TURN` dice each spell phase. Every cast from hand (or of a
hereditary spell) commits :data:`CAST_DICE` dice (one more when boosted), in issue order, while
dice last; a cast left without dice is an unpaid fizzle. At execution it rolls its dice and must
reach the spell's casting value, or it fizzles unpaid. Dice a side did not commit to its own
casts are its dispel dice: when an enemy spell executes against one of its hosts (its minion,
group or structure) or the globe, it commits :data:`DISPEL_DICE` of them, if it has that many,
and the spell squanders when the dispel roll beats the casting roll. Bound spells always pass
and their casting roll is the chosen power level. Dice are rolled from the turn's generator in
execution order: casting dice first, then dispel dice.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from engine.state import Side

if TYPE_CHECKING:
    import random

DICE_PER_TURN = 6
CAST_DICE = 2
DISPEL_DICE = 2


def roll(rng: random.Random, dice: int) -> int:
    return sum(rng.randint(1, 6) for _ in range(dice))


@dataclass(slots=True)
class Duel:
    """Dice bookkeeping for one spell phase."""

    committed: dict[tuple[Side, int], int] = field(default_factory=dict)
    dispel: dict[Side, int] = field(default_factory=dict)

    @staticmethod
    def plan(casts: dict[Side, list[tuple[int, bool, bool]]]) -> Duel:
        """``casts[side]`` lists (order index, uses dice, boosted) in issue order."""
        duel = Duel()
        for side in (Side.RED, Side.BLUE):
            left = DICE_PER_TURN
            for index, uses_dice, boosted in casts.get(side, []):
                if not uses_dice:
                    continue
                need = CAST_DICE + (1 if boosted else 0)
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

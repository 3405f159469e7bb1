"""The one random generator of a turn (G11): seeded by the match seed and the turn number."""

from __future__ import annotations

import random


def turn_rng(seed: int, turn: int) -> random.Random:
    """The one generator of a turn (G11); turn 0 is the setup."""
    return random.Random(f"sanctum:{seed}:{turn}")

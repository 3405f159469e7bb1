"""Computer players: choose orders from a player's view, depending on the engine only.

``choose_orders(view, level, rng)`` returns legal :class:`engine.orders.Orders` for the view's
side. ``level`` is one of :data:`LEVELS`; ``rng`` is the caller's generator (the only source of
randomness, so a seed always gives the same orders); ``budget`` caps the simulations of the
searching levels.
"""

from __future__ import annotations

import random

from ai.players import LEVELS, Level, greedy_orders, random_orders, strong_orders
from engine.content import Content, load_content
from engine.orders import Orders
from engine.view import PlayerView


def choose_orders(
    view: PlayerView,
    level: Level,
    rng: random.Random,
    *,
    budget: int | None = None,
    content: Content | None = None,
) -> Orders:
    """Orders for ``view.viewer`` at ``level`` (raises ValueError for a spectator's view or an
    unknown level)."""
    content = content or load_content()
    if view.result is not None:
        return Orders()
    if level == "random":
        return random_orders(view, rng, content)
    if level == "greedy":
        return greedy_orders(view, rng, content, budget)
    if level == "strong":
        return strong_orders(view, rng, content, budget)
    raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")


__all__ = ["LEVELS", "Level", "choose_orders"]

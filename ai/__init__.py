"""Computer players: choose orders from a player's view, depending on the engine only.

``choose_orders(view, level, rng)`` returns legal :class:`engine.orders.Orders` for the view's
side. ``level`` is one of :data:`LEVELS`; ``rng`` is the caller's generator (the only source of
randomness, so a seed always gives the same orders); ``budget`` caps the simulations of the
searching levels, ``seconds`` adds an anytime time cap for ``expert``, and ``options`` is the
match's ruleset (duel dice). ``concedes(view, content)`` says when a computer side gives a lost
game up (G8), whatever its level.
"""

from __future__ import annotations

import logging
import random

from ai.concession import concedes
from ai.expert import Mapper, expert_orders
from ai.players import DESCRIPTIONS, LEVELS, Level, greedy_orders, random_orders, strong_orders
from engine.content import Content, load_content
from engine.orders import Orders
from engine.state import Options
from engine.view import PlayerView

log = logging.getLogger(__name__)


def choose_orders(
    view: PlayerView,
    level: Level,
    rng: random.Random,
    *,
    budget: int | None = None,
    content: Content | None = None,
    seconds: float | None = None,
    options: Options | None = None,
    mapper: Mapper | None = None,
    workers: int = 1,
) -> Orders:
    """Orders for ``view.viewer`` at ``level`` (raises ValueError for a spectator's view or an
    unknown level). ``mapper`` and ``workers``: an executor's ``map`` over worker processes
    that ``expert`` may share its search out to, and how many there are."""
    content = content or load_content()
    if view.result is not None:
        return Orders()
    if level == "random":
        return random_orders(view, rng, content)
    if level == "greedy":
        return greedy_orders(view, rng, content, budget, options)
    if level == "strong":
        return strong_orders(view, rng, content, budget)
    if level == "expert":
        if view.viewer is None:
            raise ValueError("a spectator's view has no side to play")
        try:
            return expert_orders(
                view,
                rng,
                content,
                budget,
                seconds=seconds,
                options=options,
                mapper=mapper,
                workers=workers,
            )
        except Exception:  # a computer seat must never stall a match
            log.exception("expert planning failed; falling back to greedy orders")
            return _fallback(view, rng, content, options)
    raise ValueError(f"unknown level {level!r} (known: {', '.join(LEVELS)})")


def _fallback(
    view: PlayerView, rng: random.Random, content: Content, options: Options | None
) -> Orders:
    try:
        return greedy_orders(view, rng, content, None, options)
    except Exception:
        log.exception("greedy fallback failed too; giving no orders")
        return Orders()


__all__ = ["DESCRIPTIONS", "LEVELS", "Level", "choose_orders", "concedes"]

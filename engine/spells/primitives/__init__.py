"""The closed vocabulary of spell effects: one :class:`Primitive` object per op.

Every effect in a spell file is one table ``{ do = "<primitive>", ...keys }``. Each primitive is
defined once, in the module of its family, with its keys, its words and its behaviour
(:mod:`engine.spells.primitives.base` says what a primitive is made of):

- :mod:`~engine.spells.primitives.minions`: damage, heal, kill, remove, adjust;
- :mod:`~engine.spells.primitives.board`: groups moved or split, minions, heroes and structures
  made or destroyed, terrain changed;
- :mod:`~engine.spells.primitives.players`: mana, cards, initiative;
- :mod:`~engine.spells.primitives.spells`: dispel, counter, transfer, expire, attach, and
  ``special`` with its named handlers;
- :mod:`~engine.spells.primitives.continuous`: the effects that act while their spell is active.

A spell that fits no primitive uses ``do = "special"`` with a named handler; a handler is
promoted to a primitive once a second spell needs it.
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType

from engine.spells.params import BadKeyError
from engine.spells.primitives import board, continuous, minions, players, spells
from engine.spells.primitives.base import Effect, Primitive

# Every family's primitives, in the order the vocabulary lists them.
FAMILIES: tuple[tuple[Primitive, ...], ...] = (
    minions.PRIMITIVES,
    board.PRIMITIVES,
    players.PRIMITIVES,
    spells.PRIMITIVES,
    continuous.PRIMITIVES,
)
PRIMITIVES: Mapping[str, Primitive] = MappingProxyType(
    {p.name: p for family in FAMILIES for p in family}
)
SPECIAL_HANDLERS = tuple(spells.HANDLERS)

__all__ = ["PRIMITIVES", "SPECIAL_HANDLERS", "Effect", "Primitive", "parse_effect"]


def parse_effect(table: object) -> Effect:
    """Validate one effect table; raises :class:`BadKeyError` naming the bad key."""
    if not isinstance(table, Mapping):
        raise BadKeyError("do", f"an effect must be a table, not {table!r}")
    op = table.get("do")
    if not isinstance(op, str) or op not in PRIMITIVES:
        raise BadKeyError("do", f"unknown effect {op!r} (known: {', '.join(sorted(PRIMITIVES))})")
    primitive = PRIMITIVES[op]
    params = primitive.validate(table)
    # A filter names effects by op: only the vocabulary's, known here once every family is.
    unknown = [name for name in params.texts("effect") if name not in PRIMITIVES]
    if unknown:
        raise BadKeyError(
            "effect", f"unknown effect {unknown[0]!r} (known: {', '.join(sorted(PRIMITIVES))})"
        )
    return Effect(op, params, primitive)

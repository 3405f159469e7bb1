"""The spell rules as the turn's World calls them (:class:`engine.world.SpellHooks`).

The World sits below the spell phases, so it never imports them: ``engine.turn`` (and the order
checks that run training on a World) hand it :data:`SPELL_HOOKS`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from engine.spells import effects, events

if TYPE_CHECKING:
    from engine.content import Content
    from engine.state import ActiveSpell, HostRef
    from engine.world import World


@dataclass(frozen=True, slots=True)
class SpellRules:
    """:class:`engine.world.SpellHooks` answered by ``engine.spells.events`` and ``effects``."""

    def on_event(
        self, world: World, spell: ActiveSpell, event: str, subject: HostRef | None
    ) -> None:
        events.on_event(world, spell, event, subject)

    def reacting(self, content: Content, event: str) -> frozenset[str]:
        return events.reacting(content, event)

    def end_spell(self, world: World, uid: int, reason: str) -> None:
        effects.end_spell(world, uid, reason)

    def dispellable(self, world: World, spell: ActiveSpell) -> bool:
        return effects.dispellable(world, spell)


SPELL_HOOKS: Final = SpellRules()

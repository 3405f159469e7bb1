"""Named special handlers: effects that no primitive covers (one spell each, for now).

A handler becomes a primitive once a second spell needs it (ARCHITECTURE.md). Handlers sit below
:mod:`engine.spells.effects` (which dispatches to them) and reach its helpers through the
:class:`~engine.spells.effects.EffectContext` they are given.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.state import HostRef

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext


def soul_jar(ctx: EffectContext) -> None:
    """A member of the jar's group is dying (heard as "host_dying", the minion as subject).

    The jar catches it instead: it does not die, it is fully healed and stripped of every spell
    laid on itself (its helpers stay), and it leaves its group as a new group on the nearest
    free square it may enter (it stays if there is none). Then the jar breaks.
    """
    world, active, subject = ctx.world, ctx.active, ctx.subject
    if active is None or subject is None or subject.kind != "minion":
        return
    if not isinstance(subject.ref, int):
        return
    minion = world.minion(subject.ref)
    group = world.group_of(subject.ref)
    if minion is None or group is None:
        return
    world.prevent_death(minion.id)
    for spell in world.spells_on(HostRef.minion(minion.id)):
        # A helper is what the minion is (a hero's own powers, Lienna's hold on initiative, I6),
        # not a spell laid on it.
        definition = world.content.spells.get(spell.spell_id)
        if definition is None or not definition.helper:
            ctx.end_spell(spell.uid, "stripped")
    ctx.end_spell(active.uid, "expired")
    world.heal_minion(minion.id, minion.max_hp - minion.hp)
    world.emit("spell_effect", spell=ctx.spell.id, text="The jar caught a dying recruit.")
    if len(group.minions) > 1:
        spot = ctx.nearest_free(group, group.coord)
        if spot is not None:
            world.detach_minion(minion.id, spot)


HANDLERS: dict[str, Callable[[EffectContext], None]] = {"soul_jar": soul_jar}

"""How one active spell reacts to one broadcast event (the core's ``World.broadcast`` decides
the order in which spells hear it; see docs/spells.md, "Event order").

A spell reacts through its ``triggers`` (effects run with the spell's host as the aim) and its
``expires_on`` event. Host events (``host_dying``, ``host_killed``) reach a minion's spells when
that minion is the subject, and a group's spells when the subject is one of its members; square,
structure and globe spells ignore them (they hear ``minion_died`` instead). A spell whose
persistent requirements are false is not potent and does not react.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

from engine.spells.aim import aim_of_host
from engine.spells.checks import holds_persistent
from engine.spells.effects import EffectContext, apply_effects, end_spell
from engine.state import ActiveSpell, HostRef

if TYPE_CHECKING:
    from engine.content import Content
    from engine.world import World

HOST_EVENTS = frozenset({"host_dying", "host_killed"})
_NO_IDS: Final = frozenset[str]()


def reacting(content: Content, event: str) -> frozenset[str]:
    """The ids of the spells whose active copies react to ``event`` (a broadcaster may skip the
    others)."""
    return content.index.reacting.get(event, _NO_IDS)


def _concerns(world: World, spell: ActiveSpell, event: str, subject: HostRef | None) -> bool:
    if event not in HOST_EVENTS:
        return True
    if subject is None:
        return False
    if spell.host == subject:
        return True
    if spell.host.kind == "group" and subject.kind == "minion" and isinstance(subject.ref, int):
        group = world.group_of(subject.ref)
        return group is not None and spell.host.ref == group.id
    return False


def on_event(world: World, spell: ActiveSpell, event: str, subject: HostRef | None) -> None:
    """``spell`` hears ``event`` about ``subject`` (None for turn-wide events)."""
    events = world.content.index.reactions.get(spell.spell_id)
    if events is None or event not in events:
        return
    definition = world.content.spells[spell.spell_id]
    triggers = [t for t in definition.triggers if t.event == event]
    ends = definition.expires_on == event
    if not triggers and not ends:
        return
    if not _concerns(world, spell, event, subject):
        return
    if not holds_persistent(world, spell, definition):
        return
    aim = aim_of_host(world, spell.host)
    for trigger in triggers:
        if spell.uid not in world.spell_map:
            return
        ctx = EffectContext(
            world, definition, spell.owner, aim, active=spell, power=spell.power, subject=subject
        )
        apply_effects(ctx, trigger.effects)
    if ends and spell.uid in world.spell_map:
        end_spell(world, spell.uid, "expired")

"""Host changes that carry spells along (N12): a group split keeps its effects on both parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.coords import Coord
from engine.state import Group, HostRef

if TYPE_CHECKING:
    from engine.world import World


def split_group(world: World, minion_id: int, at: Coord) -> Group:
    """Take a minion out of its group into a new group on ``at``; both parts keep the old group's
    one-turn and permanent spells (N12), each as its own copy in the same casting order. The
    card stays with the spell on the old group: a card is in one place only, and the copy
    leaving play puts none in the discard pile.

    A minion joining a group gains none of them (``World.merge_groups`` keeps the joining group's
    spells on the joiner's own minions).
    """
    old = world.group_of(minion_id)
    if old is None:
        raise ValueError(f"minion {minion_id} is not on the board")
    carried = world.spells_on(HostRef.group(old.id))
    new = world.detach_minion(minion_id, at)
    for spell in carried:
        world.add_spell(
            spell.spell_id,
            spell.owner,
            HostRef.group(new.id),
            visible=spell.visible,
            boosted=spell.boosted,
            power=spell.power,
            card_uid=None,
            helper=spell.helper,
            data=dict(spell.data),
        )
    return new

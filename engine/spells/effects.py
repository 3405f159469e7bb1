"""Carrying out a spell's instant effects on the turn's World, and a spell leaving play.

Each primitive's behaviour is its own (``engine.spells.primitives``); :func:`apply_effects`
runs them in order, each with an :class:`EffectContext` that also hands them the rules above
the primitives' layer (walks, free squares, room for a hero, splitting a group, ending a spell).
Continuous primitives (modify, grant, hold, ward, ...) do nothing here: they act through
:mod:`engine.spells.modifiers` while their spell is active.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from engine.coords import Coord
from engine.spells import modifiers
from engine.spells.aim import Aim
from engine.spells.hosts import split_group
from engine.spells.primitives import Effect
from engine.state import (
    ActiveSpell,
    Card,
    Group,
    HostRef,
    Side,
)
from engine.terrain import can_enter

if TYPE_CHECKING:
    from engine.spells.schema import SpellDef
    from engine.world import World


@dataclass(slots=True)
class EffectContext:
    """Everything an instant effect needs: who casts what, aimed where."""

    world: World
    spell: SpellDef
    caster: Side
    aim: Aim | None
    active: ActiveSpell | None = None
    power: int | None = None
    subject: HostRef | None = None

    # What a primitive (engine.spells.primitives) may ask beyond the World's own methods: the
    # primitives sit below this module and the rules it reaches, so they reach them through
    # the context they are given.

    def end_spell(self, uid: int, reason: str) -> None:
        """An active spell leaves play (see :func:`end_spell`)."""
        end_spell(self.world, uid, reason)

    def dispellable(self, spell: ActiveSpell) -> bool:
        """Whether a dispel ends ``spell`` (see :func:`dispellable`)."""
        return dispellable(self.world, spell)

    def visible_copy_on(self, spell: SpellDef, host: HostRef, *, besides: int) -> bool:
        """See :func:`visible_copy_on`."""
        return visible_copy_on(self.world, spell, host, besides=besides)

    def walks(self, group: Group) -> frozenset[str]:
        """The walks every member of the group has (spells included)."""
        return modifiers.walks(self.world, group)

    def enterable(self, group: Group, at: Coord, walks: frozenset[str] | None = None) -> bool:
        """See :func:`enterable`."""
        return enterable(self.world, group, at, walks)

    def nearest_free(self, group: Group, origin: Coord) -> Coord | None:
        """The free square nearest ``origin`` the group may enter (see :func:`nearest_free`)."""
        return nearest_free(self.world, group, origin)

    def hero_room(self, side: Side, at: Coord) -> bool:
        """See :func:`hero_room`."""
        return hero_room(self.world, side, at)

    def split(self, minion_id: int, at: Coord) -> Group:
        """The minion steps out of its group onto ``at`` as a new group keeping its spells."""
        return split_group(self.world, minion_id, at)

    def initiative_lock(self) -> Side | None:
        """The side a spell holds initiative for, if any (I6)."""
        return modifiers.initiative_lock(self.world)


def _say(ctx: EffectContext, effect: Effect) -> None:
    text = ctx.world.content.index.words.get(id(effect))
    if text is None:
        text = effect.describe()
    ctx.world.emit("spell_effect", spell=ctx.spell.id, text=text)


def enterable(world: World, group: Group, at: Coord, walks: frozenset[str] | None = None) -> bool:
    """A free square the group may enter (terrain walks, no group, no hostile structure);
    ``walks`` may be given when many squares are tried for one group."""
    if not world.on_board(at) or world.group_at(at) is not None:
        return False
    structure = world.structure_at(at)
    if structure is not None and structure.owner != group.owner:
        return False
    if walks is None:
        walks = modifiers.walks(world, group)
    return can_enter(world.content, world.terrain_at(at), walks)


def nearest_free(world: World, group: Group, origin: Coord) -> Coord | None:
    """The free square nearest ``origin`` the group may enter (ties: lower row, then column),
    other than the group's own square."""
    walks = modifiers.walks(world, group)
    for at in sorted(world.terrain, key=lambda c: (c.dist(origin), c.y, c.x)):
        if at != group.coord and enterable(world, group, at, walks):
            return at
    return None


def hero_room(world: World, side: Side, at: Coord) -> bool:
    """A hero fits on ``at``: an empty square, or a friendly recruit group with room."""
    group = world.group_at(at)
    if group is None:
        return True
    return (
        group.owner == side
        and group.is_recruit_group
        and len(group.minions) < 8
        and modifiers.can_join(world, group, group)
    )


def dispellable(world: World, spell: ActiveSpell) -> bool:
    """Only visible spells can be dispelled (S10); some visible helpers never are."""
    definition = world.content.spells.get(spell.spell_id)
    return spell.visible and definition is not None and definition.dispellable


def card_placed(world: World, side: Side, card_uid: int) -> bool:
    player = world.player(side)
    return any(c.uid == card_uid for c in (*player.deck, *player.hand, *player.discard))


def retire_card(world: World, spell: ActiveSpell) -> None:
    """The card of a spell that left play goes to its owner's discard pile (once)."""
    if spell.card_uid is not None and not card_placed(world, spell.owner, spell.card_uid):
        world.put_card(spell.owner, Card(spell.card_uid, spell.spell_id), "discard")


def end_spell(world: World, uid: int, reason: str) -> None:
    """An active spell leaves play (its card to the discard pile); a spell that sustains its
    structure takes the structure along."""
    spell = world.spell_map.get(uid)
    if spell is None:
        return
    world.remove_spell(uid, reason)
    retire_card(world, spell)
    definition = world.content.spells.get(spell.spell_id)
    if definition is not None and any(e.op == "sustain" for e in definition.effects):
        ref = spell.host.ref
        if spell.host.kind == "structure" and isinstance(ref, int) and world.structure(ref):
            world.destroy_structure(ref)


def visible_copy_on(
    world: World, spell: SpellDef, host: HostRef, *, besides: int | None = None
) -> bool:
    """S10, D-SP8: ``host`` already carries a visible copy of ``spell`` (another than the
    active spell ``besides``), which a visible, non-cumulative spell may not join."""
    if spell.cumulative:
        return False
    return any(
        s.spell_id == spell.id and s.visible and s.uid != besides for s in world.spells_on(host)
    )


def apply_effects(ctx: EffectContext, effects: tuple[Effect, ...]) -> None:
    """Carry out the instant effects in order; continuous ones are skipped (modifiers read them)."""
    for effect in effects:
        run = effect.primitive.apply
        if run is None:
            continue
        if ctx.world.report.recording:
            _say(ctx, effect)
        run(ctx, effect)

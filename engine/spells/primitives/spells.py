"""Primitives that act on active spells: dispel, counter, transfer, expire, attach, and the
named special handlers for effects no primitive covers."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from engine.spells.params import BadKeyError, Key, Params
from engine.spells.primitives.base import (
    FILTER_KEYS,
    Effect,
    Primitive,
    filter_words,
    matches_filter,
)
from engine.state import GLOBE, HostRef, JsonValue, evolve

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext


def _dispel(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None:
        return
    world = ctx.world
    found = []
    for spell in world.spells_on(aim.host):
        definition = world.content.spells.get(spell.spell_id)
        if definition is None or not ctx.dispellable(spell):
            continue
        if matches_filter(ctx.caster, spell, definition, effect):
            found.append(spell)
    which = effect.params.text("which", "all")
    if which == "newest":
        found = found[-1:]
    elif which == "oldest":
        found = found[:1]
    for spell in found:
        ctx.end_spell(spell.uid, "dispelled")


def _counter(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    if effect.params.text("scope") == "everywhere" or ctx.aim is None:
        pool = list(world.spell_map.values())
    else:
        pool = list(world.spells_on(ctx.aim.host))
    for spell in reversed(pool):
        definition = world.content.spells.get(spell.spell_id)
        if definition is None or not ctx.dispellable(spell):
            continue
        if matches_filter(ctx.caster, spell, definition, effect):
            ctx.end_spell(spell.uid, "countered")
            return


def _transfer(ctx: EffectContext, effect: Effect) -> None:
    world, active = ctx.world, ctx.active
    if active is None:
        return
    if effect.params.text("to") == "globe":
        new_host = GLOBE
    else:
        here = world.host_coord(active.host)
        old = active.host.ref if active.host.kind == "group" else None
        dying = ctx.subject.ref if ctx.subject is not None else None
        if old is not None and isinstance(old, int):
            group = world.group(old)
            # A group spell moves only when its group is leaving play with the dying minion.
            if group is not None and [m.id for m in group.minions] != [dying]:
                return
        candidates = [
            g
            for g in world.group_map.values()
            if g.owner == active.owner and g.id != old and not _stacks(ctx, HostRef.group(g.id))
        ]
        if here is not None:
            candidates.sort(key=lambda g: (g.coord.dist(here), g.id))
        if not candidates:
            return
        new_host = HostRef.group(candidates[0].id)
        if active.get("members") is not None:
            # D-SP10: a group spell reaches the members its group had when it came; on the new
            # group that is all of them.
            active = active.with_data(members=tuple(m.id for m in candidates[0].minions))
    if new_host == GLOBE and _stacks(ctx, GLOBE):
        return
    world.update_spell(evolve(active, host=new_host))
    world.emit("spell_effect", spell=ctx.spell.id, text=f"{ctx.spell.name} moved to a new host.")


def _stacks(ctx: EffectContext, host: HostRef) -> bool:
    """S10: moving the active spell to ``host`` would put a second visible copy there."""
    active = ctx.active
    return (
        active is not None
        and active.visible
        and ctx.visible_copy_on(ctx.spell, host, besides=active.uid)
    )


def _expire(ctx: EffectContext, effect: Effect) -> None:
    if ctx.active is not None:
        ctx.end_spell(ctx.active.uid, "expired")


def _attach(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    helper = effect.params.text("spell")
    definition = world.content.spells[helper]
    if effect.params.text("host") == "globe":
        host = GLOBE
    elif ctx.aim is not None and world.host_exists(ctx.aim.host):
        host = ctx.aim.host
    else:
        return
    # A helper that lasts some turns lasts them from the cast that left it behind.
    expires = definition.expires_turn(world.turn)
    data: dict[str, JsonValue] | None = None if expires is None else {"expires_turn": expires}
    world.add_spell(helper, ctx.caster, host, visible=definition.visible, helper=True, data=data)


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


# Named handlers for effects no primitive covers (one spell each): a handler becomes a
# primitive once a second spell needs it.
HANDLERS: dict[str, Callable[[EffectContext], None]] = {"soul_jar": soul_jar}


def _special(ctx: EffectContext, effect: Effect) -> None:
    HANDLERS[effect.params.text("handler")](ctx)


def _known_handler(params: Params) -> None:
    if params.text("handler") not in HANDLERS:
        raise BadKeyError(
            "handler", f"unknown special handler (known: {', '.join(sorted(HANDLERS))})"
        )


PRIMITIVES = (
    Primitive(
        "dispel",
        (
            Key("which", "str", default="all", choices=("all", "newest", "oldest")),
            *(
                Key(k.name, k.kind, default="any", choices=k.choices) if k.name == "owner" else k
                for k in FILTER_KEYS
            ),
        ),
        lambda p: (
            f"Dispels {p.text('which')} visible {filter_words(p)} spells on the target "
            "(non-visible spells ignore it).".replace("  ", " ")
        ),
        _dispel,
    ),
    Primitive(
        "counter",
        (Key("scope", "str", default="host", choices=("host", "everywhere")), *FILTER_KEYS),
        lambda p: (
            f"Cancels the newest visible {filter_words(p)} active spell "
            + ("on the target." if p.text("scope") == "host" else "anywhere on the board.")
        ),
        _counter,
    ),
    Primitive(
        "transfer",
        (
            Key(
                "to",
                "str",
                default="nearest_friendly_group",
                choices=("nearest_friendly_group", "globe"),
            ),
        ),
        lambda p: (
            "This spell moves to the owner's nearest other group."
            if p.text("to") == "nearest_friendly_group"
            else "This spell moves to the globe."
        ),
        _transfer,
    ),
    Primitive("expire", (), lambda p: "This spell ends.", _expire),
    Primitive(
        "attach",
        (
            Key("spell", "str", required=True),
            Key("host", "str", default="target", choices=("target", "globe")),
        ),
        lambda p: f"Puts the helper spell '{p.text('spell')}' on the {p.text('host')}.",
        _attach,
    ),
    Primitive(
        "special",
        (Key("handler", "str", required=True),),
        lambda p: f"Special: {p.text('handler').replace('_', ' ')}.",
        _special,
        check=_known_handler,
    ),
)

"""Primitives that change the board: groups moved or split, minions and structures made or
destroyed, terrain changed."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.spells.params import Key
from engine.spells.primitives.base import (
    UNIT_KEYS,
    Effect,
    Primitive,
    affected_group,
    unit_words,
    with_stats,
)
from engine.spells.vocab import HOUSES, TERRAINS
from engine.squares import cuts_access, terrain_is_fixed
from engine.state import SIDES, HostRef, Minion, Side

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext


def _force_move(ctx: EffectContext, effect: Effect) -> None:
    group = affected_group(ctx)
    if group is None:
        return
    walks = ctx.walks(group)
    options = [n for n in group.coord.neighbours() if ctx.enterable(group, n, walks)]
    if not options:
        ctx.world.emit("spell_effect", spell=ctx.spell.id, text="The group had nowhere to go.")
        return
    # The group moves in the movement phase, in initiative order (seed 003's siege: an attacker
    # holding initiative walks into a town still held, and is blocked; one without it follows
    # the driven-out defenders in).
    dest = ctx.world.rng.choice(options)
    ctx.world.force_move(group.id, dest)
    ctx.world.emit(
        "spell_effect",
        spell=ctx.spell.id,
        text=f"The group must move to {dest.name} in the movement phase.",
    )


def _teleport(ctx: EffectContext, effect: Effect) -> None:
    group = affected_group(ctx)
    if group is None or group.owner not in SIDES:
        return
    owner = Side(group.owner)
    home_side = owner if effect.params.text("to") == "own_sanctum" else owner.other
    sanctum = ctx.world.sanctum(home_side)
    if sanctum is None:
        return
    spot = ctx.nearest_free(group, sanctum.coord)
    if spot is not None:
        ctx.world.move_group(group.id, spot)


def _split(ctx: EffectContext, effect: Effect) -> None:
    group = affected_group(ctx)
    if group is None or len(group.minions) < 2:
        ctx.world.emit("spell_effect", spell=ctx.spell.id, text="The group is too small to split.")
        return
    walks = ctx.walks(group)
    options = [n for n in group.coord.neighbours() if ctx.enterable(group, n, walks)]
    if not options:
        ctx.world.emit("spell_effect", spell=ctx.spell.id, text="The group had nowhere to split.")
        return
    at = ctx.world.rng.choice(options)
    new = ctx.split(group.minions[-1].id, at)
    ctx.world.emit("split", group=group.id, new=new.id, side=str(group.owner), at=at.name)


def _unit_minion(ctx: EffectContext, effect: Effect, kind: str, nation: str | None) -> Minion:
    p = effect.params
    world = ctx.world
    unit = p.text("unit")
    base = world.content.units.get(unit)
    if base is not None:
        minion = world.new_minion(unit, nation)
        if p.text("name"):
            minion = minion._replace(name=p.text("name"))
    else:
        hp = p.num("hp", 1)
        minion = Minion(
            id=world.new_id(),
            kind="monster" if kind == "monster" else "recruit",
            unit=unit,
            nation=nation,
            hp=hp,
            max_hp=hp,
            name=p.text("name") or unit,
        )
    fields: dict[str, int] = {
        k: p.num(k)
        for k in ("armor", "attacks", "hand", "missile", "level")
        if p.get(k) is not None
    }
    if p.get("hp") is not None:
        fields["hp"] = fields["max_hp"] = p.num("hp")
    minion = with_stats(minion, fields)._replace(
        kind="monster" if kind == "monster" else "recruit",
        walks=minion.walks | frozenset(p.texts("walks")),
        traits=minion.traits | frozenset(p.texts("traits")),
    )
    return minion


def _summon(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.coord is None:
        return
    minions = [
        _unit_minion(ctx, effect, "monster", None) for _ in range(effect.params.num("count", 1))
    ]
    ctx.world.create_group(ctx.caster, aim.coord, minions)


def _create_hero(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.coord is None or not ctx.hero_room(ctx.caster, aim.coord):
        return
    world = ctx.world
    nation = world.content.houses[world.player(ctx.caster).house].nation
    hero = _unit_minion(ctx, effect, "recruit", nation)
    hero = hero._replace(traits=hero.traits | {"hero"})
    group = world.group_at(aim.coord)
    if group is None:
        world.create_group(ctx.caster, aim.coord, [hero])
    else:
        world.add_minion(group.id, hero)
    for helper in effect.params.texts("helpers"):
        definition = world.content.spells[helper]
        world.add_spell(
            helper, ctx.caster, HostRef.minion(hero.id), visible=definition.visible, helper=True
        )


def _create_structure(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.coord is None or ctx.world.structure_at(aim.coord) is not None:
        return
    world = ctx.world
    primary = HOUSES[world.player(ctx.caster).house][0]
    structure = world.found_structure("colony", aim.coord, ctx.caster, mana_type=primary)
    helper = effect.params.text("helper")
    world.add_spell(helper, ctx.caster, HostRef.structure(structure.id), helper=True)


def _destroy_structure(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.structure is None:
        return
    structure = ctx.world.structure(aim.structure.id)
    if structure is not None and structure.kind != "sanctum":
        ctx.world.destroy_structure(structure.id)


def _change_terrain(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.coord is None:
        return
    world = ctx.world
    terrain = effect.params.text("terrain")
    if terrain == "redraw":
        realm = world.content.realms.get(world.options.realm)
        weights = list(realm.weights) if realm is not None else []
        if not weights:
            weights = [("plains", 1.0)]
        names = [w[0] for w in weights]
        terrain = world.rng.choices(names, weights=[w[1] for w in weights])[0]
    if terrain_is_fixed(world.structure_at, aim.coord):
        return
    # Refused at targeting; here for a change that another one this turn made a cut (D-SP36).
    if not cuts_access(world.terrain, world.structures, aim.coord, terrain, world.content.blocking):
        world.set_terrain(aim.coord, terrain)


PRIMITIVES = (
    Primitive(
        "force_move",
        (),
        lambda p: "Forces the target group out to a free neighbouring square it may enter.",
        _force_move,
    ),
    Primitive(
        "teleport",
        (Key("to", "str", default="own_sanctum", choices=("own_sanctum", "enemy_side")),),
        lambda p: (
            "Teleports the target group to the free square nearest its owner's Sanctum."
            if p.text("to") == "own_sanctum"
            else "Teleports the target group to the free square nearest the enemy Sanctum."
        ),
        _teleport,
    ),
    Primitive(
        "split",
        (),
        lambda p: (
            "The group's newest member steps out onto a free neighbouring square as a new "
            "group that keeps the group's spells."
        ),
        _split,
    ),
    Primitive(
        "summon",
        (
            Key("unit", "str", required=True),
            Key("count", "int", default=1, minimum=1),
            *UNIT_KEYS,
        ),
        lambda p: (
            f"Creates a monster group of {p.num('count')} {p.text('name') or p.text('unit')}"
            f"{unit_words(p)} on the square."
        ),
        _summon,
        on_square=True,
    ),
    Primitive(
        "create_hero",
        (
            Key("unit", "str", default="swordsman", choices=("swordsman", "archer")),
            *UNIT_KEYS,
            Key("helpers", "strs", default=()),
        ),
        lambda p: (
            f"The hero {p.text('name') or p.text('unit')}{unit_words(p)} joins the "
            "caster on the structure" + (", with powers of its own." if p.texts("helpers") else ".")
        ),
        _create_hero,
    ),
    Primitive(
        "create_structure",
        (
            Key("kind", "str", default="colony", choices=("colony",)),
            # The helper spell the new structure carries: it stands while the helper lasts.
            Key("helper", "str", required=True),
        ),
        lambda p: "Founds a colony on the square; it stands while its Colony helper lasts.",
        _create_structure,
        on_square=True,
    ),
    Primitive(
        "destroy_structure",
        (),
        lambda p: "Destroys the target structure; its owner counts it as lost.",
        _destroy_structure,
        on_square=True,
    ),
    Primitive(
        "change_terrain",
        (Key("terrain", "str", required=True, choices=(*TERRAINS, "redraw")),),
        lambda p: (
            "The square's terrain is drawn again from the realm."
            if p.text("terrain") == "redraw"
            else f"The square's terrain becomes {p.text('terrain')}."
        ),
        _change_terrain,
        on_square=True,
    ),
)

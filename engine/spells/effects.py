"""Carrying out instant effects on the turn's World (the "apply" half of each primitive).

Continuous primitives (modify, grant, hold, ward, ...) do nothing here: they act through
:mod:`engine.spells.modifiers` while their spell is active. Which minions an effect touches
follows the aim: a minion; every member of a group; the group standing on a square or structure.

This file is long because it is the whole instant half of the closed effect vocabulary: one short
function per primitive, all in :data:`APPLY`, so that what a primitive does is found in one place.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.spells import modifiers
from engine.spells.aim import Aim
from engine.spells.hosts import split_group
from engine.spells.primitives import PRIMITIVES, Effect
from engine.spells.specials import HANDLERS
from engine.spells.vocab import HOUSES, MANA_TYPES
from engine.squares import terrain_is_fixed
from engine.state import (
    GLOBE,
    NEUTRAL,
    ActiveSpell,
    Card,
    Group,
    HostRef,
    Mana,
    Minion,
    Side,
    evolve,
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

    # The helpers a special handler (engine.spells.specials) may call: specials sit below this
    # module, so they reach its functions through the context they are given.

    def end_spell(self, uid: int, reason: str) -> None:
        """An active spell leaves play (see :func:`end_spell`)."""
        end_spell(self.world, uid, reason)

    def nearest_free(self, group: Group, origin: Coord) -> Coord | None:
        """The free square nearest ``origin`` the group may enter (see :func:`nearest_free`)."""
        return nearest_free(self.world, group, origin)


def affected_group(ctx: EffectContext) -> Group | None:
    aim = ctx.aim
    if aim is None:
        return None
    if aim.group is not None:
        return ctx.world.group(aim.group.id)
    if aim.coord is not None and aim.host.kind in ("square", "structure"):
        return ctx.world.group_at(aim.coord)
    return None


def affected_minions(ctx: EffectContext) -> list[int]:
    """Ids of the minions an effect touches, read fresh from the World."""
    aim = ctx.aim
    if aim is None:
        return []
    if aim.minion is not None:
        return [aim.minion.id] if ctx.world.minion(aim.minion.id) is not None else []
    group = affected_group(ctx)
    return [] if group is None else [m.id for m in group.minions]


def _say(ctx: EffectContext, effect: Effect) -> None:
    text = ctx.world.content.index.words.get(id(effect))
    if text is None:
        text = effect.describe()
    ctx.world.emit("spell_effect", spell=ctx.spell.id, text=text)


def _damage(ctx: EffectContext, effect: Effect) -> None:
    p = effect.params
    amount = ctx.power if p.flag("power_scaled") and ctx.power else p.num("amount")
    for mid in affected_minions(ctx):
        ctx.world.damage_minion(mid, amount, source=ctx.spell.id)


def _heal(ctx: EffectContext, effect: Effect) -> None:
    for mid in affected_minions(ctx):
        minion = ctx.world.minion(mid)
        if minion is not None:
            amount = minion.max_hp if effect.params.flag("full") else effect.params.num("amount")
            ctx.world.heal_minion(mid, amount)


def _kill(ctx: EffectContext, effect: Effect) -> None:
    for mid in affected_minions(ctx):
        ctx.world.kill_minion(mid, "died")


def _remove(ctx: EffectContext, effect: Effect) -> None:
    for mid in affected_minions(ctx):
        ctx.world.kill_minion(mid, "removed")


def _adjust(ctx: EffectContext, effect: Effect) -> None:
    stat, amount = effect.params.text("stat"), effect.params.num("amount")
    if stat == "moves":
        return
    for mid in affected_minions(ctx):
        minion = ctx.world.minion(mid)
        if minion is None:
            continue
        if stat == "max_hp":
            new_max = max(1, minion.max_hp + amount)
            minion = minion._replace(max_hp=new_max, hp=min(minion.hp, new_max))
        else:
            minion = with_stats(minion, {stat: max(0, int(getattr(minion, stat)) + amount)})
        ctx.world.update_minion(minion)


def with_stats(minion: Minion, stats: dict[str, int]) -> Minion:
    """The minion with some of its integer stats replaced."""
    return minion._replace(
        hp=stats.get("hp", minion.hp),
        max_hp=stats.get("max_hp", minion.max_hp),
        armor=stats.get("armor", minion.armor),
        attacks=stats.get("attacks", minion.attacks),
        hand=stats.get("hand", minion.hand),
        missile=stats.get("missile", minion.missile),
        level=stats.get("level", minion.level),
    )


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


def _force_move(ctx: EffectContext, effect: Effect) -> None:
    group = affected_group(ctx)
    if group is None:
        return
    walks = modifiers.walks(ctx.world, group)
    options = [n for n in group.coord.neighbours() if enterable(ctx.world, group, n, walks)]
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
    if group is None or group.owner not in (Side.RED, Side.BLUE):
        return
    owner = Side(group.owner)
    home_side = owner if effect.params.text("to") == "own_sanctum" else owner.other
    sanctum = ctx.world.sanctum(home_side)
    if sanctum is None:
        return
    spot = nearest_free(ctx.world, group, sanctum.coord)
    if spot is not None:
        ctx.world.move_group(group.id, spot)


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


def _create_hero(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None or aim.coord is None or not hero_room(ctx.world, ctx.caster, aim.coord):
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
    world.add_spell("colony", ctx.caster, HostRef.structure(structure.id), helper=True)


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
    if not terrain_is_fixed(world.structure_at, aim.coord):
        world.set_terrain(aim.coord, terrain)


def _mana_type(ctx: EffectContext, side: Side, name: str) -> str:
    primary, secondary = HOUSES[ctx.world.player(side).house]
    return {"primary": primary, "secondary": secondary}.get(name, name)


def _gain_mana(ctx: EffectContext, effect: Effect) -> None:
    p = effect.params
    side = ctx.caster
    if p.text("to", "caster") == "host_owner" and ctx.aim is not None:
        # Whoever holds the host now (a captured town's new owner), if a side does.
        owner = ctx.aim.owner
        if owner is None or owner == NEUTRAL:
            return
        side = Side(owner)
    kind = _mana_type(ctx, side, p.text("mana", "primary"))
    ctx.world.gain(side, Mana.single(kind, p.num("amount")))


def _drain_mana(ctx: EffectContext, effect: Effect) -> None:
    p = effect.params
    side = ctx.caster if p.text("who") == "caster" else ctx.caster.other
    amount = p.num("amount")
    mana = p.text("mana")
    loss = Mana(*(amount for _ in MANA_TYPES)) if mana == "all" else Mana.single(mana, amount)
    ctx.world.gain(side, Mana() - loss)


def _draw(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    player = world.player(ctx.caster)
    count = min(effect.params.num("count", 1), len(player.deck))
    if count:
        drawn = player.deck[:count]
        world.update_player(evolve(player, deck=player.deck[count:], hand=player.hand + drawn))
        world.emit("drew", side=str(ctx.caster), count=count)


def _discard(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    side = ctx.caster if effect.params.text("who", "enemy") == "caster" else ctx.caster.other
    for _ in range(effect.params.num("count", 1)):
        hand = world.player(side).hand
        if not hand:
            return
        card = world.rng.choice(hand)
        world.take_card(side, card.uid)
        world.put_card(side, card, "discard")
        world.emit("discarded", side=str(side), card=card.uid, spell=card.spell_id)


def _split(ctx: EffectContext, effect: Effect) -> None:
    group = affected_group(ctx)
    if group is None or len(group.minions) < 2:
        ctx.world.emit("spell_effect", spell=ctx.spell.id, text="The group is too small to split.")
        return
    walks = modifiers.walks(ctx.world, group)
    options = [n for n in group.coord.neighbours() if enterable(ctx.world, group, n, walks)]
    if not options:
        ctx.world.emit("spell_effect", spell=ctx.spell.id, text="The group had nowhere to split.")
        return
    at = ctx.world.rng.choice(options)
    new = split_group(ctx.world, group.minions[-1].id, at)
    ctx.world.emit("split", group=group.id, new=new.id, side=str(group.owner), at=at.name)


def matches_filter(
    ctx_caster: Side, spell: ActiveSpell, definition: SpellDef, effect: Effect
) -> bool:
    p = effect.params
    owner = p.text("owner", "enemy")
    if owner == "enemy" and spell.owner == ctx_caster:
        return False
    if owner == "friendly" and spell.owner != ctx_caster:
        return False
    for key, value in (
        ("house", definition.house),
        ("spell_type", definition.type),
        ("speed", definition.speed),
        ("spell", definition.id),
    ):
        wanted = p.get(key)
        if wanted is not None and wanted != value:
            return False
    return True


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


def _dispel(ctx: EffectContext, effect: Effect) -> None:
    aim = ctx.aim
    if aim is None:
        return
    world = ctx.world
    found = []
    for spell in world.spells_on(aim.host):
        definition = world.content.spells.get(spell.spell_id)
        if definition is None or not dispellable(world, spell):
            continue
        if matches_filter(ctx.caster, spell, definition, effect):
            found.append(spell)
    which = effect.params.text("which", "all")
    if which == "newest":
        found = found[-1:]
    elif which == "oldest":
        found = found[:1]
    for spell in found:
        end_spell(world, spell.uid, "dispelled")


def _counter(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    if effect.params.text("scope") == "everywhere" or ctx.aim is None:
        pool = list(world.spell_map.values())
    else:
        pool = list(world.spells_on(ctx.aim.host))
    for spell in reversed(pool):
        definition = world.content.spells.get(spell.spell_id)
        if definition is None or not dispellable(world, spell):
            continue
        if matches_filter(ctx.caster, spell, definition, effect):
            end_spell(world, spell.uid, "countered")
            return


def _swap_initiative(ctx: EffectContext, effect: Effect) -> None:
    world = ctx.world
    if modifiers.initiative_lock(world) is not None:
        world.emit("spell_effect", spell=ctx.spell.id, text="Initiative is held fast (I6).")
        return
    world.set_initiative(world.initiative.other, ctx.spell.name)
    world.emit("initiative_swapped", side=str(world.initiative))


def _seize_initiative(ctx: EffectContext, effect: Effect) -> None:
    ctx.world.set_initiative(ctx.caster, ctx.spell.name)


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
            if g.owner == active.owner
            and g.id != old
            and not _stacks(world, ctx.spell, active, HostRef.group(g.id))
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
    if new_host == GLOBE and _stacks(world, ctx.spell, active, GLOBE):
        return
    world.update_spell(evolve(active, host=new_host))
    world.emit("spell_effect", spell=ctx.spell.id, text=f"{ctx.spell.name} moved to a new host.")


def _stacks(world: World, spell: SpellDef, active: ActiveSpell, host: HostRef) -> bool:
    """S10: moving ``active`` to ``host`` would put a second visible copy there."""
    return active.visible and visible_copy_on(world, spell, host, besides=active.uid)


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


def _expire(ctx: EffectContext, effect: Effect) -> None:
    if ctx.active is not None:
        end_spell(ctx.world, ctx.active.uid, "expired")


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
    world.add_spell(helper, ctx.caster, host, visible=definition.visible, helper=True)


def _special(ctx: EffectContext, effect: Effect) -> None:
    HANDLERS[effect.params.text("handler")](ctx)


APPLY: dict[str, Callable[[EffectContext, Effect], None]] = {
    "damage": _damage,
    "heal": _heal,
    "kill": _kill,
    "remove": _remove,
    "adjust": _adjust,
    "force_move": _force_move,
    "teleport": _teleport,
    "summon": _summon,
    "create_hero": _create_hero,
    "create_structure": _create_structure,
    "destroy_structure": _destroy_structure,
    "change_terrain": _change_terrain,
    "gain_mana": _gain_mana,
    "drain_mana": _drain_mana,
    "draw": _draw,
    "discard": _discard,
    "split": _split,
    "dispel": _dispel,
    "counter": _counter,
    "swap_initiative": _swap_initiative,
    "seize_initiative": _seize_initiative,
    "transfer": _transfer,
    "expire": _expire,
    "attach": _attach,
    "special": _special,
}
assert set(APPLY) == {name for name, p in PRIMITIVES.items() if not p.continuous}

# Effects that act on the aimed square itself rather than on a group standing there.
SQUARE_EFFECTS: Final = frozenset(
    {"change_terrain", "create_structure", "destroy_structure", "summon"}
)


def apply_effects(ctx: EffectContext, effects: tuple[Effect, ...]) -> None:
    """Carry out the instant effects in order; continuous ones are skipped (modifiers read them)."""
    for effect in effects:
        run = APPLY.get(effect.op)
        if run is None:
            continue
        _say(ctx, effect)
        run(ctx, effect)

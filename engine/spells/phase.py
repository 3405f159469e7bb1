"""The spell execution phase: the life cycle of every cast (C1-C8, S6-S12, N2-N10).

Order (C2, C3): by speed rank, immediate first and slow last; within a rank the side holding
initiative when the rank begins goes first, each side's spells in the order it issued them.

Each cast ends in exactly one of three ways:

* **unpaid fizzle** (C5): the card is no longer in hand, the pool no longer covers the cost, or
  (magic duel) the casting roll failed. Nothing is paid; the card stays where it is (in hand, or
  wherever an earlier spell put it). It does not count as cast.
* **squander** (C6, S11): a casting requirement became false, the target is gone or changed,
  a visible non-cumulative copy already sits on the host (S7, S10), a ward stopped it (C8), a
  dispel roll beat it (N10), or a once-per-game spell was already cast. The cost is paid and the
  card goes to the discard pile; the ``on_squander`` effects happen (C7). It does not count as
  cast (S12).
* **success**: the cost is paid and the spell counts as cast. Instant spells apply their effects
  and their card is discarded; alterations and conjurations become active on their host (S8)
  and keep their card in play until they leave it (docs/spells.md D-SP4). Then the house's
  attribute spell, if any, is cast automatically on the same target (N4).
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Final

from engine.coords import Coord
from engine.orders import CastOrder, Target
from engine.spells.aim import Aim, aim_of_host
from engine.spells.checks import ReqContext, failing, holds_persistent
from engine.spells.duel import BOUND_HIGH_DICE, CAST_DICE, Duel, roll
from engine.spells.effects import (
    EffectContext,
    apply_effects,
    end_spell,
    hero_room,
    retire_card,
    visible_copy_on,
)
from engine.spells.primitives import Effect
from engine.spells.primitives.base import matches_filter
from engine.spells.targeting import (
    Resolved,
    cast_cost,
    check_target,
    high_turn_key,
    is_high_power,
    resolve_cast,
)
from engine.spells.vocab import GROUP_KINDS, MINION_KINDS, SPEEDS
from engine.state import GLOBE, SIDES, ActiveSpell, HostRef, JsonValue, Side

if TYPE_CHECKING:
    from engine.spells.schema import SpellDef
    from engine.world import World


@dataclass(slots=True)
class _Cast:
    side: Side
    index: int
    order: CastOrder
    resolved: Resolved | None


def target_text(target: Target) -> str:
    if target.kind == "globe":
        return "globe"
    ref = target.ref
    return f"{target.kind}:{ref.name if isinstance(ref, Coord) else ref}"


def expire_spells(world: World) -> None:
    """Conjurations whose turns ran out leave play before the phase's first spell (N12)."""
    for spell in list(world.spell_map.values()):
        until = spell.get("expires_turn")
        if isinstance(until, int) and not isinstance(until, bool) and until <= world.turn:
            end_spell(world, spell.uid, "expired")


def _resolve_all(world: World, casts: dict[Side, list[CastOrder]]) -> list[_Cast]:
    out = []
    for side in SIDES:
        orders = casts.get(side)
        if not orders:
            # Most turns a side casts nothing: its hand is not worth listing.
            continue
        player = world.player(side)
        hand = [(c.uid, c.spell_id) for c in player.hand]
        for index, order in enumerate(orders):
            resolved = resolve_cast(world, side, order, hand=hand, house=player.house)
            out.append(
                _Cast(side, index, order, None if not isinstance(resolved, Resolved) else resolved)
            )
    return out


def run_spell_phase(world: World, casts: dict[Side, list[CastOrder]]) -> None:
    """Execute both sides' casts for this turn on ``world`` (see the module docstring)."""
    in_play = {s.uid: s for s in world.spell_map.values() if s.card_uid is not None}
    try:
        _run(world, casts, in_play)
    finally:
        # Hosts that died during the phase took their spells along: their cards are spent.
        for uid, spell in in_play.items():
            if uid not in world.spell_map:
                retire_card(world, spell)


def _run(world: World, casts: dict[Side, list[CastOrder]], in_play: dict[int, ActiveSpell]) -> None:
    expire_spells(world)
    world.broadcast("spell_phase_start")
    pending = _resolve_all(world, casts)
    duel = None
    if world.options.magic_duel:
        plan: dict[Side, list[tuple[int, int]]] = {}
        for c in pending:
            if c.resolved is not None:
                plan.setdefault(c.side, []).append((c.index, dice_needed(c.resolved, c.order)))
        duel = Duel.plan(plan)
    for rank in SPEEDS:
        first, second = world.initiative_order()
        for side in (first, second):
            for c in pending:
                if c.side is not side:
                    continue
                speed = c.resolved.spell.speed if c.resolved is not None else "normal"
                if speed == rank:
                    active = execute_cast(world, c, duel)
                    if active is not None and active.card_uid is not None:
                        in_play[active.uid] = active


def dice_needed(resolved: Resolved, order: CastOrder) -> int:
    """The magic dice a cast commits in a duel (N10, D-SP15): a bound spell's higher power level
    takes one more (N8, seed 004), as a boost does for a cast from hand."""
    spell = resolved.spell
    if resolved.source == "bound":
        return BOUND_HIGH_DICE if is_high_power(spell, order) else CAST_DICE
    return CAST_DICE + (1 if order.boosted else 0)


def _fizzle(world: World, c: _Cast, spell_id: str, reason: str) -> None:
    world.emit(
        "spell_fizzled",
        side=str(c.side),
        card=c.order.card_uid,
        spell=spell_id,
        target=target_text(c.order.target),
        reason=reason,
    )


def host_for(spell: SpellDef, aim: Aim) -> HostRef:
    """Where an alteration or conjuration lives once active (S8)."""
    kind = spell.target.kind
    if kind == "globe":
        return GLOBE
    if kind in MINION_KINDS and aim.minion is not None:
        return HostRef.minion(aim.minion.id)
    if kind in GROUP_KINDS and spell.target.has("focused") and aim.minion is not None:
        return HostRef.minion(aim.minion.id)
    return aim.host


def _ward_stops(world: World, side: Side, spell: SpellDef, aim: Aim) -> ActiveSpell | None:
    """An enemy ward on a host the spell executes against (C8), or None.

    An instant spell executes against every host its effects reach, so a ground or aura spell
    meets the wards of every group it would touch, not only of the square it names.
    """
    wards = world.content.index.with_op("ward")
    if not wards or not world.spells_among(wards):
        # No ward is active: nothing to look for on the hosts the spell reaches.
        return None
    reached = _aims(world, spell, side, aim) if spell.instant else [aim]
    hosts: list[HostRef] = []
    for each in reached:
        hosts.append(each.host)
        if each.minion is not None and each.group is not None:
            hosts.append(HostRef.group(each.group.id))
    for host in hosts:
        for active in world.spells_on(host):
            if active.owner == side or active.spell_id not in wards:
                continue
            if not holds_persistent(world, active, world.content.spells[active.spell_id]):
                # A ward is potent only while its persistent requirements hold, as every
                # other continuous effect is.
                continue
            for effect in world.content.index.effects_of(active.spell_id)["ward"]:
                # The ward's filter is written from its owner's side: "enemy" means our caster.
                fake = ActiveSpell(0, spell.id, side, host, world.turn)
                if matches_filter(active.owner, fake, spell, effect):
                    return active
    return None


@dataclass(frozen=True, slots=True)
class Squander:
    """Why a cast squanders: a stable ``code`` that logs, images and tests read, and the words."""

    code: str
    reason: str


# A target named by id that is gone at execution was there when the orders were checked: it died,
# was removed or was destroyed earlier in the turn (S11).
_GONE_WORDS: Final = {
    "group": "its target group died earlier in the turn",
    "minion": "its target died earlier in the turn",
    "structure": "its target structure was destroyed earlier in the turn",
}


def _squander_reason(
    world: World, c: _Cast, spell: SpellDef, carrier: HostRef | None
) -> tuple[Squander | None, Aim | None]:
    content = world.content
    side = c.side
    if spell.once_per_game and spell.id in world.player(side).cast_log:
        return Squander("once_per_game", "once per game: already cast"), None
    aim, problem = check_target(world, side, spell, c.order.target, carrier=carrier)
    if problem is not None or aim is None:
        if problem is None:
            return Squander("no_target", "no target"), None
        if problem.code == "no_target" and c.order.target.kind in _GONE_WORDS:
            return Squander("target_gone", _GONE_WORDS[c.order.target.kind]), None
        return Squander(problem.code, problem.message), None
    if spell.requires_execution:
        bad = failing(spell.requires_execution, ReqContext(world, side, aim))
        if bad is not None:
            return Squander("requirement", f"requirement failed: {bad.describe()}"), aim
    if spell.type == "hero" and aim.coord is not None and not hero_room(world, side, aim.coord):
        return Squander("no_room", "no room for the hero"), aim
    if not spell.instant and spell.visible and visible_copy_on(world, spell, host_for(spell, aim)):
        return Squander("copy_active", "a copy is already active on that target"), aim
    ward = _ward_stops(world, side, spell, aim)
    if ward is not None:
        uses = ward.get("uses_left")
        definition = content.spells[ward.spell_id]
        limit = definition.ward_uses
        left = (uses if isinstance(uses, int) and not isinstance(uses, bool) else limit) - 1
        if limit and left <= 0:
            end_spell(world, ward.uid, "spent")
        elif limit:
            world.update_spell(ward.with_data(uses_left=left))
        return Squander("warded", f"warded by {definition.name}"), aim
    return None, aim


def _emit_cast(
    world: World, kind: str, side: Side, *, card: int, spell_id: str, target: Target
) -> None:
    """A cast's "spell_cast" or "spell_executed" event; a silent turn formats none (the target's
    text is built for the reader only)."""
    if world.report.recording:
        world.emit(kind, side=str(side), card=card, spell=spell_id, target=target_text(target))


def execute_cast(world: World, c: _Cast, duel: Duel | None) -> ActiveSpell | None:
    """One cast's execution: fizzle, squander or success (module docstring); returns the spell
    that became active, if any."""
    order, side = c.order, c.side
    if c.resolved is None:
        _fizzle(world, c, order.spell_id or "?", "the spell is no longer held")
        return None
    resolved = c.resolved
    spell = resolved.spell
    if resolved.source != "bound" and spell.power is not None:
        # A bound spell cast from hand works at its lower power level (N5, N8).
        order = replace(order, power=spell.power_from_hand())
    _emit_cast(
        world, "spell_cast", side, card=order.card_uid, spell_id=spell.id, target=order.target
    )
    card = None
    if resolved.source == "hand":
        card = world.player(side).card(order.card_uid)
        if card is None:
            _fizzle(world, c, spell.id, "the spell is no longer in hand")
            return None
    if resolved.source == "bound" and (
        resolved.carrier_uid is None or resolved.carrier_uid not in world.spell_map
    ):
        _fizzle(world, c, spell.id, "its holder is gone")
        return None
    casting_roll = 0
    if duel is not None:
        dice = duel.casting_dice(side, c.index)
        if dice == 0:
            _fizzle(world, c, spell.id, "no magic dice left")
            return None
        casting_roll = roll(world.rng, dice)
        if resolved.source != "bound":
            value = spell.casting_value + (2 if order.boosted else 0)
            if casting_roll < value:
                _fizzle(world, c, spell.id, f"casting roll {casting_roll} below {value}")
                return None
    uid = resolved.carrier_uid
    holder = world.spell_map.get(uid) if uid is not None else None
    if duel is None and holder is not None and is_high_power(spell, order):
        # The higher level's price in classic: its holder rests it next turn (D-SP14).
        world.update_spell(holder.with_data(**{high_turn_key(spell.id): world.turn}))
    cost = cast_cost(spell, order, world.turn, resolved.source)
    if not world.player(side).pool.covers(cost):
        _fizzle(world, c, spell.id, f"the pool no longer covers {cost}")
        return None
    squander, aim = _squander_reason(world, c, spell, resolved.carrier)
    if squander is None and duel is not None and aim is not None:
        defender = side.other
        if aim.host == GLOBE or aim.owner == defender:
            dispel = duel.try_dispel(world.rng, defender, casting_roll)
            if dispel is not None and dispel > casting_roll:
                squander = Squander("dispelled", f"dispelled: roll {dispel} beat {casting_roll}")
    # A spell with a failure cost pays it instead of its normal cost when it squanders (C7,
    # seed 002: "they will instead take on the effect of the failure cost").
    # An active spell keeps its card in play until it leaves play (end_spell); a successful
    # cast counts as cast (S12).
    world.settle_cast(
        side,
        cost if squander is None or not spell.on_squander else None,
        card,
        discard=squander is not None or spell.instant,
        cast=spell.id if squander is None else None,
    )
    if squander is not None:
        world.emit(
            "spell_squandered",
            side=str(side),
            card=order.card_uid,
            spell=spell.id,
            target=target_text(order.target),
            reason=squander.reason,
            code=squander.code,
        )
        if spell.on_squander:
            apply_effects(
                EffectContext(world, spell, side, aim, power=order.power), spell.on_squander
            )
        return None
    assert aim is not None
    _emit_cast(
        world, "spell_executed", side, card=order.card_uid, spell_id=spell.id, target=order.target
    )
    active = succeed(world, spell, side, aim, order, card_uid=None if card is None else card.uid)
    if spell.spell_class != "attribute":
        cast_attribute(world, spell, side, order.target)
    return active


def _aims(world: World, spell: SpellDef, side: Side, aim: Aim) -> list[Aim]:
    """The aims an instant spell's effects reach: ground and aura widen the one target (N11)."""
    t = spell.target
    if not t.has("ground") and t.aura is None:
        return [aim]
    centre = aim.coord
    if centre is None:
        return [aim]
    radius = t.aura or 0
    out = [] if t.has("ground") else [aim]
    for group in sorted(world.groups, key=lambda g: g.id):
        if group.coord.dist(centre) > radius:
            continue
        if (here := world.structure_at(group.coord)) is not None and here.kind == "sanctum":
            # Ground and aura effects stop at a Sanctum's walls (S3, N11).
            continue
        if not t.has("ground") and aim.group is not None and group.id == aim.group.id:
            continue
        if t.allegiance == "augment" and group.owner != side:
            continue
        if t.allegiance == "hex" and group.owner == side:
            continue
        if t.kind == "recruit_group" and not group.is_recruit_group:
            continue
        if t.kind == "monster_group" and not group.is_monster_group:
            continue
        found = aim_of_host(world, HostRef.group(group.id))
        if found is not None:
            out.append(found)
    return out


def succeed(
    world: World,
    spell: SpellDef,
    side: Side,
    aim: Aim,
    order: CastOrder,
    *,
    card_uid: int | None,
) -> ActiveSpell | None:
    """A successful execution: instant effects, or the spell becomes active (S8)."""
    if spell.instant:
        effects = spell.effects_for(order.boosted)
        on_square: tuple[Effect, ...] = ()
        if spell.target.has("ground"):
            # The named square's own effects (its terrain) happen once, whoever stands there.
            on_square = tuple(e for e in effects if e.primitive.on_square)
            effects = tuple(e for e in effects if not e.primitive.on_square)
        for each in _aims(world, spell, side, aim):
            apply_effects(EffectContext(world, spell, side, each, power=order.power), effects)
        if on_square and aim.coord is not None:
            square = Aim(HostRef.square(aim.coord), aim.coord)
            apply_effects(EffectContext(world, spell, side, square, power=order.power), on_square)
        return None
    data: dict[str, JsonValue] = {}
    expires = spell.expires_turn(world.turn)
    if expires is not None:
        data["expires_turn"] = expires
    host = host_for(spell, aim)
    if host.kind == "group" and aim.group is not None:
        group = world.group(aim.group.id)
        data["members"] = tuple(m.id for m in group.minions) if group is not None else ()
    active = world.add_spell(
        spell.id,
        side,
        host,
        visible=spell.visible,
        boosted=order.boosted,
        power=order.power,
        card_uid=card_uid,
        helper=spell.helper,
        data=dict(data),
    )
    apply_effects(
        EffectContext(world, spell, side, aim, active=active, power=order.power),
        spell.effects_for(order.boosted),
    )
    return active


def attribute_of(world: World, house: str) -> SpellDef | None:
    """The house's attribute spell (N4), if the catalogue has one."""
    return world.content.index.attributes.get(house)


def cast_attribute(world: World, spell: SpellDef, side: Side, target: Target) -> None:
    """N4: the house's attribute spell follows a successful cast, free and undispellable."""
    attribute = attribute_of(world, spell.house)
    if attribute is None or spell.helper:
        return
    attr_target = Target("globe") if attribute.target.kind == "globe" else target
    aim, problem = check_target(world, side, attribute, attr_target)
    if aim is None or problem is not None:
        return
    _emit_cast(world, "spell_executed", side, card=0, spell_id=attribute.id, target=attr_target)
    succeed(
        world, attribute, side, aim, CastOrder(0, attr_target, spell_id=attribute.id), card_uid=None
    )

"""Primitives that act on the minions an effect touches: damage, heal, kill, remove, adjust."""

from __future__ import annotations

from typing import TYPE_CHECKING

from engine.spells.params import Key
from engine.spells.primitives.base import Effect, Primitive, affected_minions, signed, with_stats
from engine.spells.vocab import STATS

if TYPE_CHECKING:
    from engine.spells.effects import EffectContext


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


PRIMITIVES = (
    Primitive(
        "damage",
        (
            Key("amount", "int", required=True, minimum=1),
            Key("power_scaled", "bool", default=False),
        ),
        lambda p: (
            "Deals damage equal to the chosen power level to each affected minion."
            if p.flag("power_scaled")
            else f"Deals {p.num('amount')} damage to each affected minion."
        ),
        _damage,
    ),
    Primitive(
        "heal",
        (Key("amount", "int", minimum=1), Key("full", "bool", default=False)),
        lambda p: (
            "Fully heals each affected minion."
            if p.flag("full")
            else f"Heals {p.num('amount')} hit points of each affected minion."
        ),
        _heal,
    ),
    Primitive("kill", (), lambda p: "Each affected minion dies.", _kill),
    Primitive("remove", (), lambda p: "Each affected minion is removed from the game.", _remove),
    Primitive(
        "adjust",
        (
            Key("stat", "str", required=True, choices=STATS),
            Key("amount", "int", required=True),
        ),
        lambda p: (
            f"Permanently changes {p.text('stat').replace('_', ' ')} of each affected "
            f"minion by {signed(p.num('amount'))}."
        ),
        _adjust,
    ),
)
